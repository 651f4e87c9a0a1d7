"""Detection by content: of several readers whose sniff accepts a file, the one that uses the most
of it wins, whatever the registry order; `--debug` shows the runner-up and both scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest.base import make_probe
from logsleuth.ingest.detect import choose, readers, sniff_safely

FIX = Path(__file__).parent / "fixtures" / "ingest"
GEMINI_STREAM = FIX / "gemini_stream" / "oneshot-prompt-08.jsonl"
MINI_TRAJ = FIX / "swe_agent" / "pydata__xarray-4629.traj.json"


def _accepting(path: Path) -> list[str]:
    probe = make_probe(str(path))
    return [r.name for r in readers() if sniff_safely(r, probe) and r.name != "text"]


@pytest.fixture
def stream_without_init(tmp_path: Path) -> Path:
    """The real stream-json events without the CLI banner and the `init` event (whole lines cut):
    its first record is then a `message` with a role, which the OpenAI message reader accepts."""
    lines = [x for x in GEMINI_STREAM.read_text().splitlines() if x.startswith("{")]
    assert json.loads(lines[0])["type"] == "init"
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(lines[1:]) + "\n")
    return path


def test_stream_json_read_by_the_reader_that_uses_it(stream_without_init: Path) -> None:
    assert _accepting(stream_without_init) == ["gemini-stream", "openai-messages"]
    choice = choose(make_probe(str(stream_without_init)))
    assert choice.spec.name == "gemini-stream"
    best, runner = choice.scores
    records = [json.loads(x) for x in stream_without_init.read_text().splitlines()]
    tools = sum(r["type"] in ("tool_use", "tool_result") for r in records)
    assert (best.used, best.tools) == (len(records), tools)
    assert runner.format == "openai-messages" and runner.used < best.used and runner.tools == 0


def test_message_per_line_trajectory_goes_to_the_reader_that_reads_it(tmp_path: Path) -> None:
    """mini-swe-agent messages one per line (as converters write them): the swe-agent and the
    message reader take every line and find the same fenced commands and `<returncode>` replies
    (one shared pass), so the tie goes to the more specific reader, swe-agent, by registry order."""
    messages = json.loads(MINI_TRAJ.read_text())["messages"]
    path = tmp_path / "traj.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    assert _accepting(path) == ["swe-agent", "openai-messages"]
    choice = choose(make_probe(str(path)))
    assert choice.spec.name == "swe-agent"
    best, runner = choice.scores
    assert best.used == runner.used == len(messages)
    assert runner.format == "openai-messages" and runner.tools == best.tools > 0
    t = ingest.read(str(path))
    assert t.report.format == "swe-agent"
    assert t.report.used == len(messages) and t.report.skipped == ()


def test_debug_shows_the_runner_up(stream_without_init: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--debug", "events", str(stream_without_init)]) == 0
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("logsleuth: debug:")]
    assert len(err) == 1
    assert "read as gemini-stream (uses 6 of 6 sample lines, 2 tool calls/results)" in err[0]
    assert "runner-up openai-messages (uses 3 of 6" in err[0]


def test_no_debug_line_without_debug(stream_without_init: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(stream_without_init)]) == 0
    assert "debug" not in capsys.readouterr().err


@pytest.mark.parametrize("path", sorted(p for p in FIX.glob("*/*") if p.is_file() and p.suffix != ".md"),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixtures_claimed_by_one_reader_keep_it(path: Path) -> None:
    probe = make_probe(str(path))
    choice = choose(probe)
    first = next(r.name for r in readers() if sniff_safely(r, probe))
    assert choice.spec.name == first and choice.scores == ()
