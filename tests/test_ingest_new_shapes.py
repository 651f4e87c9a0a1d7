"""Readers of readers4's new formats, on real files (OpenHands' replay trajectory, a Copilot CLI session's head).

Expected counts come from each fixture's own structure (json alone), as bench/readers4/count_truth.py counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from logsleuth import ingest

FIX = Path(__file__).parent / "fixtures" / "ingest"


def _kinds(t: ingest.Transcript) -> dict[str, pl.DataFrame]:
    k = pl.col("kind").cast(pl.Utf8)
    return {name: t.events.filter(k == name) for name in ("tool_call", "tool_result")}


def test_openhands_trajectory_calls_results_and_exit_codes() -> None:
    path = FIX / "openhands" / "basic_gui_mode.json"
    events = json.loads(path.read_text())
    calls = {e["tool_call_metadata"]["tool_call_id"] for e in events if "action" in e and e.get("tool_call_metadata")}
    results = [e for e in events if "observation" in e and e.get("tool_call_metadata")]
    t = ingest.read(str(path))
    got = _kinds(t)
    assert t.report.format == "openhands" and t.report.balanced and not t.report.skipped
    assert set(got["tool_call"].get_column("call_id").to_list()) == calls
    assert got["tool_result"].height == len(results)
    assert got["tool_call"].filter(pl.col("tool") == "execute_bash").get_column("text").to_list()[0] == "mkdir -p /workspace/todo-app"
    assert got["tool_result"].get_column("exit_code").to_list()[0] == 0
    users = t.events.filter(pl.col("role").cast(pl.Utf8) == "user")
    assert users.height == 1 and users.get_column("text")[0].startswith("I want to create a VueJS app")


def test_copilot_events_one_call_per_request_not_per_begin_event() -> None:
    path = FIX / "copilot" / "wasa-head.jsonl"
    raws = [json.loads(line)["raw"] for line in path.read_text().splitlines() if line.strip()]
    requested = {r["toolCallId"] for e in raws if e["type"] == "assistant.message"
                 for r in e["data"].get("toolRequests") or []}
    completed = [e for e in raws if e["type"] == "tool.execution_complete"]
    t = ingest.read(str(path))
    got = _kinds(t)
    assert t.report.format == "copilot" and t.report.balanced and not t.report.skipped
    assert set(got["tool_call"].get_column("call_id").to_list()) == requested
    assert got["tool_call"].height == len(requested)  # execution_start is the same call
    assert got["tool_result"].height == len(completed)
    assert got["tool_call"].get_column("text")[0] == "gh issue view 147 --repo JoakimCarlsson/wasa-cli"
    assert all(t.strip() for t in got["tool_result"].get_column("text").to_list())


def test_openhands_v1_actions_and_observations_pair_by_id_per_instance() -> None:
    path = FIX / "openhands" / "v1-openagentsafety.jsonl"
    instances = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    calls = sum(1 for o in instances for e in o["history"] if e["kind"] == "ActionEvent" and e.get("tool_call_id"))
    obs = sum(1 for o in instances for e in o["history"] if e["kind"] == "ObservationEvent" and e.get("tool_call_id"))
    t = ingest.read(str(path))
    got = _kinds(t)
    assert t.report.format == "openhands" and t.report.balanced and not t.report.skipped
    assert (got["tool_call"].height, got["tool_result"].height) == (calls, obs)
    assert set(t.events.get_column("session").to_list()) == {o["instance_id"] for o in instances}
    assert got["tool_call"].get_column("text")[0].startswith('chat_npc "David"')
