"""Codex finished-tool shapes from public files (see fixtures/ingest/codex/SOURCE.md), and the newer
item shapes (MCP and tool-search items, v0.132 exec ends). Every expected count is computed here
from the records with plain json, never from the reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from logsleuth import ingest

FIX = Path(__file__).parent / "fixtures" / "ingest" / "codex"
SESSION = FIX / "rollout-2026-08-03T10-48-56-019fc8be-3658-7ca3-9e29-000000000000.jsonl"
REDACTED = FIX / "agent-sessions-redacted-end-events.jsonl"
END = {"exec_command_end", "mcp_tool_call_end", "patch_apply_end"}
CALL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call", "mcp_tool_call", "tool_search_call",
              "web_search_call"}
OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                "mcp_tool_call_output", "tool_search_output"}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _failed(p: dict[str, Any]) -> bool:
    """Whether an end event states a failure, read straight from its fields."""
    if p["type"] == "mcp_tool_call_end":
        res = p.get("result") or {}
        return "Err" in res or bool((res.get("Ok") or {}).get("isError"))
    if p["type"] == "patch_apply_end":
        return p.get("success") is False
    return isinstance(p.get("exit_code"), int) and p["exit_code"] != 0


def _expected(recs: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(tool calls, tool results, failed results): one call per call item, one per end event whose
    id no response item carries; one result per output item or such end event."""
    items = [r["payload"] for r in recs if r["type"] == "response_item"]
    carried = {p.get("call_id") for p in items if p.get("call_id")}
    ends = [r["payload"] for r in recs if r["type"] == "event_msg" and r["payload"].get("type") in END]
    own = [p for p in ends if p.get("call_id") not in carried]
    calls = sum(p.get("type") in CALL_ITEMS for p in items) + len(own)
    results = sum(p.get("type") in OUTPUT_ITEMS for p in items) + len(own)
    failed = sum(_failed(p) for p in ends)  # a mirrored end event's failure lands on its output item
    return calls, results, failed


def _counts(path: Path) -> tuple[int, int, int]:
    ev = ingest.read(str(path)).events
    res = ev.filter(ev["kind"] == "tool_result")
    return (ev.filter(ev["kind"] == "tool_call").height, res.height,
            res.filter(res["is_error"].fill_null(False)).height)


