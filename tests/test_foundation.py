from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest
from typer.testing import CliRunner

from logsleuth.cli import app, main
from logsleuth.errors import ExitCode, InputError, Location, UsageError, exit_code_for
from logsleuth.ingest.base import EventSink, ReportBuilder, parse_ts, transcript
from logsleuth.model import EVENT_SCHEMA, Severity


def test_event_schema_matches_architecture() -> None:
    assert list(EVENT_SCHEMA) == [
        "session", "source", "line", "seq", "ts", "role", "kind", "tool", "call_id", "text", "is_error", "exit_code",
        # the normalised tool call (ingest/tools.py), added after the columns ARCHITECTURE.md lists
        "tool_kind", "command", "paths", "changes", "added", "removed", "background",
    ]
    assert EVENT_SCHEMA["ts"] == pl.Datetime("us", "UTC")


def test_sink_assigns_seq_per_session_and_strips_nul() -> None:
    sink = EventSink("s1", "a.jsonl")
    sink.add(line=1, role="user", kind="text", text="hi\x00")
    sink.add(line=2, role="assistant", kind="text", text="yo", ts="2026-01-02T03:04:05Z")
    sink.add(line=3, role="assistant", kind="text", text="sub", session="s2")
    rep = ReportBuilder("a.jsonl", "x")
    rep.lines, rep.used = 3, 3
    t = transcript(sink, rep)
    assert t.events["seq"].to_list() == [0, 1, 0]
    assert t.events["text"][0] == "hi"
    assert t.report.balanced and t.report.events == 3


def test_sink_strips_terminal_sequences_from_every_reader_s_text() -> None:
    # coloured tool output hid `PASSWORD: X` from masking (the colour code sat between key and value)
    sink = EventSink("s1", "a.jsonl")
    sink.add(line=1, role="tool", kind="tool_result",
             text="\x1b[1mPOSTGRES_PASSWORD\x1b[0m: Pw1\x1b]0;title\x07 \x1b]8;;http://x\x1b\\link\x1bM")
    assert transcript(sink, ReportBuilder("a.jsonl", "x")).events["text"][0] == "POSTGRES_PASSWORD: Pw1 link"


def test_parse_ts_variants() -> None:
    assert parse_ts("2026-01-02T03:04:05.123Z").isoformat() == "2026-01-02T03:04:05.123000+00:00"
    assert parse_ts(1767322800000) == parse_ts(1767322800)
    assert parse_ts("garbage") is None and parse_ts(None) is None and parse_ts(True) is None


def test_severity_order() -> None:
    assert Severity.FATAL.rank > Severity.ERROR.rank > Severity.WARNING.rank > Severity.SUCCESS.rank
    assert Severity.ERROR.is_failure and not Severity.WARNING.is_failure


def test_error_one_line_and_exit_codes() -> None:
    e = InputError("bad json", Location("a.jsonl", 7), "fix it")
    assert e.one_line() == "a.jsonl:7: bad json (hint: fix it)"
    assert exit_code_for(e) == ExitCode.INPUT == 3
    assert exit_code_for(UsageError("x")) == 2
    assert exit_code_for(RuntimeError("x")) == ExitCode.INTERNAL


def test_cli_missing_file_is_input_error(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["events", "does/not/exist.jsonl"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does/not/exist.jsonl" in err and "Traceback" not in err


def test_cli_unknown_flag_is_usage_error() -> None:
    assert main(["events", "--nope", "x"]) == 2


def test_help_via_runner_and_module() -> None:
    assert CliRunner().invoke(app, ["--help"]).exit_code == 0
    out = subprocess.run([sys.executable, "-m", "logsleuth", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "events" in out.stdout


def test_event_sink_parts_give_the_same_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sink turns its columns into polars parts as it goes (memory); the frame is the same."""

    def fill(sink: EventSink) -> None:
        for i in range(50):
            sink.add(line=i + 1, role="assistant", kind="text", text="x" * (i % 7) + "\ud800" * (i == 33),
                     session="a" if i % 3 else "b", ts="2026-01-01T00:00:00Z" if i % 2 else None)

    whole = EventSink("s", "src")
    fill(whole)
    monkeypatch.setattr(EventSink, "FLUSH_CHARS", 10)
    parted = EventSink("s", "src")
    fill(parted)
    assert len(parted._parts) > 3 and len(parted) == len(whole) == 50
    assert parted.frame().equals(whole.frame())
