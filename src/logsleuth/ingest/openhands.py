"""OpenHands trajectories (format "openhands"): the event stream of a conversation.

Two shapes: a JSON array of events (a saved trajectory, the replay files of OpenHands' own tests), and
the evaluation harness's `output.jsonl`, one benchmark instance a line with its events under `history`
(each instance its own session; event ids restart in each).

An event has `id`, `source` (agent / user / environment) and either `action` or `observation`:

- `action: "message"` from the user is a turn; from the agent, its reply (`args.content`);
- an agent action with `tool_call_metadata` (`function_name`, `tool_call_id`) is a tool call: `run`
  (`args.command`), `edit` / `read` (`args.path`, the editor's arguments), `think`, `finish`, …; its
  `args.thought` is the model's reasoning before it;
- an observation with `tool_call_metadata` is that call's result (`content`; a `run` states its exit
  code in `extras.metadata.exit_code`); an `error` observation without it is a call the harness refused;
- state changes (`agent_state_changed`, `change_agent_state`), `null` observations, `recall` and the
  system prompt (`action: "system"`) carry no conversation.
"""

from __future__ import annotations

import io
import re
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path, transcript
from logsleuth.ingest.jsonscan import (
    LineLedger,
    as_str,
    compact_json,
    count_lines,
    decode_text,
    first_element,
    iter_jsonl,
    scan_document,
    shell_or_json,
)
from logsleuth.model import Kind, Role, Transcript

FORMAT = "openhands"
_QUIET = frozenset({"agent_state_changed", "change_agent_state", "null", "recall", "system"})
_EXIT = re.compile(r"'exit_code': (-?\d+)")
_V1_START = re.compile(rb'"history":\s*\[\s*\{"kind":\s*"\w+(?:Event|Observation)"')
_HISTORY_START = re.compile(rb'"history":\s*\[\s*\{"id":\s*\d+,\s*"timestamp":\s*"[^"]*",\s*"source":\s*"(?:agent|user|environment)"')


def is_event(rec: Any) -> bool:
    return (isinstance(rec, dict) and rec.get("source") in ("agent", "user", "environment") and "id" in rec
            and ("action" in rec or "observation" in rec or _is_v1(rec)))


def _is_v1(rec: Any) -> bool:
    """An event of OpenHands V1 (the software-agent SDK): typed by `kind` (ActionEvent, ObservationEvent…)."""
    return isinstance(rec, dict) and isinstance(rec.get("kind"), str) and rec["kind"].endswith(("Event", "Observation"))


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip()
    if head[:1] == b"[":
        _, _, first = first_element(head, None)
        return is_event(first)
    line = head.split(b"\n", 1)[0]
    if b'"history"' not in line[:1_000_000]:
        return False
    try:
        rec = orjson.loads(line)
    except ValueError:  # a first line longer than the probe's head (an instance is ~200 KB): its start decides
        return b'"instance_id"' in line[:200] and (_HISTORY_START.search(line) is not None
                                                    or _V1_START.search(line) is not None)
    history = rec.get("history") if isinstance(rec, dict) else None
    return isinstance(history, list) and bool(history) and is_event(history[0])


def _emit(sink: EventSink, ev: Any, line: int, session: str, ledger: LineLedger) -> None:
    """The events of one OpenHands event."""
    if not is_event(ev):
        ledger.skip(line, "not an OpenHands event")
        return
    ledger.use(line)
    if _is_v1(ev):
        _emit_v1(sink, ev, line, session)
        return
    meta = ev.get("tool_call_metadata") if isinstance(ev.get("tool_call_metadata"), dict) else {}
    call_id = as_str(meta.get("tool_call_id")) or None
    tool = as_str(meta.get("function_name")) or None
    ts = ev.get("timestamp")
    args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
    if "action" in ev:
        action = as_str(ev.get("action"))
        thought = as_str(args.get("thought")).strip()
        if action == "message":
            who = Role.USER if ev.get("source") == "user" else Role.ASSISTANT
            text = as_str(args.get("content") or ev.get("message")).strip()
            if text:
                sink.add(line=line, role=who, kind=Kind.TEXT, text=text, ts=ts, session=session)
        elif call_id is not None and ev.get("source") == "agent":
            if thought:
                sink.add(line=line, role=Role.ASSISTANT, kind=Kind.REASONING, text=thought, ts=ts, session=session)
            name = tool or action
            shown = {k: v for k, v in args.items() if k not in _NOT_ARGS}
            text = shell_or_json(name, shown) if action == "run" else compact_json(shown)
            sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=text, tool=name, call_id=call_id,
                     ts=ts, session=session)
        return
    observation = as_str(ev.get("observation"))
    if observation in _QUIET:
        return
    content = as_str(ev.get("content"))
    if call_id is None:  # the harness answering a call it could not take (an error), or its own note
        if content.strip():
            sink.add(line=line, role=Role.SYSTEM, kind=Kind.TEXT, text=content.strip(), ts=ts, session=session,
                     is_error=observation == "error")
        return
    code = _exit_code(ev.get("extras"))
    failed = observation == "error" or (code is not None and code != 0)
    sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=content, tool=tool, call_id=call_id, ts=ts,
             session=session, exit_code=code, is_error=True if failed else (False if code == 0 else None))


