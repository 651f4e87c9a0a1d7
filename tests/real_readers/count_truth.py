"""Count the tool calls and tool results each transcript here holds, from the files alone.

Written without logsleuth's code (standard library only), so that its counts can check the readers'.
Run: python3 tests/real_readers/count_truth.py > tests/real_readers/expected.json

What counts, per shape (decided from the file's own structure, not its name):
- SWE-agent `.traj` ({trajectory, history}): one call per trajectory step with a non-empty `action`,
  one result per step whose `observation` is a string.
- mini-swe-agent / chat messages (a list, or {messages}): calls are the entries of an assistant
  message's `tool_calls`, or, where an assistant message has none, one per fenced
  ```bash / ```mswea_bash_command block; results are `role: "tool"` messages, and the user
  messages that answer a fenced command: those that open with `<returncode>` or with the timeout
  notice (`The last command <command>…`), and the one after the submission command
  (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`), which holds that command's output.
- Codex rollout (JSONL of {type, payload}): calls are `response_item` payloads of a type ending in
  `_call` (function_call, custom_tool_call, local_shell_call, …); results those ending `_call_output`.
- Claude Code session (JSONL with message.content blocks): `tool_use` blocks are calls,
  `tool_result` blocks results.
- Gemini CLI session (a {messages} JSON or a JSONL of records): each entry of a `toolCalls` list is a
  call, and a result where it holds a non-empty `result`.
- opencode server events (JSONL of {type, properties}, or such an event under `event` / `payload`):
  a part is sent again on each change, so each distinct `part.id` of type "tool" among the
  `message.part.updated` events is one call, and a result when its last state is "completed" or
  "error".
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
FENCE = re.compile(r"^```(?:bash|sh|mswea_bash_command)\s*$", re.M)


def load(path: Path) -> object:
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(text_of(c.get("text", "")) if isinstance(c, dict) else text_of(c) for c in content)
    return ""


def count_messages(messages: list) -> tuple[int, int]:
    calls = results = 0
    submitted = False  # the previous message was an assistant's submission command
    for m in messages:
        if not isinstance(m, dict):
            continue
        role, text = m.get("role"), text_of(m.get("content"))
        if role == "assistant":
            tc = m.get("tool_calls")
            calls += len(tc) if isinstance(tc, list) and tc else len(FENCE.findall(text))
        elif role == "tool" or (role == "user" and (submitted or text.lstrip().startswith(("<returncode>", "The last command <command>")))):
            results += 1
        submitted = role == "assistant" and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in text and not m.get("tool_calls")
    return calls, results


def count_swe_agent(doc: dict) -> tuple[int, int]:
    steps = [s for s in doc["trajectory"] if isinstance(s, dict)]
    calls = sum(1 for s in steps if str(s.get("action") or "").strip())
    results = sum(1 for s in steps if isinstance(s.get("observation"), str))
    return calls, results


def count_records(records: list) -> tuple[int, int]:
    calls = results = 0
    for r in records:
        if not isinstance(r, dict):
            continue
        payload = r.get("payload")
        if r.get("type") == "response_item" and isinstance(payload, dict):
            kind = str(payload.get("type", ""))
            calls += kind.endswith("_call")
            results += kind.endswith("_call_output")
        message = r.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict):
                    calls += block.get("type") == "tool_use"
                    results += block.get("type") == "tool_result"
        c, s = count_gemini_calls(r.get("toolCalls"))
        calls, results = calls + c, results + s
    return calls, results


def count_bus_events(records: list) -> tuple[int, int] | None:
    """Calls and results of an opencode event stream, or None when `records` is not one."""
    events = [r.get("event") or r.get("payload") or r for r in records if isinstance(r, dict)]
    if not events or not all(isinstance(e, dict) and "properties" in e for e in events):
        return None
    last: dict[str, dict] = {}
    for e in events:
        part = e["properties"].get("part") if e.get("type") == "message.part.updated" else None
        if isinstance(part, dict) and part.get("type") == "tool":
            last[part["id"]] = part
    done = sum(1 for p in last.values() if p.get("state", {}).get("status") in ("completed", "error"))
    return len(last), done


def count_gemini_calls(tool_calls: object) -> tuple[int, int]:
    if not isinstance(tool_calls, list):
        return 0, 0
    return len(tool_calls), sum(1 for t in tool_calls if isinstance(t, dict) and t.get("result"))


def count(path: Path) -> dict[str, int]:
    doc = load(path)
    if isinstance(doc, dict) and isinstance(doc.get("trajectory"), list):
        calls, results = count_swe_agent(doc)
    elif isinstance(doc, dict) and isinstance(doc.get("messages"), list) and doc["messages"] and "role" in doc["messages"][0]:
        calls, results = count_messages(doc["messages"])
    elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        calls, results = count_records(doc["messages"])
    elif isinstance(doc, list) and doc and isinstance(doc[0], dict) and "role" in doc[0]:
        calls, results = count_messages(doc)
    else:
        records = doc if isinstance(doc, list) else [doc]
        calls, results = count_bus_events(records) or count_records(records)
    return {"tool_calls": calls, "tool_results": results}


def transcripts() -> list[Path]:
    return sorted(p for d in HERE.iterdir() if d.is_dir() for p in d.iterdir() if p.name != "SOURCE.txt")


def main() -> None:
    out = {f"{p.parent.name}/{p.name}": count(p) for p in transcripts()}
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
