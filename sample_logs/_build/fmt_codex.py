"""Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl).

`response_item` records are the conversation; `event_msg` records repeat parts of it for the UI
(agent_reasoning, agent_message, user_message) and carry token counts, so readers must not count
them twice. Shell calls are `function_call` name "shell" with arguments
{"command": ["bash", "-lc", …]} and outputs {"output", "metadata": {"exit_code", "duration_seconds"}}.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from story import Item, User, b62, iso_ms, signature, ts_of, turn_times, uid


def render(items: list[Item], start: datetime, *, session: str, cwd: str, branch: str,
           model: str = "gpt-5-codex", cli_version: str = "0.46.0") -> str:
    recs: list[tuple[datetime, str, dict[str, Any]]] = []

    def put(t: datetime, typ: str, payload: dict[str, Any]) -> None:
        recs.append((t, typ, payload))

    put(start - timedelta(milliseconds=420), "session_meta", {
        "id": session, "timestamp": iso_ms(start - timedelta(milliseconds=431)), "cwd": cwd,
        "originator": "codex_cli_rs", "cli_version": cli_version, "instructions": None, "source": "cli",
        "model_provider": "openai",
        "git": {"commit_hash": b62(session, "commit", n=40).lower().replace("z", "a")[:40],
                "branch": branch, "repository_url": "git@github.com:dev/ddtree.git"}})
    turn_id = 0
    total_in = 0
    total_out = 0
    last_text = ""
    for idx, it in enumerate(items):
        if isinstance(it, User):
            t = ts_of(start, it.at)
            put(t, "response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": it.text}]})
            put(t, "event_msg", {"type": "user_message", "message": it.text, "images": []})
            turn_id += 1
            put(t + timedelta(milliseconds=3), "turn_context", _context(cwd, model))
            continue
        tt = turn_times(start, it)
        total_in += 21000 + 850 * idx
        total_out += 160 + 40 * len(it.calls)
        if it.thinking:
            put(tt["reasoning"], "event_msg", {"type": "agent_reasoning", "text": it.thinking})
            put(tt["reasoning"], "response_item", {
                "type": "reasoning", "summary": [{"type": "summary_text", "text": it.thinking}],
                "content": None, "encrypted_content": "gAAAAA" + signature(session, "enc", idx, n=320)})
        if it.text:
            last_text = it.text
            put(tt["text"], "event_msg", {"type": "agent_message", "message": it.text})
            put(tt["text"], "response_item", {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": it.text}]})
        for i, c in enumerate(it.calls):
            call_id = "call_" + b62(session, "call", idx, i, n=24)
            args: dict[str, Any] = {"command": ["bash", "-lc", c.command], "workdir": cwd}
            if c.timeout_ms:
                args["timeout_ms"] = c.timeout_ms
            put(tt[f"call{i}"], "response_item", {"type": "function_call", "name": "shell",
                                                  "arguments": json.dumps(args, ensure_ascii=False),
                                                  "call_id": call_id})
            put(tt[f"call{i}"] + timedelta(milliseconds=12), "event_msg", _tokens(total_in, total_out, idx))
            out, code = c.output, c.exit_code
            if c.status == "timeout":
                out = f"command timed out after {c.timeout_ms or 120000} milliseconds\n" + c.output
                code = 124
            body = {"output": out, "metadata": {"exit_code": code, "duration_seconds": round(c.duration, 1)}}
            put(tt[f"result{i}"], "response_item", {"type": "function_call_output", "call_id": call_id,
                                                    "output": json.dumps(body, ensure_ascii=False)})
            put(tt[f"result{i}"] + timedelta(milliseconds=6), "turn_context", _context(cwd, model))
        if not it.calls:
            put(tt["end"] + timedelta(milliseconds=20), "event_msg", _tokens(total_in, total_out, idx))
    end = max(t for t, _, _ in recs) + timedelta(milliseconds=5)
    put(end, "event_msg", {"type": "task_complete", "turn_id": str(turn_id), "last_agent_message": last_text})
    recs.sort(key=lambda r: r[0])  # stable: same-time records keep their order
    return "".join(json.dumps({"timestamp": iso_ms(t), "type": typ, "payload": p}, ensure_ascii=False,
                              separators=(",", ":")) + "\n" for t, typ, p in recs)


def _context(cwd: str, model: str) -> dict[str, Any]:
    return {"cwd": cwd, "approval_policy": "on-request", "sandbox_policy": {"mode": "danger-full-access"},
            "model": model, "effort": "high", "summary": "auto"}


def _tokens(total_in: int, total_out: int, idx: int) -> dict[str, Any]:
    last_in = 21000 + 850 * idx
    return {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": total_in, "cached_input_tokens": int(total_in * 0.86),
                              "output_tokens": total_out, "reasoning_output_tokens": total_out // 3,
                              "total_tokens": total_in + total_out},
        "last_token_usage": {"input_tokens": last_in, "cached_input_tokens": int(last_in * 0.9),
                             "output_tokens": 200, "reasoning_output_tokens": 64, "total_tokens": last_in + 200},
        "model_context_window": 272000}, "rate_limits": None}


def rollout_name(start: datetime, session: str) -> str:
    return f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl"


def session_id(*parts: object) -> str:
    """A UUIDv7-looking id whose time prefix is fixed (deterministic)."""
    u = uid(*parts)
    return "019ceb7a-" + u[9:14] + "7" + u[15:]