_V1_RESULTS = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")


def _emit_v1(sink: EventSink, ev: dict[str, Any], line: int, session: str) -> None:
    """A V1 event: an ActionEvent is a call (its `action.command` for a shell), an Observation-,
    AgentError- or UserRejectObservation event with a tool_call_id its result, a MessageEvent a turn."""
    kind, ts = ev["kind"], ev.get("timestamp")
    call_id = as_str(ev.get("tool_call_id")) or None
    tool = as_str(ev.get("tool_name")) or None
    if kind == "ActionEvent" and call_id is not None:
        thought = "\n".join(as_str(t.get("text") if isinstance(t, dict) else t) for t in ev.get("thought") or []).strip()
        if thought:
            sink.add(line=line, role=Role.ASSISTANT, kind=Kind.REASONING, text=thought, ts=ts, session=session)
        action = _dict(ev.get("action"))
        args = {k: v for k, v in action.items() if k not in ("kind", "is_input", "timeout", "reset")}
        name = tool or as_str(action.get("kind")) or "unknown"
        sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=shell_or_json(name, args), tool=name,
                 call_id=call_id, ts=ts, session=session)
    elif kind in _V1_RESULTS and call_id is not None:
        obs = _dict(ev.get("observation"))
        text = as_str(obs.get("output") if "output" in obs else obs.get("content", obs.get("message", ev.get("error"))))
        code = obs.get("exit_code") if isinstance(obs.get("exit_code"), int) else None
        failed = kind != "ObservationEvent" or bool(obs.get("error")) or (code is not None and code not in (0, -1))
        sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=text, tool=tool, call_id=call_id, ts=ts,
                 session=session, exit_code=code, is_error=True if failed else None)
    elif kind == "MessageEvent":
        msg = _dict(ev.get("llm_message"))
        parts = msg.get("content")
        text = "\n".join(as_str(p.get("text")) for p in parts if isinstance(p, dict)) if isinstance(parts, list) else as_str(parts)
        who = Role.USER if ev.get("source") == "user" else Role.ASSISTANT
        if text.strip():
            sink.add(line=line, role=who, kind=Kind.TEXT, text=text.strip(), ts=ts, session=session)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# what an action's args hold that is not the call's input: the harness's bookkeeping
_NOT_ARGS = frozenset({"thought", "is_input", "blocking", "hidden", "confirmation_state", "security_risk",
                       "impl_source", "translated_ipython_code", "include_extra", "is_static", "cwd", "image_urls",
                       "wait_for_response", "kernel_init_code"})


def _exit_code(extras: Any) -> int | None:
    meta = extras.get("metadata") if isinstance(extras, dict) else None
    if isinstance(meta, dict):
        code = meta.get("exit_code")
        return code if isinstance(code, int) and not isinstance(code, bool) else None
    m = _EXIT.search(meta) if isinstance(meta, str) else None
    return int(m.group(1)) if m else None


def read(probe: Probe) -> Transcript:
    with probe.open() as f:
        raw = f.read()
    report = ReportBuilder(probe.display, FORMAT)
    base = session_from_path(probe.display)
    sink = EventSink(base, probe.display)
    if raw.lstrip()[:1] == b"[":
        text, bad = decode_text(raw)
        ledger = LineLedger(count_lines(text))
        doc = scan_document(text, None)
        for line, reason in doc.errors:
            ledger.skip(line, reason)
        for el in doc.elements:
            if el.error:
                ledger.skip(el.first, el.error)
                continue
            _emit(sink, el.value, el.first, base, ledger)
            ledger.use(el.first, el.last)
        for line in bad:
            ledger.skip(line, "invalid UTF-8")
    else:
        ledger = LineLedger()
        for n, rec in iter_jsonl(io.BytesIO(raw), ledger):
            history = rec.get("history") if isinstance(rec, dict) else None
            if not isinstance(history, list):
                ledger.skip(n, "an evaluation record without a history")
                continue
            session = as_str(rec.get("instance_id")) or f"{base}:{n}"
            for ev in history:
                _emit(sink, ev, n, session, ledger)
    ledger.apply(report)
    return transcript(sink, report)


READERS = [
    ReaderSpec(name=FORMAT, sniff=sniff, read=read,
               description="OpenHands event trajectories (a JSON array of events, or the evaluation output.jsonl)"),
]
