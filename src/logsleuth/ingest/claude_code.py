"""Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).

Records: `user` (string content, or text / tool_result blocks), `assistant` (text / thinking /
tool_use blocks; one streamed response is split over several lines sharing `message.id`),
`system` (local commands, API errors and retries). Everything else (progress, file-history
snapshots, queue operations, summaries, …) carries no conversation: counted as ignored.

Dedupe: exact duplicate lines and repeated record `uuid`s (resumed sessions copy history) are
ignored; within one `message.id` each distinct block is emitted once.

Subagents: the parent `<session>.jsonl` pulls in `<session>/subagents/*.jsonl`; their events
get session `agent-<agentId>` (the file's own name) and source = that file's path.

Folders (dirs=True): a session folder (`<session>/` holding `subagents/`) reads its sibling
`<session>.jsonl` when present plus the subagent files; a project folder (one holding
`<x>.jsonl` next to `<x>/subagents/`) reads every session file in it, each with its subagents.
Claiming the project folder keeps a folder walk from reading subagents twice. Folders of
plain session files without subagents are left to the generic file-by-file folder reader.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import polars as pl

from logsleuth.errors import InputError, Location, shown_path
from logsleuth.ingest.agent_jsonl import (
    BadRecord,
    block_text,
    compact_json,
    head_records,
    iter_records,
    type_name,
)
from logsleuth.ingest.base import (
    EventSink,
    Probe,
    ReaderSpec,
    ReportBuilder,
    harness_text,
    make_probe,
    session_from_path,
)
from logsleuth.ingest.tools import is_shell
from logsleuth.model import IngestReport, Kind, Role, Transcript

FORMAT = "claude-code"
_EXIT_RE = re.compile(r"(?:Error: )?Exit code (-?\d{1,20})\b")  # bounded: a longer number is no exit code
_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")

Event = dict[str, Any]


class _FileReader:
    """Reads one JSONL file into a shared sink, with that file's dedupe state."""

    def __init__(self, sink: EventSink, report: ReportBuilder, source: str, skip_source: str = ""):
        self.sink = sink
        self.report = report
        self.source = source
        self.skip_source = skip_source
        self.fallback_session = session_from_path(source)
        self._lines: set[bytes] = set()
        self._uuids: set[str] = set()
        self._blocks: set[tuple[str, str, str]] = set()
        self._tools: dict[str, str] = {}
        self._line = 0

    def read(self, f: IO[bytes]) -> None:
        for n, raw, value in iter_records(f, self.report, self.skip_source):
            self._line = n
            try:
                events = self._record(raw, value)
            except BadRecord as exc:
                self.report.skip(n, str(exc), self.skip_source)
                continue
            except Exception as exc:  # a record shape nobody foresaw must not end the read
                self.report.skip(n, f"unusable record ({type(exc).__name__}: {exc})", self.skip_source)
                continue
            if not events:
                self.report.ignored += 1
                continue
            self.report.used += 1
            for ev in events:
                self.sink.add(line=n, source=self.source, **ev)

    # -- one record -------------------------------------------------------------------------

    def _record(self, raw: bytes, rec: Any) -> list[Event]:
        if not isinstance(rec, dict):
            raise BadRecord(f"not a JSON object ({type_name(rec)})")
        typ = rec.get("type")
        if not isinstance(typ, str):
            raise BadRecord("record without a type")
        if typ == "attachment":
            return self._queued(rec)
        if typ not in ("user", "assistant", "system"):
            return []  # progress, file-history-snapshot, queue-operation, summary, …
        digest = hashlib.blake2b(raw, digest_size=16).digest()
        if digest in self._lines:
            return []
        self._lines.add(digest)
        uuid = rec.get("uuid")
        if isinstance(uuid, str):
            if uuid in self._uuids:
                return []
            self._uuids.add(uuid)
        base: Event = {"ts": rec.get("timestamp"), "session": self._session(rec)}
        if typ == "system":
            return self._system(rec, base)
        msg = rec.get("message")
        if not isinstance(msg, dict):
            raise BadRecord(f"{typ} record without a message object (message is {type_name(msg)})")
        if typ == "assistant":
            return self._assistant(rec, msg, base)
        return self._user(rec, msg, base)

    def _queued(self, rec: dict[str, Any]) -> list[Event]:
        """A prompt the user typed while the agent worked (Claude Code 2.1 keeps it only as a
        `queued_command` attachment): a user turn; other attachments carry no conversation."""
        att = rec.get("attachment")
        if not isinstance(att, dict) or att.get("type") != "queued_command" or att.get("commandMode", "prompt") != "prompt":
            return []
        prompt = att.get("prompt")
        text = prompt if isinstance(prompt, str) else block_text(prompt) if isinstance(prompt, list) else ""
        if not text.strip():
            return []
        return [{"ts": rec.get("timestamp"), "session": self._session(rec), "role": Role.USER, "kind": Kind.TEXT,
                 "text": text.strip()}]

    def _session(self, rec: dict[str, Any]) -> str:
        agent = rec.get("agentId")
        if rec.get("isSidechain") is True and isinstance(agent, str) and agent:
            return f"agent-{agent}"
        sid = rec.get("sessionId")
        return sid if isinstance(sid, str) and sid else self.fallback_session

    def _user(self, rec: dict[str, Any], msg: dict[str, Any], base: Event) -> list[Event]:
        # isMeta / compact summaries are injected by the harness, not typed by the user
        role = Role.SYSTEM if rec.get("isMeta") is True or rec.get("isCompactSummary") is True else Role.USER
        content = msg.get("content")
        if isinstance(content, str):
            who = Role.SYSTEM if harness_text(content) else role
            return [{**base, "role": who, "kind": Kind.TEXT, "text": content}] if content.strip() else []
        if not isinstance(content, list):
            raise BadRecord(f"user message content is {type_name(content)}, expected a string or a list")
        scope = self._scope(rec, msg)
        out: list[Event] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip() and self._new(scope, "text", text):
                    out.append({**base, "role": Role.SYSTEM if harness_text(text) else role, "kind": Kind.TEXT,
                                "text": text})
            elif btype == "tool_result":
                ev = self._tool_result(rec, block, base)
                if ev is not None:
                    out.append(ev)
        return out

    def _tool_result(self, rec: dict[str, Any], block: dict[str, Any], base: Event) -> Event | None:
        call_id = block.get("tool_use_id")
        call_id = call_id if isinstance(call_id, str) else None
        text = block_text(block.get("content"))
        # a block replayed (a resumed or compacted session copies it) is read once; the same id
        # with another output is another call's result (an id reused: ingest makes it unique)
        if call_id is not None and not self._new("tool_result", call_id, f"{block.get('is_error')}\0{text}"):
            return None
        tool = self._tools.get(call_id) if call_id else None
        is_error = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
        exit_code = _exit_code(tool, text, rec.get("toolUseResult"))
        if is_error is None and exit_code is not None:
            is_error = exit_code != 0
        return {
            **base,
            "role": Role.TOOL,
            "kind": Kind.TOOL_RESULT,
            "tool": tool,
            "call_id": call_id,
            "text": text,
            "is_error": is_error,
            "exit_code": exit_code,
        }

    def _assistant(self, rec: dict[str, Any], msg: dict[str, Any], base: Event) -> list[Event]:
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif content is None and rec.get("isApiErrorMessage") is True:
            content = []
        elif not isinstance(content, list):
            raise BadRecord(f"assistant message content is {type_name(content)}, expected a list")
        if rec.get("isApiErrorMessage") is True:
            text = block_text([b for b in content if isinstance(b, dict) and b.get("type") == "text"])
            text = text.strip() or _describe_error(rec)
            return [{**base, "role": Role.SYSTEM, "kind": Kind.TEXT, "text": text, "is_error": True}]
        scope = self._scope(rec, msg)
        out: list[Event] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype in ("text", "thinking"):
                body = block.get(btype)
                if isinstance(body, str) and body.strip() and self._new(scope, btype, body):
                    kind = Kind.TEXT if btype == "text" else Kind.REASONING
                    out.append({**base, "role": Role.ASSISTANT, "kind": kind, "text": body})
            elif btype in ("tool_use", "server_tool_use"):
                ev = self._tool_use(block, base, scope)
                if ev is not None:
                    out.append(ev)
        return out

    def _tool_use(self, block: dict[str, Any], base: Event, scope: str) -> Event | None:
        name = block.get("name") if isinstance(block.get("name"), str) else None
        call_id = block.get("id") if isinstance(block.get("id"), str) else None
        args = block.get("input")
        if call_id is not None:
            if not self._new("tool_use", call_id, compact_json([name, args])):  # a replay, not a reuse
                return None
            if name:
                self._tools[call_id] = name
        elif not self._new(scope, "tool_use", compact_json([name, args])):
            return None
        command = args.get("command") if isinstance(args, dict) else None
        text = command if is_shell(name) and isinstance(command, str) else compact_json(args)
        return {
            **base,
            "role": Role.ASSISTANT,
            "kind": Kind.TOOL_CALL,
            "tool": name,
            "call_id": call_id,
            "text": text,
        }

    def _system(self, rec: dict[str, Any], base: Event) -> list[Event]:
        content = rec.get("content")
        if content is not None and not isinstance(content, str):
            raise BadRecord(f"system record content is {type_name(content)}, expected a string")
        error = rec.get("error")
        failed = (
            rec.get("subtype") == "api_error"
            or rec.get("isApiErrorMessage") is True
            or rec.get("level") == "error"
            or error not in (None, False, "")
        )
        text = content.strip() if isinstance(content, str) else ""
        if failed:
            text = text or _describe_error(rec)
        if not text:
            return []  # turn_duration and other bookkeeping
        return [{**base, "role": Role.SYSTEM, "kind": Kind.TEXT, "text": text, "is_error": True if failed else None}]

    # -- dedupe -----------------------------------------------------------------------------

    def _scope(self, rec: dict[str, Any], msg: dict[str, Any]) -> str:
        mid = msg.get("id")
        if isinstance(mid, str) and mid:
            return mid
        uuid = rec.get("uuid")
        return uuid if isinstance(uuid, str) else f"line:{self._line}"

    def _new(self, scope: str, kind: str, key: str) -> bool:
        if len(key) > 64:
            key = hashlib.blake2b(key.encode("utf-8", "replace"), digest_size=16).hexdigest()
        k = (scope, kind, key)
        if k in self._blocks:
            return False
        self._blocks.add(k)
        return True


