"""Gemini CLI chat recording (~/.gemini/tmp/<project hash>/chats/session-<time>-<id8>.json).

{sessionId, projectHash, startTime, lastUpdated, messages: [{id, timestamp, type: user|gemini,
content, thoughts: [{subject, description, timestamp}], toolCalls: [{id, name: run_shell_command,
args: {command, description}, result: [{functionResponse: …}], status, timestamp, …}], model, tokens}]}
A gemini message carries one thought and either text or one tool call here, so the event order is
unambiguous: thought, text, call, result.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from story import Item, User, epoch_ms, hexid, iso_ms, ts_of, turn_times, uid


def shell_output(command: str, output: str, exit_code: int, pgid: int) -> str:
    """run_shell_command's llmContent, as gemini-cli formats it."""
    return (f"Command: {command}\nDirectory: (root)\nOutput: {output or '(empty)'}\nError: (none)\n"
            f"Exit Code: {exit_code}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: {pgid}")


def render(items: list[Item], start: datetime, *, session: str, project_root: str,
           model: str = "gemini-2.5-pro") -> str:
    msgs: list[dict[str, Any]] = []
    end = start
    for idx, it in enumerate(items):
        if isinstance(it, User):
            t = ts_of(start, it.at)
            msgs.append({"id": uid(session, "m", idx), "timestamp": iso_ms(t), "type": "user", "content": it.text})
            end = max(end, t)
            continue
        assert len(it.calls) <= 1, "one tool call per gemini message keeps the event order unambiguous"
        tt = turn_times(start, it)
        t_msg = tt["call0"] if it.calls else tt["text"]
        msg: dict[str, Any] = {"id": uid(session, "m", idx), "timestamp": iso_ms(t_msg), "type": "gemini",
                               "content": it.text or ""}
        if it.thinking:
            msg["thoughts"] = [{"subject": it.thought_subject or "Thinking", "description": it.thinking,
                                "timestamp": iso_ms(tt["reasoning"])}]
        if it.calls:
            c = it.calls[0]
            cid = f"run_shell_command-{epoch_ms(tt['call0'])}-{hexid(session, idx, n=14)}"
            out = shell_output(c.command, c.output.rstrip("\n"), c.exit_code, 40000 + 37 * idx)
            msg["toolCalls"] = [{
                "id": cid, "name": "run_shell_command",
                "args": {"command": c.command, "description": c.description},
                "result": [{"functionResponse": {"id": cid, "name": "run_shell_command",
                                                 "response": {"output": out}}}],
                "status": "success", "timestamp": iso_ms(tt["result0"]),
                "resultDisplay": c.output.rstrip("\n"), "displayName": "Shell",
                "description": "This tool executes a given shell command as `bash -c <command>`.",
                "renderOutputAsMarkdown": False}]
        msg["model"] = model
        msg["tokens"] = {"input": 9000 + 700 * idx, "output": 60 + 9 * idx, "cached": 7000 + 650 * idx,
                         "thoughts": 180 if it.thinking else 0, "tool": 0,
                         "total": 16240 + 1359 * idx + (180 if it.thinking else 0)}
        msgs.append(msg)
        end = max(end, tt["end"])
    doc = {"sessionId": session, "projectHash": hexid(project_root, n=64), "startTime": iso_ms(start),
           "lastUpdated": iso_ms(end + timedelta(seconds=1)), "messages": msgs}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def file_name(start: datetime, session: str) -> str:
    return f"session-{start.strftime('%Y-%m-%dT%H-%M')}-{session[:8]}.json"
