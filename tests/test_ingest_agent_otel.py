"""The coding-agent hooks' OpenTelemetry spans (format agent-otel), on a real Cursor session's head.

Expected counts come from the fixture's own span names (json alone), not from the reader.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import polars as pl

from logsleuth import ingest
from logsleuth.ingest.agent_otel import NO_OUTPUT

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "agent_otel" / "superopen-cursor-head.jsonl"


def _spans() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def _kind(t: ingest.Transcript, kind: str) -> pl.DataFrame:
    return t.events.filter(pl.col("kind").cast(pl.Utf8) == kind)


def test_detected_without_format_and_every_line_used() -> None:
    t = ingest.read(str(FIXTURE))
    assert t.report.format == "agent-otel"
    assert t.report.balanced and not t.report.skipped
    assert t.report.used == len(_spans())


def test_one_call_per_request_and_each_ran_call_answered_by_id() -> None:
    names = Counter(s["name"] for s in _spans())
    t = ingest.read(str(FIXTURE))
    calls, results = _kind(t, "tool_call"), _kind(t, "tool_result")
    assert calls.height == names["coding_agent.tool.requested"]
    assert results.height == names["coding_agent.tool.call"]
    ids = set(calls.get_column("call_id").drop_nulls().to_list())
    assert set(results.get_column("call_id").to_list()) <= ids
    assert set(results.get_column("text").to_list()) == {NO_OUTPUT}  # the hooks keep no output
    assert any("no tool output" in n for n in t.report.notes)


def test_shell_calls_carry_their_command_and_edits_their_path() -> None:
    commands = [s["attributes"]["coding_agent.tool.command"] for s in _spans()
                if s["name"] == "coding_agent.shell.requested"]
    edited = {s["attributes"]["code.file.path"] for s in _spans() if s["name"] == "coding_agent.edit.decision"}
    t = ingest.read(str(FIXTURE))
    calls = _kind(t, "tool_call")
    shell = calls.filter(pl.col("tool") == "Shell").get_column("text").to_list()
    assert sorted(shell) == sorted(commands)
    writes = calls.filter(pl.col("tool") == "Write").get_column("text").to_list()
    assert {json.loads(w)["path"] for w in writes} == edited


def test_user_prompts_and_thoughts_told_once_in_time_order() -> None:
    prompts = sum(1 for s in _spans() if s["attributes"].get("coding_agent.llm.turn.kind") == "user_prompt")
    t = ingest.read(str(FIXTURE))
    users = t.events.filter((pl.col("role").cast(pl.Utf8) == "user") & (pl.col("kind").cast(pl.Utf8) == "text"))
    assert users.height == prompts
    thoughts = _kind(t, "reasoning").get_column("text").to_list()
    assert thoughts and all(a != b for a, b in itertools.pairwise(thoughts))
    ts = t.events.get_column("ts").drop_nulls().to_list()
    assert ts == sorted(ts)
