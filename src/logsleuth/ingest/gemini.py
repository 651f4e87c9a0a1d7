"""Gemini CLI chats (format "gemini").

Shapes read (gemini-cli `chatRecordingService`, `~/.gemini/tmp/<hash>/chats/session-*.json[l]`):

- the JSON document `{sessionId, projectHash, startTime, lastUpdated, messages: [MessageRecord]}`;
- the newer append-only JSONL: a metadata line, message records (a message re-appended with the
  same id replaces the earlier version in place), `{"$set": {...}}` metadata updates (a `messages`
  array replaces the whole history), `{"$rewindTo": id}` (removes that message and everything after
  it; an unknown id clears the history) and `{"$patch": ...}` content/result updates;
- the older `logs.json` array of `{sessionId, messageId, type, message, timestamp}`;
- checkpoints: `{history: [Content]}` or a bare `[Content]` with `{role: user|model, parts}`.

MessageRecord: `{id, timestamp, type: user|gemini|info|error|warning, content, displayContent?,
thoughts: [{subject, description, timestamp}], toolCalls: [{id, name, args, result, status,
resultDisplay, timestamp}]}`; `content` is a string or a list of Gemini parts.
"""

from __future__ import annotations

import io
from typing import Any

from logsleuth.ingest.base import (
    EventSink,
    Probe,
    ReaderSpec,
)
from logsleuth.ingest.jsonscan import (
    LineLedger,
    as_str,
    compact_json,
    exit_code_in,
    first_element,
    first_record,
    iter_jsonl,
    looks_like_jsonl,
    read_json_or_jsonl,
    scan_document,
    shell_or_json,
    str_or,
)
from logsleuth.model import Kind, Role, Transcript

FORMAT = "gemini"
MESSAGE_TYPES = frozenset({"user", "gemini", "model", "info", "error", "warning"})
_SYSTEM_TYPES = frozenset({"info", "error", "warning"})


# ---------------------------------------------------------------------------------------------
# detection


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] == b"{":
        rec = first_record(head)
        if isinstance(rec, dict):
            return _is_gemini_record(rec)
        _, members, _ = first_element(head, "messages")
        if isinstance(members.get("sessionId"), str) and "projectHash" in members:
            return True
        _, _, first = first_element(head, "history")
        return isinstance(first, dict) and _is_content(first)
    if head[:1] == b"[":
        _, _, first = first_element(head, None)
        return isinstance(first, dict) and (_is_logs_entry(first) or _is_content(first))
    return False


def _is_gemini_record(rec: dict[str, Any]) -> bool:
    if isinstance(rec.get("sessionId"), str) and isinstance(rec.get("projectHash"), str):
        return True
    if isinstance(rec.get("$rewindTo"), str) or isinstance(rec.get("$set"), dict):
        return True
    if _is_message(rec) and "sessionId" not in rec and "message" not in rec:
        return True
    history = rec.get("history")
    return isinstance(history, list) and bool(history) and isinstance(history[0], dict) and _is_content(history[0])


def _is_message(rec: dict[str, Any]) -> bool:
    kind = rec.get("type")
    return isinstance(rec.get("id"), str) and isinstance(kind, str) and kind in MESSAGE_TYPES and ("content" in rec or "parts" in rec)


def _is_logs_entry(rec: dict[str, Any]) -> bool:
    return "messageId" in rec and "sessionId" in rec and "type" in rec


def _is_content(rec: dict[str, Any]) -> bool:
    return rec.get("role") in ("user", "model") and isinstance(rec.get("parts"), list)


# ---------------------------------------------------------------------------------------------
# reading


def read(probe: Probe) -> Transcript:
    return read_json_or_jsonl(probe, FORMAT, _is_jsonl, _read_jsonl, _read_document)


def _is_jsonl(text: str) -> bool:
    """One JSON value per line (the recording log) rather than one (pretty-printed) document."""
    # a single line is a whole document unless it is one bare record of the log
    return looks_like_jsonl(
        text, lambda rec: isinstance(rec, dict) and "messages" not in rec and "history" not in rec
    )