def _exit_code(tool: str | None, text: str, tool_use_result: Any) -> int | None:
    """The exit code when the transcript records one (structured, or Bash's `Exit code N` prefix)."""
    if isinstance(tool_use_result, dict):
        for key in ("exitCode", "exit_code", "returnCode"):
            v = tool_use_result.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
    if tool is not None and not is_shell(tool):
        return None
    for candidate in (text, tool_use_result if isinstance(tool_use_result, str) else ""):
        m = _EXIT_RE.match(candidate.lstrip())
        if m:
            return int(m.group(1))
    return None


def _describe_error(rec: dict[str, Any]) -> str:
    """A one-line description of an API error record that has no text of its own."""
    err = rec.get("error")
    status = rec.get("apiErrorStatus")
    message = ""
    if isinstance(err, dict):
        status = status or err.get("status")
        message = _error_message(err)
    elif isinstance(err, str):
        message = err
    head = f"API error {status}" if isinstance(status, int) and not isinstance(status, bool) else "API error"
    attempt, most = rec.get("retryAttempt"), rec.get("maxRetries")
    retry = f" (retry {attempt}/{most})" if isinstance(attempt, int) and isinstance(most, int) else ""
    return f"{head}: {message}{retry}" if message else f"{head}{retry}"


def _error_message(err: dict[str, Any]) -> str:
    node: Any = err
    for _ in range(3):  # {"message"}, {"error": {"message"}}, {"error": {"error": {"message"}}}
        if not isinstance(node, dict):
            break
        if isinstance(node.get("message"), str) and node["message"]:
            return str(node["message"])
        node = node.get("error")
    cause = err.get("cause")
    if isinstance(cause, dict):
        for key in ("message", "code"):
            if isinstance(cause.get(key), str) and cause[key]:
                return str(cause[key])
    return ""


