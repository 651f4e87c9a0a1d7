"""Gemini CLI `--output-format stream-json` (format "gemini-stream").

One JSON event per line (gemini-cli `nonInteractiveCli`, `StreamJsonFormatter`):

- `{"type": "init", "timestamp", "session_id", "model"}` opens the run;
- `{"type": "message", "role": "user"|"assistant", "content": str, "delta"?: true}`: assistant text
  arrives in deltas, joined here into one reply until the next non-message event;
- `{"type": "tool_use", "tool_name", "tool_id", "parameters"}` and
  `{"type": "tool_result", "tool_id", "status": "success"|"error", "output"?, "error"?: {type, message}}`;
- `{"type": "error", "severity", "message"}` (warnings and errors the run reports);
- `{"type": "result", "status", "error"?, "stats"}` closes it.

Lines the CLI prints around the stream (`YOLO mode is enabled…`, `Loaded cached credentials.`)
are ignored when they are not JSON; the report still counts them.
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

FORMAT = "gemini-stream"
EVENT_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})


def is_stream_event(rec: Any) -> bool:
    """A stream-json event: a known `type` with its own keys (tool_id, session_id, role + content)."""
    if not isinstance(rec, dict) or rec.get("type") not in EVENT_TYPES or "timestamp" not in rec:
        return False
    t = rec["type"]
    if t == "init":
        return "session_id" in rec
    if t == "message":
        return rec.get("role") in ("user", "assistant") and isinstance(rec.get("content"), str)
    if t in ("tool_use", "tool_result"):
        return "tool_id" in rec or "tool_name" in rec
    return "status" in rec or "message" in rec or "severity" in rec


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    seen = 0
    for piece in probe.head.split(b"\n")[:40]:
        piece = piece.strip()
        if not piece.startswith(b"{"):
            continue  # the banner lines the CLI prints before the stream
        try:
            rec = orjson.loads(piece)
        except ValueError:
            continue
        if not is_stream_event(rec):
            return False
        seen += 1
        if seen >= 2 or rec.get("type") == "init":
            return True
    return False


class _Reader:
    def __init__(self, sink: EventSink, ledger: LineLedger):
        self.sink = sink
        self.ledger = ledger
        self.session: str | None = None
        self.reply: list[tuple[int, str, Any]] = []  # assistant deltas waiting to be joined
        self.tools: dict[str, str] = {}

    def feed(self, n: int, rec: Any) -> None:
        if not isinstance(rec, dict):
            self.ledger.skip(n, "record is not a JSON object")
            return
        t = rec.get("type")
        if t == "message" and rec.get("role") == "assistant" and isinstance(rec.get("content"), str):
            self.reply.append((n, rec["content"], rec.get("timestamp")))
            return
        self.flush()
        ts = rec.get("timestamp")
        if t == "init":
            sid = rec.get("session_id")
            if isinstance(sid, str) and sid and self.session is None:
                self.session = sid
            self.ledger.use(n)
        elif t == "message":
            text = as_str(rec.get("content")).strip()
            if rec.get("role") != "user":
                self.ledger.skip(n, f"message with unknown role {as_str(rec.get('role'))[:40]!r}")
            elif text:
                self._add(n, Role.USER, Kind.TEXT, text, ts)
            else:
                self.ledger.use(n)
        elif t == "tool_use":
            self._call(n, rec, ts)
        elif t == "tool_result":
            self._result(n, rec, ts)
        elif t == "error":
            text = as_str(rec.get("message")).strip() or "error"
            severity = rec.get("severity")
            self._add(n, Role.SYSTEM, Kind.TEXT, text, ts, is_error=severity != "warning")
        elif t == "result":
            err = rec.get("error")
            if isinstance(err, dict) and err.get("message"):
                self._add(n, Role.SYSTEM, Kind.TEXT, as_str(err["message"]), ts, is_error=True)
            else:
                self.ledger.use(n)  # the final stats: nothing the story needs
        else:
            self.ledger.skip(n, f"unknown stream-json event {as_str(t)[:40]!r}")

    def flush(self) -> None:
        if not self.reply:
            return
        parts, self.reply = self.reply, []
        text = "".join(p for _, p, _ in parts).strip()
        if text:
            self.sink.add(line=parts[0][0], role=Role.ASSISTANT, kind=Kind.TEXT, text=text, ts=parts[0][2],
                          session=self.session)
        self.ledger.use(parts[0][0], parts[-1][0])

    def _add(self, n: int, role: Role, kind: Kind, text: str, ts: Any, **extra: Any) -> None:
        self.sink.add(line=n, role=role, kind=kind, text=text, ts=ts, session=self.session, **extra)
        self.ledger.use(n)

    def _call(self, n: int, rec: dict[str, Any], ts: Any) -> None:
        name = str_or(rec.get("tool_name")) or "unknown"
        call_id = str_or(rec.get("tool_id"))
        if call_id:
            self.tools[call_id] = name
        text = shell_or_json(name, rec.get("parameters"))
        self._add(n, Role.ASSISTANT, Kind.TOOL_CALL, text, ts, tool=name, call_id=call_id)

    def _result(self, n: int, rec: dict[str, Any], ts: Any) -> None:
        call_id = str_or(rec.get("tool_id"))
        status = rec.get("status")
        out = as_str(rec.get("output")).strip()
        err = rec.get("error")
        if isinstance(err, dict):
            message = as_str(err.get("message")).strip()
            out = "\n".join(t for t in (out, message) if t)
        elif isinstance(err, str):
            out = "\n".join(t for t in (out, err.strip()) if t)
        code = exit_code_in(out)
        failed = status == "error" or (code is not None and code != 0)
        is_error: bool | None = True if failed else (False if status == "success" else None)
        self._add(n, Role.TOOL, Kind.TOOL_RESULT, out or f"[{as_str(status) or 'no output'}]", ts,
                  tool=self.tools.get(call_id or ""), call_id=call_id, is_error=is_error, exit_code=code)


def read(probe: Probe) -> Transcript:
    with probe.open() as f:
        raw = f.read()
    sink = EventSink(session_from_path(probe.display), probe.display)
    ledger = LineLedger()
    reader = _Reader(sink, ledger)
    records = list(_records(raw, ledger))
    # the prompt line comes before `init`: the run's session id names it too (one session, not two)
    reader.session = next((str(r["session_id"]) for _, r in records if isinstance(r, dict) and r.get("type") == "init"
                           and isinstance(r.get("session_id"), str) and r["session_id"]), None)
    for n, rec in records:
        reader.feed(n, rec)
    reader.flush()
    report = ReportBuilder(probe.display, FORMAT)
    ledger.apply(report)
    return transcript(sink, report)


def _records(raw: bytes, ledger: LineLedger) -> Any:
    """JSON lines; a banner line the CLI printed (not starting with `{`) is ignored, not skipped."""
    lines = raw.split(b"\n")
    kept = [ln if ln.lstrip().startswith((b"{", b"[")) else b"" for ln in lines]
    return iter_jsonl(io.BytesIO(b"\n".join(kept)), ledger)


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Gemini CLI --output-format stream-json (init/message/tool_use/tool_result/result lines)",
    )
]
