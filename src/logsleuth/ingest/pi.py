"""pi coding agent sessions (format "pi"): `~/.pi/agent/sessions/…/<id>.jsonl`, one entry a line.

A `{"type": "session", "version": 3, "id", "cwd"}` header, then entries with `id`/`parentId`:
`message` (`message.role` user / assistant / toolResult; an assistant's content holds `text`,
`thinking` and `toolCall` parts `{id, name, arguments}`; a toolResult names its `toolCallId`, has
text parts and `isError`), `custom_message` (what an extension injected: an enriched prompt, a
summary; context, not the user's turn), and bookkeeping (`model_change`, `thinking_level_change`,
`custom`).
"""

from __future__ import annotations

from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.chat import content_text
from logsleuth.ingest.jsonscan import (
    LineLedger,
    as_str,
    exit_code_in,
    read_each_jsonl,
    shell_or_json,
    str_or,
)
from logsleuth.model import Kind, Role, Transcript

FORMAT = "pi"
_QUIET = frozenset({"model_change", "thinking_level_change", "custom", "label", "compaction", "branch_summary"})


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    line = probe.head.lstrip().split(b"\n", 1)[0]
    try:
        rec = orjson.loads(line)
    except ValueError:
        return False
    return isinstance(rec, dict) and rec.get("type") == "session" and isinstance(rec.get("version"), int) \
        and "cwd" in rec and "id" in rec


class _Reader:
    def __init__(self, sink: EventSink, ledger: LineLedger, session: str):
        self.sink, self.ledger, self.session = sink, ledger, session
        self.tools: dict[str, str] = {}

    def feed(self, n: int, rec: Any) -> None:
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            self.ledger.skip(n, "not a pi session entry")
            return
        self.ledger.use(n)
        t, ts = rec["type"], rec.get("timestamp")
        if t == "session":
            self.session = str_or(rec.get("id")) or self.session
        elif t == "custom_message":
            text, _ = content_text(rec.get("content"))
            self._add(n, Role.SYSTEM, Kind.TEXT, text, ts)
        elif t == "message" and isinstance(rec.get("message"), dict):
            self._message(n, rec["message"], ts)
        elif t not in _QUIET:
            self.ledger.skip(n, f"unknown pi entry {t[:40]!r}")

    def _add(self, n: int, role: Role, kind: Kind, text: str, ts: Any, **extra: Any) -> None:
        if text or kind is Kind.TOOL_RESULT:
            self.sink.add(line=n, role=role, kind=kind, text=text, ts=ts, session=self.session, **extra)

    def _message(self, n: int, m: dict[str, Any], ts: Any) -> None:
        role, parts = m.get("role"), m.get("content")
        if role == "toolResult":
            call_id = str_or(m.get("toolCallId"))
            text, _ = content_text(parts)
            code = exit_code_in(text)
            err = m.get("isError")
            self._add(n, Role.TOOL, Kind.TOOL_RESULT, text, ts, call_id=call_id,
                      tool=str_or(m.get("toolName")) or self.tools.get(call_id or ""), exit_code=code,
                      is_error=err if isinstance(err, bool) else None)
            return
        text, thinking = content_text(parts)
        if role == "user":
            self._add(n, Role.USER, Kind.TEXT, text, ts)
            return
        self._add(n, Role.ASSISTANT, Kind.REASONING, thinking, ts)
        self._add(n, Role.ASSISTANT, Kind.TEXT, text, ts)
        for p in parts if isinstance(parts, list) else []:
            if isinstance(p, dict) and p.get("type") == "toolCall":
                name, call_id = str_or(p.get("name")) or "unknown", str_or(p.get("id"))
                if call_id:
                    self.tools[call_id] = name
                self._add(n, Role.ASSISTANT, Kind.TOOL_CALL, shell_or_json(name, p.get("arguments")), ts,
                          tool=name, call_id=call_id)
        if not isinstance(parts, list) and as_str(parts).strip() and not text:
            self._add(n, Role.ASSISTANT, Kind.TEXT, as_str(parts).strip(), ts)


def read(probe: Probe) -> Transcript:
    return read_each_jsonl(probe, FORMAT, lambda sink, ledger, sid: _Reader(sink, ledger, sid).feed)


READERS = [
    ReaderSpec(name=FORMAT, sniff=sniff, read=read,
               description="pi coding agent session JSONL (session header, message / toolResult entries)"),
]
