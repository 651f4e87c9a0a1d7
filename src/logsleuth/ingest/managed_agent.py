"""Managed-agent session events (format "managed-agent"): one JSON event a line.

A hosted agent session's event stream (Claude Managed Agents: `sevt_…` event ids), either bare
(`{"type": "agent.tool_use", "id", …}`) or as a viewer exports it, one record a line with the
event under `raw`: `{"role", "kind", "tool"?, "content"?, "time", "raw": {type, id, …}}`.

- `user.message` (content blocks) and `user.define_outcome` (`description`): the user's turns;
- `agent.message` (content blocks): the agent's text; `agent.thinking` (text when it has any);
- `agent.tool_use` / `agent.mcp_tool_use` / `agent.custom_tool_use` (`name`, `input`, `id`): a
  tool call; `agent.tool_result` / `agent.mcp_tool_result` (`tool_use_id`, `content`, `is_error`):
  its result, paired by id. Result content is a list of blocks: `text`, `search_result` (title,
  url, nested text blocks), `document` (title, source data); their text is read at any depth;
- `session.error` and a failed `span.outcome_evaluation_end`: system notes; every other `session.*`
  and `span.*` event (status, usage, model request spans) carries no conversation: used, no event.
"""

from __future__ import annotations

import io
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path, transcript
from logsleuth.ingest.jsonscan import (
    LineLedger,
    as_str,
    exit_code_in,
    iter_jsonl,
    shell_or_json,
    str_or,
)
from logsleuth.model import Kind, Role, Transcript

FORMAT = "managed-agent"
_PREFIXES = ("agent.", "user.", "session.", "span.")
_CALLS = frozenset({"agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use"})
_RESULTS = frozenset({"agent.tool_result", "agent.mcp_tool_result", "agent.custom_tool_result"})
_MAX_DEPTH = 12


def event_of(rec: Any) -> dict[str, Any] | None:
    """The session event a record holds (itself, or under `raw`), or None."""
    if not isinstance(rec, dict):
        return None
    inner = rec.get("raw")
    ev: dict[str, Any] = inner if isinstance(inner, dict) else rec
    t = ev.get("type")
    if isinstance(t, str) and t.startswith(_PREFIXES) and isinstance(ev.get("id"), str) and "processed_at" in ev:
        return ev
    return None


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    seen = 0
    for piece in probe.head.split(b"\n")[:20]:
        piece = piece.strip()
        if not piece:
            continue
        try:
            rec = orjson.loads(piece)
        except ValueError:
            return seen > 0  # a long first line cut by the head
        if event_of(rec) is None:
            return False
        seen += 1
        if seen >= 2:
            return True
    return seen > 0


def block_text(value: Any, depth: int = 0) -> str:
    """The text of a content value at any depth: a string, a list of blocks, or a block whose
    text sits in `text`, `content`, `source.data`, with a search result's or document's title/url."""
    if depth > _MAX_DEPTH:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (block_text(v, depth + 1) for v in value) if t.strip())
    if not isinstance(value, dict):
        return ""
    parts = [as_str(value.get(k)) for k in ("title", "url") if isinstance(value.get(k), str)]
    for key in ("text", "content", "source"):
        if key in value:
            parts.append(block_text(value[key], depth + 1))
    if isinstance(value.get("data"), str) and str(value.get("media_type", "")).startswith("text"):
        parts.append(str(value["data"]))
    return "\n".join(p for p in parts if p.strip())


class _Reader:
    def __init__(self, sink: EventSink, ledger: LineLedger):
        self.sink = sink
        self.ledger = ledger
        self.tools: dict[str, str] = {}

    def feed(self, n: int, rec: Any) -> None:
        ev = event_of(rec)
        if ev is None:
            self.ledger.skip(n, "not a session event (no type/id/processed_at)")
            return
        t = str(ev["type"])
        ts = ev.get("processed_at") or (rec.get("time") if isinstance(rec, dict) else None)
        outer = rec.get("content") if isinstance(rec, dict) and rec is not ev else None
        if t in _CALLS:
            self._call(n, ev, ts)
        elif t in _RESULTS:
            self._result(n, ev, outer, ts)
        elif t == "agent.message":
            self._text(n, Role.ASSISTANT, Kind.TEXT, block_text(ev.get("content")) or as_str(outer), ts)
        elif t == "agent.thinking":
            self._text(n, Role.ASSISTANT, Kind.REASONING, block_text(ev.get("content") or ev.get("thinking")), ts)
        elif t == "user.message":
            self._text(n, Role.USER, Kind.TEXT, block_text(ev.get("content")) or as_str(outer), ts)
        elif t == "user.define_outcome":
            self._text(n, Role.USER, Kind.TEXT, as_str(ev.get("description")), ts)
        elif t == "session.error" or (t == "span.outcome_evaluation_end" and ev.get("result") not in (None, "satisfied")):
            text = block_text(ev.get("error")) or as_str(ev.get("explanation")) or t
            self._text(n, Role.SYSTEM, Kind.TEXT, text, ts, is_error=t == "session.error")
        elif t.startswith(("session.", "span.", "user.", "agent.")):
            self.ledger.use(n)  # status, usage, spans, interrupts: no conversation
        else:
            self.ledger.skip(n, f"unknown event type {t[:40]!r}")

    def _text(self, n: int, role: Role, kind: Kind, text: str, ts: Any, **extra: Any) -> None:
        if text.strip():
            self.sink.add(line=n, role=role, kind=kind, text=text.strip(), ts=ts, **extra)
        self.ledger.use(n)

    def _call(self, n: int, ev: dict[str, Any], ts: Any) -> None:
        name = str_or(ev.get("name")) or "unknown"
        call_id = str_or(ev.get("id"))
        if call_id:
            self.tools[call_id] = name
        text = shell_or_json(name, ev.get("input"))
        self.sink.add(line=n, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=text, ts=ts, tool=name, call_id=call_id)
        self.ledger.use(n)

    def _result(self, n: int, ev: dict[str, Any], outer: Any, ts: Any) -> None:
        call_id = str_or(ev.get("tool_use_id"))
        out = block_text(ev.get("content")).strip() or as_str(outer).strip()
        flag = ev.get("is_error")
        code = exit_code_in(out)
        is_error = flag if isinstance(flag, bool) else (True if code else None)
        self.sink.add(line=n, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=out or "[no output]", ts=ts,
                      tool=self.tools.get(call_id or ""), call_id=call_id, is_error=is_error, exit_code=code)
        self.ledger.use(n)


def read(probe: Probe) -> Transcript:
    with probe.open() as f:
        raw = f.read()
    sink = EventSink(session_from_path(probe.display), probe.display)
    ledger = LineLedger()
    reader = _Reader(sink, ledger)
    for n, rec in iter_jsonl(io.BytesIO(raw), ledger):
        reader.feed(n, rec)
    report = ReportBuilder(probe.display, FORMAT)
    ledger.apply(report)
    return transcript(sink, report)


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="managed-agent session events (agent.tool_use / agent.tool_result / user.message …), one a line",
    )
]
