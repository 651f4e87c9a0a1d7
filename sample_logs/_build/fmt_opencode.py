"""`opencode export <sessionID>` JSON: {info, messages: [{info, parts}]}.

Each assistant step is one message whose parts are step-start, reasoning, text, tool and
step-finish. A tool part's `state` is `completed` (with output and metadata.exit) or `error`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from story import Item, User, b62, epoch_ms, hexid, ts_of, turn_times


def _oid(prefix: str, t: datetime, *parts: object) -> str:
    # opencode ids: prefix + 12 hex of a time-ordered counter + 14 base62 chars
    return f"{prefix}_{epoch_ms(t) * 4096 % (16**12):012x}{b62(prefix, *parts, n=14)}"


def render(items: list[Item], start: datetime, *, title: str, cwd: str, session_seed: str,
           provider: str = "anthropic", model: str = "claude-opus-4-6", version: str = "1.2.15") -> str:
    sid = _oid("ses", start, session_seed)
    messages: list[dict[str, Any]] = []
    last_user = ""
    end = start
    for idx, it in enumerate(items):
        if isinstance(it, User):
            t = ts_of(start, it.at)
            mid = _oid("msg", t, session_seed, idx)
            last_user = mid
            messages.append({"info": {"id": mid, "sessionID": sid, "role": "user", "time": {"created": epoch_ms(t)},
                                      "agent": "build", "model": {"providerID": provider, "modelID": model}},
                             "parts": [{"id": _oid("prt", t, session_seed, idx, 0), "sessionID": sid,
                                        "messageID": mid, "type": "text", "text": it.text}]})
            end = max(end, t)
            continue
        tt = turn_times(start, it)
        t0 = tt["reasoning"] - timedelta(seconds=1.8)
        mid = _oid("msg", t0, session_seed, idx)
        parts: list[dict[str, Any]] = []
        snap = hexid(session_seed, "snap", n=40)

        def part(body: dict[str, Any], t: datetime, mid: str = mid, parts: list[dict[str, Any]] = parts,
                 idx: int = idx) -> None:
            parts.append({"id": _oid("prt", t, session_seed, idx, len(parts)), "sessionID": sid,
                          "messageID": mid, **body})

        tokens = {"input": 2 + idx, "output": 180 + 60 * len(it.calls), "reasoning": 120 if it.thinking else 0,
                  "cache": {"read": 24000 + 900 * idx, "write": 1100 + 31 * idx}}
        cost = round(0.011 + 0.0007 * idx, 6)
        part({"type": "step-start", "snapshot": snap}, t0)
        if it.thinking:
            part({"type": "reasoning", "text": it.thinking,
                  "time": {"start": epoch_ms(tt["reasoning"]) - 3000, "end": epoch_ms(tt["reasoning"])}},
                 tt["reasoning"])
        if it.text:
            part({"type": "text", "text": it.text,
                  "time": {"start": epoch_ms(tt["text"]) - 900, "end": epoch_ms(tt["text"])}}, tt["text"])
        for i, c in enumerate(it.calls):
            t_call, t_res = tt[f"call{i}"], tt[f"result{i}"]
            inp = {"command": c.command, "description": c.description or c.command[:60]}
            if c.timeout_ms:
                inp["timeout"] = c.timeout_ms
            times = {"start": epoch_ms(t_call), "end": epoch_ms(t_res)}
            if c.status == "timeout":
                state: dict[str, Any] = {"status": "error", "input": inp,
                                         "error": f"Command timed out after {c.timeout_ms or 120000} ms",
                                         "time": times}
            else:
                out = c.output
                state = {"status": "completed", "input": inp, "output": out, "title": inp["description"],
                         "metadata": {"output": out, "exit": c.exit_code, "description": inp["description"],
                                      "truncated": False},
                         "time": times}
            part({"type": "tool", "callID": "toolu_01" + b62(session_seed, "oc", idx, i), "tool": "bash",
                  "state": state}, t_call)
        finish = "tool-calls" if it.calls else "stop"
        part({"type": "step-finish", "reason": finish, "snapshot": snap, "cost": cost, "tokens": tokens},
             tt["end"])
        messages.append({"info": {"id": mid, "sessionID": sid, "role": "assistant",
                                  "time": {"created": epoch_ms(t0), "completed": epoch_ms(tt["end"])},
                                  "parentID": last_user, "modelID": model, "providerID": provider,
                                  "mode": "build", "agent": "build", "path": {"cwd": cwd, "root": cwd},
                                  "cost": cost, "tokens": tokens, "finish": finish},
                         "parts": parts})
        end = max(end, tt["end"])
    info = {"id": sid, "slug": "brisk-harbor", "version": version, "projectID": hexid(cwd, n=40),
            "directory": cwd, "title": title,
            "time": {"created": epoch_ms(start), "updated": epoch_ms(end)},
            "summary": {"additions": 0, "deletions": 0, "files": 0}}
    return json.dumps({"info": info, "messages": messages}, indent=2, ensure_ascii=False) + "\n"
