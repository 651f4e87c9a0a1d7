"""Cursor agent transcripts (format "cursor"): `~/.cursor/projects/<p>/agent-transcripts/<id>.jsonl`.

One line a message, `{"role": "user"|"assistant", "message": {"content": [parts]}}`, parts as the
Messages API writes them (text, tool_use, tool_result). What the user typed sits in `<user_query>…
</user_query>`; a user line without one is context Cursor injected (`<agent_transcripts>`,
`<agent_skills>`, attached files). `[REDACTED]` stands where the export left a reasoning block out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.chat import content_text, emit_message
from logsleuth.ingest.jsonscan import LineLedger, read_each_jsonl
from logsleuth.model import Kind, Role, Transcript

FORMAT = "cursor"
_QUERY = re.compile(r"<user_query>\s*(?P<q>.*?)\s*</user_query>", re.S)
_REDACTED = "[REDACTED]"


def is_line(rec: Any) -> bool:
    return (isinstance(rec, dict) and rec.get("role") in ("user", "assistant") and set(rec) <= {"role", "message"}
            and isinstance(rec.get("message"), dict) and isinstance(rec["message"].get("content"), list))


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    seen = 0
    for piece in probe.head.split(b"\n")[:6]:
        if not piece.strip():
            continue
        try:
            rec = orjson.loads(piece)
        except ValueError:
            return seen >= 1  # the head cut a long line
        if not is_line(rec):
            return False
        seen += 1
    return seen >= 1


def _feed(sink: EventSink, ledger: LineLedger, names: dict[str, str], n: int, rec: Any, session: str) -> None:
    if not is_line(rec):
        ledger.skip(n, "not a Cursor transcript line")
        return
    ledger.use(n)
    parts = [p for p in rec["message"]["content"] if not (isinstance(p, dict) and p.get("text") == _REDACTED)]
    if rec["role"] == "user":
        text, _ = content_text([p for p in parts if isinstance(p, dict) and p.get("type") == "text"])
        q = _QUERY.search(text)
        if q is not None:
            sink.add(line=n, role=Role.USER, kind=Kind.TEXT, text=q.group("q"), session=session)
        elif text:
            sink.add(line=n, role=Role.SYSTEM, kind=Kind.TEXT, text=text, session=session)
        parts = [p for p in parts if not (isinstance(p, dict) and p.get("type") == "text")]
        if not parts:
            return
    emit_message(sink, {"role": rec["role"], "content": parts}, n, session, names)


def read(probe: Probe) -> Transcript:
    def make_feed(sink: EventSink, ledger: LineLedger, sid: str) -> Callable[[int, Any], None]:
        names: dict[str, str] = {}
        return lambda n, rec: _feed(sink, ledger, names, n, rec, sid)

    return read_each_jsonl(probe, FORMAT, make_feed)


READERS = [
    ReaderSpec(name=FORMAT, sniff=sniff, read=read,
               description="Cursor agent transcripts (JSONL of {role, message: {content: [parts]}}, <user_query> turns)"),
]
