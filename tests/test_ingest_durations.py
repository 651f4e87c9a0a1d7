"""A record with one timestamp says when a session began, not how long it ran: its duration is
unknown (null), never "0 minutes", in `sessions` (table and JSON) and in the postmortem."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from logsleuth import facts
from logsleuth.cli import main

AIDER = Path(__file__).parent / "fixtures" / "ingest" / "aider" / "sglang.aider.chat.history.md"
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 5, 10, 38, 12, tzinfo=UTC)


def test_span_of_one_timestamp_is_unknown() -> None:
    assert facts.span_minutes(T0, T0) is None
    assert facts.span_minutes(None, T0) is None and facts.span_minutes(T0, None) is None
    assert facts.span_minutes(T0, T1) == 38


def test_duration_counts_distinct_timestamps() -> None:
    stamps = [T0, None, T0]
    assert facts.span(stamps) == facts.Span(start=T0, end=T0, minutes=None, stamps=1)
    assert facts.span([None]) == facts.Span(start=None, end=None, minutes=None, stamps=0)
    assert facts.span([*stamps, T1]).minutes == 38


def test_human_minutes() -> None:
    assert facts.human_minutes(None, 1) == "an unknown span (the record has one timestamp)"
    assert facts.human_minutes(None, 0) == facts.human_minutes(None) == "an unknown time"
    assert facts.human_minutes(0, 2) == "less than a minute"
    assert facts.human_minutes(1) == "1 minute" and facts.human_minutes(38) == "38 minutes"
    assert facts.human_minutes(125) == "2 h 05 min"


@pytest.fixture
def aider_alone(tmp_path: Path) -> Path:
    """The chat history without its `.aider.input.history`: one stamp (the header) per session."""
    path = tmp_path / ".aider.chat.history.md"
    shutil.copy(AIDER, path)
    return path


def _headers(path: Path) -> int:
    return sum(bool(re.match(r"# aider chat started at \d{4}-", ln)) for ln in path.read_text().splitlines())


def test_sessions_json_and_table_say_unknown(aider_alone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "-O", "json", str(aider_alone)]) == 0
    rows = json.loads(capsys.readouterr().out)["sessions"]
    assert len(rows) == _headers(aider_alone) == 2
    assert [r["minutes"] for r in rows] == [None, None]
    assert all(r["start"] for r in rows)  # the one stamp still says when
    assert main(["sessions", str(aider_alone)]) == 0
    table = capsys.readouterr().out
    assert table.count("unknown") == 2 and "0 min" not in table


def test_postmortem_says_unknown_not_zero(aider_alone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(aider_alone)]) == 0
    md = capsys.readouterr().out
    intro = next(ln for ln in md.splitlines() if ln.startswith("The record ("))
    assert "over 0 minutes" not in intro and "over an unknown" in intro
    assert main(["analyze", "-O", "json", str(aider_alone)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["intro"]["minutes"] is None and doc["intro"]["start"]


def _log(tmp_path: Path, stamps: list[str]) -> Path:
    path = tmp_path / "serve.log"
    lines = [f"{s} INFO step {i}" for i, s in enumerate(stamps)]
    path.write_text("\n".join(["starting server", *lines, "RuntimeError: CUDA error: out of memory"]) + "\n")
    return path


@pytest.mark.parametrize(("stamps", "minutes"), [
    (["2026-01-05 10:00:00"], None),
    (["2026-01-05 10:00:00", "2026-01-05 10:00:00"], None),
    (["2026-01-05 10:00:00", "2026-01-05 10:12:00"], 12),
], ids=["one-stamp", "one-stamp-twice", "two-stamps"])
def test_plain_log_duration(tmp_path: Path, stamps: list[str], minutes: int | None,
                            capsys: pytest.CaptureFixture[str]) -> None:
    path = _log(tmp_path, stamps)
    assert main(["sessions", "-O", "json", str(path)]) == 0
    (row,) = json.loads(capsys.readouterr().out)["sessions"]
    assert row["start"] == "2026-01-05T10:00:00Z" and row["minutes"] == minutes
    assert main(["analyze", "-O", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["intro"]["minutes"] == minutes
