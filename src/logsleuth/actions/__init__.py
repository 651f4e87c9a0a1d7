"""Actions: what a session changed (or looked at), parsed from its tool calls.

    extract_actions(events) -> list[Action]      every action, sorted by (session, seq, order in the command)
    call_outcomes(events) -> {(session, seq): ok} did each tool call succeed (None: unknown)
    launches(actions) -> list[Launch]            every server/job launch with its parsed flags
    server_flags_at(actions, seq, engine=None)   flags of the latest launch at or before seq
    state_at(actions, seq) -> dict               env, packages, files, builds, launches in force at seq
    recipe_lines(state) -> list[str]             that state as pasteable shell lines

Modules: shellparse (lexing and unwrapping ssh/pct/docker/bash -c/sudo/…), commands (one simple
command -> drafts), packages (pip/uv/conda/apt commands and their output), launch (engines and
flags), toolcalls (editor and reader tools), extract (the event table -> actions), state.
"""

from __future__ import annotations

from logsleuth.actions.extract import (
    CallResult,
    call_outcomes,
    drafts_for_call,
    extract_actions,
    package_kind,
)
from logsleuth.actions.launch import LaunchInfo, diff_flags, launch_info, parse_flags
from logsleuth.actions.shellparse import Cmd, commands
from logsleuth.actions.state import Launch, launches, recipe_lines, server_flags_at, state_at

__all__ = [
    "CallResult",
    "Cmd",
    "Launch",
    "LaunchInfo",
    "call_outcomes",
    "commands",
    "diff_flags",
    "drafts_for_call",
    "extract_actions",
    "launch_info",
    "launches",
    "package_kind",
    "parse_flags",
    "recipe_lines",
    "server_flags_at",
    "state_at",
]
