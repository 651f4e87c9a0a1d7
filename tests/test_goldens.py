"""reports/ holds the postmortem of every sample; regenerating them must give the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.render import goldens

ROOT = Path(__file__).resolve().parent.parent


def _cases() -> list[tuple[str, str, str]]:
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return goldens.cases()
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize(("case", "fmt", "path"), _cases(), ids=lambda v: str(v))
def test_golden_report_is_current(case: str, fmt: str, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    target = goldens.target(case, fmt)
    assert target.is_file(), f"{target} missing: run `python -m logsleuth.render.goldens`"
    assert goldens.render(path) == target.read_text(), f"{target} is stale: run `python -m logsleuth.render.goldens`"


def test_every_sample_has_a_report() -> None:
    cases = _cases()
    assert {c for c, _, _ in cases} >= {"sglang-sm120", "flash-attn-abi", "vllm-arch", "nccl-timeout", "no-cuda"}
    assert len(cases) >= 9