def _read_jsonl(raw: bytes, sink: EventSink, ledger: LineLedger) -> None:
    messages: dict[str, tuple[dict[str, Any], int]] = {}  # insertion order = conversation order
    meta: dict[str, Any] = {}
    for n, rec in iter_jsonl(io.BytesIO(raw), ledger):
        if not isinstance(rec, dict):
            ledger.skip(n, "record is not a JSON object")
        elif "$rewindTo" in rec:
            target = rec["$rewindTo"]
            if not isinstance(target, str):
                ledger.skip(n, "$rewindTo is not a string")
                continue
            ids = list(messages)
            cut = ids.index(target) if target in messages else 0
            for mid in ids[cut:]:
                del messages[mid]
        elif "$patch" in rec:
            if not isinstance(rec["$patch"], dict):
                ledger.skip(n, "$patch is not an object")
                continue
            _apply_patch(messages, rec["$patch"])
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = (rec, n)  # a re-append replaces in place (keeps its position)
        elif "$set" in rec:
            update = rec["$set"]
            if not isinstance(update, dict):
                ledger.skip(n, "$set is not an object")
                continue
            meta.update(update)
            if isinstance(update.get("messages"), list):
                messages = _message_map(update["messages"], n)
        elif isinstance(rec.get("sessionId"), str) and "projectHash" in rec:
            meta.update(rec)
            if isinstance(rec.get("messages"), list):
                messages.update(_message_map(rec["messages"], n))
        else:
            ledger.skip(n, "unrecognised record (no id, $set, $rewindTo or session metadata)")
    session = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else None
    for msg, n in messages.values():
        emitted = _emit_message(sink, msg, n, session)
        if isinstance(emitted, str):
            ledger.skip(n, emitted)
        elif emitted:
            ledger.use(n)


def _message_map(items: list[Any], line: int) -> dict[str, tuple[dict[str, Any], int]]:
    return {m["id"]: (m, line) for m in items if isinstance(m, dict) and isinstance(m.get("id"), str)}


def _apply_patch(messages: dict[str, tuple[dict[str, Any], int]], patch: dict[str, Any]) -> None:
    updates = [patch] if isinstance(patch.get("id"), str) else []
    if isinstance(patch.get("updates"), list):
        updates += [u for u in patch["updates"] if isinstance(u, dict) and isinstance(u.get("id"), str)]
    for upd in updates:
        entry = messages.get(upd["id"])
        if entry is None:
            continue
        msg = entry[0]
        if upd.get("content") is not None:
            msg["content"] = upd["content"]
        if isinstance(upd.get("toolCalls"), list) and isinstance(msg.get("toolCalls"), list):
            by_id = {tc.get("id"): tc for tc in msg["toolCalls"] if isinstance(tc, dict)}
            for tcp in upd["toolCalls"]:
                if isinstance(tcp, dict) and tcp.get("id") in by_id and "result" in tcp:
                    by_id[tcp["id"]]["result"] = tcp["result"]
    for rid in patch.get("removeIds") or []:
        if isinstance(rid, str):
            messages.pop(rid, None)
    order = patch.get("orderIds")
    if isinstance(order, list):
        ordered = [i for i in order if isinstance(i, str) and i in messages]
        keep = {i: messages[i] for i in messages if i not in set(ordered)}
        keep.update({i: messages[i] for i in ordered})
        messages.clear()
        messages.update(keep)


def _read_document(text: str, bad_lines: list[int], sink: EventSink, ledger: LineLedger) -> None:
    doc = scan_document(text, "messages")
    array_key = "messages"
    if doc.kind == "object" and not doc.found_array and not doc.errors:
        doc = scan_document(text, "history")
        array_key = "history"
    session = doc.members.get("sessionId") if isinstance(doc.members.get("sessionId"), str) else None
    bad = set(bad_lines)
    for line, reason in doc.errors:
        ledger.skip(line, reason)
    if doc.kind == "object" and not doc.found_array and not doc.errors:
        ledger.skip(1, "JSON object without a messages or history array")
    for el in doc.elements:
        if el.error:
            ledger.skip(el.first, el.error)
            continue
        hit = [b for b in range(el.first, el.last + 1) if b in bad]
        if hit:
            ledger.skip(hit[0], "invalid UTF-8")
            bad.difference_update(hit)
            continue
        if doc.kind == "array" or array_key == "history":
            emitted = _emit_entry(sink, el.value, el.first, session)
        else:
            emitted = _emit_message(sink, el.value, el.first, session)
        if isinstance(emitted, str):
            ledger.skip(el.first, emitted)
        elif emitted:
            ledger.use(el.first, el.last)
    for b in sorted(bad):
        if not ledger.is_skipped(b):
            ledger.skip(b, "invalid UTF-8")


