"""mini-swe-agent trajectories written one message per line: the same tool calls and results as
the `.traj.json` document they were cut from, read by the same fence/returncode pass."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.model import Transcript

MINI_TRAJ = Path(__file__).parent / "fixtures" / "ingest" / "swe_agent" / "pydata__xarray-4629.traj.json"
_FENCE = re.compile(r"```(?:mswea_bash_command|bash)[ \t]*\n(.*?)\n?```", re.S)
_CODE = re.compile(r"<returncode>(-?\d+)</returncode>")
_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _kind(t: Transcript, kind: str) -> pl.DataFrame:
    return t.events.filter(pl.col("kind").cast(pl.Utf8) == kind)


def _expected(messages: list[dict[str, str]]) -> list[tuple[str, int | None]]:
    """(command, exit code) of every fenced command answered by the next message, counted with
    plain regexes over the messages (independently of the reader)."""
    out: list[tuple[str, int | None]] = []
    for msg, reply in itertools.pairwise(messages):
        blocks = _FENCE.findall(msg["content"]) if msg["role"] == "assistant" else []
        if len(blocks) != 1 or reply["role"] != "user":
            continue
        code = _CODE.search(reply["content"])
        if code or _SUBMIT in blocks[0]:
            out.append((blocks[0].strip(), int(code.group(1)) if code else 0))
    return out


@pytest.fixture
def lines_file(tmp_path: Path) -> Path:
    messages = json.loads(MINI_TRAJ.read_text())["messages"]
    path = tmp_path / "traj.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))  # whole messages, none edited
    return path


def test_message_lines_yield_every_command_and_result(lines_file: Path) -> None:
    messages = [json.loads(x) for x in lines_file.read_text().splitlines()]
    expected = _expected(messages)
    assert len(expected) == 18 and [c for _, c in expected].count(1) == 2  # the file as published
    t = ingest.read(str(lines_file))
    assert t.report.format == "swe-agent"
    assert t.report.used == len(messages) and t.report.skipped == () and t.report.balanced
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls["text"].to_list() == [cmd for cmd, _ in expected]
    assert set(calls["tool"]) == {"bash"}
    assert results["call_id"].to_list() == calls["call_id"].to_list()
    assert results["exit_code"].to_list() == [code for _, code in expected]
    assert results["is_error"].to_list() == [code != 0 for _, code in expected]
    failed = results.filter(pl.col("is_error"))
    assert "test session starts" in failed["text"][0] and "<returncode>" not in failed["text"][0]
    assert results["text"][-1].startswith("diff --git")  # the submission's reply: the final diff


def test_lines_and_document_give_the_same_events(lines_file: Path) -> None:
    doc, lines = ingest.read(str(MINI_TRAJ)), ingest.read(str(lines_file))
    cols = ["role", "kind", "tool", "text", "exit_code", "is_error"]
    assert lines.events.select(cols).equals(doc.events.select(cols))


def test_prose_around_the_block_is_kept_and_the_block_is_not_repeated(lines_file: Path) -> None:
    t = ingest.read(str(lines_file))
    said = t.events.filter((pl.col("role").cast(pl.Utf8) == "assistant") & (pl.col("kind").cast(pl.Utf8) == "text"))
    assert said.height == 18 and all("```bash" not in x for x in said["text"])
    assert said["text"][0].startswith("THOUGHT: I will start by listing the files")
    # a quoted ```python block before the command is prose, never the command (its closing
    # fence is not the opening of another block)
    quoted = [x for x in said["text"] if "```python" in x]
    assert len(quoted) == 1 and quoted[0].endswith('when `combine_attrs == "override"`.')
    assert _kind(t, "tool_call")["text"][4].startswith("sed -i '504s/return variable_attrs")


def test_a_block_left_unanswered_stays_text(tmp_path: Path) -> None:
    """A format-error reply (no `<returncode>`) means the block did not run: no tool call."""
    path = tmp_path / "t.jsonl"
    rows = [
        {"role": "user", "content": "fix it <returncode> tags follow"},
        {"role": "assistant", "content": "THOUGHT: two\n\n```bash\nls\n```\n\n```bash\npwd\n```"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
        {"role": "assistant", "content": "```mswea_bash_command\nfalse\n```"},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\n</output>"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    t = ingest.read(str(path))
    assert t.report.format == "swe-agent"
    assert _kind(t, "tool_call")["text"].to_list() == ["false"]
    assert _kind(t, "tool_result")[["exit_code", "is_error"]].rows() == [(1, True)]
    assert "```bash\npwd\n```" in _kind(t, "text")["text"][1]


def test_v2_lines_with_actions_and_an_exit_message(tmp_path: Path) -> None:
    """mini-swe-agent v2 (written here: no public v2 file was found): `extra.actions` holds the
    command, the submission is answered by the `exit` message, and a run ended by a limit says so."""
    rows = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the failing test."},
        {"role": "assistant", "content": "THOUGHT: run it\n\n```mswea_bash_command\npytest -q\n```",
         "extra": {"actions": [{"command": "pytest -q"}], "timestamp": 1767607200.0}},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\nE   AssertionError\n</output>",
         "extra": {"timestamp": 1767607260.0}},
        {"role": "assistant", "content": "```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```",
         "extra": {"actions": [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"}]}},
        {"role": "exit", "content": "diff --git a/x.py b/x.py\n", "extra": {"exit_status": "Submitted"}},
    ]
    path = tmp_path / "v2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    t = ingest.read(str(path))
    assert t.report.format == "swe-agent" and t.report.used == len(rows) and t.report.skipped == ()
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls["text"].to_list() == ["pytest -q", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"]
    assert results[["exit_code", "is_error"]].rows() == [(1, True), (0, False)]
    assert results["text"].to_list() == ["E   AssertionError", "diff --git a/x.py b/x.py"]
    assert t.events["ts"].drop_nulls().len() >= 2
    limited = tmp_path / "limited.jsonl"
    limited.write_text("".join(json.dumps(r) + "\n" for r in [
        *rows[:4], {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded"}}]))
    t = ingest.read(str(limited))
    assert t.report.skipped == () and _kind(t, "text")["text"][-1] == "LimitsExceeded"


@pytest.mark.parametrize("shape", ["lines", "document"])
def test_forced_openai_reader_reads_the_same_commands(
    shape: str, lines_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format openai-messages` on a trajectory: the fenced commands and their `<returncode>`
    replies are read by the same pass as under swe-agent, so the forced reader reports the same
    calls (and nothing to warn about), never a session without one command."""
    path = str(lines_file if shape == "lines" else MINI_TRAJ)
    messages = json.loads(MINI_TRAJ.read_text())["messages"]
    expected = _expected(messages)
    forced, own = ingest.read(path, "openai-messages"), ingest.read(path, "swe-agent")
    assert forced.report.format == "openai-messages" and forced.report.skipped == ()
    assert (forced.report.used, forced.report.ignored) == (own.report.used, own.report.ignored)
    cols = ["line", "role", "kind", "tool", "call_id", "text", "exit_code", "is_error"]
    assert forced.events.select(cols).equals(own.events.select(cols))
    assert _kind(forced, "tool_result")["exit_code"].to_list() == [code for _, code in expected]
    from logsleuth.cli import main

    assert main(["classify", "--format", "openai-messages", path]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_conversation_per_line_gives_each_step_its_own_call(tmp_path: Path) -> None:
    """The dataset shape (SWE-smith, SWE-Gym: one `{"messages": [...]}` trajectory per line):
    every step of a line is its own call, with its own id, answered by its own result."""
    messages = json.loads(MINI_TRAJ.read_text())["messages"]
    path = tmp_path / "dataset.jsonl"
    path.write_text("".join(json.dumps({"id": f"run{i}", "messages": messages}) + "\n" for i in range(2)))
    n = len(_expected(messages))
    for fmt in (None, "openai-messages"):  # found as swe-agent; the forced message reader agrees
        t = ingest.read(str(path), fmt)
        assert t.report.format == (fmt or "swe-agent")
        assert t.report.used == 2 and t.report.skipped == ()
        calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
        assert calls.height == results.height == 2 * n
        assert calls["call_id"].n_unique() == 2 * n
        assert results["call_id"].to_list() == calls["call_id"].to_list()
        assert sorted(set(t.events["session"])) == ["run0", "run1"]