def _write(tmp_path: Path, name: str, recs: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_agent_sessions_codex_0146_session() -> None:
    recs = _records(SESSION)
    assert _expected(recs) == (6, 5, 0)  # the file as cut: guards against the fixture changing
    assert _counts(SESSION) == _expected(recs)
    t = ingest.read(str(SESSION))
    assert t.report.skipped == () and t.report.lines == len(recs)
    res = {r["call_id"]: r for r in t.events.to_dicts() if r["kind"] == "tool_result"}
    assert res["call-5"]["tool"] == "mcp__example__example_tool" and res["call-5"]["is_error"] is False
    assert res["call-6"]["tool"] == "apply_patch" and res["call-6"]["is_error"] is False
    assert res["call-3"]["tool"] == "tool_search" and "example_tool" in res["call-3"]["text"]
    assert res["call-1"]["text"] == "a.txt\nb.txt\n"


def test_redacted_end_events_each_one_call() -> None:
    """The redacted records repeat one placeholder call id: each end event is still its own call."""
    recs = _records(REDACTED)
    ends = [r["payload"] for r in recs if r["type"] == "event_msg" and r["payload"]["type"] in END]
    assert len({p["call_id"] for p in ends}) == 1 and len(ends) == 8
    assert _expected(recs) == (8, 8, 1)
    assert _counts(REDACTED) == _expected(recs)
    ev = ingest.read(str(REDACTED)).events
    res = ev.filter(ev["kind"] == "tool_result")
    shell = res.filter(res["tool"] == "shell")
    want = [p["exit_code"] for p in ends if p["type"] == "exec_command_end"]
    assert shell["exit_code"].to_list() == want and shell.height == 3
    assert ingest.read(str(REDACTED)).report.skipped == ()


# Shapes newer files carry that no public rollout shows yet: records built here, field names as in
# the v0.129 / v0.132 parser tests described in SOURCE.md.
def _rec(ts: int, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-05-20T10:00:{ts:02d}Z", "type": typ, "payload": payload}


NEWER = [
    _rec(0, "session_meta", {"id": "s-new", "cli_version": "0.132.0"}),
    _rec(1, "response_item", {"type": "mcp_tool_call", "call_id": "mcp-1", "server": "github", "tool": "get_pr",
                              "arguments": {"pr_number": 42}}),
    _rec(2, "response_item", {"type": "mcp_tool_call_output", "call_id": "mcp-1",
                              "output": [{"type": "text", "text": "PR #42: Fix the bug"}]}),
    _rec(3, "response_item", {"type": "mcp_tool_call", "call_id": "mcp-2", "server": "db", "tool": "query",
                              "arguments": "{\"sql\":\"select 1\"}"}),
    _rec(4, "response_item", {"type": "mcp_tool_call_output", "call_id": "mcp-2", "output": "no such table"}),
    # the MCP failure is known only from the end event, written after the output item
    _rec(5, "event_msg", {"type": "mcp_tool_call_end", "call_id": "mcp-2",
                          "invocation": {"server": "db", "tool": "query"}, "result": {"Err": "no such table"}}),
    _rec(6, "response_item", {"type": "function_call", "name": "exec_command", "call_id": "call_ls",
                              "arguments": "{\"cmd\":\"ls /nonexistent\"}"}),
    _rec(7, "event_msg", {"type": "exec_command_end", "call_id": "call_ls", "exit_code": 1, "status": "failed",
                          "aggregated_output": "ls: /nonexistent: No such file or directory\n",
                          "duration": {"secs": 0, "nanos": 5000000}}),
    _rec(8, "response_item", {"type": "function_call_output", "call_id": "call_ls",
                              "output": "ls: /nonexistent: No such file or directory\n"}),
    # v0.132 end event alone, failed by status; an older one with stdout / stderr only
    _rec(9, "event_msg", {"type": "exec_command_end", "call_id": "call_mk", "command": ["bash", "-lc", "make"],
                          "aggregated_output": "make: *** [all] Error 2\n", "exit_code": 2, "status": "failed"}),
    _rec(10, "event_msg", {"type": "exec_command_end", "call_id": "call_pwd", "command": ["bash", "-lc", "pwd"],
                           "stdout": "/w\n", "stderr": "", "exit_code": 0}),
    _rec(11, "event_msg", {"type": "patch_apply_end", "call_id": "call_p", "stdout": "", "success": False,
                           "stderr": "Failed to find expected lines", "changes": {"/w/a.py": {"type": "update"}}}),
]


def test_newer_shapes(tmp_path: Path) -> None:
    path = _write(tmp_path, "rollout-newer.jsonl", NEWER)
    assert _expected(NEWER) == (6, 6, 4)
    assert _counts(path) == _expected(NEWER)
    res = {r["call_id"]: r for r in ingest.read(str(path)).events.to_dicts() if r["kind"] == "tool_result"}
    assert res["mcp-1"]["tool"] == "mcp__github__get_pr" and res["mcp-1"]["text"] == "PR #42: Fix the bug"
    assert res["mcp-2"]["is_error"] is True and res["mcp-2"]["tool"] == "mcp__db__query"
    assert (res["call_ls"]["exit_code"], res["call_ls"]["is_error"]) == (1, True)
    assert (res["call_mk"]["exit_code"], res["call_mk"]["is_error"]) == (2, True)
    assert res["call_mk"]["text"].startswith("make: ***")
    assert (res["call_pwd"]["text"], res["call_pwd"]["is_error"]) == ("/w\n", False)
    assert res["call_p"]["is_error"] is True and "Failed to find" in res["call_p"]["text"]


def test_failed_status_without_exit_code(tmp_path: Path) -> None:
    recs = [NEWER[0], _rec(1, "event_msg", {"type": "exec_command_end", "call_id": "c", "command": "false",
                                             "status": "failed", "aggregated_output": ""})]
    ev = ingest.read(str(_write(tmp_path, "rollout-status.jsonl", recs))).events
    assert ev.filter(ev["kind"] == "tool_result")["is_error"].to_list() == [True]


def test_end_event_before_output_fills_outcome(tmp_path: Path) -> None:
    """Mirrored MCP end event before its function_call_output (the usual order): error flag kept,
    the call counted once."""
    recs = [
        NEWER[0],
        _rec(1, "response_item", {"type": "function_call", "name": "search", "namespace": "mcp__notes__",
                                  "arguments": "{}", "call_id": "call_m"}),
        _rec(2, "event_msg", {"type": "mcp_tool_call_end", "call_id": "call_m",
                              "invocation": {"server": "notes", "tool": "search"},
                              "result": {"Ok": {"content": [{"type": "text", "text": "denied"}], "isError": True}}}),
        _rec(3, "response_item", {"type": "function_call_output", "call_id": "call_m", "output": "denied"}),
    ]
    path = _write(tmp_path, "rollout-mirrored.jsonl", recs)
    assert _counts(path) == _expected(recs) == (1, 1, 1)
    ev = ingest.read(str(path)).events
    assert ev.filter(ev["kind"] == "tool_call")["tool"].to_list() == ["mcp__notes__search"]
