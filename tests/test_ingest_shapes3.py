"""Shapes met in the third batch of public transcripts (tests/real_readers3 is not shipped: its
sources carry no licence; the batch and its counts live with the bench, see bench/results-readers.md).
Each test builds the shape in miniature, as the real file lays it out."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from logsleuth import ingest
from logsleuth.ingest.coverage import _names_tools


def _events(path: Path) -> list[dict]:
    t = ingest.read(str(path))
    assert t.report.balanced
    return t.events.to_dicts()


def _kind(rows: list[dict], kind: str) -> list[dict]:
    return [r for r in rows if str(r["kind"]) == kind]


def test_cline_results_pair_by_position_and_the_harness_is_not_the_user(tmp_path: Path) -> None:
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nmake the tests pass\n</task>"},
                                     {"type": "text", "text": "<environment_details>\n# VSCode Open Tabs\n</environment_details>"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "c2", "name": "execute_command", "input": {"command": "npm test"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'npm test'] Result:\nCommand executed.\nOutput:\n1 failed"},
            {"type": "text", "text": "[read_file for 'a.py'] Result:\nprint(1)"},
            {"type": "text", "text": "# TODO LIST UPDATE REQUIRED - include task_progress"}]},
    ]
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(msgs))
    assert ingest.read(str(path)).report.format == "cline"
    rows = _events(path)
    results = {r["call_id"]: r["text"] for r in _kind(rows, "tool_result")}
    assert results == {"c2": "Command executed.\nOutput:\n1 failed", "c1": "print(1)"}  # same tool first
    calls = {r["call_id"]: r["text"] for r in _kind(rows, "tool_call")}
    assert calls["c2"] == "npm test"
    users = [r["text"] for r in rows if str(r["role"]) == "user" and str(r["kind"]) == "text"]
    assert users == ["<task>\nmake the tests pass\n</task>"]


def test_a_mirrored_block_log_names_its_ids_tool_id_and_its_output_output(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": {"type": "text", "text": "run the tests"}},
        {"role": "assistant", "content": {"type": "tool_use", "tool_name": "Bash", "tool_id": "t1",
                                          "input": {"command": "pytest -q"}}},
        {"role": "tool", "content": {"type": "tool_result", "tool_id": "t1", "output": "1 failed"}},
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows = _events(path)
    (call,) = _kind(rows, "tool_call")
    (result,) = _kind(rows, "tool_result")
    assert (call["call_id"], call["text"], result["call_id"], result["text"]) == ("t1", "pytest -q", "t1", "1 failed")


def test_a_mini_swe_agent_fork_answers_with_a_dict_observation(tmp_path: Path) -> None:
    doc = {"trajectory_format": "mini-swe-agent-1", "info": {}, "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": "Install the repo"}]},
        {"role": "assistant", "content": "THOUGHT: clone it.\n\n```bash\ngit clone https://x/y\n```"},
        {"role": "user", "content": [{"type": "text", "text": "Observation: {'output': 'fatal: repository not found\\n', 'returncode': 128}"}]},
        {"role": "assistant", "content": "THOUGHT: nothing to do.\n\n```bash\ntrue\n```"},
        {"role": "user", "content": "Observation: {'output': '', 'returncode': 0}"},
    ]}
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(doc))
    rows = _events(path)
    results = _kind(rows, "tool_result")
    assert [(r["text"], r["exit_code"]) for r in results] == [("fatal: repository not found", 128), ("", 0)]
    assert [r["text"] for r in _kind(rows, "tool_call")] == ["git clone https://x/y", "true"]


def test_an_aider_reply_cut_inside_a_fence_ends_at_the_next_typed_command(tmp_path: Path) -> None:
    text = ("# aider chat started at 2026-05-04 01:24:27\n\n#### change the banner  \n\n"
            "Here's the updated file:\n\nlauncher.py\n```\nprint('hi')\n\n"
            "#### /git reset --hard  \n> HEAD is now at a137604 UPDATE  \n\n"
            "#### /git restore launcher.py  \n>  \n")
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text)
    rows = _events(path)
    assert [r["text"] for r in _kind(rows, "tool_call")] == ["reset --hard", "restore launcher.py"]
    assert [r["text"] for r in _kind(rows, "tool_result")] == ["HEAD is now at a137604 UPDATE", ""]


def test_genai_spans_read_as_text_are_named_a_transcript() -> None:
    span = {"name": "coding_agent.tool.requested", "attributes": {
        "gen_ai.tool.call.id": "x", "gen_ai.input.messages": json.dumps([{"role": "user", "parts": []}])}}
    assert _names_tools(pl.DataFrame({"text": [json.dumps(span)]}))
