"""OpenTelemetry spans of a coding agent's hooks, one JSON span a line (format "agent-otel").

superopen's hook CLI exports what Cursor (and other clients) report through their hooks as spans named
`coding_agent.*`, each `{trace_id, span_id, name, start_time_unix_nano, attributes, session_id}`:

- `coding_agent.llm.turn`: the user's prompt (`llm.turn.kind` user_prompt, `gen_ai.input.messages`),
  the model's reasoning (`llm.thought.text`, each written twice by two hooks) or its reply
  (`gen_ai.output.messages`);
- `coding_agent.tool.requested`: a tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`), without its input;
- `coding_agent.shell.requested`: the command of the Shell call requested before it;
- `coding_agent.tool.call`: a tool that ran (`gen_ai.tool.call.arguments`: a Read's path), with no id
  and no output; it answers the oldest unanswered request of its tool;
- `coding_agent.edit.decision`: the file a Write/Edit call changed (`code.file.path`) and its lines;
- `coding_agent.session.model.changed` / `session.loop.stop`: bookkeeping the story does not need.

Lines are not in time order (each hook appends when it finishes), so spans are read by start time.
The hooks carry no tool output: a result is the marker "[no output recorded]", never invented text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path, transcript
from logsleuth.ingest.jsonscan import LineLedger, as_str, compact_json, iter_jsonl, str_or
from logsleuth.model import Kind, Role, Transcript

FORMAT = "agent-otel"
PREFIX = "coding_agent."
NO_OUTPUT = "[no output recorded]"
# a tool.call span names the tool as the client's API does; its request, as the hook does
_CALL_TO_REQUEST = {"read_file": "read", "edit_file": "write", "run_terminal_cmd": "shell", "grep_search": "grep"}
_EDIT_REQUESTS = ("write", "edit", "strreplace", "multiedit", "delete")


def is_span(rec: Any) -> bool:
    """One exported span of the coding-agent hooks."""
    return (isinstance(rec, dict) and isinstance(rec.get("name"), str) and rec["name"].startswith(PREFIX)
            and "span_id" in rec and isinstance(rec.get("attributes"), dict))


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    for piece in probe.head.split(b"\n")[:5]:
        if piece.strip():
            try:
                return is_span(orjson.loads(piece))
            except ValueError:
                return False
    return False


@dataclass
class _Call:
    """A requested tool call, its input filled in by the spans that follow it."""

    line: int
    ts: int | None
    tool: str
    call_id: str | None
    args: dict[str, Any] = field(default_factory=dict)
    answered: bool = False  # a tool.call span said it ran


@dataclass
class _Item:
    """What one span becomes, in time order: an event, a call, or nothing (used, not told)."""

    line: int
    ts: int | None
    role: Role | None = None
    text: str = ""
    kind: Kind = Kind.TEXT
    call: _Call | None = None
    result_of: _Call | None = None


class _Spans:
    """The spans of one file in time order, with each call's input and result attached to it."""

    def __init__(self, ledger: LineLedger):
        self.ledger = ledger
        self.items: list[_Item] = []
        self.calls: list[_Call] = []
        self.last_thought = ""

    def feed(self, n: int, span: Any) -> None:
        if not is_span(span):
            self.ledger.skip(n, "not a coding_agent span")
            return
        self.ledger.use(n)
        kind = span["name"][len(PREFIX):]
        attrs: dict[str, Any] = span["attributes"]
        ts = span.get("start_time_unix_nano")
        ts = ts if isinstance(ts, int) else None
        handler = getattr(self, "_" + kind.replace(".", "_"), None)
        if handler is not None:
            handler(n, ts, attrs)

    def _llm_turn(self, n: int, ts: int | None, a: dict[str, Any]) -> None:
        if a.get("coding_agent.llm.turn.kind") == "user_prompt":
            self.items.append(_Item(n, ts, Role.USER, _message_text(a.get("gen_ai.input.messages"))))
            return
        thought = as_str(a.get("coding_agent.llm.thought.text")).strip()
        if thought and thought != self.last_thought:  # the two hooks that report a thought: told once
            self.items.append(_Item(n, ts, Role.ASSISTANT, thought, Kind.REASONING))
        self.last_thought = thought or self.last_thought
        reply = _message_text(a.get("gen_ai.output.messages"))
        if reply:
            self.items.append(_Item(n, ts, Role.ASSISTANT, reply))

    def _tool_requested(self, n: int, ts: int | None, a: dict[str, Any]) -> None:
        call = _Call(n, ts, str_or(a.get("gen_ai.tool.name")) or "unknown", str_or(a.get("gen_ai.tool.call.id")))
        self.calls.append(call)
        self.items.append(_Item(n, ts, call=call))

    def _shell_requested(self, n: int, ts: int | None, a: dict[str, Any]) -> None:
        command = as_str(a.get("coding_agent.tool.command"))
        call = self._waiting(lambda c: c.tool.lower() == "shell" and "command" not in c.args)
        if call is None:  # a command the hook saw without its request: still a call that ran
            call = _Call(n, ts, "Shell", None)
            self.items.append(_Item(n, ts, call=call))
        call.args["command"] = command

    def _tool_call(self, n: int, ts: int | None, a: dict[str, Any]) -> None:
        name = str_or(a.get("gen_ai.tool.name")) or "unknown"
        want = _CALL_TO_REQUEST.get(name.lower(), name.lower())
        call = (self._waiting(lambda c: not c.answered and c.tool.lower() == want)
                or self._waiting(lambda c: not c.answered and c.tool.lower() == name.lower()))
        if call is None:
            call = _Call(n, ts, name, None)
            self.items.append(_Item(n, ts, call=call))
        args = a.get("gen_ai.tool.call.arguments")
        if isinstance(args, str) and args and "path" not in call.args:
            call.args["path"] = args
        call.answered = True
        self.items.append(_Item(n, ts, result_of=call))

    def _edit_decision(self, n: int, ts: int | None, a: dict[str, Any]) -> None:
        call = self._waiting(lambda c: c.tool.lower() in _EDIT_REQUESTS and "path" not in c.args)
        path = as_str(a.get("code.file.path"))
        if call is not None and path:
            call.args["path"] = path
            for key, as_key in (("coding_agent.edit.lines.added", "lines_added"),
                                ("coding_agent.edit.lines.removed", "lines_removed"),
                                ("coding_agent.edit.decision", "decision")):
                if key in a:
                    call.args[as_key] = as_str(a[key])

    def _waiting(self, wanted: Any) -> _Call | None:
        """The oldest call that `wanted` accepts."""
        return next((c for c in self.calls if wanted(c)), None)


