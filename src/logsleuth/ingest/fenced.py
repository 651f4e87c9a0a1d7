"""Commands written as text: a fenced shell block in an assistant turn, answered by the next message
with `<returncode>N</returncode>` + `<output>…</output>` (mini-swe-agent's protocol, which SWE-smith,
SWE-Gym and other datasets of OpenAI-style messages keep). One pass over a message sequence, shared
by the swe-agent reader and the openai-messages reader, so a trajectory reads the same under both.

The model writes its one command in a fenced block (```` ```bash ```` in mini-swe-agent v1,
```` ```mswea_bash_command ```` in v2, where `extra.actions` also holds it); the observation may be
`<output_head>`/`<output_tail>` when long. The submit command's reply is the final diff, and a reply
that is no observation (a format error) means the block was not run: it stays prose. Some forks
answer with `Observation: {'output': …, 'returncode': N}` (a Python dict's repr), as a string or
as the text part of a list: read the same.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Any

from logsleuth.ingest.base import EventSink
from logsleuth.ingest.chat import content_text, emit_message
from logsleuth.ingest.jsonscan import Element, LineLedger, as_str
from logsleuth.model import Kind, Role

_FENCE = re.compile(r"[ \t]*```[ \t]*([^\s`]*)[ \t]*")  # a whole line: "```lang" opens, "```" closes
_SHELL = frozenset({"mswea_bash_command", "bash", "sh", "shell"})
RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_SECTION = re.compile(r"<(output|output_head|output_tail|exception)>\n?(.*?)\n?</\1>", re.S)
_SUBMIT = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_TIMEOUT = "The last command <command>"
_OBS_DICT = re.compile(r"Observation: (\{.*\})", re.S)


def emit_messages(sink: EventSink, ledger: LineLedger, els: list[Element], session: str | None) -> None:
    """Messages in order: an assistant's fenced command that the next message answers becomes a
    tool call and that answer its result; every other message is read as an OpenAI message."""
    names: dict[str, str] = {}
    pending: tuple[str, str] | None = None  # (command, call id) of the last assistant block
    stepped: set[int] = set()
    for i, el in enumerate(els):
        msg = el.value
        ts = _ts(msg)
        content = msg.get("content")
        reply = _reply_text(msg)
        if pending is not None and reply is not None:  # _ran checked it is the observation
            out, code, timed_out = _observation(reply, pending[0])
            sink.add(line=el.first, role=Role.TOOL, kind=Kind.TOOL_RESULT, text=out, tool="bash",
                     call_id=pending[1], exit_code=code, is_error=timed_out or (code is not None and code != 0),
                     ts=ts, session=session)
            pending = None
            ledger.use(el.first, el.last)
            continue
        pending = None
        if msg.get("role") == "exit":  # v2's last message: why the run ended (not an OpenAI role)
            if text := _exit_text(msg):
                sink.add(line=el.first, role=Role.SYSTEM, kind=Kind.TEXT, text=text, ts=ts, session=session)
            ledger.use(el.first, el.last)
            continue
        nxt = els[i + 1].value if i + 1 < len(els) else None
        command, prose = _command(msg, content) if _may_command(msg) else (None, "")
        if command and _ran(command, nxt):
            msg = {**msg, "content": prose}  # the block is the tool call; the prose around it is said
        else:
            command = None
        got = emit_message(sink, {**msg, "timestamp": ts} if ts else msg, el.first, session, names)
        if isinstance(got, str):
            ledger.skip(el.first, got)
            continue
        if command:
            call_id = f"step:{el.first}" if el.first not in stepped else f"step:{el.first}.{i}"
            stepped.add(el.first)  # a conversation on one JSONL line holds many steps
            sink.add(line=el.first, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, text=command, tool="bash",
                     call_id=call_id, ts=ts, session=session)
            pending = (command, call_id)
        if got or command:  # a message with nothing to say (blank text) is ignored, not used
            ledger.use(el.first, el.last)


def _may_command(msg: dict[str, Any]) -> bool:
    """An assistant turn of a text-based model (a tool-call model's turn has `tool_calls`)."""
    return msg.get("role") == "assistant" and isinstance(msg.get("content"), str) and not msg.get("tool_calls")


def _exit_text(msg: dict[str, Any]) -> str:
    """`{"role": "exit", "content": …, "extra": {"exit_status": "LimitsExceeded", …}}` in words."""
    extra = msg.get("extra")
    status = as_str(extra.get("exit_status")).strip() if isinstance(extra, dict) else ""
    said = as_str(msg.get("content")).strip()
    return f"{status}: {said}" if status and said and status != said else (said or status)


def _ts(msg: dict[str, Any]) -> Any:
    extra = msg.get("extra")
    return msg.get("timestamp") or (extra.get("timestamp") if isinstance(extra, dict) else None)


def _command(msg: dict[str, Any], text: str) -> tuple[str | None, str]:
    """(the one command of an assistant turn, its text without that block): v2's `extra.actions`,
    else its one shell block (```` ```bash ```` or ```` ```mswea_bash_command ````, else one
    unlabelled block). Other blocks, such as quoted code, stay in the text."""
    blocks = fenced_blocks(text)
    shell = [b for b in blocks if b[0] in _SHELL] or [b for b in blocks if not b[0]]
    prose = text
    if len(shell) == 1:
        _, _, start, end = shell[0]
        prose = (text[:start] + text[end:]).strip()
    extra = msg.get("extra")
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if isinstance(actions, list) and len(actions) == 1 and isinstance(actions[0], dict):
        cmd = actions[0].get("command")
        if isinstance(cmd, str) and cmd.strip():
            return cmd.strip(), prose
    body = shell[0][1].strip() if len(shell) == 1 else ""
    return (body, prose) if body else (None, text)


def fenced_blocks(text: str) -> list[tuple[str, str, int, int]]:
    """(language, body, start, end) of every closed fenced block, read line by line: a block
    opens on a line "```lang" and closes on the next line that is "```" alone, so the closing
    fence of one block is never taken for the opening of another."""
    blocks: list[tuple[str, str, int, int]] = []
    pos = 0
    opened: tuple[str, int, int] | None = None  # (language, fence start, body start)
    for line in text.splitlines(keepends=True):
        m = _FENCE.fullmatch(line.rstrip("\r\n"))
        if m and opened is None:
            opened = (m.group(1), pos, pos + len(line))
        elif m and not m.group(1) and opened is not None:
            lang, start, body = opened
            blocks.append((lang, text[body:pos].rstrip("\r\n"), start, pos + len(line)))
            opened = None
        pos += len(line)
    return blocks


def _reply_text(msg: Any) -> str | None:
    """The text of a message that may answer a command: its string content, or its text parts."""
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return content
    return content_text(content)[0] if isinstance(content, list) else None


@lru_cache(maxsize=2)  # _ran parses the next message's reply, then _observation the same text
def _observation_dict(text: str) -> dict[str, Any] | None:
    """`Observation: {'output': …, 'returncode': N}` as the dict it prints, else None."""
    m = _OBS_DICT.fullmatch(text.strip())
    if not m:
        return None
    try:
        value = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and "returncode" in value else None


def _ran(command: str, reply: Any) -> bool:
    """Whether the next message answers the command (an observation, a timeout, the submission)."""
    body = _reply_text(reply)
    if body is None:
        return False
    submitted = any(s in command for s in _SUBMIT)
    if reply.get("role") == "exit":  # v2: the submission ends the run, its reply is the exit message
        return submitted
    if reply.get("role") not in ("user", "tool"):
        return False
    return bool(RETURNCODE.search(body)) or body.startswith(_TIMEOUT) or submitted or bool(_observation_dict(body))


def _observation(text: str, command: str) -> tuple[str, int | None, bool]:
    obs = _observation_dict(text)
    if obs is not None:
        rc = obs.get("returncode")
        return as_str(obs.get("output", "")).strip(), rc if isinstance(rc, int) else None, False
    m = RETURNCODE.search(text)
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
