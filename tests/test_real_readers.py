"""The readers on public transcripts they were not written from (tests/real_readers/, SCORE.md):
detected without --format, every tool call and result read, counted as count_truth.py counts
them from the files alone, and nothing skipped in silence."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.errors import LogsleuthError
from logsleuth.ingest import coverage

HERE = Path(__file__).parent / "real_readers"
EXPECTED = json.loads((HERE / "expected.json").read_text())


def _truth_module():
    spec = importlib.util.spec_from_file_location("count_truth", HERE / "count_truth.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_expected_is_what_the_independent_count_says():
    truth = _truth_module()
    assert {f"{p.parent.name}/{p.name}": truth.count(p) for p in truth.transcripts()} == EXPECTED


def test_every_transcript_has_its_source():
    for name in EXPECTED:
        source = (HERE / name).parent / "SOURCE.txt"
        keys = {line.split(":", 1)[0] for line in source.read_text().splitlines()}
        assert {"repo", "path", "commit", "licence"} <= keys, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_calls_and_results_read_exactly(name: str):
    t = ingest.read(str(HERE / name))
    kinds = t.events.get_column("kind").cast(pl.Utf8)
    got = {"tool_calls": int((kinds == "tool_call").sum()), "tool_results": int((kinds == "tool_result").sum())}
    assert got == EXPECTED[name]
    assert t.report.balanced
    assert not coverage.under_read_quiet(t), "read whole: no line lost and no warning due"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_wrong_first_guess_is_rescued(name: str):
    """Whatever reader a sniff had wrongly picked, trying every reader on the first records finds
    the one detection picks (reading the file whole)."""
    from logsleuth.ingest.base import make_probe
    from logsleuth.ingest.detect import by_name, readers, rescue

    probe = make_probe(str(HERE / name))
    t = ingest.read(str(HERE / name))
    for wrong in readers():
        if wrong.name in (t.report.format, "text") or wrong.dirs:
            continue
        try:
            guess = ingest.read(str(HERE / name), wrong.name)
        except LogsleuthError:
            continue  # a reader that refuses the file outright is no first guess
        if len(guess.report.skipped) <= len(t.report.skipped) and guess.report.used >= t.report.used:
            continue  # this reader reads the file as well: no wrong guess to rescue
        found = rescue(probe, by_name(wrong.name))
        assert found is not None and found.name == t.report.format, (wrong.name, found and found.name)


CODEX = HERE / "codex-localpush-203425" / "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
# every command that reads an input: what the reader could not use is said, with the --format
# that reads more; --strict makes it exit 3 (docs/cli.md, exit codes)
READING = {
    "events": ["events", str(CODEX), "-O", "json"],
    "explain": ["explain", str(CODEX), "--message", "0"],
    "sessions": ["sessions", str(CODEX)],
    "analyze": ["analyze", str(CODEX), "-O", "json"],
    "classify": ["classify", str(CODEX)],
}


@pytest.mark.parametrize("command", sorted(READING))
def test_a_forced_wrong_reader_is_said_with_the_format_that_reads_more(command: str, capsys: pytest.CaptureFixture[str]):
    from logsleuth.cli import main

    main([*READING[command], "--format", "openai-messages"])
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("logsleuth: warning:")]
    assert len(warnings) == 1, warnings
    assert "63 of 63 lines (100 %) skipped as openai-messages" in warnings[0]
    assert warnings[0].endswith("try --format codex")


@pytest.mark.parametrize("command", sorted(READING))
def test_strict_turns_the_warning_into_exit_3(command: str, capsys: pytest.CaptureFixture[str]):
    from logsleuth.cli import main

    assert main([*READING[command], "--format", "openai-messages", "--strict"]) == 3
    assert "try --format codex" in capsys.readouterr().err


@pytest.mark.parametrize("command", sorted(READING))
def test_detected_reader_reads_whole_and_says_nothing(command: str, capsys: pytest.CaptureFixture[str]):
    from logsleuth.cli import main

    assert main([*READING[command], "--strict"]) in (0, 1)
    assert "warning" not in capsys.readouterr().err


def test_a_folder_walk_names_every_file_taken_or_not():
    """`index` over this folder: the transcripts are its inputs, and every other file (SOURCE.txt,
    the scripts, expected.json) is a `not used: why` line; none is dropped in silence."""
    not_used: list[str] = []
    found = ingest.discover(str(HERE), not_used)
    assert sorted(found) == sorted(str(HERE / name) for name in EXPECTED)
    said = {line.split(": ", 1)[0] for line in not_used}
    every = {str(p) for p in HERE.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert said | set(found) == every
    assert all("SOURCE.txt: notes beside the transcripts" in line for line in not_used if "SOURCE.txt" in line)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_reader_keeps_the_contract_on_every_file(name: str):
    """The one reader contract (ingest/base.py ReaderSpec): whichever reader is forced on a file,
    it refuses it with an input error or accounts for every line it was given."""
    from logsleuth.ingest.detect import readers

    for spec in readers():
        if spec.dirs and spec.name != "opencode-db":
            continue
        try:
            t = ingest.read(str(HERE / name), spec.name)
        except LogsleuthError:
            continue
        assert t.report.balanced, spec.name
        assert t.report.format == spec.name


def test_json_records_forced_through_plain_text_are_said(capsys: pytest.CaptureFixture[str]):
    """`--format text` on an opencode event stream reads every line, and loses every message and
    command: the warning and the report's introduction say so, and name the reader that reads it."""
    from logsleuth.cli import main

    stream = next((HERE / "opencode-events-real-session-action-buttons").glob("*.jsonl"))
    assert main(["analyze", str(stream), "--format", "text"]) == 0
    out, err = capsys.readouterr()
    assert "JSON records, read as plain text; try --format opencode-events" in err
    intro = out.split("## ", 2)[1]
    assert "JSON records read as plain text (the opencode-events reader reads them)" in intro
