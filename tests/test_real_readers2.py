"""Issue 32's done-when, on 16 public transcripts the project had not used (tests/real_readers2/,
counted by count_truth.py from the files alone before logsleuth read them): detected without
--format, every tool call and result read and paired by id, counts exact, results with text where
the file holds text, and no loss in silence (an agent transcript of a shape no reader knows warns)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from logsleuth import ingest
from logsleuth.errors import LogsleuthError
from logsleuth.ingest import coverage

HERE = Path(__file__).parent / "real_readers2"
COUNTS = json.loads((HERE / "counts.json").read_text())


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"real_readers2_{name}", HERE / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_counts_are_what_the_independent_count_says() -> None:
    truth = _module("count_truth")
    assert {f"{p.parent.name}/{p.name}": truth.count(p) for p in truth.transcripts()} == COUNTS


def test_enough_files_and_formats() -> None:
    score = _module("score")
    assert len(COUNTS) >= 12
    assert len({score.expected_formats(name)[0] for name in COUNTS}) >= 6


def test_every_transcript_has_its_source() -> None:
    for name in COUNTS:
        keys = {line.split(":", 1)[0] for line in ((HERE / name).parent / "SOURCE.txt").read_text().splitlines()}
        assert {"repo", "path", "commit", "cut", "licence"} <= keys, name


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_read_exactly(name: str) -> None:
    score = _module("score")
    got = score.read_counts(HERE / name)
    want = COUNTS[name]
    assert got["format"] in score.expected_formats(name)
    for key in ("tool_calls", "tool_results", "paired", "results_with_text"):
        assert got[key] == want[key], key
    assert got["unread"] == 0
    t = ingest.read(str(HERE / name))
    if want["tool_calls"]:
        assert not coverage.under_read_quiet(t), name


def _unknown_transcript(tmp_path: Path) -> Path:
    path = tmp_path / "agent.jsonl"
    rows = [
        {"actor": "agent", "role": "agent", "event": "tool_use", "name": "bash", "input": {"command": "ls"}},
        {"actor": "agent", "role": "tool", "event": "tool_result", "output": "a b"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_an_unknown_agent_transcript_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = ingest.read(str(_unknown_transcript(tmp_path)))
    assert t.report.format == "text"
    coverage.check(t)
    err = capsys.readouterr().err
    assert "JSON records of an agent transcript" in err and "no tool call read" in err
    assert any("no reader knows their shape" in s for s in coverage.intro_notes(t, ""))
    with pytest.raises(LogsleuthError):
        coverage.check(t, strict=True)


def test_a_plain_json_log_does_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "app.jsonl"
    path.write_text('{"timestamp": "x", "level": "INFO", "message": "up"}\n{"timestamp": "y", "level": "INFO", "message": "down"}\n')
    coverage.check(ingest.read(str(path)))
    assert "warning" not in capsys.readouterr().err


def test_forced_text_names_the_managed_agent_reader() -> None:
    path = HERE / "managed-hraq" / "transcript.jsonl"
    found = coverage.under_read(ingest.read(str(path), "text"))
    assert found and found[0].suggestion == "managed-agent"


@pytest.mark.parametrize("name", [n for n in sorted(COUNTS) if n.startswith(("codex-", "gemini-stream-", "managed-"))])
def test_user_turns_and_one_session(name: str) -> None:
    """The prompts the file logs are the user turns (a Codex user item with no `user_message` twin is
    injected context), and a stream's prompt line before `init` is in the run's one session."""
    t = ingest.read(str(HERE / name))
    users = t.events.filter((t.events["role"].cast(str) == "user") & (t.events["kind"].cast(str) == "text"))
    assert users.height == COUNTS[name]["user_turns"]
    assert t.events.get_column("session").n_unique() == 1
