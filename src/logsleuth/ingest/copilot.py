"""GitHub Copilot CLI session events (format "copilot"): `~/.copilot/session-state/<id>/events.jsonl`.

One event a line, `{type, data, id, timestamp, parentId}` (or that event under `raw`, as some exporters
wrap it with `role`/`content`): `user.message` (`data.content`; `transformedContent` is what the model
got, with the CLI's reminders), `assistant.message` (`data.content`, `reasoningText`, `toolRequests`:
`{toolCallId, name, arguments}`), `tool.execution_start` (the begin event of a requested call: one call,
not two) and `tool.execution_complete` (`success`, `result.content` / `detailedContent`); session,
turn, hook and system events carry no conversation of their own.
"""

from __future__ import annotations

from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.jsonscan import LineLedger, as_str, read_each_jsonl, shell_or_json, str_or
from logsleuth.model import Kind, Role, Transcript

FORMAT = "copilot"
_PREFIXES = ("session.", "user.", "assistant.", "tool.", "hook.", "system.", "subagent.", "skill.", "abort")


def event_of(rec: Any) -> dict[str, Any] | None:
    """The Copilot event a line holds: itself, or the one under an exporter's `raw`."""
    ev = rec.get("raw") if isinstance(rec, dict) and isinstance(rec.get("raw"), dict) else rec
    if isinstance(ev, dict) and isinstance(ev.get("type"), str) and ev["type"].startswith(_PREFIXES) \
            and isinstance(ev.get("data"), dict):
        return ev
    return None


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    for piece in probe.head.split(b"\n")[:5]:
        if piece.strip():
            try:
                ev = event_of(orjson.loads(piece))
            except ValueError:
                return False
            return ev is not None and ev["type"].startswith("session.")
    return False


class _Reader:
    def __init__(self, sink: EventSink, ledger: LineLedger, session: str):
        self.sink, self.ledger, self.session = sink, ledger, session
        self.requested: dict[str, str] = {}  # call id -> tool, for calls already told

    def feed(self, n: int, rec: Any) -> None:
        ev = event_of(rec)
        if ev is None:
            self.ledger.skip(n, "not a Copilot CLI event")
            return
        self.ledger.use(n)
        t, data, ts = ev["type"], ev["data"], ev.get("timestamp")
        if t == "session.start" and isinstance(data.get("sessionId"), str):
            self.session = data["sessionId"]
        elif t == "user.message":
            self._add(n, Role.USER, Kind.TEXT, as_str(data.get("content")).strip(), ts)
        elif t == "assistant.message":
            self._add(n, Role.ASSISTANT, Kind.REASONING, as_str(data.get("reasoningText")).strip(), ts)
            self._add(n, Role.ASSISTANT, Kind.TEXT, as_str(data.get("content")).strip(), ts)
            for req in data.get("toolRequests") or []:
                if isinstance(req, dict):
                    self._call(n, str_or(req.get("toolCallId")), str_or(req.get("name")), req.get("arguments"), ts)
        elif t == "tool.execution_start":
            call_id = str_or(data.get("toolCallId"))
            if call_id is None or call_id not in self.requested:  # a call no assistant message requested
                self._call(n, call_id, str_or(data.get("toolName")), data.get("arguments"), ts)
        elif t == "tool.execution_complete":
            self._result(n, data, ts)

    def _add(self, n: int, role: Role, kind: Kind, text: str, ts: Any, **extra: Any) -> None:
        if text or kind is Kind.TOOL_RESULT:
            self.sink.add(line=n, role=role, kind=kind, text=text, ts=ts, session=self.session, **extra)

    def _call(self, n: int, call_id: str | None, name: str | None, args: Any, ts: Any) -> None:
        tool = name or "unknown"
        if call_id is not None:
            self.requested[call_id] = tool
        self._add(n, Role.ASSISTANT, Kind.TOOL_CALL, shell_or_json(tool, args), ts, tool=tool, call_id=call_id)

    def _result(self, n: int, data: dict[str, Any], ts: Any) -> None:
        call_id = str_or(data.get("toolCallId"))
        raw = data.get("result")
        result: dict[str, Any] = raw if isinstance(raw, dict) else {}
        text = as_str(result.get("detailedContent") or result.get("content"))
        err = data.get("error")
        if isinstance(err, dict):
            err = err.get("message")
        if isinstance(err, str) and err.strip():
            text = "\n".join(t for t in (text, err.strip()) if t)
        ok = data.get("success")
        self._add(n, Role.TOOL, Kind.TOOL_RESULT, text, ts, tool=self.requested.get(call_id or ""), call_id=call_id,
                  is_error=(not ok) if isinstance(ok, bool) else None)


def read(probe: Probe) -> Transcript:
    return read_each_jsonl(probe, FORMAT, lambda sink, ledger, sid: _Reader(sink, ledger, sid).feed)


READERS = [
    ReaderSpec(name=FORMAT, sniff=sniff, read=read,
               description="GitHub Copilot CLI session events (events.jsonl: user/assistant/tool.execution_* events)"),
]
