"""Smoke run of the coverage-guided fuzzer (robustness_covfuzz.py; the long run: bench/fuzz_cov.py):
a few seconds over three readers and the whole analysis; no crash, no super-linear case, and the
coverage feedback must add inputs to the corpus (else the guidance is dead)."""

from __future__ import annotations

from pathlib import Path

from robustness_covfuzz import fuzz
from robustness_fuzz import FORMATS, fmt_id

SMOKE = ("claude-code:jsonl", "codex:jsonl", "text")


def test_coverage_guided_smoke_run(tmp_path: Path) -> None:
    targets = tuple(f for f in FORMATS if fmt_id(f) in SMOKE)
    rep = fuzz(3.0, tmp_path / "case", seed=7, slow_s=5.0, targets=targets, min_cases=8)
    assert rep.failures == {}, "\n".join(f"{t}: {sig}" for sig, (t, _) in rep.failures.items())
    assert rep.slow == []
    assert rep.cases >= 8
    assert sum(rep.corpus_growth.values()) > 0
