"""opencode: `opencode export` JSON, `opencode run --format json` streams, storage folders, opencode.db.

All four carry the same message/part model (opencode's MessageV2): a message `info` (id, sessionID,
role, time.created, error) and typed parts. This module turns parts into events, reads run streams
and sniffs all four cheaply; export documents, storage folders and the database are read in
opencode_store.py (imported lazily: sqlite3 stays off the `--help` path).

Parts -> events:
- `text` -> kind text (role of its message); `reasoning` -> kind reasoning (assistant).
- `tool` -> a `tool_call` (assistant; text = `input.command` for bash, else compact sorted-key JSON of
  the input) and, once `completed` or `error`, a `tool_result` (role tool; text = output or error;
  is_error = status `error` or a non-zero `metadata.exit`/`metadata.exitCode`).
- An assistant message's `error` (APIError, MessageAbortedError, ...) and a run stream's `error`
  event -> a `system` text event with is_error = true: they explain why a session stopped.
- step-start, step-finish, patch, file, snapshot, agent, compaction, subtask, retry and unknown part
  types, and empty text, carry no conversation: counted as ignored.
- ts: the part's own time (tool `state.time.start`/`end`, text `time.start`) when present, else the
  message's `time.created` (epoch ms); run streams fall back to the event `timestamp`.

What the ingest report counts (`lines == used + ignored + skipped`):
- opencode-run: JSONL lines; `line` = the 1-based line.
- opencode-export: records = the session header, each message and each part. `line` = the 1-based
  file line of the message's/part's `"id"` (opencode writes the export pretty-printed); for a
  single-line (minified) export, the 1-based record index in document order, clamped to the
  file's last line (a location is always a line of the input). A truncated or
  malformed document keeps every message before the damage and counts the rest as one skipped
  record. Invalid UTF-8 is replaced (U+FFFD), not skipped: the document is one JSON text.
- opencode-storage / opencode-db: records = session, message and part files/rows; `line` = the
  1-based record index in read order (see opencode_store.py).
A message record counts as used when an event came from it (its parts or its error), else ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logsleuth.ingest.base import (
    MAX_LINE_BYTES,
    EventSink,
    Probe,
    ReportBuilder,
    iter_lines,
    session_from_path,
    transcript,
)
from logsleuth.ingest.jsonscan import DECODER
from logsleuth.ingest.tools import is_shell
from logsleuth.model import Kind, Role, Transcript

SQLITE_MAGIC = b"SQLite format 3\x00"
_TOOL_STATUSES = frozenset({"pending", "running", "completed", "error"})
_RUN_TYPES = ("step_start", "step_finish", "text", "reasoning", "tool_use", "error")
_RUN_START = re.compile(rb'^\s*\{\s*"type"\s*:\s*"(' + b"|".join(t.encode() for t in _RUN_TYPES) + rb')"')
# `opencode export ... > f 2>&1` puts the stderr banner "Exporting session: <id>" first
EXPORT_BANNER = re.compile(r"\A[ \t]*Exporting session:[^\n]*")
_EXPORT_START = re.compile(rb'^\s*(?:Exporting session:[^\n]*\n\s*)?\{\s*"info"\s*:\s*\{')
_DB_TABLE = re.compile(rb'CREATE TABLE\s+[`"]?(message|part)[`"]?\s*\(')


class BadRecord(ValueError):
    """A record that cannot be used; the message is the skip reason."""


@dataclass
class MessageRec:
    """One message as every opencode format gives it: its info, its parts and where each sits."""

    id: str
    session: str
    info: dict[str, Any] | None  # None when the message record itself is unusable
    line: int
    parts: list[tuple[Any, int, str]] = field(default_factory=list)  # (part, line, skip source)
    problem: str = ""  # why `info` is None
    source: str = ""  # where a skip of this message points (a storage file), "" for the input itself

    @property
    def created(self) -> float:
        t = self.info.get("time") if self.info else None
        c = t.get("created") if isinstance(t, dict) else None
        return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else 0.0

    @property
    def role(self) -> str | None:
        role = self.info.get("role") if self.info else None
        return role if role in ("user", "assistant") else None


def message_sort_key(m: MessageRec) -> tuple[float, str]:
    return (m.created, m.id)


def check_info(info: Any) -> str:
    """Why a message info is unusable ("" when it is fine)."""
    if not isinstance(info, dict):
        return "message info is not an object"
    if info.get("role") not in ("user", "assistant"):
        return f"message has no usable role ({str(info.get('role'))[:40]!r})"
    return ""


# ---------------------------------------------------------------------------------------------
# parts -> events


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _exit_code(metadata: Any) -> int | None:
    if not isinstance(metadata, dict):
        return None
    for key in ("exit", "exitCode"):
        v = metadata.get(key)
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, str) and re.fullmatch(r"-?\d{1,6}", v.strip()):
            return int(v)
    return None


def _tool_events(part: dict[str, Any], fallback_ts: Any) -> list[dict[str, Any]]:
    tool = part.get("tool")
    if not isinstance(tool, str) or not tool:
        raise BadRecord("tool part without a tool name")
    call_id = part.get("callID") if isinstance(part.get("callID"), str) else None
    state = part.get("state")
    if not isinstance(state, dict):
        raise BadRecord("tool part without a state object")
    status = state.get("status")
    if not isinstance(status, str) or status not in _TOOL_STATUSES:
        raise BadRecord(f"tool state has unknown status {str(status)[:40]!r}")
    inp = state.get("input")
    if inp is None:
        inp = {}
    if not isinstance(inp, dict):
        raise BadRecord("tool input is not an object")
    if is_shell(tool) and isinstance(inp.get("command"), str):
        text = inp["command"]
    else:
        text = json.dumps(inp, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    times = _dict(state.get("time"))
    start, end = _num(times.get("start")), _num(times.get("end"))
    call = {"role": Role.ASSISTANT, "kind": Kind.TOOL_CALL, "tool": tool, "call_id": call_id, "text": text,
            "ts": start if start is not None else fallback_ts}
    if status in ("pending", "running"):
        return [call]
    exit_code = _exit_code(state.get("metadata"))
    if status == "completed":
        out = state.get("output")
        if out is None:
            out = ""
        if not isinstance(out, str):
            raise BadRecord(f"tool output is not a string ({type(out).__name__})")
        is_error = exit_code is not None and exit_code != 0
    else:
        out = state.get("error")
        if not isinstance(out, str):
            raise BadRecord("tool state `error` without an error message")
        is_error = True
    ts = end if end is not None else call["ts"]
    result = {"role": Role.TOOL, "kind": Kind.TOOL_RESULT, "tool": tool, "call_id": call_id, "text": out,
              "is_error": is_error, "exit_code": exit_code, "ts": ts}
    return [call, result]


def part_events(part: Any, role: str | None, fallback_ts: Any) -> list[dict[str, Any]]:
    """The events of one part ([] when it carries no conversation). Raises BadRecord to skip it."""
    if not isinstance(part, dict):
        raise BadRecord("part is not an object")
    ptype = part.get("type")
    if not isinstance(ptype, str):
        raise BadRecord("part has no type")
    if ptype in ("text", "reasoning"):
        text = part.get("text")
        if not isinstance(text, str):
            raise BadRecord(f"{ptype} part without text")
        if not text.strip():
            return []
        if ptype == "text" and role is None:
            raise BadRecord("text part of a message whose role is unknown")
        times = _dict(part.get("time"))
        start = _num(times.get("start"))
        kind = Kind.TEXT if ptype == "text" else Kind.REASONING
        return [{"role": role if ptype == "text" else Role.ASSISTANT, "kind": kind, "text": text,
                 "ts": start if start is not None else fallback_ts}]
    if ptype == "tool":
        return _tool_events(part, fallback_ts)
    return []  # step markers, patches, files, snapshots, ... and types newer than this reader


def error_text(error: Any) -> str | None:
    """`Name: message` of an opencode NamedError ({name, data:{message}}), None when absent."""
    if not isinstance(error, dict):
        return None
    name = error.get("name") if isinstance(error.get("name"), str) else "Error"
    data = error.get("data")
    msg = data.get("message") if isinstance(data, dict) else None
    return f"{name}: {msg}" if isinstance(msg, str) and msg else name


def emit_messages(messages: list[MessageRec], sink: EventSink, rep: ReportBuilder) -> None:
    """Events of messages (sorted by time.created then id, parts by id) with full accounting.

    Consumes the messages: each one's parts are dropped once emitted, so that a big export's
    parsed document shrinks while the events table grows instead of both being whole at once."""
    for m in sorted(messages, key=message_sort_key):
        if m.info is None:
            rep.skip(m.line, m.problem or "unusable message", m.source)
        created = m.created or None
        used = False
        for part, line, source in sorted(m.parts, key=_part_key):
            try:
                events = part_events(part, m.role, created)
            except BadRecord as exc:
                pid = part.get("id") if isinstance(part, dict) else None
                rep.skip(line, f"{exc} (part {pid})" if isinstance(pid, str) else str(exc), source)
                continue
            for ev in events:
                sink.add(line=line, session=m.session, **ev)
            if events:
                rep.used += 1
                used = True
            else:
                rep.ignored += 1
        m.parts.clear()
        err = error_text(m.info.get("error")) if m.info else None
        if err:
            sink.add(line=m.line, session=m.session, role=Role.SYSTEM, kind=Kind.TEXT, text=err,
                     ts=created, is_error=True)
            used = True
        if m.info is not None:
            if used:
                rep.used += 1
            else:
                rep.ignored += 1


def _part_key(item: tuple[Any, int, str]) -> tuple[str, int]:
    part, line, _ = item
    pid = part.get("id") if isinstance(part, dict) else None
    return (pid if isinstance(pid, str) else "", line)


# ---------------------------------------------------------------------------------------------
# opencode export (read in opencode_store.py)


def sniff_export(probe: Probe) -> bool:
    head = probe.head
    return (
        not probe.is_dir
        and bool(_EXPORT_START.match(head))
        and b'"messages"' in head
        and (b'"projectID"' in head or b'"ses_' in head)
    )


# ---------------------------------------------------------------------------------------------
# opencode run --format json


def _lines_guarded(probe: Probe, rep: ReportBuilder) -> Iterator[tuple[int, bytes]]:
    """iter_lines, turning a truncated compressed stream into one skipped line instead of a crash."""
    n = 0
    with probe.open() as f:
        try:
            for n, raw in iter_lines(f):
                yield n, raw
        except (EOFError, OSError) as exc:
            rep.lines += 1
            rep.skip(n + 1, f"truncated or corrupt stream: {exc}")


def read_run(probe: Probe) -> Transcript:
    display = probe.display
    rep = ReportBuilder(display, "opencode-run")
    sink = EventSink(session_from_path(display), display)
    for n, raw in _lines_guarded(probe, rep):
        rep.lines += 1
        if not raw.strip():
            rep.ignored += 1
            continue
        if len(raw) > MAX_LINE_BYTES:
            rep.skip(n, f"line longer than {MAX_LINE_BYTES >> 20} MiB")
            continue
        try:
            rec = DECODER.decode(raw.decode("utf-8"))
        except UnicodeDecodeError:
            rep.skip(n, "invalid UTF-8")
            continue
        except json.JSONDecodeError as exc:
            rep.skip(n, f"malformed JSON: {exc.msg}")
            continue
        except RecursionError:
            rep.skip(n, "JSON nested too deeply")
            continue
        if not isinstance(rec, dict):
            rep.skip(n, "line is not a JSON object")
            continue
        etype = rec.get("type")
        part = rec.get("part")
        sid = rec.get("sessionID")
        if not isinstance(sid, str) and isinstance(part, dict):
            sid = part.get("sessionID")
        session = sid if isinstance(sid, str) and sid else None
        ts = rec.get("timestamp")
        if etype == "error":
            text = error_text(rec.get("error")) or "Error"
            sink.add(line=n, session=session, role=Role.SYSTEM, kind=Kind.TEXT, text=text, ts=ts, is_error=True)
            rep.used += 1
            continue
        if etype not in _RUN_TYPES:
            rep.ignored += 1
            continue
        try:
            events = part_events(part, Role.ASSISTANT, ts)
        except BadRecord as exc:
            rep.skip(n, str(exc))
            continue
        for ev in events:
            sink.add(line=n, session=session, **ev)
        if events:
            rep.used += 1
        else:
            rep.ignored += 1
    return transcript(sink, rep)


def sniff_run(probe: Probe) -> bool:
    if probe.is_dir or b'"sessionID"' not in probe.head:
        return False
    for line in probe.head.split(b"\n")[:5]:
        if not line.strip():
            continue
        m = _RUN_START.match(line)
        if not m:
            return False
        # opencode writes {type, timestamp, sessionID, part|error}: the first line settles it
        return b'"sessionID"' in line and (b'"part"' in line or m.group(1) == b"error")
    return False


# ---------------------------------------------------------------------------------------------
# storage folder and SQLite database (read in opencode_store.py; sniffed here, cheaply)


def storage_root(path: Path) -> Path | None:
    """The storage folder itself, or `storage/` inside the given folder."""
    for cand in (path, path / "storage"):
        if (cand / "message").is_dir() and ((cand / "part").is_dir() or (cand / "session").is_dir()):
            return cand
    return None


def sniff_storage(probe: Probe) -> bool:
    if not probe.is_dir or probe.path is None:
        return False
    return (probe.path / "opencode.db").is_file() or storage_root(probe.path) is not None


def sniff_db(probe: Probe) -> bool:
    if probe.is_dir or not probe.head.startswith(SQLITE_MAGIC):
        return False
    tables = {m.group(1) for m in _DB_TABLE.finditer(probe.head)}
    return tables == {b"message", b"part"} or probe.name.startswith("opencode")
