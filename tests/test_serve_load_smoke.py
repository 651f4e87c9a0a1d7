"""bench/serve_load.py keeps working: a few clients for a few seconds against a real `logsleuth serve`.
Not a timing test: every kind of request is asked and answered 200, and the figures are printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parent.parent


def test_the_load_bench_runs(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "serve_load.py"), "--data", str(tmp_path), "--runs", "1",
                        "--clients", "8", "--think", "0.05", "--seconds", "6", "--warmup", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "run 1:" in r.stdout and "errors: none" in r.stdout, r.stdout  # every answer a 200
    for kind in ("results", "search", "home", "sessions", "session", "fingerprint"):  # a postmortem may outlast 6 s
        assert f"    {kind} " in r.stdout, (kind, r.stdout)
    assert "CPU in the measured 6 s: server" in r.stdout
