"""opencode server events, one a line (format "opencode-events").

What a client of `opencode serve` records from its event stream (`GET /event`, `/global/event`):

- `{"type": "message.updated", "properties": {"info": {id, sessionID, role, time, error?}}}` names each
  message's role (and an assistant message's error);
- `{"type": "message.part.updated", "properties": {"part": {id, messageID, sessionID, type, …}}}`
  sends a part again each time it changes: a tool part goes pending, running, completed (or error),
  a text part grows; the last version of each part is the one read (earlier ones are counted as
  ignored), in the order the parts first appeared;
- `{"type": "message.part.delta", "properties": {partID, field, delta}}` appends to a part's text
  between two updates (kept until the next update replaces it);
- `{"type": "session.error", "properties": {sessionID, error}}` is an error the run reports;
- session and server housekeeping (`session.status`, `session.diff`, `server.heartbeat`, …) is ignored.

An event may arrive wrapped: `{directory, payload: event}` (`/global/event`), `{timestamp, …, event:
event}` (a client's capture), or as an SSE line `data: {…}`. Parts become events as in the other
opencode formats (ingest/opencode.py `part_events`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path, transcript
from logsleuth.ingest.jsonscan import DECODER
from logsleuth.ingest.opencode import BadRecord, _lines_guarded, error_text, part_events
from logsleuth.model import Kind, Role, Transcript

FORMAT = "opencode-events"
# the namespaces of opencode's bus events (`message.part.updated`, `session.idle`, `server.heartbeat`, …)
_NAMESPACES = frozenset({"message", "session", "server", "permission", "question", "file", "todo", "installation",
                         "lsp", "storage", "ide", "tui", "project", "pty", "command", "vcs", "mcp"})


@dataclass
class _Part:
    """The last version of one part, the line it came on, and the lines of its earlier versions."""

    value: dict[str, Any]
    line: int
    ts: Any
    earlier: list[int] = field(default_factory=list)


@dataclass
class _Stream:
    """What the lines said so far: parts by id (first seen first), roles of messages, errors."""

    parts: dict[str, _Part] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    errors: list[tuple[int, str | None, str, Any]] = field(default_factory=list)  # line, session, text, ts


def unwrap(rec: Any) -> dict[str, Any] | None:
    """The event a line holds, out of its wrapper ({directory, payload}, {…, event}), or None."""
    if not isinstance(rec, dict):
        return None
    for key in ("payload", "event"):
        inner = rec.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("type"), str) and "properties" in inner:
            return inner
    return rec if isinstance(rec.get("type"), str) and isinstance(rec.get("properties"), dict) else None


def sniff(probe: Probe) -> bool:
    """The first JSON line is an opencode bus event (plain, wrapped, or an SSE `data:` line)."""
    if probe.is_dir or not probe.head or b'"properties"' not in probe.head:
        return False
    for line in probe.head.split(b"\n")[:5]:
        line = line.strip().removeprefix(b"data:").strip()
        if not line:
            continue
        try:
            ev = unwrap(json.loads(line))
        except ValueError:
            return False
        return ev is not None and "." in ev["type"] and ev["type"].split(".", 1)[0] in _NAMESPACES
    return False


def read(probe: Probe) -> Transcript:
    display = probe.display
    rep = ReportBuilder(display, FORMAT)
    stream = _Stream()
    for n, raw in _lines_guarded(probe, rep):
        rep.lines += 1
        _take_line(stream, rep, n, raw)
    sink = EventSink(session_from_path(display), display)
    _emit(stream, sink, rep)
    return transcript(sink, rep)


def _take_line(stream: _Stream, rep: ReportBuilder, n: int, raw: bytes) -> None:
    """Fold one line into the stream (or count it ignored or skipped)."""
    text = raw.strip().removeprefix(b"data:").strip()
    if not text:
        rep.ignored += 1
        return
    try:
        rec = DECODER.decode(text.decode("utf-8"))
    except UnicodeDecodeError:
        rep.skip(n, "invalid UTF-8")
        return
    except (json.JSONDecodeError, RecursionError) as exc:
        rep.skip(n, f"malformed JSON: {getattr(exc, 'msg', 'nested too deeply')}")
        return
    ev = unwrap(rec)
    if ev is None:
        rep.skip(n, "not an opencode event ({type, properties})")
        return
    why = _fold(stream, n, ev["type"], ev["properties"], rec.get("timestamp", ev.get("timestamp")))
    if why:
        rep.skip(n, why)
    elif ev["type"] not in ("message.part.updated", "session.error"):
        rep.ignored += 1  # metadata and housekeeping; a part's lines are counted when it is emitted


def _fold(stream: _Stream, n: int, etype: str, props: Any, ts: Any) -> str | None:
    """Apply one event (`ts`: when its line says it came); the reason to skip it, or None."""
    if not isinstance(props, dict):
        return "event properties are not an object"
    if etype == "message.updated":
        info = props.get("info")
        if isinstance(info, dict) and isinstance(info.get("id"), str) and isinstance(info.get("role"), str):
            stream.roles[info["id"]] = info["role"]
    elif etype == "message.part.updated":
        part = props.get("part")
        if not isinstance(part, dict) or not isinstance(part.get("id"), str):
            return "part update without a part id"
        old = stream.parts.get(part["id"])
        earlier = [*old.earlier, old.line] if old else []
        stream.parts[part["id"]] = _Part(part, n, ts, earlier)
    elif etype == "message.part.delta":
        _delta(stream, props)
    elif etype == "session.error":
        sid = props.get("sessionID")
        stream.errors.append((n, sid if isinstance(sid, str) else None, error_text(props.get("error")) or "Error", ts))
    return None


def _delta(stream: _Stream, props: dict[str, Any]) -> None:
    """Append a streamed piece to its part's field (the part's next update replaces it)."""
    pid = props.get("partID")
    got = stream.parts.get(pid) if isinstance(pid, str) else None
    fld, piece = props.get("field"), props.get("delta")
    if got is not None and isinstance(fld, str) and isinstance(piece, str) and isinstance(got.value.get(fld, ""), str):
        got.value = {**got.value, fld: got.value.get(fld, "") + piece}


def _emit(stream: _Stream, sink: EventSink, rep: ReportBuilder) -> None:
    """Every part's last version in first-seen order, then the run's errors, with full accounting."""
    for part in stream.parts.values():
        rep.ignored += len(part.earlier)  # superseded versions of a part
        p = part.value
        role = stream.roles.get(p.get("messageID", ""), "assistant")
        session = p.get("sessionID") if isinstance(p.get("sessionID"), str) else None
        try:
            events = part_events(p, Role.USER if role == "user" else Role.ASSISTANT, part.ts)
        except BadRecord as exc:
            rep.skip(part.line, str(exc))
            continue
        for ev in events:
            sink.add(line=part.line, session=session, **ev)
        if events:
            rep.used += 1
        else:
            rep.ignored += 1
    for line, session, text, ts in stream.errors:
        sink.add(line=line, session=session, role=Role.SYSTEM, kind=Kind.TEXT, text=text, ts=ts, is_error=True)
        rep.used += 1


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="opencode server events, one a line (message.part.updated, message.updated, …; plain, wrapped or SSE data:)",
    )
]
