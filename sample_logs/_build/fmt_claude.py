"""Claude Code session JSONL, record by record as the CLI writes it (~/.claude/projects/…/<id>.jsonl).

One assistant response is split over several records (one content block each) sharing
`message.id`; tool results come back as `user` records carrying `toolUseResult`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from story import Call, Item, Turn, User, b62, iso_ms, signature, turn_times, uid

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
    "file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the "
    "user to tell you how to proceed."
)
TOOL_NAMES = {"bash": "Bash", "edit": "Edit", "read": "Read"}


def _result_content(c: Call) -> tuple[str, bool, Any]:
    """(content, is_error, toolUseResult) for one call, as Claude Code records them."""
    out = c.output.rstrip("\n")
    if c.status == "rejected":
        return REJECTED, True, "User rejected tool use"
    if c.status == "sibling_error":
        return "<tool_use_error>Sibling tool call errored</tool_use_error>", True, "Sibling tool call errored"
    if c.status == "tool_error":
        return f"<tool_use_error>{out}</tool_use_error>", True, f"Error: {out}"
    if c.status == "timeout":
        secs = (c.timeout_ms or 120000) / 1000
        msg = f"Command timed out after {int(secs // 60)}m {secs % 60:.1f}s"
        return msg, True, f"Error: {msg}"
    if c.tool == "edit":
        assert c.edit is not None
        path = c.edit["file_path"]
        tur = {
            "filePath": path,
            "oldString": c.edit["old_string"],
            "newString": c.edit["new_string"],
            "originalFile": c.edit["original"],
            "structuredPatch": [_patch(c.edit)],
            "userModified": False,
            "replaceAll": False,
        }
        return f"The file {path} has been updated successfully.", False, tur
    if c.tool == "read":
        lines = out.split("\n")
        numbered = "\n".join(f"{i + 1:>6}\u2192{line}" for i, line in enumerate(lines))
        tur = {"type": "text", "file": {"filePath": c.command, "content": out, "numLines": len(lines),
                                        "startLine": 1, "totalLines": len(lines)}}
        return numbered, False, tur
    if c.exit_code != 0:
        body = f"Exit code {c.exit_code}" + (f"\n{out}" if out else "")
        return body, True, f"Error: {body}"
    tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
    return out, False, tur


def _patch(edit: dict[str, str]) -> dict[str, Any]:
    orig = edit["original"].split("\n")
    old = edit["old_string"].split("\n")
    new = edit["new_string"].split("\n")
    start = next(i for i in range(len(orig)) if orig[i : i + len(old)] == old)
    lo, hi = max(0, start - 3), min(len(orig), start + len(old) + 3)
    lines = [" " + x for x in orig[lo:start]] + ["-" + x for x in old] + ["+" + x for x in new]
    lines += [" " + x for x in orig[start + len(old) : hi]]
    return {"oldStart": lo + 1, "oldLines": hi - lo, "newStart": lo + 1,
            "newLines": hi - lo - len(old) + len(new), "lines": lines}


def _tool_input(c: Call) -> dict[str, Any]:
    if c.tool == "edit":
        assert c.edit is not None
        return {"file_path": c.edit["file_path"], "old_string": c.edit["old_string"],
                "new_string": c.edit["new_string"]}
    if c.tool == "read":
        return {"file_path": c.command}
    inp: dict[str, Any] = {"command": c.command}
    if c.timeout_ms:
        inp["timeout"] = c.timeout_ms
    if c.description:
        inp["description"] = c.description
    return inp


def render(items: list[Item], start: datetime, *, session: str, cwd: str, branch: str, slug: str,
           model: str = "claude-opus-4-6", version: str = "2.1.74") -> str:
    recs: list[dict[str, Any]] = []
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
            "version": version, "gitBranch": branch}
    parent: str | None = None
    n = 0

    def rec(body: dict[str, Any], t: datetime, with_slug: bool = True, tail: dict[str, Any] | None = None) -> str:
        nonlocal parent, n
        n += 1
        u = uid(session, "rec", n)
        r = {"parentUuid": parent, **base}
        if with_slug and n > 1:
            r["slug"] = slug
        r.update(body)
        r["uuid"] = u
        r["timestamp"] = iso_ms(t)
        r.update(tail or {})
        recs.append(r)
        parent = u
        return u

    first_user = True
    for idx, it in enumerate(items):
        if isinstance(it, User):
            t = start + timedelta(seconds=it.at)
            if it.interrupt:
                rec({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": it.text}]}}, t)
                continue
            if first_user:
                recs.append({"type": "file-history-snapshot", "messageId": uid(session, "rec", n + 1),
                             "snapshot": {"messageId": uid(session, "rec", n + 1), "trackedFileBackups": {},
                                          "timestamp": iso_ms(t + timedelta(milliseconds=60))},
                             "isSnapshotUpdate": False})
            rec({"type": "user", "message": {"role": "user", "content": it.text}}, t, with_slug=not first_user,
                tail={"thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [], "permissionMode": "default"})
            first_user = False
            continue
        _turn(it, idx, start, session, model, rec)
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in recs)


def _turn(turn: Turn, idx: int, start: datetime, session: str, model: str, rec: Any) -> None:
    tt = turn_times(start, turn)
    msg_id = "msg_01" + b62(session, "msg", idx)
    req = "req_011C" + b62(session, "req", idx, n=18)
    usage = {"input_tokens": 6, "cache_creation_input_tokens": 1200 + 37 * idx,
             "cache_read_input_tokens": 18000 + 911 * idx,
             "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1200 + 37 * idx},
             "output_tokens": 40 + 7 * len(turn.calls), "service_tier": "standard", "inference_geo": "not_available"}

    def block(content: dict[str, Any], t: datetime) -> str:
        msg = {"model": model, "id": msg_id, "type": "message", "role": "assistant", "content": [content],
               "stop_reason": None, "stop_sequence": None, "usage": usage}
        return str(rec({"message": msg, "requestId": req, "type": "assistant"}, t))

    if turn.thinking:
        block({"type": "thinking", "thinking": turn.thinking, "signature": signature(session, idx)},
              tt["reasoning"])
    if turn.text:
        block({"type": "text", "text": turn.text}, tt["text"])
    tool_ids = []
    sources = []
    for i, c in enumerate(turn.calls):
        tid = "toolu_01" + b62(session, "tool", idx, i)
        tool_ids.append(tid)
        src = block({"type": "tool_use", "id": tid, "name": TOOL_NAMES[c.tool], "input": _tool_input(c),
                     "caller": {"type": "direct"}}, tt[f"call{i}"])
        sources.append(src)
    for i, c in enumerate(turn.calls):
        if c.tool == "bash" and c.duration >= 20 and c.status in ("ok", "timeout"):
            # Long Bash calls stream bash_progress records; they carry no conversation.
            for k, secs in enumerate((5, int(c.duration) // 2)):
                rec({"type": "progress", "data": {"type": "bash_progress", "output": "", "fullOutput": "",
                                                  "elapsedTimeSeconds": secs, "totalLines": 0},
                     "toolUseID": f"bash-progress-{k}", "parentToolUseID": tool_ids[i]},
                    tt[f"call{i}"] + timedelta(seconds=secs))
        content, is_error, tur = _result_content(c)
        rec({"type": "user",
             "message": {"role": "user", "content": [{"tool_use_id": tool_ids[i], "type": "tool_result",
                                                      "content": content, "is_error": is_error}]}},
            tt[f"result{i}"], tail={"toolUseResult": tur, "sourceToolAssistantUUID": sources[i]})
