"""`index` says what it could not read, as `analyze` does: one stderr line per under-read file."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.cli import main

FIX = Path(__file__).parent / "fixtures" / "ingest"


def test_index_warns_on_low_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = FIX / "gemini" / "bad.jsonl"
    lines = bad.read_bytes().splitlines()
    assert main(["index", str(bad), "--db", str(tmp_path / "db")]) == 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("logsleuth: warning:")]
    assert len(err) == 1
    assert err[0].startswith(f"logsleuth: warning: {bad}: ")
    assert f"of {len(lines)} lines (" in err[0] and "%) skipped" in err[0]


def test_index_quiet_on_a_file_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = FIX / "gemini_stream" / "oneshot-prompt-08.jsonl"
    assert main(["index", str(good), "--db", str(tmp_path / "db")]) == 0
    assert "warning" not in capsys.readouterr().err
