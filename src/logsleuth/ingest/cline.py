"""Cline / Roo Code task history (format "cline"): `api_conversation_history.json`.

A JSON array of Anthropic Messages-API messages. The first user message opens with `<task>`. Calls are
the assistant's `tool_use` parts (or, in older versions, the tool's XML in the assistant's text, which
is left as text). Results are not blocks: the next user message carries one text part per call,
headed `[execute_command for 'npm test'] Result:`, with no id. So results are paired to the calls of
the message before by position, preferring the call of the same tool. The harness's other parts of a
user message (`<environment_details>`, TODO reminders) stay user text.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from logsleuth.ingest.base import Probe, ReaderSpec
from logsleuth.ingest.chat import is_message
from logsleuth.ingest.jsonscan import Element, first_element, read_json_or_jsonl
from logsleuth.ingest.openai_messages import read_document, read_lines
from logsleuth.model import Transcript

FORMAT = "cline"
# text parts Cline adds to a user message on its own: the editor's state, reminders, nags
_HARNESS = ("<environment_details>", "# TODO LIST", "# task_progress", "[ERROR] You did not use a tool",
            "[TASK RESUMPTION]", "(The user did not provide a new message")
_RESULT = re.compile(r"\[(?P<tool>[\w:.-]{1,80})(?: for '(?s:.){0,4000}?')?\] Result:[ \t]*\n?")


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] != b"[":
        return False
    _, _, first = first_element(head, None)
    return is_message(first) and first.get("role") == "user" and _opens_task(first.get("content"))


def _opens_task(content: Any) -> bool:
    parts = content if isinstance(content, list) else [{"text": content}]
    texts = (p.get("text") for p in parts if isinstance(p, dict))
    return any(isinstance(t, str) and t.lstrip().startswith("<task>") for t in texts)


def read(probe: Probe) -> Transcript:
    return read_json_or_jsonl(probe, FORMAT, lambda _text: False, read_lines,
                              partial(read_document, prepare=with_result_blocks))


def with_result_blocks(elements: list[Element]) -> list[Element]:
    """The messages with each `[tool] Result:` text part turned into a tool_result block naming the
    call it answers (by position among the previous message's calls, same tool first)."""
    out: list[Element] = []
    pending: list[tuple[str, str]] = []  # (call id, tool) of the last assistant message, unanswered
    for el in elements:
        msg = el.value
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            out.append(el)
            continue
        if msg.get("role") == "assistant":
            pending = [(str(p["id"]), str(p.get("name"))) for p in content
                       if isinstance(p, dict) and p.get("type") == "tool_use" and isinstance(p.get("id"), str)]
            out.append(el)
        elif msg.get("role") == "user":
            harness = [p for p in content if _is_harness(p)]
            if harness:  # the editor's state and the harness's nags are not the user speaking
                out.append(Element({"role": "system", "content": harness}, el.first, el.last))
            parts = [_as_result(p, pending) for p in content if not _is_harness(p)]
            out.append(Element({**msg, "content": parts}, el.first, el.last))
        else:
            out.append(el)
    return out


def _is_harness(part: Any) -> bool:
    text = part.get("text") if isinstance(part, dict) else None
    return isinstance(text, str) and text.lstrip().startswith(_HARNESS)


def _as_result(part: Any, pending: list[tuple[str, str]]) -> Any:
    if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
        return part
    m = _RESULT.match(part["text"].lstrip())
    if not m:
        return part
    tool = m.group("tool")
    pick = next((i for i, (_, name) in enumerate(pending) if name == tool), 0 if pending else None)
    call_id = pending.pop(pick)[0] if pick is not None else None
    body = part["text"].lstrip()[m.end():]
    return {"type": "tool_result", "tool_use_id": call_id, "content": body}


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Cline / Roo Code api_conversation_history.json (results paired by position)",
    )
]
