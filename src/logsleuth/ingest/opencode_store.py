"""opencode's saved sessions: `opencode export` documents, the legacy `storage/` folder, `opencode.db`.

export: `{info: <session>, messages: [{info: <message>, parts: [<part>...]}], todos}`, written
pretty-printed by `opencode export <id>`. storage/ (opencode < 1.2): `session/<projectID>/<id>.json`,
`message/<sessionID>/<msgID>.json`, `part/<messageID>/<partID>.json`. opencode.db (opencode >= 1.2,
drizzle): tables `session` (id, project_id, title, ..., time_created), `message` (id, session_id,
time_created, time_updated, data) and `part` (id, message_id, session_id, time_created,
time_updated, data), where `data` is the JSON of the message info / part without its ids.

Records (the unit of `lines == used + ignored + skipped`) are session, message and part entries,
files or rows (see opencode.py for the export's `line`). For storage and the database, `line` = the
1-based record index in read order: sessions by (time.created, id), each session record followed by
its message records (file/row order) and each message by its parts (by id). A storage skip names
the offending file in `source`. Parts whose message does not exist (orphans) are counted as
ignored. Every session is read, each with its own session id and `seq` from 0.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from logsleuth.errors import InputError, Location
from logsleuth.ingest import jsonpieces
from logsleuth.ingest.base import (
    EventSink,
    Probe,
    ReaderSpec,
    ReportBuilder,
    make_probe,
    session_from_path,
    transcript,
)
from logsleuth.ingest.jsonscan import DECODER
from logsleuth.ingest.opencode import (
    EXPORT_BANNER,
    MessageRec,
    check_info,
    emit_messages,
    read_run,
    sniff_db,
    sniff_export,
    sniff_run,
    sniff_storage,
    storage_root,
)
from logsleuth.model import Transcript

_DB_HINT = "pass opencode's opencode.db (usually ~/.local/share/opencode/opencode.db)"


# ---------------------------------------------------------------------------------------------
# opencode export


def _parse_export(text: str) -> tuple[dict[str, Any], tuple[int, str] | None]:
    """The document, or as much of it as parses (session info + leading messages) and the error."""
    try:
        doc = DECODER.decode(text)
    except json.JSONDecodeError as exc:
        err = (exc.lineno, f"malformed or truncated JSON: {exc.msg}")
    except RecursionError:
        err = (1, "JSON nested too deeply")
    else:
        return (doc, None) if isinstance(doc, dict) else ({}, (1, "export is not a JSON object"))
    dec = DECODER
    out: dict[str, Any] = {}
    mm = re.search(r'"messages"\s*:\s*\[', text)
    head = text[: mm.start()] if mm else text
    im = re.search(r'"info"\s*:\s*(?=\{)', head)
    if im:
        with contextlib.suppress(json.JSONDecodeError, RecursionError):
            out["info"] = dec.raw_decode(text, im.end())[0]
    if not mm:
        return out, err
    msgs: list[Any] = []
    pos, n = mm.end(), len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n or text[pos] == "]":
            break
        try:
            obj, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            err = (exc.lineno, f"malformed or truncated JSON: {exc.msg}")
            break
        except RecursionError:
            err = (1 + text.count("\n", 0, pos), "JSON nested too deeply")
            break
        msgs.append(obj)
    out["messages"] = msgs
    return out, err


class _Locator:
    """File line of each id, searched forward in document order (cheap: one pass over the text,
    which is the decoded `str` or, when it parsed as it is, the raw `bytes`)."""

    def __init__(self, text: str | bytes):
        self.text = text
        self.raw = isinstance(text, bytes)
        self.multiline = (b"\n" in text.strip()) if isinstance(text, bytes) else ("\n" in text.strip())
        # start at the messages: the session header may name message ids (revert.messageID)
        m = _MESSAGES_B.search(text) if isinstance(text, bytes) else _MESSAGES.search(text)
        self.pos = m.start() if m else 0
        self.line = 1 + self._count(0, self.pos)
        # a location must be a line of the input: a record index of a minified (one-line)
        # export is clamped to the last line
        self.total = 1 + self._count(0, len(text))

    def _count(self, start: int, stop: int) -> int:
        return self.text.count(b"\n" if self.raw else "\n", start, stop)  # type: ignore[arg-type]

    def find(self, ident: Any, record: int) -> int:
        if not self.multiline:
            return min(record, self.total)
        if isinstance(ident, str) and ident:
            needle = json.dumps(ident)
            at = self.text.find(needle.encode() if self.raw else needle, self.pos)  # type: ignore[arg-type]
            if at >= 0:
                self.line += self._count(self.pos, at)
                self.pos = at
        return self.line


_MESSAGES = re.compile(r'"messages"\s*:\s*\[')
_MESSAGES_B = re.compile(rb'"messages"\s*:\s*\[')
_BANNER_B = re.compile(rb"\A[ \t]*Exporting session:[^\n]*")


def _parse_export_bytes(raw: bytes) -> tuple[dict[str, Any], tuple[int, str] | None, str | bytes]:
    """(document, error, text to locate ids in). orjson parses the raw bytes when it can (no
    decoded copy of a 200 MB export, and faster); anything it refuses (invalid UTF-8, a lone
    surrogate, NaN, a huge integer, malformed JSON) goes the tolerant way of `_parse_export`."""
    import orjson

    # blank out a stderr banner in place, so that file lines stay true
    raw = _BANNER_B.sub(lambda m: b" " * len(m.group(0)), raw, count=1)
    # message by message when it is the pretty-printed shape: the same document without orjson's
    # working memory for the whole (as big as the input)
    pieces = jsonpieces.parse(raw, "messages")
    if pieces is not None:
        return pieces, None, raw
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = EXPORT_BANNER.sub(lambda m: " " * len(m.group(0)), raw.decode("utf-8", errors="replace"), count=1)
        del raw
        doc, err = _parse_export(text)
        return doc, err, text
    return (doc, None, raw) if isinstance(doc, dict) else ({}, (1, "export is not a JSON object"), raw)


def read_export(probe: Probe) -> Transcript:
    display = probe.display
    with probe.open() as f:
        doc, err, text = _parse_export_bytes(f.read())
    rep = ReportBuilder(display, "opencode-export")
    info = doc.get("info")
    default_session = info.get("id") if isinstance(info, dict) and isinstance(info.get("id"), str) else None
    sink = EventSink(default_session or session_from_path(display), display)
    loc = _Locator(text)
    rep.lines += 1  # the session header
    raw_msgs = doc.get("messages")
    if not isinstance(raw_msgs, list):
        rep.skip(1, "export has no `messages` list" if err is None else err[1])
        return transcript(sink, rep)
    rep.ignored += 1
    record = 1
    messages: list[MessageRec] = []
    for entry in raw_msgs:
        record += 1
        rep.lines += 1
        m_info = entry.get("info") if isinstance(entry, dict) else None
        mid = m_info.get("id") if isinstance(m_info, dict) else None
        line = loc.find(mid, record)
        if not isinstance(entry, dict):
            rep.skip(line, "message is not an object")
            continue
        parts = entry.get("parts")
        if not isinstance(parts, list):
            rep.skip(line, "message `parts` is not a list")
            continue
        problem = check_info(m_info)
        sid = m_info.get("sessionID") if isinstance(m_info, dict) else None
        msg = MessageRec(
            id=mid if isinstance(mid, str) else "",
            session=sid if isinstance(sid, str) and sid else sink.session,
            info=None if problem else m_info,
            line=line,
            problem=problem,
        )
        for part in parts:
            record += 1
            rep.lines += 1
            pid = part.get("id") if isinstance(part, dict) else None
            msg.parts.append((part, loc.find(pid, record), ""))
        messages.append(msg)
    multiline = loc.multiline
    # every line is located: the raw bytes (as big as the input) and the document's own list go
    # before the events are made; the messages alone hold the parts, freed as they are emitted
    del loc, text, doc, raw_msgs
    emit_messages(messages, sink, rep)
    if err is not None:
        rep.lines += 1
        rep.skip(err[0] if multiline else record + 1, err[1])
    return transcript(sink, rep)


# ---------------------------------------------------------------------------------------------
# storage folder


def _load(path: Path) -> tuple[Any, str]:
    """(object, "") or (None, why the file is unusable)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    try:
        obj = DECODER.decode(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "invalid UTF-8"
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON: {exc.msg} (line {exc.lineno})"
    except RecursionError:
        return None, "JSON nested too deeply"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    return obj, ""


def _created(obj: Any) -> float:
    t = obj.get("time") if isinstance(obj, dict) else None
    c = t.get("created") if isinstance(t, dict) else None
    return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else 0.0


def _json_files(folder: Path) -> list[Path]:
    # the folder's name comes from the data (a session or message id): it may be too long for the
    # file system (ENAMETOOLONG), hold a NUL or a `/`; such a folder holds nothing we can read
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file()) if folder.is_dir() else []
    except (OSError, ValueError):
        return []