# ---------------------------------------------------------------------------------------------
# records -> events (each returns the number of events added, or the reason to skip the record)


def _emit_message(sink: EventSink, msg: Any, line: int, session: str | None) -> int | str:
    if not isinstance(msg, dict):
        return "message is not a JSON object"
    mtype = msg.get("type")
    if not isinstance(mtype, str):
        return "message has no type"
    for key in ("toolCalls", "thoughts"):
        if msg.get(key) is not None and not isinstance(msg[key], list):
            return f"{key} has the wrong type ({type(msg[key]).__name__})"
    ts = msg.get("timestamp")
    before = len(sink)
    if mtype == "user":
        text = _parts_text(msg.get("displayContent")) or _parts_text(msg.get("content") or msg.get("parts"))
        if text:
            sink.add(line=line, role=user_or_cli(text), kind=Kind.TEXT, text=text, ts=ts, session=session)
    elif mtype in ("gemini", "model"):  # "model": a turn written with the API's role and its `parts`
        _emit_gemini(sink, msg if msg.get("content") else {**msg, "content": msg.get("parts")}, line, ts, session)
    elif mtype in _SYSTEM_TYPES:
        text = _parts_text(msg.get("content"))
        if text:
            sink.add(
                line=line, role=Role.SYSTEM, kind=Kind.TEXT, text=text, ts=ts, session=session,
                is_error=True if mtype == "error" else None,
            )
    else:
        return f"unknown message type {mtype[:40]!r}"
    return len(sink) - before


def _emit_gemini(sink: EventSink, msg: dict[str, Any], line: int, ts: Any, session: str | None) -> None:
    for th in msg.get("thoughts") or []:  # a list: checked by _emit_message
        if isinstance(th, dict):
            subject, desc = as_str(th.get("subject")).strip(), as_str(th.get("description")).strip()
            text = "\n\n".join(t for t in (subject, desc) if t)  # a heading, then its paragraph
            if text:
                sink.add(line=line, role=Role.ASSISTANT, kind=Kind.REASONING, text=text,
                         ts=th.get("timestamp") or ts, session=session)
    thought = _parts_text(msg.get("content"), thoughts=True)
    if thought:
        sink.add(line=line, role=Role.ASSISTANT, kind=Kind.REASONING, text=thought, ts=ts, session=session)
    text = _parts_text(msg.get("content"))
    if text:
        sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TEXT, text=text, ts=ts, session=session)
    calls = msg.get("toolCalls")
    for tc in calls if isinstance(calls, list) else []:
        if isinstance(tc, dict):
            _emit_tool_call(sink, tc, line, ts, session)


def _emit_tool_call(sink: EventSink, tc: dict[str, Any], line: int, ts: Any, session: str | None) -> None:
    name = str_or(tc.get("name")) or "unknown"
    call_id = str_or(tc.get("id"))
    args = tc.get("args")
    when = tc.get("timestamp") or ts
    sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, tool=name, call_id=call_id,
             text=shell_or_json(name, args), ts=when, session=session)
    out = _result_text(tc.get("result")) or _display_text(tc.get("resultDisplay"))
    status = tc.get("status") if isinstance(tc.get("status"), str) else None
    if not out and status not in ("error", "cancelled"):
        return
    code = exit_code_in(out)
    if status == "error" or (code is not None and code != 0):
        is_error: bool | None = True
    else:
        is_error = False if status == "success" else None
    sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT, tool=name, call_id=call_id,
             text=out or f"[{status}]", ts=when, is_error=is_error, exit_code=code, session=session)


