"""Codex unified exec: a command still running when its first output came, and the polls that finish it.

`exec_command` answers after its yield time with `Process running with session ID N` and the output
so far; the model then calls `write_stdin {"session_id": N, "chars": ""}` (a poll) until an output
says `Process exited with code C`. Read as separate calls, the command looks like it never ended and
its error shows up as the output of a `write_stdin` call, so a failure was credited to the wrong
command (held-out oldtools: a pip install's build error was read as a poll's). Here an exec's output
that says it is still running is held back, each empty poll of its session is absorbed (its output
appended), and the whole output is emitted as the exec's one result once a poll gives the exit code.
A held output is let go as it was when another (non-poll) call starts first, or at the end of the
file: the later polls then stay separate calls, as before.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

Event = dict[str, Any]

_RUNNING_RE = re.compile(r"^Process running with session ID\s*(\d{1,20})\s*$")
_HEADER_LINES = 12


def running_session(body: Any) -> str | None:
    """The unified-exec session that a still-running command's output header names, else None."""
    if not isinstance(body, str):
        return None
    for line in body.split("\n", _HEADER_LINES)[:_HEADER_LINES]:
        s = line.strip()
        m = _RUNNING_RE.match(s)
        if m:
            return m.group(1)
        if s == "Output:" or not s:
            return None
    return None


def poll_session(name: str, raw: Any) -> str | None:
    """The session an empty `write_stdin` call polls (input typed into the process is not a poll)."""
    if name != "write_stdin" or not isinstance(raw, str):
        return None
    try:
        args = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(args, dict) or args.get("chars", "") != "":
        return None
    sid = args.get("session_id")
    return str(sid) if isinstance(sid, (int, str)) and not isinstance(sid, bool) else None


class RunningCommands:
    """Exec outputs held back while their command runs, and the poll calls absorbed into them."""

    def __init__(self) -> None:
        self._held: dict[str, Event] = {}  # session id -> the exec's result event so far
        self._polls: dict[str, str] = {}  # poll call id -> session id

    def hold(self, session: str, result: Event) -> None:
        """Keep a still-running command's result until a poll finishes it."""
        self._held[session] = result

    def absorb_call(self, call_id: str | None, session: str | None) -> bool:
        """Take a poll of a held session (True: the call is not an event of its own)."""
        if call_id is None or session is None or session not in self._held:
            return False
        self._polls[call_id] = session
        return True

    def absorb_output(self, call_id: str | None, result: Event, still_running: bool) -> list[Event] | None:
        """Append a poll's output to its command's; the finished result once the poll ends it.
        None when the output is not an absorbed poll's (it is an event of its own)."""
        session = self._polls.pop(call_id, None) if call_id is not None else None
        if session is None:
            return None
        held = self._held.get(session)
        if held is None:
            return None
        more = result.get("text") or ""
        held["text"] = held["text"] + "\n" + more if held["text"] and more else held["text"] or more
        if still_running:
            return []
        del self._held[session]
        if result.get("exit_code") is not None or held.get("exit_code") is None:
            held["exit_code"] = result.get("exit_code")
            held["is_error"] = result.get("is_error")
        return [held]

    def release(self) -> list[Event]:
        """Every held result as it stands (a new call started, or the file ended)."""
        out = list(self._held.values())
        self._held.clear()
        self._polls.clear()
        return out
