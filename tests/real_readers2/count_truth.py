"""Count what each transcript here holds, from the files alone (standard library only, no logsleuth code).

Run: python3 tests/real_readers2/count_truth.py > tests/real_readers2/counts.json

Written and run before logsleuth read these files (issue 32's done-when). Per file: `records` (JSONL
lines, or entries of the document's message/step list, or markdown lines for aider), `tool_calls`,
`tool_results`, `paired` (results whose id names a call in the file), `results_with_text` (results
whose output holds non-blank text in the file) and `user_turns`. The shape is decided from the file's
own structure:

- Managed-agent session events (JSONL of {role, kind, raw}; raw.type "agent.tool_use", …): a call
  per `*tool_use` event, a result per `*tool_result` event, paired by raw.tool_use_id == the call's
  raw.id; user turns are `user.message` / `user.define_outcome` events.
- Gemini CLI stream-json (JSONL of {type: init|message|tool_use|tool_result|result}): calls are
  `tool_use`, results `tool_result`, paired by tool_id; user turns are `message` with role user.
- Gemini CLI chat session ({sessionId, messages}): each `toolCalls` entry is a call, and a result when
  it holds a non-empty `result`; user turns are messages of type user.
- Codex rollout (JSONL of {type, payload}): calls are response_item payloads of a type ending `_call`,
  results those ending `_call_output`, paired by call_id; user turns are event_msg user_message.
- SWE-agent `.traj` ({trajectory, history}): a call per step with a non-empty action, a result per
  step whose observation is a string (paired by step); user turns: 1 (the task).
- A role/content message log ({history} or {messages} of {role, content}, OpenAI style): calls are
  the entries of assistant `tool_calls`, results `role: "tool"` messages, paired by tool_call_id (or
  each of tool_call_ids); user turns are user messages that are not tool observations.
- aider chat history: user turns are runs of `#### ` lines; calls are user commands that run
  something (`/run`, `/test`, `/git`, `/lint`, `!`), `> Running cmd` lines and "I ran this command"
  messages; results the output that follows each (counted as one per call here). A suggested command
  the user declined (`> Run shell command? … [Yes]: n`) is a call whose result is that answer.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent


def blank(value: object) -> bool:
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list):
        return all(blank(v) for v in value)
    if isinstance(value, dict):  # a block's type and media type name its kind, hold no output
        return all(blank(v) for k, v in value.items() if k not in ("type", "media_type"))
    return value is None


def row(records: int, calls: list[str], results: list[tuple[str, bool]], users: int) -> dict[str, int]:
    ids = set(calls)
    return {
        "records": records,
        "tool_calls": len(calls),
        "tool_results": len(results),
        "paired": sum(1 for rid, _ in results if rid in ids),
        "results_with_text": sum(1 for _, text in results if text),
        "user_turns": users,
    }


def managed(lines: list[dict]) -> dict[str, int]:
    calls: list[str] = []
    results: list[tuple[str, bool]] = []
    users = 0
    for r in lines:
        raw = r.get("raw") or {}
        t = str(raw.get("type", ""))
        if t.endswith("tool_use"):
            calls.append(raw["id"])
        elif t.endswith("tool_result"):
            results.append((raw.get("tool_use_id", ""), not blank(raw.get("content"))))
        elif t in ("user.message", "user.define_outcome"):
            users += 1
    return row(len(lines), calls, results, users)


def gemini_stream(lines: list[dict]) -> dict[str, int]:
    calls = [r["tool_id"] for r in lines if r.get("type") == "tool_use"]
    results = [(r.get("tool_id", ""), not (blank(r.get("output")) and blank(r.get("error")))) for r in lines if r.get("type") == "tool_result"]
    users = sum(1 for r in lines if r.get("type") == "message" and r.get("role") == "user")
    return row(len(lines), calls, results, users)


def gemini_chat(doc: dict) -> dict[str, int]:
    calls: list[str] = []
    results: list[tuple[str, bool]] = []
    for m in doc["messages"]:
        for t in m.get("toolCalls") or []:
            calls.append(t["id"])
            if t.get("result"):
                results.append((t["id"], not blank(t.get("resultDisplay")) or not blank(t.get("result"))))
    users = sum(1 for m in doc["messages"] if m.get("type") == "user")
    return row(len(doc["messages"]), calls, results, users)


def codex(lines: list[dict]) -> dict[str, int]:
    calls: list[str] = []
    results: list[tuple[str, bool]] = []
    users = 0
    for r in lines:
        p = r.get("payload") if isinstance(r.get("payload"), dict) else {}
        kind = str(p.get("type", ""))
        if r.get("type") == "response_item" and kind.endswith("_call"):
            calls.append(p.get("call_id", ""))
        elif r.get("type") == "response_item" and kind.endswith("_call_output"):
            results.append((p.get("call_id", ""), not blank(p.get("output"))))
        elif r.get("type") == "event_msg" and kind == "user_message":
            users += 1
    return row(len(lines), calls, results, users)


def swe_agent(doc: dict) -> dict[str, int]:
    steps = [s for s in doc["trajectory"] if isinstance(s, dict)]
    calls = [str(i) for i, s in enumerate(steps) if str(s.get("action") or "").strip()]
    results = [(str(i), not blank(s["observation"])) for i, s in enumerate(steps) if isinstance(s.get("observation"), str)]
    return row(len(steps), calls, results, 1)


def messages(msgs: list[dict]) -> dict[str, int]:
    calls: list[str] = []
    results: list[tuple[str, bool]] = []
    users = 0
    for m in msgs:
        if m.get("role") == "assistant":
            calls.extend(str(t.get("id", "")) for t in m.get("tool_calls") or [])
        elif m.get("role") == "tool":
            ids = m.get("tool_call_ids") or [m.get("tool_call_id", "")]
            results.extend((str(i), not blank(m.get("content"))) for i in ids)
        elif (m.get("role") == "user" and m.get("message_type") != "observation") or (m.get("role") == "user" and not calls):
            users += 1
    return row(len(msgs), calls, results, users)


RUN = re.compile(r"^#### (?:/(?:run|test|git|lint)\b|!)")
# a command the model suggested that the user declined: a call (bench/readers4/count_truth.py's rule, adopted
# here on 2026-12-07), answered by the user's `n` (a result, as Claude Code's rejections are)
DECLINED = re.compile(r"^> Run shell commands?\? \(Y\)es/\(N\)o.*\]: n$")


def aider(text: str) -> dict[str, int]:
    lines = text.splitlines()
    users = calls = declined = 0
    prev_user = False
    for line in lines:
        is_user = line.startswith("#### ")
        users += is_user and not prev_user
        prev_user = is_user
        calls += bool(RUN.match(line)) or line.startswith("> Running ") or line.startswith("#### I ran this command:")
        declined += bool(DECLINED.match(line.rstrip()))
    ids = [str(i) for i in range(calls)]
    never_ran = [f"declined-{i}" for i in range(declined)]  # answered by the user's `n`: a result with text
    return row(len(lines), ids + never_ran, [(i, True) for i in ids + never_ran], users)


def count(path: Path) -> dict[str, int]:
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".md"):
        return aider(text)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        first = lines[0]
        if "raw" in first and "kind" in first:
            return managed(lines)
        if "payload" in first:
            return codex(lines)
        return gemini_stream(lines)
    if "trajectory" in doc:
        return swe_agent(doc)
    if isinstance(doc.get("history") or doc.get("messages"), list) and "role" in (doc.get("history") or doc["messages"])[0]:
        return messages(doc.get("history") or doc["messages"])
    return gemini_chat(doc)


def transcripts() -> list[Path]:
    return sorted(p for d in HERE.iterdir() if d.is_dir() for p in d.iterdir() if p.name != "SOURCE.txt")


def main() -> None:
    out = {f"{p.parent.name}/{p.name}": count(p) for p in transcripts()}
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
