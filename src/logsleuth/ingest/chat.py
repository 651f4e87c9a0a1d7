"""One OpenAI-style chat message -> events: the vocabulary shared by the readers of message logs
(openai-messages, swe-agent).

A message: `{role: system|developer|user|assistant|tool|function, content: str | [parts] | {block},
tool_calls: [{id, function: {name, arguments}}], tool_call_id, name, reasoning_content | reasoning}`;
parts are `{type: text|input_text|output_text, text}` (images and other media are left out).
Anthropic Messages-API blocks are read too: `tool_use` / `tool_result` blocks among the parts, or one
block as the whole content object (`{"role": "assistant", "content": {"type": "tool_use", …}}`), as
tools that convert or mirror Claude Code sessions write them (Engram: `tool_name`, `tool_id`, `output`).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink
from logsleuth.ingest.jsonscan import as_str, compact_json, exit_code_in, str_or
from logsleuth.ingest.tools import is_shell
from logsleuth.model import Kind, Role

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_REASONING_PARTS = frozenset({"reasoning", "thinking"})
_LEADING_EXIT = re.compile(r"\s*Exit code (-?\d{1,9})\b")


def is_message(value: Any) -> bool:
    """An OpenAI-style message at the top level: a role and a body, none of the other agents' keys."""
    return (
        isinstance(value, dict)
        and value.get("role") in ROLES
        and ("content" in value or "tool_calls" in value or "function_call" in value)
        and "parts" not in value
        and "sessionId" not in value
        and value.get("type") in (None, "message")
    )


# what an agent harness sends in the user's role when the model's reply broke its protocol (mini-swe-agent
# v1 and v2, SWE-agent): the harness speaking, not the user (readers4: 2 and 3 such turns in two trajectories)
_HARNESS_NAG = re.compile(r"(?:No tool calls found in the response|Please always provide EXACTLY ONE action"
                          r"|Your output was not formatted correctly|Your last output did not use any tool calls)")


def emit_message(
    sink: EventSink, msg: Any, line: int, session: str | None, names: dict[str, str]
) -> int | str:
    """Add the events of one message; return how many, or the reason it cannot be used."""
    if not isinstance(msg, dict):
        return "message is not a JSON object"
    role = msg.get("role")
    if not isinstance(role, str) or role not in ROLES:  # a dict/list role is unhashable
        return "message has no known role" if role is None else f"unknown role {as_str(role)[:40]!r}"
    content = msg.get("content")
    if content is not None and not isinstance(content, (str, list, dict)):
        return f"content has the wrong type ({type(content).__name__})"
    calls = msg.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        return f"tool_calls has the wrong type ({type(calls).__name__})"
    ts = msg.get("timestamp") or msg.get("created_at") or msg.get("created")
    before = len(sink)
    if isinstance(content, dict) and _is_tool_block(content):
        _emit_block(sink, content, line, ts, session, names)  # a mirrored session: one block per message
        return len(sink) - before
    text, thinking = content_text(content)
    # Anthropic Messages-API content: tool_use / tool_result blocks among the parts of a message
    blocks = [b for b in content if _is_tool_block(b)] if isinstance(content, list) else []
    if role in ("system", "developer"):
        if text:
            sink.add(line=line, role=Role.SYSTEM, kind=Kind.TEXT, text=text, ts=ts, session=session)
    elif role == "user":
        if text:
            who = Role.SYSTEM if _HARNESS_NAG.match(text.lstrip()) else Role.USER
            sink.add(line=line, role=who, kind=Kind.TEXT, text=text, ts=ts, session=session)
    elif role == "assistant":
        reasoning = msg.get("reasoning_content") or msg.get("reasoning")
        for r in (as_str(reasoning).strip() if isinstance(reasoning, str) else "", thinking):
            if r:
                sink.add(line=line, role=Role.ASSISTANT, kind=Kind.REASONING, text=r, ts=ts, session=session)
        if text:
            sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TEXT, text=text, ts=ts, session=session)
        if isinstance(msg.get("function_call"), dict):
            calls = [*(calls or []), {"function": msg["function_call"]}]
        for call in calls or []:
            _emit_call(sink, call, line, ts, session, names)
    elif not blocks or text:  # tool / function result
        call_id = _result_id(msg)
        tool = msg.get("name") if isinstance(msg.get("name"), str) else names.get(call_id or "")
        code = exit_code_in(text)
        flag = msg.get("is_error")
        is_error = flag if isinstance(flag, bool) else (True if code else None)
        sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, tool=tool, call_id=call_id, text=text,
                 ts=ts, is_error=is_error, exit_code=code, session=session)
    for block in blocks:
        _emit_block(sink, block, line, ts, session, names)
    return len(sink) - before


