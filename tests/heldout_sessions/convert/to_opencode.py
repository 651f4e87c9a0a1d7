#!/usr/bin/env python3
"""Codex rollout JSONL (or the recorder's Claude Code JSONL) -> one opencode session as `opencode export <sessionID>` JSON.

Shape (opencode MessageV2, see SOURCES.txt): pretty-printed
  {"info": <Session.Info>, "messages": [{"info": <User|Assistant>, "parts": [<Part>...]}]}
- user message: info {id, sessionID, role:"user", time:{created}, agent, model:{providerID, modelID}},
  one `text` part.
- assistant message = one model step: parts step-start, [reasoning], [text], tool..., step-finish;
  a new step starts at the first reasoning/text after a tool call.
- a command is a `tool` part with tool "bash", callID, state {status:"completed", input:{command,
  description}, output, title, metadata:{output, exit, description, truncated}, time:{start, end}}
  (a command that never finished is status "error").
Command text and output are copied verbatim.

usage: to_opencode.py ROLLOUT.jsonl OUT.json
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import string
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _rollout import read_any as read
from _rollout import ts_ms

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_counter = 0


def oid(prefix: str, ms: int) -> str:
    """opencode Identifier.ascending: 12 hex of (ms * 4096 + counter), then 14 random base62."""
    global _counter
    _counter += 1
    return f"{prefix}_{(ms * 4096 + _counter) % (16 ** 12):012x}" + "".join(random.choice(B62) for _ in range(14))


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as fh:
        random.seed(hashlib.sha256(fh.read()).digest())
    meta, turns = read(src)
    cwd = meta.get("cwd") or "/home/dev/project"
    model, provider = "gpt-5.3-codex", "openai"
    start_ms = ts_ms(meta["timestamp"]) if meta.get("timestamp") else (ts_ms(turns[0][2]) if turns else 0)
    sid = oid("ses", start_ms)
    messages: list[dict] = []
    cur: dict | None = None
    last_user = ""
    had_tool = False
    end_ms = start_ms
    title = ""

    def close() -> None:
        nonlocal cur
        if cur is None:
            return
        parts = cur["parts"]
        t_end = cur["_end"]
        finish = "tool-calls" if any(p["type"] == "tool" for p in parts) else "stop"
        tokens = {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}
        parts.append({"id": oid("prt", t_end), "sessionID": sid, "messageID": cur["info"]["id"],
                      "type": "step-finish", "reason": finish, "cost": 0, "tokens": tokens})
        cur["info"]["time"]["completed"] = t_end
        cur["info"]["finish"] = finish
        del cur["_end"]
        messages.append(cur)
        cur = None

    def open_step(ms: int) -> dict:
        nonlocal cur, had_tool
        close()
        mid = oid("msg", ms)
        cur = {"info": {"id": mid, "sessionID": sid, "role": "assistant", "time": {"created": ms},
                        "parentID": last_user, "modelID": model, "providerID": provider, "mode": "build",
                        "agent": "build", "path": {"cwd": cwd, "root": cwd}, "cost": 0,
                        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}},
               "parts": [{"id": oid("prt", ms), "sessionID": sid, "messageID": mid, "type": "step-start"}],
               "_end": ms}
        had_tool = False
        return cur

    last_why = ""
    for kind, body, ts in turns:
        ms = ts_ms(ts) if ts else end_ms
        end_ms = max(end_ms, ms)
        if kind == "user":
            close()
            mid = oid("msg", ms)
            last_user = mid
            title = title or body.strip().split("\n")[0][:80]
            messages.append({"info": {"id": mid, "sessionID": sid, "role": "user", "time": {"created": ms},
                                      "agent": "build", "model": {"providerID": provider, "modelID": model}},
                             "parts": [{"id": oid("prt", ms), "sessionID": sid, "messageID": mid,
                                        "type": "text", "text": body}]})
            continue
        if kind in ("reasoning", "assistant"):
            if cur is None or had_tool:
                open_step(ms)
            ptype = "reasoning" if kind == "reasoning" else "text"
            cur["parts"].append({"id": oid("prt", ms), "sessionID": sid, "messageID": cur["info"]["id"],
                                 "type": ptype, "text": body, "time": {"start": ms, "end": ms}})
            cur["_end"] = max(cur["_end"], ms)
            if kind == "reasoning":
                last_why = body
            continue
        # a command
        if cur is None:
            open_step(ms)
        c = body
        t0 = ts_ms(c["start"]) if c["start"] else ms
        t1 = ts_ms(c["end"]) if c["end"] else t0
        end_ms = max(end_ms, t1)
        why = last_why.split("\n\n", 1)[-1].strip() if last_why else ""
        desc = (why.split(". ")[0].rstrip(".") if why else c["cmd"])[:80]
        inp = {"command": c["cmd"], "description": desc}
        if c["exit"] is None:
            state = {"status": "error", "input": inp, "error": c["output"] or "command did not finish",
                     "time": {"start": t0, "end": t1}}
        else:
            state = {"status": "completed", "input": inp, "output": c["output"], "title": desc,
                     "metadata": {"output": c["output"], "exit": c["exit"], "description": desc,
                                  "truncated": False},
                     "time": {"start": t0, "end": t1}}
        cur["parts"].append({"id": oid("prt", t0), "sessionID": sid, "messageID": cur["info"]["id"],
                             "type": "tool", "callID": "call_" + c["call_id"].removeprefix("call_"),
                             "tool": "bash", "state": state})
        cur["_end"] = max(cur["_end"], t1)
        had_tool = True
        last_why = ""
    close()
    info = {"id": sid, "slug": "quiet-harbor", "version": "1.2.15",
            "projectID": hashlib.sha1(cwd.encode()).hexdigest(), "directory": cwd,
            "title": title or "New session", "time": {"created": start_ms, "updated": end_ms},
            "summary": {"additions": 0, "deletions": 0, "files": 0}}
    with open(dst, "w", encoding="utf-8") as f:
        f.write(json.dumps({"info": info, "messages": messages}, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
