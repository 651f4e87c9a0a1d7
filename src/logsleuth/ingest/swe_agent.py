"""mini-swe-agent / SWE-agent trajectories (format "swe-agent").

- mini-swe-agent `.traj.json`: `{info, messages: [...], trajectory_format, instance_id}` (or a bare
  array of messages). The model writes its one command in a fenced block (```` ```bash ```` in
  v1, ```` ```mswea_bash_command ```` in v2, where `extra.actions` also holds it); the next user
  message is the observation `<returncode>N</returncode>` + `<output>…</output>` (or
  `<output_head>`/`<output_tail>` when long). The submit command's reply is the final diff, and a
  reply that is no observation (a format error) means the block was not run. Tool-call models
  (`tool_calls` + `role: tool` messages) are read as OpenAI messages.
- SWE-agent `.traj`: `{trajectory: [{thought, action, observation, execution_time, …}], info}`.
"""

from __future__ import annotations

import re
from typing import Any

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path, transcript
from logsleuth.ingest.jsonscan import LineLedger, as_str, count_lines, decode_text, scan_document
from logsleuth.ingest.openai_messages import emit_message
from logsleuth.model import Kind, Role, Transcript

FORMAT = "swe-agent"
_BLOCK = re.compile(r"```(?:mswea_bash_command|bash|sh|shell)?[ \t]*\n(.*?)\n?```", re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_SECTION = re.compile(r"<(output|output_head|output_tail|exception)>\n?(.*?)\n?</\1>", re.S)
_SUBMIT = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_TIMEOUT = "The last command <command>"
_MARKERS = (b"<returncode>", b"mswea_bash_command", b'"trajectory_format"', b'"mini_version"')


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] not in (b"{", b"["):
        return False
    if b'"trajectory"' in head and b'"observation"' in head and b'"action"' in head:
        return True  # SWE-agent .traj
    return b'"role"' in head and any(m in head for m in _MARKERS)


def read(probe: Probe) -> Transcript:
    with probe.open() as f:
        raw = f.read()
    text, bad_lines = decode_text(raw)
    sink = EventSink(session_from_path(probe.display), probe.display)
    ledger = LineLedger(count_lines(text))
    doc = scan_document(text, "messages")
    key = "messages"
    if doc.kind == "object" and not doc.found_array:
        doc, key = scan_document(text, "trajectory"), "trajectory"
    for line, reason in doc.errors:
        ledger.skip(line, reason)
    if doc.kind == "object" and not doc.found_array and not doc.errors:
        ledger.skip(1, "JSON object without a messages or trajectory array")
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
        _emit_messages(sink, ledger, good, session)
    for b in bad_lines:
        if not ledger.is_skipped(b):
            ledger.skip(b, "invalid UTF-8")
    report = ReportBuilder(probe.display, FORMAT)
    ledger.apply(report)
    return transcript(sink, report)


def _emit_messages(sink: EventSink, ledger: LineLedger, els: list[Any], session: str | None) -> None:
    names: dict[str, str] = {}
    pending: tuple[str, str] | None = None  # (command, call id) of the last assistant block
    for i, el in enumerate(els):
        msg = el.value
        role = msg.get("role")
        ts = _ts(msg)
        content = msg.get("content")
        text = content if isinstance(content, str) else ""
        if msg.get("tool_calls") or role == "tool" or not isinstance(content, str):
            got = emit_message(sink, msg, el.first, session, names)  # a tool-call model's turn
            if isinstance(got, str):
                ledger.skip(el.first, got)
            else:
                ledger.use(el.first, el.last)
            pending = None
            continue
        if role == "assistant":
            command = _command(msg, text)
            prose = _BLOCK.sub("", text).strip() if command else text.strip()
            if prose:
                sink.add(line=el.first, role=Role.ASSISTANT, kind=Kind.TEXT, text=prose, ts=ts, session=session)
            nxt = els[i + 1].value if i + 1 < len(els) else None
            if command and _ran(command, nxt):
                call_id = f"step:{el.first}"
                sink.add(line=el.first, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=command, tool="bash",
                         call_id=call_id, ts=ts, session=session)
                pending = (command, call_id)
            else:
                pending = None
        elif role == "user" and pending is not None:
            out, code, timed_out = _observation(text, pending[0])
            sink.add(line=el.first, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=out, tool="bash",
                     call_id=pending[1], exit_code=code, is_error=timed_out or (code is not None and code != 0),
                     ts=ts, session=session)
            pending = None
        elif text.strip():
            speaker = Role.SYSTEM if role == "system" else Role.USER
            sink.add(line=el.first, role=speaker, kind=Kind.TEXT, text=text.strip(), ts=ts, session=session)
        ledger.use(el.first, el.last)


def _ts(msg: dict[str, Any]) -> Any:
    extra = msg.get("extra")
    return msg.get("timestamp") or (extra.get("timestamp") if isinstance(extra, dict) else None)


def _command(msg: dict[str, Any], text: str) -> str | None:
    extra = msg.get("extra")
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if isinstance(actions, list) and len(actions) == 1 and isinstance(actions[0], dict):
        cmd = actions[0].get("command")
        if isinstance(cmd, str) and cmd.strip():
            return cmd.strip()
    blocks = _BLOCK.findall(text)
    return blocks[0].strip() if len(blocks) == 1 and blocks[0].strip() else None


def _ran(command: str, reply: Any) -> bool:
    """Whether the next message answers the command (an observation, a timeout, the submission)."""
    if not isinstance(reply, dict) or reply.get("role") not in ("user", "tool"):
        return False
    body = reply.get("content")
    if not isinstance(body, str):
        return False
    return bool(_RETURNCODE.search(body)) or body.startswith(_TIMEOUT) or any(s in command for s in _SUBMIT)


def _observation(text: str, command: str) -> tuple[str, int | None, bool]:
    m = _RETURNCODE.search(text)
    code = int(m.group(1)) if m else None
    sections = _SECTION.findall(text)
    if sections:
        out = "\n".join(body.strip("\n") for _, body in sections).strip()
    elif m:
        out = (text[: m.start()] + text[m.end() :]).strip()
    else:
        out = text.strip()
    if code is None and any(s in command for s in _SUBMIT):
        code = 0  # the submission: its reply is the diff the run ended with
    return out, code, text.startswith(_TIMEOUT)


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
    m = _RETURNCODE.search(obs)
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
