"""The benchmark keeps working: `python bench/run.py --smoke` at a few MB, one run each.

Not a timing test: it checks that every workload ran and was reported, that the inputs are
deterministic, that the exported patterns are ones ripgrep accepts, and that rg/jq comparisons
are skipped (and said so) when those tools are absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "bench" / "run.py"


def _bench(tmp: Path, *args: str, env: dict[str, str] | None = None) -> str:
    results = tmp / "results.md"
    proc = subprocess.run(
        [sys.executable, str(RUN), "--smoke", "--data", str(tmp / "data"), "--results", str(results), *args],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return results.read_text()


def test_smoke_runs_every_workload(tmp_path: Path) -> None:
    text = _bench(tmp_path)
    for row in ("| classify big.log | logsleuth classify |", "| analyze big-session.jsonl | logsleuth analyze",
                "| logsleuth index |", "| search (CLI, per query) |", "| start-up | logsleuth --help |",
                "| start-up | logsleuth classify small.log |"):
        assert row in text, row
    assert "`logsleuth classify` imports spaCy: no" in text
    if shutil.which("rg"):
        assert "rg -f patterns.rg (" in text and "logsleuth/rg = " in text
        assert "rg rejected" not in text
    if shutil.which("jq"):
        assert "logsleuth/jq = " in text


def test_peers_absent_are_skipped_and_inputs_are_deterministic(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path / "no-tools"))  # neither rg nor jq on PATH
    text = _bench(tmp_path, "--only", "classify,analyze", env=env)
    assert "ripgrep (rg) not installed: rg comparisons skipped" in text
    assert "jq not installed: jq comparison skipped" in text
    assert "| classify big.log | logsleuth classify |" in text
    log = tmp_path / "data" / "big.log"
    digest = hashlib.sha256(log.read_bytes()).hexdigest()
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    again = tmp_path / "again.log"
    generate.write_log(again, 4 * 2**20, 7, generate.load_sources())  # the smoke size and seed
    assert hashlib.sha256(again.read_bytes()).hexdigest() == digest


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
def test_ripgrep_accepts_every_exported_pattern(tmp_path: Path) -> None:
    pats = tmp_path / "patterns.rg"
    out = subprocess.run([sys.executable, "-m", "logsleuth", "patterns", "export", "--rg"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "not ripgrep-compatible" not in out.stderr
    pats.write_text(out.stdout)
    log = ROOT / "sample_logs" / "sglang-sm120" / "server.log"
    rg = subprocess.run(["rg", "-f", str(pats), "--count", str(log)], capture_output=True, text=True)
    assert rg.returncode == 0, rg.stderr[:500]  # 2 would mean a rejected regex
    assert int(rg.stdout.strip()) > 0