def _result_id(msg: dict[str, Any]) -> str | None:
    """The call a tool message answers: `tool_call_id`, or SWE-agent's `tool_call_ids` list."""
    if isinstance(msg.get("tool_call_id"), str):
        return str(msg["tool_call_id"])
    ids = msg.get("tool_call_ids")
    if isinstance(ids, list) and ids and isinstance(ids[0], str):
        return str(ids[0])
    return None


def _is_tool_block(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ("tool_use", "tool_result")


def _emit_call(
    sink: EventSink, call: Any, line: int, ts: Any, session: str | None, names: dict[str, str]
) -> None:
    if not isinstance(call, dict):
        return
    fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
    name = str_or(fn.get("name")) or "unknown"
    call_id = str_or(call.get("id"))
    if call_id:
        names[call_id] = name
    sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, tool=name, call_id=call_id,
             text=call_text(name, fn.get("arguments")), ts=ts, session=session)


def _emit_block(
    sink: EventSink, block: dict[str, Any], line: int, ts: Any, session: str | None, names: dict[str, str]
) -> None:
    """`{"type": "tool_use", id, name, input}` or `{"type": "tool_result", tool_use_id, content, is_error}`."""
    if block["type"] == "tool_use":  # Engram's re-export names them tool_name / tool_id
        _emit_call(sink, {"id": block.get("id", block.get("tool_id")),
                          "function": {"name": block.get("name", block.get("tool_name")),
                                       "arguments": block.get("input")}},
                   line, ts, session, names)
        return
    call_id = str_or(block.get("tool_use_id")) or str_or(block.get("toolUseId")) or str_or(block.get("tool_id"))
    text, _ = content_text(block.get("content", block.get("output")))
    lead = _LEADING_EXIT.match(text)  # Claude Code's Bash output starts "Exit code N"
    code = int(lead.group(1)) if lead else exit_code_in(text)
    flag = block.get("is_error", block.get("isError"))
    is_error = flag if isinstance(flag, bool) else (True if code else None)
    sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, tool=names.get(call_id or ""), call_id=call_id,
             text=text, ts=ts, is_error=is_error, exit_code=code, session=session)


def call_text(name: str, arguments: Any) -> str:
    """The command of a shell-like call, else the arguments as compact sorted JSON."""
    args = arguments
    if isinstance(arguments, str):
        try:
            args = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
    if is_shell(name) and isinstance(args, dict):
        cmd = args.get("command", args.get("cmd"))
        if isinstance(cmd, str):
            return cmd
        if isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
            if len(cmd) >= 3 and cmd[0] in ("bash", "sh", "zsh") and cmd[1] in ("-c", "-lc"):
                return str(cmd[2])
            return shlex.join(cmd)
    return compact_json(args if args is not None else {})


def content_text(content: Any) -> tuple[str, str]:
    """(text, reasoning) of a content string or list of parts; media parts are left out."""
    if content is None:
        return "", ""
    if isinstance(content, str):
        return content.strip(), ""
    parts = content if isinstance(content, list) else [content]
    text: list[str] = []
    thinking: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        elif isinstance(part, dict):
            ptype = part.get("type")
            if not isinstance(ptype, str) and ptype is not None:
                continue  # a malformed part: nothing readable in it
            if ptype in _REASONING_PARTS:
                body = part.get("thinking", part.get("text", part.get("summary")))
                thinking.append(as_str(body) if not isinstance(body, list) else _summary_text(body))
            elif ptype == "refusal" and isinstance(part.get("refusal"), str):
                text.append(part["refusal"])
            elif (ptype in _TEXT_PARTS or ptype is None) and isinstance(part.get("text"), str):
                text.append(part["text"])
    return "\n".join(t for t in text if t).strip(), "\n".join(t for t in thinking if t).strip()


def _summary_text(items: list[Any]) -> str:
    return "\n".join(i.get("text", "") if isinstance(i, dict) else as_str(i) for i in items)