# -- files and folders ------------------------------------------------------------------------


def _stem(name: str) -> str:
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _subagent_files(folder: Path) -> list[str]:
    """The paths of `<folder>/subagents/*.jsonl`, built on the folder as given (relative stays
    relative), sorted by name."""
    sub = folder / "subagents"
    if not sub.is_dir():
        return []
    found = sorted(p for p in sub.iterdir() if p.is_file() and p.name.endswith(_SUFFIXES))
    return [os.path.normpath(p) for p in found]


def _read_one(sink: EventSink, probe: Probe, report: ReportBuilder, skip_source: str) -> int:
    before = len(sink)
    with probe.open() as f:
        _FileReader(sink, report, probe.display, skip_source).read(f)
    return len(sink) - before


def _read_files(display: str, parent: Probe | None, subs: list[str]) -> Transcript:
    sink = EventSink(session_from_path(display), display)
    parts: list[IngestReport] = []
    if parent is not None:
        rep = ReportBuilder(parent.display, FORMAT)
        parts.append(rep.finish(_read_one(sink, parent, rep, "")))
    for sub_path in subs:
        sub_display = shown_path(sub_path)
        rep = ReportBuilder(sub_display, FORMAT)
        try:
            probe = make_probe(sub_path)
        except InputError as exc:  # one unreadable subagent file must not hide the rest
            rep.lines = 1
            rep.skip(0, exc.message, sub_display)
            parts.append(rep.finish(0))
            continue
        parts.append(rep.finish(_read_one(sink, probe, rep, sub_display)))
    frame = sink.frame()
    if parent is not None and len(parts) == 1 and parent.display == display:
        return Transcript(frame, parts[0])
    return Transcript(frame, _combined(display, frame.height, parts))


