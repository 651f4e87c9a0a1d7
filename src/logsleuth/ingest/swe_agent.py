"""mini-swe-agent / SWE-agent trajectories (format "swe-agent").

- mini-swe-agent `.traj.json`: `{info, messages: [...], trajectory_format, instance_id}` (or a bare
  array of messages): fenced commands answered by `<returncode>` observations, read by the pass in
  ingest/fenced.py. Tool-call models (`tool_calls` + `role: tool` messages) are read as OpenAI messages.
- The same messages one per line (JSONL, as converters and mirrors of sessions write them), or one
  `{"messages": [...]}` trajectory per line (the SWE-smith / SWE-Gym dataset shape): read by the
  openai-messages reader's line reader, which hands every sequence to the same pass.
- SWE-agent `.traj`: `{trajectory: [{thought, action, observation, execution_time, …}], info}`;
  one with no trajectory, only its `history` of messages (`tool_calls` answered by `role: tool`
  messages naming `tool_call_ids`, each with a `message_type`), reads that history.
"""

from __future__ import annotations

from typing import Any

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.chat import is_message
from logsleuth.ingest.fenced import RETURNCODE, emit_messages
from logsleuth.ingest.jsonscan import (
    LineLedger,
    as_str,
    looks_like_jsonl,
    read_json_or_jsonl,
    scan_document,
)
from logsleuth.ingest.openai_messages import read_lines
from logsleuth.model import Kind, Role, Transcript

FORMAT = "swe-agent"
_MARKERS = (b"<returncode>", b"mswea_bash_command", b'"trajectory_format"', b'"mini_version"')


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] not in (b"{", b"["):
        return False
    if b'"trajectory"' in head and b'"observation"' in head and b'"action"' in head:
        return True  # SWE-agent .traj
    if head[:1] == b"{" and b'"history"' in head and b'"message_type"' in head and b'"role"' in head:
        return True  # SWE-agent .traj that keeps only its history
    return b'"role"' in head and any(m in head for m in _MARKERS)


def read(probe: Probe) -> Transcript:
    return read_json_or_jsonl(probe, FORMAT, _is_jsonl, read_lines, _read_document)


def _is_jsonl(text: str) -> bool:
    return looks_like_jsonl(text, is_message)


def _read_document(text: str, bad_lines: list[int], sink: EventSink, ledger: LineLedger) -> None:
    doc = scan_document(text, "messages")
    key = "messages"
    if doc.kind == "object" and not doc.found_array:
        doc, key = scan_document(text, "trajectory"), "trajectory"
    if doc.kind == "object" and not doc.found_array:
        doc, key = scan_document(text, "history"), "history"
    for line, reason in doc.errors:
        ledger.skip(line, reason)
    if doc.kind == "object" and not doc.found_array and not doc.errors:
        ledger.skip(1, "JSON object without a messages, trajectory or history array")
    session = doc.members.get("instance_id") if isinstance(doc.members.get("instance_id"), str) else None
    good = []
    for el in doc.elements:
        if el.error:
            ledger.skip(el.first, el.error)
        elif not isinstance(el.value, dict):
            ledger.skip(el.first, "element is not a JSON object")
        else:
            good.append(el)
    if key == "trajectory":
        for el in good:
            if _emit_step(sink, el.value, el.first, session):
                ledger.use(el.first, el.last)
    else:
        emit_messages(sink, ledger, good, session)
    for b in bad_lines:
        if not ledger.is_skipped(b):
            ledger.skip(b, "invalid UTF-8")


def _emit_step(sink: EventSink, step: dict[str, Any], line: int, session: str | None) -> bool:
    """One SWE-agent trajectory step: thought, action (a tool call), observation (its result)."""
    thought = as_str(step.get("thought")).strip()
    action = as_str(step.get("action")).strip()
    if thought:
        sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TEXT, text=thought, session=session)
    if not action:
        return bool(thought)
    call_id = f"step:{line}"
    tool = action.split(None, 1)[0]
    sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=action, tool=tool, call_id=call_id,
             session=session)
    obs = as_str(step.get("observation")).strip()
    m = RETURNCODE.search(obs)
    code = int(m.group(1)) if m else None
    sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=obs, tool=tool, call_id=call_id,
             exit_code=code, is_error=code != 0 if code is not None else None, session=session)
    return True


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="mini-swe-agent .traj.json / SWE-agent .traj trajectories (fenced command + <returncode>)",
    )
]
