"""Which user items of a Codex rollout are the user's typed turns (ingest/codex.py).

A rollout logs each prompt the user typed twice: as a `response_item` user message and, right
after it, as an `event_msg` `user_message`. User items with no such twin are context the CLI
injected (AGENTS.md instructions, the environment block); where redaction hides the
`<environment_context>` prefix that would tell them apart, the missing twin still does.
"""

from __future__ import annotations

from typing import Any

from logsleuth.ingest.base import Probe
from logsleuth.model import Role

Event = dict[str, Any]


def is_user_item(rec: Any) -> bool:
    p = rec.get("payload") if isinstance(rec, dict) else None
    return rec.get("type") == "response_item" and isinstance(p, dict) and p.get("type") == "message" and p.get("role") == "user"


def is_user_message(rec: Any) -> bool:
    p = rec.get("payload") if isinstance(rec, dict) else None
    return rec.get("type") == "event_msg" and isinstance(p, dict) and p.get("type") == "user_message"


def as_context(events: list[Event]) -> list[Event]:
    return [{**ev, "role": Role.SYSTEM} if ev.get("role") == Role.USER else ev for ev in events]


def logs_typed_turns(probe: Probe) -> bool:
    """Whether the file holds event_msg user_message records (one scan of its bytes)."""
    needle, tail = b'"type":"user_message"', b""
    with probe.open() as f:
        while chunk := f.read(1 << 20):
            if needle in tail + chunk:
                return True
            tail = chunk[-len(needle):]
    return False
