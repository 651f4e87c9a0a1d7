"""Shared reader for Codex CLI rollout JSONL (as written by codex_rollout.py / Codex CLI).

Yields a flat list of turns: ("user", text, ts), ("assistant", text, ts), ("reasoning", text, ts),
("cmd", {"cmd", "workdir", "output", "exit", "start", "end", "call_id"}, ts).
A command polled through write_stdin (unified exec) is merged into one command: its output is the
concatenation of every chunk's text after the "Output:" line, its exit code the last chunk's.
Command text and output are kept verbatim.
"""
from __future__ import annotations

import json
import re
from datetime import datetime

_HDR = re.compile(r"^(Chunk ID|Wall time|Process exited with code|Process running with session ID|"
                  r"Original token count|Total output lines)\b")


def ts_ms(ts: str) -> int:
    return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def split_output(out: str) -> tuple[str, int | None, int | None]:
    """-> (text after 'Output:', exit code or None, running session id or None)."""
    exit_code = sess = None
    lines = out.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^Process exited with code (-?\d+)$", line)
        if m:
            exit_code = int(m.group(1))
        m = re.match(r"^Process running with session ID (\d+)$", line)
        if m:
            sess = int(m.group(1))
        if line == "Output:":
            return "\n".join(lines[i + 1:]), exit_code, sess
        if not _HDR.match(line):
            break
    return out, exit_code, sess


def read(path: str) -> tuple[dict, list[tuple]]:
    meta: dict = {}
    turns: list[tuple] = []
    calls: dict[str, dict] = {}      # call_id -> cmd record
    by_session: dict[int, dict] = {}  # unified exec session id -> cmd record
    pending_poll: dict[str, dict] = {}
    last_reasoning = -1
    with open(path, encoding="utf-8") as f:
        for raw in f:
            raw = raw.strip()
            if not raw:
                continue
            rec = json.loads(raw)
            ts = rec.get("timestamp")
            typ, p = rec.get("type"), rec.get("payload") or {}
            if typ == "session_meta":
                meta = p
                continue
            if typ != "response_item":
                continue  # event_msg duplicates response items; turn_context carries no conversation
            pt = p.get("type")
            if pt == "message":
                text = "".join(c.get("text", "") for c in p.get("content") or [])
                if p.get("role") == "user":
                    if text.startswith("<environment_context>"):
                        continue
                    turns.append(("user", text, ts))
                elif p.get("role") == "assistant":
                    turns.append(("assistant", text, ts))
            elif pt == "reasoning":
                text = "\n".join(s.get("text", "") for s in p.get("summary") or [])
                if text:
                    turns.append(("reasoning", text, ts))
                    last_reasoning = len(turns) - 1
            elif pt == "function_call":
                args = json.loads(p.get("arguments") or "{}")
                if p.get("name") == "exec_command":
                    c = {"cmd": args.get("cmd", ""), "workdir": args.get("workdir"), "output": "",
                         "exit": None, "start": ts, "end": ts, "call_id": p.get("call_id")}
                    calls[p["call_id"]] = c
                    turns.append(("cmd", c, ts))
                elif p.get("name") == "write_stdin":
                    c = by_session.get(args.get("session_id"))
                    if c is not None:
                        pending_poll[p["call_id"]] = c
                        # the reasoning right before a poll is about waiting, not the task: drop it
                        if last_reasoning == len(turns) - 1 and turns[-1][0] == "reasoning":
                            turns.pop()
                last_reasoning = -1
            elif pt == "function_call_output":
                cid = p.get("call_id")
                c = calls.get(cid) or pending_poll.pop(cid, None)
                if c is None:
                    continue
                out = p.get("output")
                if isinstance(out, dict):
                    out = out.get("content", "")
                text, code, sess = split_output(out or "")
                c["output"] += text
                c["end"] = ts
                if code is not None:
                    c["exit"] = code
                if sess is not None:
                    by_session[sess] = c
    return meta, turns


_EXIT = re.compile(r"^Exit code (-?\d+)\n")


def read_claude(path: str) -> tuple[dict, list[tuple]]:
    """The same turns from a Claude Code JSONL written by the recorder's `rec` (Bash tool calls; a failed
    call's result starts with `Exit code N`, which becomes the exit code and leaves the output)."""
    meta: dict = {}
    turns: list[tuple] = []
    calls: dict[str, dict] = {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            if not raw.strip():
                continue
            rec = json.loads(raw)
            ts = rec.get("timestamp")
            meta.setdefault("cwd", rec.get("cwd"))
            meta.setdefault("timestamp", ts)
            content = (rec.get("message") or {}).get("content")
            if rec.get("type") == "user" and isinstance(content, str):
                turns.append(("user", content, ts))
                continue
            for block in content if isinstance(content, list) else []:
                kind = block.get("type")
                if kind == "text":
                    turns.append(("assistant", block.get("text", ""), ts))
                elif kind == "thinking":
                    turns.append(("reasoning", block.get("thinking", ""), ts))
                elif kind == "tool_use":
                    c = {"cmd": (block.get("input") or {}).get("command", ""), "workdir": rec.get("cwd"),
                         "output": "", "exit": None, "start": ts, "end": ts, "call_id": block.get("id")}
                    calls[block["id"]] = c
                    turns.append(("cmd", c, ts))
                elif kind == "tool_result" and block.get("tool_use_id") in calls:
                    c = calls[block["tool_use_id"]]
                    text = block.get("content") or ""
                    m = _EXIT.match(text) if block.get("is_error") else None
                    c["output"], c["exit"], c["end"] = (text[m.end():], int(m.group(1)), ts) if m else (text, 0, ts)
    return meta, turns


def read_any(path: str) -> tuple[dict, list[tuple]]:
    """A Codex rollout or the recorder's Claude Code JSONL, told apart by the first record."""
    with open(path, encoding="utf-8") as f:
        first = json.loads(f.readline())
    return read_claude(path) if "sessionId" in first and "message" in first else read(path)