def read_storage(probe: Probe) -> Transcript:
    display = probe.display
    if probe.path is None or not probe.is_dir:
        raise InputError("not a folder", Location(display), "pass opencode's storage/ folder")
    if (probe.path / "opencode.db").is_file():
        # the data folder of opencode >= 1.2: the database holds everything storage/ ever held
        return read_db(make_probe(str(Path(display) / "opencode.db")))
    root = storage_root(probe.path)
    if root is None:
        raise InputError(
            "not an opencode storage folder (needs message/ and part/ or session/)",
            Location(display),
            "pass ~/.local/share/opencode/storage",
        )
    shown = Path(display) / root.relative_to(probe.path)
    rep = ReportBuilder(display, "opencode-storage")
    sink = EventSink(session_from_path(display), display)

    sessions: dict[str, tuple[float, Path | None, str]] = {}  # id -> (created, file, problem)
    for f in sorted((root / "session").glob("*/*.json")):
        obj, problem = _load(f)
        sid = obj.get("id") if obj is not None and isinstance(obj.get("id"), str) else f.stem
        sessions[sid] = (_created(obj), f, problem)
    msg_root = root / "message"
    for d in sorted(msg_root.iterdir()) if msg_root.is_dir() else []:
        if d.is_dir() and d.name not in sessions:
            sessions[d.name] = (0.0, None, "")

    record = 0
    seen: set[str] = set()
    for sid in sorted(sessions, key=lambda s: (sessions[s][0], s)):
        _, sfile, sproblem = sessions[sid]
        if sfile is not None:
            record += 1
            rep.lines += 1
            if sproblem:
                rep.skip(record, sproblem, str(shown / sfile.relative_to(root)))
            else:
                rep.ignored += 1
        messages: list[MessageRec] = []
        for f in _json_files(msg_root / sid):
            record += 1
            rep.lines += 1
            info, problem = _load(f)
            problem = problem or check_info(info)
            msg = MessageRec(
                id=info.get("id") if info is not None and isinstance(info.get("id"), str) else f.stem,
                session=sid,
                info=None if problem else info,
                line=record,
                problem=problem,
                source=str(shown / f.relative_to(root)),
            )
            seen.add(f.stem)
            for pf in _json_files(root / "part" / f.stem):
                record += 1
                rep.lines += 1
                part, pproblem = _load(pf)
                psource = str(shown / pf.relative_to(root))
                if pproblem:
                    rep.skip(record, pproblem, psource)
                else:
                    part.setdefault("id", pf.stem)
                    msg.parts.append((part, record, psource))
            messages.append(msg)
        emit_messages(messages, sink, rep)
    part_root = root / "part"
    for d in sorted(part_root.iterdir()) if part_root.is_dir() else []:
        if d.is_dir() and d.name not in seen:
            orphans = len(_json_files(d))
            rep.lines += orphans
            rep.ignored += orphans
    return transcript(sink, rep)


