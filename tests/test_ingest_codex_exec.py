"""Codex unified exec: a still-running command's polls are its output, not calls of their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from logsleuth import ingest
from logsleuth.ingest.codex_exec import poll_session, running_session

OLDTOOLS = Path(__file__).parent / "heldout_sessions" / "oldtools" / "session.jsonl"


def _item(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-03-01T10:00:00Z", "type": "response_item", "payload": payload}


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return _item({"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": cid})


def _out(cid: str, text: str) -> dict[str, Any]:
    return _item({"type": "function_call_output", "call_id": cid, "output": text})


RUNNING = "Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 3\nOutput:\nbuilding\n"
EXITED = "Chunk ID: b\nWall time: 2.0 seconds\nProcess exited with code {code}\nOriginal token count: 3\nOutput:\n{text}\n"


def _read(tmp_path: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = {"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta", "payload": {"id": "s1"}}
    p = tmp_path / "rollout-2026-03-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in [meta, *records]) + "\n")
    t = ingest.read(str(p), "codex")
    assert not t.report.skipped
    return [e for e in t.events.to_dicts() if e["kind"] in ("tool_call", "tool_result")]


def test_the_real_pip_build_error_is_the_install_commands_output() -> None:
    """Held-out oldtools: the C build error came in a poll; it belongs to the `pip install -e .` run."""
    t = ingest.read(str(OLDTOOLS))
    ev = t.events.to_dicts()
    assert not [e for e in ev if e["kind"] == "tool_call" and e["tool"] == "write_stdin"]
    calls = [e for e in ev if e["kind"] == "tool_call"]
    results = [e for e in ev if e["kind"] == "tool_result"]
    assert len(calls) == len(results) == 9  # the file holds 10 function calls, one a poll
    held = next(e for e in results if "setuptools>=64" in e["text"])
    assert "lvalue required as left operand of assignment" in held["text"]
    assert held["call_id"] == next(c["call_id"] for c in calls if c["text"].startswith("cat > pyproject.toml"))
    assert t.report.used + t.report.ignored + len(t.report.skipped) == sum(1 for _ in OLDTOOLS.open())


def test_polls_join_and_the_last_exit_code_counts(tmp_path: Path) -> None:
    ev = _read(tmp_path, [_call("c1", "exec_command", {"cmd": "make"}), _out("c1", RUNNING),
                          _call("p1", "write_stdin", {"session_id": 7, "chars": ""}), _out("p1", RUNNING.replace("building", "still")),
                          _call("p2", "write_stdin", {"session_id": 7, "chars": ""}), _out("p2", EXITED.format(code=2, text="error: boom"))])
    assert [(e["kind"], e["call_id"]) for e in ev] == [("tool_call", "c1"), ("tool_result", "c1")]
    assert ev[1]["text"] == "building\n\nstill\n\nerror: boom\n" and ev[1]["exit_code"] == 2 and ev[1]["is_error"]


def test_typed_input_and_a_new_command_keep_their_own_calls(tmp_path: Path) -> None:
    ev = _read(tmp_path, [_call("c1", "exec_command", {"cmd": "python"}), _out("c1", RUNNING),
                          _call("t1", "write_stdin", {"session_id": 7, "chars": "print(1)\n"}), _out("t1", EXITED.format(code=0, text="1")),
                          _call("c2", "exec_command", {"cmd": "ls"}), _out("c2", EXITED.format(code=0, text="a"))])
    # typed input is an action of its own; the held output is let go before it, as it stood
    assert [e["call_id"] for e in ev] == ["c1", "c1", "t1", "t1", "c2", "c2"]
    assert ev[1]["exit_code"] is None and ev[1]["text"] == "building\n"


def test_a_held_output_with_no_poll_is_kept_at_the_end(tmp_path: Path) -> None:
    ev = _read(tmp_path, [_call("c1", "exec_command", {"cmd": "serve"}), _out("c1", RUNNING)])
    assert [e["call_id"] for e in ev] == ["c1", "c1"] and ev[1]["text"] == "building\n"


def test_header_reading() -> None:
    assert running_session(RUNNING) == "7"
    assert running_session("Output:\nProcess running with session ID 7\n") is None  # in the output, not the header
    assert running_session(EXITED.format(code=0, text="")) is None
    assert poll_session("write_stdin", json.dumps({"session_id": 7, "chars": ""})) == "7"
    assert poll_session("write_stdin", json.dumps({"session_id": 7})) == "7"
    assert poll_session("write_stdin", json.dumps({"session_id": 7, "chars": "y\n"})) is None
    assert poll_session("exec_command", json.dumps({"session_id": 7})) is None
