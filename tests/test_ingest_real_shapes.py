"""Readers on real files (issue 15): every tool call read, nothing dropped in silence.

Each fixture's tool calls are counted here with a few lines of json/re, independently of the
readers, and the readers must find exactly that many.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest import coverage
from logsleuth.model import Transcript

FIX = Path(__file__).parent / "fixtures" / "ingest"
GEMINI_STREAM = FIX / "gemini_stream" / "oneshot-prompt-08.jsonl"
MINI_TRAJ = FIX / "swe_agent" / "pydata__xarray-4629.traj.json"
MINIMAL = FIX / "openai" / "spotter-8463c716.minimal.jsonl"
BLOCK_LIST = FIX / "openai" / "benign-debugging.jsonl"


def _kind(t: Transcript, kind: str) -> pl.DataFrame:
    return t.events.filter(pl.col("kind").cast(pl.Utf8) == kind)


def test_gemini_stream_json_is_read_whole() -> None:
    lines = GEMINI_STREAM.read_text().splitlines()
    records = [json.loads(x) for x in lines if x.startswith("{")]
    uses = sum(r["type"] == "tool_use" for r in records)
    assert uses == 1  # the file as published: one google_web_search call
    t = ingest.read(str(GEMINI_STREAM))
    assert t.report.format == "gemini-stream"
    assert t.report.skipped == () and t.report.balanced
    assert t.report.ignored == 3  # the CLI's banner lines, not JSON
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls.height == uses and results.height == uses
    assert calls["tool"][0] == "google_web_search"
    assert results["call_id"][0] == calls["call_id"][0]
    assert results["is_error"][0] is False and "capital of columbia" in results["text"][0]
    reply = t.events.filter((pl.col("role").cast(pl.Utf8) == "assistant") & (pl.col("kind").cast(pl.Utf8) == "text"))
    assert reply["text"].to_list() == ["Bogotá is the capital and largest city of Colombia."]  # deltas joined
    assert t.events["ts"].null_count() == 0
    assert set(t.events["session"]) == {"b35ecd66-4ed8-43cd-b73b-9dd2eb9b2f4e"}


def test_mini_swe_agent_trajectory_reads_every_command() -> None:
    doc = json.loads(MINI_TRAJ.read_text())
    msgs = doc["messages"]
    observed = [m for m in msgs if m["role"] == "user" and "<returncode>" in m["content"]]
    submitted = [
        i for i, m in enumerate(msgs)
        if m["role"] == "assistant" and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in m["content"] and i + 1 < len(msgs)
    ]
    failed = [m for m in observed if not re.search(r"<returncode>0</returncode>", m["content"])]
    assert (len(observed), len(submitted), len(failed)) == (17, 1, 2)
    t = ingest.read(str(MINI_TRAJ))
    assert t.report.format == "swe-agent"
    assert t.report.skipped == () and t.report.balanced
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls.height == results.height == 18
    assert results.filter(pl.col("is_error"))["exit_code"].to_list() == [1, 1]
    assert "test session starts" in results.filter(pl.col("is_error"))["text"][0]
    assert calls["text"][-1].startswith("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
    assert results["text"][-1].startswith("diff --git")
    assert set(t.events["session"]) == {"pydata__xarray-4629"}


def test_message_lines_with_a_content_object(tmp_path: Path) -> None:
    # the smallest case, written here; the real file is in test_real_message_lines_with_a_content_object
    lines = [
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "pytest -q"}}},
        {"role": "user", "content": {"type": "tool_result", "tool_use_id": "c1", "is_error": True,
                                     "content": [{"type": "text", "text": "Exit code 1\nE   ImportError: no module"}]}},
    ]
    path = tmp_path / "mirror.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    t = ingest.read(str(path))
    assert t.report.format == "openai-messages" and t.report.ignored == 0
    call, result = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert call["text"].to_list() == ["pytest -q"] and call["tool"].to_list() == ["Bash"]
    assert result["is_error"].to_list() == [True] and result["exit_code"].to_list() == [1]
    assert "ImportError" in result["text"][0] and result["tool"].to_list() == ["Bash"]


def test_real_message_lines_with_a_content_object() -> None:
    # a real Claude Code session converted by a real converter (see fixtures/ingest/openai/SOURCE.md)
    records = [json.loads(x) for x in MINIMAL.read_text().splitlines()]
    blocks = [r["content"] for r in records]
    uses = {b["id"]: b for b in blocks if b["type"] == "tool_use"}
    outs = [b for b in blocks if b["type"] == "tool_result"]
    errors = [b["tool_use_id"] for b in outs if b.get("is_error")]
    assert (len(uses), len(outs), len(errors)) == (11, 11, 4)  # the file as cut
    t = ingest.read(str(MINIMAL))
    assert t.report.format == "openai-messages"
    assert t.report.skipped == () and t.report.ignored == 0 and t.report.balanced
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls["call_id"].to_list() == list(uses)
    assert calls["tool"].to_list() == [b["name"] for b in uses.values()]
    bash = calls.filter(pl.col("tool") == "Bash")
    assert bash["text"].to_list() == [b["input"]["command"] for b in uses.values() if b["name"] == "Bash"]
    assert results["call_id"].to_list() == [b["tool_use_id"] for b in outs]
    assert results["tool"].to_list() == [uses[b["tool_use_id"]]["name"] for b in outs]
    failed = results.filter(pl.col("is_error"))
    assert failed["call_id"].to_list() == errors
    assert failed["exit_code"].to_list() == [1, 2, None, 128]
    assert '✘ [ERROR] Could not resolve "js/app.js"' in failed["text"][0]
    assert "Sibling tool call errored" in failed["text"][2]
    for b, text in zip(outs, results["text"], strict=True):  # every result's text, empty ones too
        body = b["content"] if isinstance(b["content"], str) else "\n".join(p["text"] for p in b["content"])
        assert text == body.strip()


def test_message_lines_with_a_list_of_anthropic_blocks() -> None:
    records = [json.loads(x) for x in BLOCK_LIST.read_text().splitlines()]
    blocks = [b for r in records for b in r["content"]]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    outs = [b for b in blocks if b["type"] == "tool_result"]
    assert (len(records), len(uses), len(outs)) == (10, 4, 4)  # the file as published
    t = ingest.read(str(BLOCK_LIST))
    assert t.report.format == "openai-messages"
    assert (t.report.used, t.report.ignored, t.report.skipped) == (10, 0, ())
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls["call_id"].to_list() == [b["id"] for b in uses]
    assert calls["tool"].to_list() == ["Bash", "Read", "Edit", "Bash"]
    assert calls["text"][0] == uses[0]["input"]["command"]
    assert results["call_id"].to_list() == [b["tool_use_id"] for b in outs]
    assert results["tool"].to_list() == calls["tool"].to_list()
    assert results["text"].to_list() == [b["content"].strip() for b in outs]
    assert "test_parse_csv_with_headers FAILED" in results["text"][0]
    said = t.events.filter(pl.col("role").cast(pl.Utf8) == "assistant")
    assert said.filter(pl.col("kind").cast(pl.Utf8) == "reasoning").height == 3  # the thinking blocks
    assert said.filter(pl.col("kind").cast(pl.Utf8) == "text").height == 5


def test_aider_headings_inside_an_edit_block_are_file_text(tmp_path: Path) -> None:
    text = (
        "# aider chat started at 2026-01-05 10:00:00\n\n#### fix the readme\n\nREADME.md\n```\n"
        "<<<<<<< SEARCH\n#### Usage\n=======\n#### Usage (updated)\n>>>>>>> REPLACE\n```\n\n"
        "> Applied edit to README.md\n"
    )
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text)
    t = ingest.read(str(path))
    users = t.events.filter(pl.col("role").cast(pl.Utf8) == "user")["text"].to_list()
    assert users == ["fix the readme"]
    reply = t.events.filter(pl.col("role").cast(pl.Utf8) == "assistant")["text"][0]
    assert "#### Usage (updated)" in reply


def test_under_read_input_warns_once_and_strict_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    bad = FIX / "gemini" / "bad.jsonl"
    found = coverage.under_read(ingest.read(str(bad)))
    assert len(found) == 1 and found[0].skipped > 0
    assert main(["graph", str(bad)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"logsleuth: warning: {bad}: ") and "%) skipped" in err[0]
    assert main(["graph", "--strict", str(bad)]) == 3
    assert main(["classify", "--strict", str(bad)]) == 3
    assert main(["graph", "--strict", str(GEMINI_STREAM)]) == 0  # read whole: nothing to say


def test_no_tool_call_in_a_transcript_with_assistant_turns(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n"
                    + json.dumps({"role": "assistant", "content": "I ran `make` and it failed."}) + "\n")
    (found,) = coverage.under_read(ingest.read(str(path)))
    assert "no tool call" in found.warning()
    assert "not one tool call" in found.sentence()


def test_postmortem_names_the_other_sessions(shared: Path) -> None:
    t = ingest.read(str(shared / "samples" / "aider" / "aider.chat.history.md"))
    sessions = t.events["session"].unique().to_list()
    assert len(sessions) == 4
    (note,) = coverage.intro_notes(t, sessions[0])
    assert note.startswith("The file holds 4 sessions") and all(s in note for s in sessions[1:])


def test_auto_roots_prefer_the_opencode_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from logsleuth.index import files as index_files

    home, data = tmp_path / "home", tmp_path / "data"
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    (data / "opencode" / "storage").mkdir(parents=True)
    assert index_files.auto_roots() == [str(data / "opencode" / "storage")]
    (data / "opencode" / "opencode.db").write_bytes(b"SQLite format 3\x00")
    assert index_files.auto_roots() == [str(data / "opencode" / "opencode.db")]