# ---------------------------------------------------------------------------------------------
# opencode.db


@contextmanager
def _db_file(probe: Probe) -> Iterator[Path]:
    """A path sqlite can open: the file itself, or a temporary copy of stdin / a compressed file."""
    if probe.path is not None and probe.compression is None:
        yield probe.path
        return
    fd, name = tempfile.mkstemp(suffix=".db")
    try:
        with os.fdopen(fd, "wb") as out, probe.open() as src:
            shutil.copyfileobj(src, out)
        yield Path(name)
    finally:
        os.unlink(name)


def _text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    return "" if v is None else str(v)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    try:
        return {_text(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # a damaged schema: not a table we can use
        return set()


def _connect(path: Path, display: str) -> sqlite3.Connection:
    """Open read-only; a WAL database in a read-only folder needs `immutable` to open at all."""
    last: Exception | None = None
    for query in ("mode=ro", "mode=ro&immutable=1"):
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(path.resolve().as_uri() + "?" + query, uri=True)
            conn.text_factory = bytes  # invalid UTF-8 in a row must skip that row, not abort the read
            tables = {_text(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            # sqlite's own messages quote the damaged schema: text that is not UTF-8 cannot
            # even become the error message (UnicodeDecodeError), the file is unreadable all the same
            if conn is not None:
                conn.close()
            last = exc if isinstance(exc, sqlite3.DatabaseError) else ValueError("text that is not UTF-8")
            continue
        if not {"message", "part"} <= tables or not (
            {"id", "session_id", "data"} <= _columns(conn, "message")
            and {"id", "message_id", "data"} <= _columns(conn, "part")
        ):
            conn.close()
            raise InputError("not an opencode database (no message/part tables with data)", Location(display), _DB_HINT)
        return conn
    raise InputError(f"not a readable SQLite database: {last}", Location(display), _DB_HINT)


def _row_json(data: Any) -> tuple[Any, str]:
    if data is None:
        return None, "row has no data"
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        obj = DECODER.decode(bytes(data).decode("utf-8"))
    except UnicodeDecodeError:
        return None, "invalid UTF-8 in data"
    except (json.JSONDecodeError, TypeError) as exc:
        return None, f"malformed JSON in data: {getattr(exc, 'msg', exc)}"
    except RecursionError:
        return None, "JSON nested too deeply in data"
    if not isinstance(obj, dict):
        return None, "data is not a JSON object"
    return obj, ""


def _sessions(conn: sqlite3.Connection) -> list[tuple[str, tuple[str, Any], bool]]:
    """(session id as text, (SQLite type, value) as stored, has a session row) in read order: by
    time_created, then id. The stored type and value select the messages: a BLOB or NULL
    `session_id` (a damaged or foreign database) equals no text, and its messages were neither
    read nor counted."""
    created: dict[tuple[str, Any], float] = {}
    rows: set[tuple[str, Any]] = set()
    tables = {_text(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "session" in tables and "id" in (cols := _columns(conn, "session")):
        tc = "time_created" if "time_created" in cols else "0"
        for sid, kind, t in conn.execute(f"SELECT id, typeof(id), {tc} FROM session"):
            rows.add((_text(kind), sid))
            created[(_text(kind), sid)] = float(t) if isinstance(t, (int, float)) else 0.0
    for sid, kind in conn.execute("SELECT DISTINCT session_id, typeof(session_id) FROM message"):
        created.setdefault((_text(kind), sid), 0.0)
    order = sorted(created, key=lambda k: (created[k], _text(k[1]), k[0]))
    return [(_text(k[1]) or "(no session id)", k, k in rows) for k in order]


def _read_conn(conn: sqlite3.Connection, display: str) -> Transcript:
    rep = ReportBuilder(display, "opencode-db")
    sink = EventSink(session_from_path(display), display)
    order = "m.time_created, m.id" if "time_created" in _columns(conn, "message") else "m.id"
    # a part belongs to its message in its own session when the part's session holds a message of
    # that id (ids repeated across sessions, a merged or damaged database, must not lend one
    # session's parts to another); else, its session id stale or missing, to the message of its id
    owns = "p.message_id = m.id"
    if "session_id" in _columns(conn, "part"):
        owns += (" AND (p.session_id IS m.session_id OR NOT EXISTS (SELECT 1 FROM message m2"
                 " WHERE m2.id = p.message_id AND m2.session_id IS p.session_id))")
    query = (
        f"SELECT m.id, m.data, p.id, p.data FROM message m LEFT JOIN part p ON {owns} "
        f"WHERE m.session_id IS {{}} ORDER BY {order}, p.id"
    )
    # the connection returns text as bytes (it may not be UTF-8): a text id is bound back as text
    bind = {"text": "CAST(? AS TEXT)", "blob": "CAST(? AS BLOB)", "null": "?"}
    record = 0
    for sid, stored, has_row in _sessions(conn):
        if has_row:
            record += 1
            rep.lines += 1
            rep.ignored += 1
        messages: list[MessageRec] = []
        current: MessageRec | None = None
        pairs: set[tuple[str, str]] = set()  # (message, part) read: a message row stored twice joins its parts twice
        kind, value = stored
        for mid_raw, mdata, pid_raw, pdata in conn.execute(query.format(bind.get(kind, "?")), (value,)):
            mid = _text(mid_raw)
            if current is None or current.id != mid:
                record += 1
                rep.lines += 1
                info, problem = _row_json(mdata)
                problem = problem or check_info(info)
                current = MessageRec(
                    id=mid, session=sid, info=None if problem else info, line=record,
                    problem=f"{problem} (message {mid})" if problem else "",
                )
                messages.append(current)
            if pid_raw is None:
                continue  # a message without parts (LEFT JOIN)
            pid = _text(pid_raw)
            if (mid, pid) in pairs:
                continue
            pairs.add((mid, pid))
            record += 1
            rep.lines += 1
            part, pproblem = _row_json(pdata)
            if pproblem:
                rep.skip(record, f"{pproblem} (part {pid})")
                continue
            part.setdefault("id", pid)  # the data column omits the ids
            current.parts.append((part, record, ""))
        emit_messages(messages, sink, rep)
    # parts no message of theirs holds: counted, not read
    orphans = int(conn.execute(f"SELECT count(*) FROM part p WHERE NOT EXISTS (SELECT 1 FROM message m WHERE {owns})").fetchone()[0])
    rep.lines += orphans
    rep.ignored += orphans
    return transcript(sink, rep)


def read_db(probe: Probe) -> Transcript:
    display = probe.display
    if probe.is_dir:
        raise InputError("is a directory", Location(display), _DB_HINT)
    with _db_file(probe) as path:
        conn = _connect(path, display)
        try:
            return _read_conn(conn, display)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"corrupt SQLite database: {exc}", Location(display), _DB_HINT) from exc
        finally:
            conn.close()


# the opencode formats, registered here so that opencode.py (the run stream and the shared
# message model) never imports the store
READERS: list[ReaderSpec] = [
    ReaderSpec("opencode-export", sniff_export, read_export, "opencode export <id> JSON"),
    ReaderSpec("opencode-run", sniff_run, read_run, "opencode run --format json event stream (JSONL)"),
    ReaderSpec("opencode-db", sniff_db, read_db, "opencode.db SQLite database (opencode >= 1.2)"),
    ReaderSpec(
        "opencode-storage",
        sniff_storage,
        read_storage,
        "opencode storage/ folder (session/, message/, part/) or the data folder holding it",
        dirs=True,
    ),
]