def _parts_text(content: Any, *, thoughts: bool = False) -> str:
    """Text of a Gemini PartListUnion: a string, a part, or a list of either (thought parts apart)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return "" if thoughts else content.strip()
    items = content if isinstance(content, list) else [content]
    out: list[str] = []
    for part in items:
        if isinstance(part, str):
            if not thoughts:
                out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and bool(part.get("thought")) == thoughts:
            out.append(part["text"])
    return "".join(out).strip()


def _result_text(result: Any) -> str:
    """Tool output as the model saw it: functionResponse.response.{output,error} or text parts."""
    if result is None:
        return ""
    if isinstance(result, str):
        return result.strip()
    items = result if isinstance(result, list) else [result]
    out: list[str] = []
    for part in items:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            fr = part.get("functionResponse")
            if isinstance(fr, dict):
                out.append(_response_text(fr.get("response")))
            elif isinstance(part.get("text"), str):
                out.append(part["text"])
    return "\n".join(t for t in out if t).strip()


def _response_text(resp: Any) -> str:
    if isinstance(resp, dict):
        for key in ("output", "error", "content", "result"):
            if isinstance(resp.get(key), str) and resp[key]:
                return str(resp[key])
        return compact_json(resp) if resp else ""
    return as_str(resp)


def _display_text(display: Any) -> str:
    if display is None:
        return ""
    if isinstance(display, str):
        return display.strip()
    if isinstance(display, dict):
        if isinstance(display.get("fileDiff"), str):
            return str(display["fileDiff"]).strip()
        return compact_json(display)
    if isinstance(display, list):  # AnsiOutput: lines of styled tokens
        lines = []
        for row in display:
            if isinstance(row, list):
                lines.append("".join(t.get("text", "") for t in row if isinstance(t, dict)))
        return "\n".join(lines).strip()
    return as_str(display)


def _emit_entry(sink: EventSink, entry: Any, line: int, session: str | None) -> int | str:
    """One element of logs.json or of a checkpoint history."""
    if not isinstance(entry, dict):
        return "entry is not a JSON object"
    before = len(sink)
    if isinstance(entry.get("parts"), list):
        _emit_content(sink, entry, line, session)
    elif "messageId" in entry or "message" in entry:
        text = as_str(entry.get("message")).strip()
        etype = entry.get("type")
        role = Role.USER if etype == "user" else Role.ASSISTANT if etype in ("gemini", "model") else Role.SYSTEM
        sess = entry.get("sessionId") if isinstance(entry.get("sessionId"), str) else session
        if text:
            sink.add(line=line, role=role, kind=Kind.TEXT, text=text, ts=entry.get("timestamp"), session=sess)
    else:
        return "entry has neither parts nor message"
    return len(sink) - before


# what gemini-cli itself puts in the user's role: the session's context at the start, and the summary
# (`<state_snapshot>`) that replaces the history when it compresses the chat
# (and the notes it adds when the user leaves plan mode or it resumes a turn: readers5 gemini-finance, -axe)
_CLI_CONTEXT = ("<session_context>", "<state_snapshot>", "User has manually exited Plan Mode", "System: Please continue")


def user_or_cli(text: str) -> Role:
    """The user, unless the text is context the CLI injected in the user's role."""
    return Role.SYSTEM if text.lstrip().startswith(_CLI_CONTEXT) else Role.USER


def _emit_content(sink: EventSink, content: dict[str, Any], line: int, session: str | None) -> None:
    speaker = Role.USER if content.get("role") == "user" else Role.ASSISTANT
    for part in content["parts"]:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str) and part["text"].strip():
            kind = Kind.REASONING if part.get("thought") else Kind.TEXT
            who = user_or_cli(part["text"]) if speaker is Role.USER else speaker
            sink.add(line=line, role=who, kind=kind, text=part["text"].strip(), session=session)
        elif isinstance(part.get("functionCall"), dict):
            fc = part["functionCall"]
            name = str_or(fc.get("name")) or "unknown"
            sink.add(line=line, role=Role.ASSISTANT, kind=Kind.TOOL_CALL, tool=name,
                     call_id=fc.get("id") if isinstance(fc.get("id"), str) else None,
                     text=shell_or_json(name, fc.get("args")), session=session)
        elif isinstance(part.get("functionResponse"), dict):
            fr = part["functionResponse"]
            resp = fr.get("response")
            out = _response_text(resp)
            code = exit_code_in(out)
            failed = (isinstance(resp, dict) and "error" in resp and "output" not in resp) or bool(code)
            sink.add(line=line, role=Role.TOOL, kind=Kind.TOOL_RESULT,
                     tool=fr.get("name") if isinstance(fr.get("name"), str) else None,
                     call_id=fr.get("id") if isinstance(fr.get("id"), str) else None,
                     text=out, is_error=True if failed else None, exit_code=code, session=session)


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Gemini CLI chats: session-*.json / session-*.jsonl, logs.json, checkpoints",
    )
]