def _message_text(raw: Any) -> str:
    """The text parts of a `gen_ai.*.messages` attribute (a JSON string of [{role, parts}])."""
    try:
        msgs = orjson.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return as_str(raw).strip()
    texts: list[str] = []
    for m in msgs if isinstance(msgs, list) else []:
        for p in (m.get("parts") if isinstance(m, dict) else None) or []:
            if isinstance(p, dict) and isinstance(p.get("content"), str):
                texts.append(p["content"])
    return "\n".join(t for t in texts if t.strip()).strip()


def _emit(sink: EventSink, items: list[_Item], session: str) -> None:
    """Every item as an event, in time order; a call carries the input its later spans gave it."""
    for item in items:
        call, done = item.call, item.result_of
        if call is not None:
            text = str(call.args["command"]) if "command" in call.args else compact_json(call.args)
            sink.add(line=call.line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=text, ts=_ts(call.ts),
                     tool=call.tool, call_id=call.call_id, session=session)
        elif done is not None:
            sink.add(line=item.line, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=NO_OUTPUT, ts=_ts(item.ts),
                     tool=done.tool, call_id=done.call_id, session=session)
        elif item.text:
            sink.add(line=item.line, role=item.role or Role.ASSISTANT, kind=item.kind, text=item.text,
                     ts=_ts(item.ts), session=session)


def _ts(nanos: int | None) -> float | None:
    return nanos / 1e9 if nanos else None


def _in_time_order(records: Iterator[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """Spans by start time, file order among equals (a span with no time keeps its place's order)."""
    rows = list(records)
    times = [r.get("start_time_unix_nano") if isinstance(r, dict) else None for _, r in rows]
    last = 0
    keyed: list[tuple[int, int, Any]] = []
    for (n, rec), t in zip(rows, times, strict=True):
        last = t if isinstance(t, int) else last
        keyed.append((last, n, rec))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [(n, rec) for _, n, rec in keyed]


def read(probe: Probe) -> Transcript:
    ledger = LineLedger()
    with probe.open() as f:
        spans = _in_time_order(iter_jsonl(f, ledger))
    session = next((str(r["session_id"]) for _, r in spans if isinstance(r, dict)
                    and isinstance(r.get("session_id"), str) and r["session_id"]), None)
    sid = session or session_from_path(probe.display)
    sink = EventSink(sid, probe.display)
    reader = _Spans(ledger)
    for n, rec in spans:
        reader.feed(n, rec)
    _emit(sink, reader.items, sid)
    report = ReportBuilder(probe.display, FORMAT)
    ledger.apply(report)
    t = transcript(sink, report)
    results = sum(1 for i in reader.items if i.result_of is not None)
    if not results and not reader.calls:
        return t
    note = (f"{probe.display}: the hooks that wrote it keep no tool output ({len(reader.calls)} calls, {results} "
            "results without text): a failure that shows only in a command's output cannot be seen in it")
    return Transcript(t.events, dataclasses.replace(t.report, notes=(*t.report.notes, note)))


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="OpenTelemetry span JSONL of a coding agent's hooks (superopen coding_agent.* spans: Cursor)",
    )
]
