# ruff: noqa  -- the helper's counter as it ran to write counts.json (only this line added)
"""Count what each transcript in this folder holds, from the files alone (standard library only).

Run: python3 /work/readers3/count_truth.py > /work/readers3/counts.json

Per file: `format` (judged from the file's own structure, see below), `records`, `tool_calls`,
`tool_results`, `paired` (results whose id names a call in the same file), `results_with_text`
(results whose output holds non-blank text in the file) and `user_turns`.

Shapes (decided by looking at the records, never at the folder name):

- claude-code (JSONL; records with type user/assistant and message.content): calls are `tool_use`
  parts of assistant messages, results `tool_result` parts of user messages, paired by tool_use_id;
  user turns are user records (not isMeta) whose content is a string or holds a text part and no
  tool_result part.
- engram-flat (JSONL of {timestamp, role, content:{type,...}}; one block per line, Claude Code session
  re-exported by the Engram tool): calls are role assistant / content.type tool_use, results role tool
  / content.type tool_result, paired by content.tool_id; user turns are role user / type text.
- cursor-otel (JSONL of OpenTelemetry spans, name coding_agent.*, written by superopen's Cursor hooks):
  calls are `coding_agent.tool.requested` spans (they carry gen_ai.tool.call.id), results are
  `coding_agent.tool.call` spans (tool finished; they carry no call id and no output text, so paired
  and results_with_text come out 0 unless such attributes exist); user turns are
  `coding_agent.llm.turn` spans with coding_agent.llm.turn.kind == user_prompt.
- cline-api-history (JSON list of {role, content:[parts], ts}; Cline's api_conversation_history.json):
  calls are `tool_use` parts of assistant messages; results are user text parts that start
  "[<tool> ...] Result:" (Cline feeds results back as text, without the call id, so paired is 0 unless
  a tool_result part with tool_use_id exists); user turns are user messages that carry the human's
  words: a text part holding <task>, <feedback> or <user_message> (Cline's "[ERROR] You did not use a
  tool" nags and bare "[TASK RESUMPTION]" notices without a new message are not turns).
- gemini-stream (JSONL of {type: init|message|tool_use|tool_result|result}): calls tool_use, results
  tool_result, paired by tool_id; user turns are message records with role user.
- mini-swe-agent (.traj.json {info, messages, trajectory_format}): calls are assistant messages that
  hold a ```bash (or ```sh) block; results are user messages whose text starts "Observation:" or holds
  <returncode> / 'returncode' (no ids, so paired 0); user turns are non-blank user messages that are
  not observations and not the harness's "Please always provide EXACTLY ONE action" format errors.
- aider (.aider.chat.history.md): records are lines; user turns are runs of consecutive `#### ` lines;
  calls are user lines `#### /run`, `/test`, `/lint`, `/git`, `#### !cmd` and `> Running ...` lines;
  the result of each is the block of `> ` lines right after it (up to the next blank line or `####`);
  a result counts as having text when that block holds a line other than aider's own prompts
  ("Add ... output to the chat?", "Added N lines of output", "Please answer with ...").
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent


def blank(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list):
        return all(blank(v.get("text", v.get("content")) if isinstance(v, dict) else v) for v in value)
    if isinstance(value, dict):
        return blank(value.get("text", value.get("content", value.get("output"))))
    return False


def row(fmt: str, records: int, calls: list, results: list, users: int) -> dict:
    """calls: list of call ids (or None); results: list of (id or None, has_text)."""
    ids = {c for c in calls if c}
    return {
        "format": fmt,
        "records": records,
        "tool_calls": len(calls),
        "tool_results": len(results),
        "paired": sum(1 for rid, _ in results if rid and rid in ids),
        "results_with_text": sum(1 for _, t in results if t),
        "user_turns": users,
    }


def jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def claude_code(lines: list[dict]) -> dict:
    calls, results, users = [], [], 0
    for r in lines:
        msg = r.get("message")
        if not isinstance(msg, dict):
            continue
        content = msg.get("content")
        if r.get("type") == "assistant" and isinstance(content, list):
            calls += [p.get("id") for p in content if isinstance(p, dict) and p.get("type") == "tool_use"]
        if r.get("type") == "user":
            parts = content if isinstance(content, list) else []
            tr = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_result"]
            results += [(p.get("tool_use_id"), not blank(p.get("content"))) for p in tr]
            if not r.get("isMeta") and not tr:
                if isinstance(content, str) or any(isinstance(p, dict) and p.get("type") == "text" for p in parts):
                    users += 1
    return row("claude-code", len(lines), calls, results, users)


def engram(lines: list[dict]) -> dict:
    calls, results, users = [], [], 0
    for r in lines:
        c = r.get("content") or {}
        if r.get("role") == "assistant" and c.get("type") == "tool_use":
            calls.append(c.get("tool_id"))
        elif r.get("role") == "tool" and c.get("type") == "tool_result":
            results.append((c.get("tool_id"), not blank(c.get("output"))))
        elif r.get("role") == "user" and c.get("type") == "text":
            users += 1
    return row("engram-flat", len(lines), calls, results, users)


def cursor_otel(lines: list[dict]) -> dict:
    calls, results, users = [], [], 0
    for r in lines:
        a = r.get("attributes") or {}
        n = r.get("name")
        if n == "coding_agent.tool.requested":
            calls.append(a.get("gen_ai.tool.call.id"))
        elif n == "coding_agent.tool.call":
            out = a.get("gen_ai.tool.call.result") or a.get("coding_agent.tool.output")
            results.append((a.get("gen_ai.tool.call.id"), not blank(out)))
        elif n == "coding_agent.llm.turn" and a.get("coding_agent.llm.turn.kind") == "user_prompt":
            users += 1
    return row("cursor-otel", len(lines), calls, results, users)


RESULT_RE = re.compile(r"^\[[A-Za-z_]+(?: for .*?)?\] Result:", re.S)
HUMAN_RE = re.compile(r"<task>|<feedback>|<user_message>")


def cline(msgs: list[dict]) -> dict:
    calls, results, users = [], [], 0
    for m in msgs:
        parts = m.get("content") if isinstance(m.get("content"), list) else [{"type": "text", "text": m.get("content") or ""}]
        if m.get("role") == "assistant":
            calls += [p.get("id") for p in parts if p.get("type") == "tool_use"]
            continue
        had = False
        for p in parts:
            if p.get("type") == "tool_result":
                results.append((p.get("tool_use_id"), not blank(p.get("content"))))
                had = True
            elif p.get("type") == "text" and RESULT_RE.match(p.get("text", "")):
                body = RESULT_RE.sub("", p["text"], count=1)
                results.append((None, not blank(body)))
                had = True
        texts = [p.get("text", "") for p in parts if p.get("type") == "text"]
        if any(HUMAN_RE.search(t) for t in texts):
            users += 1
    return row("cline-api-history", len(msgs), calls, results, users)


def gemini_stream(lines: list[dict]) -> dict:
    calls = [r.get("tool_id") for r in lines if r.get("type") == "tool_use"]
    results = [(r.get("tool_id"), not blank(r.get("output"))) for r in lines if r.get("type") == "tool_result"]
    users = sum(1 for r in lines if r.get("type") == "message" and r.get("role") == "user")
    return row("gemini-stream", len(lines), calls, results, users)


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


MINI_FORMAT_ERROR = "Please always provide EXACTLY ONE action"


def mini(doc: dict) -> dict:
    msgs = doc.get("messages") or []
    calls, results, users = [], [], 0
    for m in msgs:
        t = text_of(m.get("content"))
        if m.get("role") == "assistant":
            if re.search(r"```(?:bash|sh)\b", t):
                calls.append(None)
        elif m.get("role") == "user":
            if t.lstrip().startswith("Observation:") or "<returncode>" in t or "'returncode'" in t:
                body = t.lstrip()[len("Observation:"):] if t.lstrip().startswith("Observation:") else t
                results.append((None, not blank(body)))
            elif t.strip() and not t.strip().startswith(MINI_FORMAT_ERROR):
                users += 1
    return row("mini-swe-agent", len(msgs), calls, results, users)


AIDER_PROMPT = re.compile(r"^> (Add .* to the chat\?|Added \d+ lines? of output|Please answer with)")
AIDER_CALL = re.compile(r"^#### (/run|/test|/lint|/git|!)|^> Running ")


def aider(text: str) -> dict:
    lines = text.splitlines()
    users, in_user = 0, False
    calls, results = [], []
    for i, ln in enumerate(lines):
        if ln.startswith("#### "):
            if not in_user:
                users += 1
            in_user = True
        else:
            in_user = False
        if AIDER_CALL.match(ln):
            calls.append(None)
            block = []
            for nxt in lines[i + 1:]:
                if not nxt.startswith(">"):
                    break
                block.append(nxt)
            if block:
                has = any(b[1:].strip() and not AIDER_PROMPT.match(b) for b in block)
                results.append((None, has))
    return row("aider", len(lines), calls, results, users)


def count(path: Path) -> dict:
    name = path.name
    if name.endswith(".md"):
        return aider(path.read_text(encoding="utf-8"))
    if name.endswith(".jsonl"):
        lines = jsonl(path)
        first = next((r for r in lines if isinstance(r, dict)), {})
        if any("parentUuid" in r or ("message" in r and r.get("type") in ("user", "assistant")) for r in lines[:20]):
            return claude_code(lines)
        if "role" in first and isinstance(first.get("content"), dict):
            return engram(lines)
        if "trace_id" in first and "span_id" in first:
            return cursor_otel(lines)
        if first.get("type") in ("init", "message", "tool_use", "tool_result"):
            return gemini_stream(lines)
        raise SystemExit(f"unknown JSONL shape: {path}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc, list) and doc and isinstance(doc[0], dict) and "role" in doc[0]:
        return cline(doc)
    if isinstance(doc, dict) and "messages" in doc and "info" in doc:
        return mini(doc)
    raise SystemExit(f"unknown JSON shape: {path}")


def transcripts() -> list[Path]:
    out = []
    for d in sorted(p for p in HERE.iterdir() if p.is_dir()):
        for f in sorted(d.iterdir()):
            if f.is_file() and f.name != "SOURCE.txt":
                out.append(f)
    return out


def main() -> None:
    result = {f"{p.parent.name}/{p.name}": count(p) for p in transcripts()}
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