def _combined(display: str, events: int, parts: list[IngestReport]) -> IngestReport:
    """One report over several files; each skipped line names its file."""
    return IngestReport(
        source=display,
        format=FORMAT,
        lines=sum(p.lines for p in parts),
        events=events,
        used=sum(p.used for p in parts),
        ignored=sum(p.ignored for p in parts),
        skipped=tuple(replace(s, source=s.source or p.source) for p in parts for s in p.skipped),
        parts=tuple(parts),
    )


def read(probe: Probe) -> Transcript:
    if probe.is_dir:
        assert probe.path is not None
        if _session_files(probe.path):
            return _read_project_folder(probe)
        return _read_session_folder(probe)
    subs: list[str] = []
    if probe.path is not None:
        stem = _stem(probe.path.name)
        subs = _subagent_files(probe.path.parent / stem)
    return _read_files(probe.display, probe, subs)


def _session_files(folder: Path) -> list[Path]:
    """Session files directly in a project folder that have a `<session>/subagents/` folder."""
    try:
        files = sorted(p for p in folder.iterdir() if p.name.endswith(_SUFFIXES) and p.is_file())
    except OSError:
        return []
    return files if any((folder / _stem(p.name) / "subagents").is_dir() for p in files) else []


def _read_project_folder(probe: Probe) -> Transcript:
    """A project folder (`~/.claude/projects/<project>/`): every session in it, each with its subagents."""
    assert probe.path is not None
    transcripts = []
    for path in _session_files(probe.path):
        child = make_probe(os.path.join(os.fspath(probe.path), path.name))
        if sniff(child):
            transcripts.append(read(child))
    if not transcripts:
        raise InputError("no Claude Code session in this folder", Location(probe.display))
    frame = pl.concat([t.events for t in transcripts])
    return Transcript(frame, _combined(probe.display, frame.height, [t.report for t in transcripts]))


def _read_session_folder(probe: Probe) -> Transcript:
    """A session folder (`<session>/` holding `subagents/`): its sibling `<session>.jsonl` plus subagents."""
    assert probe.path is not None
    name = probe.path.resolve().name  # resolved only for its name: "." has none
    given = os.fspath(probe.path)  # the path as given, to open (display may escape odd bytes)
    parent_path = os.path.normpath(os.path.join(given, os.pardir, f"{name}.jsonl"))
    parent = make_probe(parent_path) if os.path.isfile(parent_path) else None
    subs = _subagent_files(probe.path)
    if parent is None and not subs:
        raise InputError(
            "not a Claude Code session or project folder",
            Location(probe.display),
            "pass the session's .jsonl file instead",
        )
    return _read_files(probe.display, parent, subs)


# -- detection --------------------------------------------------------------------------------


def _looks_like_record(rec: dict[str, Any]) -> bool:
    typ = rec.get("type")
    if typ in ("user", "assistant"):
        msg = rec.get("message")
        return isinstance(msg, dict) and ("content" in msg or "role" in msg) and "payload" not in rec
    if typ == "system":
        return "sessionId" in rec and ("subtype" in rec or "content" in rec)
    if typ == "summary":
        return "leafUuid" in rec
    if typ == "file-history-snapshot":
        return "snapshot" in rec
    if typ in ("progress", "queue-operation"):
        return isinstance(rec.get("sessionId"), str)
    return False


def sniff(probe: Probe) -> bool:
    if probe.is_dir:
        # a session folder (`<session>/subagents/`) or a project folder holding one
        return probe.path is not None and bool(
            _subagent_files(probe.path) or _session_files(probe.path)
        )
    records = head_records(probe.head, 8)
    if records:
        return any(_looks_like_record(r) for r in records)
    # the first line is longer than the head: Claude Code writes `parentUuid` first
    return probe.head.lstrip().startswith((b'{"parentUuid":', b'{"type":"summary","summary":'))


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Claude Code session JSONL (~/.claude/projects/…/<session>.jsonl, with subagents/)",
        dirs=True,
    )
]
