"""Codex `event_msg` end records (exec / MCP / patch) read as tool results when no response item
mirrors them, once when one does. Counts are computed from the fixture with plain json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from logsleuth import ingest

FIX = Path(__file__).parent / "fixtures" / "ingest" / "codex"
ROLLOUT = FIX / "rollout-2026-03-02T09-00-00-0199bbbb-cccc-7ddd-8eee-ffff00001111.jsonl"
END = {"exec_command_end", "mcp_tool_call_end", "patch_apply_end"}
CALLS = {"function_call", "custom_tool_call", "local_shell_call"}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _expected_calls(path: Path) -> set[str]:
    """Every distinct call id of a call item or a finished-tool event: each is one tool call."""
    ids = set()
    for r in _records(path):
        p = r["payload"]
        if (r["type"] == "response_item" and p.get("type") in CALLS) or (
            r["type"] == "event_msg" and p.get("type") in END
        ):
            ids.add(p["call_id"])
    return ids


def test_every_call_read_once() -> None:
    t = ingest.read(str(ROLLOUT))
    ev = t.events
    calls = ev.filter(ev["kind"] == "tool_call")["call_id"].to_list()
    results = ev.filter(ev["kind"] == "tool_result")["call_id"].to_list()
    expected = _expected_calls(ROLLOUT)
    assert len(expected) == 7
    assert sorted(calls) == sorted(expected)  # one call each: mirrored ones not counted twice
    assert sorted(results) == sorted(expected)
    assert t.report.skipped == () and t.report.lines == len(_records(ROLLOUT))


def test_results_carry_status() -> None:
    t = ingest.read(str(ROLLOUT))
    res = {r["call_id"]: r for r in t.events.to_dicts() if r["kind"] == "tool_result"}
    assert res["call_mcp1"]["is_error"] is True
    assert "Session info not available" in res["call_mcp1"]["text"]
    assert res["call_mcp1"]["tool"] == "mcp__sessions__session_info"
    assert res["call_mcp2"]["is_error"] is True and res["call_mcp2"]["text"].startswith("No results")
    assert res["call_mcp3"]["is_error"] is False
    assert (res["call_ls1"]["exit_code"], res["call_ls1"]["is_error"]) == (2, True)
    assert res["call_patch1"]["is_error"] is True and "Failed to find" in res["call_patch1"]["text"]
    assert (res["call_build1"]["exit_code"], res["call_build1"]["is_error"]) == (1, True)
    assert res["call_patch2"]["is_error"] is False


def test_end_event_after_item_not_doubled(tmp_path: Path) -> None:
    """The end event may come before the call item (local shell) or after its output: never doubled."""
    recs = _records(ROLLOUT)
    # move the mirrored exec_command_end before its function_call
    end = next(i for i, r in enumerate(recs) if r["payload"].get("call_id") == "call_build1"
               and r["payload"].get("type") == "exec_command_end")
    moved = recs[:2] + [recs[end]] + [r for i, r in enumerate(recs[2:], 2) if i != end]
    path = tmp_path / "rollout-moved.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in moved))
    ev = ingest.read(str(path)).events
    assert ev.filter(ev["kind"] == "tool_call")["call_id"].to_list().count("call_build1") == 1
    assert ev.filter(ev["kind"] == "tool_result")["call_id"].to_list().count("call_build1") == 1


def test_events_only_file_reads_mcp_and_patch(tmp_path: Path) -> None:
    """No response_item at all: the end events are the record."""
    recs = [r for r in _records(ROLLOUT) if r["type"] != "response_item"]
    path = tmp_path / "rollout-events.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    ev = ingest.read(str(path)).events
    ends = {r["payload"]["call_id"] for r in recs if r["type"] == "event_msg" and r["payload"]["type"] in END}
    assert set(ev.filter(ev["kind"] == "tool_result")["call_id"].to_list()) == ends
