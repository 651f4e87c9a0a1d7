"""The search sidecar: the committed findings of an index in SQLite (FTS5), for instant search.

`DB/search.sqlite` is derived from the Parquet index, never a commit point: `index` writes it
after its last commit, from the findings that commit lists, and records in it the digest of the
manifest (files.parquet) it was built from and a stamp of the pattern library and search code.
A reader trusts it only when both still match (`open_current`); otherwise the search runs over
Parquet and rewrites the sidecar for the next one (`refresh`). Written to a temp file and renamed
into place, so a reader's open connection keeps a whole, consistent file.

Reading it needs only the standard library (and `regex` to classify a query): the command-line
search (search_cli.py) answers from it without importing polars or typer. The sidecar also carries the
default pattern library as plain data (`snapshot`), so that the lean path classifies a query the
way search.classify_query does without loading the library (its types import polars).

Tables: `findings` (one row per indexed finding, in the compact file's order; timestamps as
microseconds since the epoch; the fix and attempt lists as ids into `lists`, which holds each
distinct list once, as JSON: every finding of an episode repeats them; `text_id` numbers each
distinct text), `fts` (a contentless FTS5 index, unicode61 words, over each distinct text of a
failure row once, rowid = text_id: an error recurs word for word across sessions, so bm25 is
computed per distinct text, not per finding), `rank` and `prank` (what full-text and pattern
queries are ranked by in SQL, per failure row and per row with a pattern: search_rank.TEXT_SQL
and PATTERN_SQL), `meta` (key, value).

Staleness costs a reader ~1 ms: the manifest (a few hundred KB at most) is hashed, and the
library stamp is recomputed from the stats of the pattern files and directories the writer saw
(stored in `meta`, so no directory walk; a file added or removed changes its directory's mtime).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime, timedelta

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path
    from typing import Any

    from logsleuth.library import PatternLibrary

SIDECAR = "search.sqlite"
MANIFEST = "files.parquet"  # index.MANIFEST (not imported: index.py imports polars)
FORMAT = "6"  # bump when the tables or what goes into them change
FAILURE_SEVERITIES = ("fatal", "error", "warning")  # search.FAILURE_SEVERITIES
COLUMNS = (
    "session", "source", "line", "seq", "ts", "pattern", "category", "severity", "priority", "fingerprint",
    "captures", "text", "origin", "file_sha256", "resolved_by", "held", "attempts", "catch22", "outcome",
    "primary", "format",
)  # fmt: skip
JSON_COLUMNS = ("resolved_by", "attempts")
BOOL_COLUMNS = ("held", "catch22", "primary")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
try:  # the interpreter's own SHA-256: hashlib loads OpenSSL first (~4 ms of a CLI search)
    from _sha256 import sha256  # Python 3.11 (3.12: _sha2)
except ImportError:  # pragma: no cover
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256
_PKG = os.path.dirname(os.path.realpath(__file__))  # no pathlib: the lean path does not import it
# what a lean search's answer depends on besides the index: a change makes the sidecar stale
# (the code that reads it is whatever runs; what matters is what was written: the library snapshot)
_CODE = ("search_sidecar.py",)


def manifest_digest(db: str | Path) -> str | None:
    """The content hash of the manifest (the commit point), None when there is none."""
    try:
        with open(os.path.join(db, MANIFEST), "rb") as f:
            return sha256(f.read()).hexdigest()
    except FileNotFoundError:
        return None


def _pattern_roots() -> list[str]:
    """The directories the default library is read from (library.loader._roots with no --patterns)."""
    here = [os.path.join(_PKG, "_patterns"), os.path.join(os.path.dirname(os.path.dirname(_PKG)), "patterns")]
    roots = [c for c in here if os.path.isdir(c)][:1]
    roots += [str(_path(d)) for d in (os.environ.get("LOGSLEUTH_PATTERNS") or "").split(os.pathsep) if d]
    return roots


def _path(p: str) -> Path:
    from pathlib import Path

    return Path(p)


def library_paths() -> list[str]:
    """The default library's directories and pattern files, and this module (the writer's view)."""
    paths = [os.path.join(_PKG, c) for c in _CODE]
    for root in _pattern_roots():
        paths += [root, *sorted(str(p) for p in _path(root).rglob("*"))]
    return paths


def library_stamp(paths: Sequence[str] | None = None) -> str:
    """Stats of `paths` (default: library_paths()), the pattern roots and the format: when any
    changes, the snapshot in a sidecar may no longer classify a query as the library would. (An
    upgrade of logsleuth rewrites its pattern files, hence changes their stats too.) A reader
    passes the paths the writer stored: ~200 stats, no walk."""
    roots = os.pathsep.join(_pattern_roots())
    h = sha256(f"{FORMAT}\0{os.environ.get('LOGSLEUTH_PATTERNS')}\0{roots}\0".encode())
    for f in library_paths() if paths is None else paths:
        try:
            st = os.stat(f)
        except OSError:
            h.update(f"{f}\0-\0".encode())
            continue
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:32]


def snapshot(lib: PatternLibrary) -> list[dict[str, Any]]:
    """What classifying a query needs of each pattern, as plain data (in library order)."""
    return [
        {
            "id": p.id, "category": p.category, "severity": p.severity.value, "rank": p.severity.rank,
            "priority": p.priority, "regex": p.regex, "prefilter": list(p.prefilter),
            "fingerprint": list(p.fingerprint), "kinds": None if p.scope.kinds is None else list(p.scope.kinds),
            "is_error": p.scope.is_error, "command": p.scope.command, "portable": p.portable,
            "groups": list(p.groups), "suppresses": list(p.suppresses),
        }
        for p in lib.patterns
    ]  # fmt: skip


# ---------------------------------------------------------------- writing


def write(db: Path, lib: PatternLibrary, frame: Any, digest: str) -> None:
    """Write DB/search.sqlite from the committed findings `frame` (a polars DataFrame of the
    state whose manifest digest is `digest`), atomically."""
    import orjson

    dest = db / SIDECAR
    tmp = db / f".{SIDECAR}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        con.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
        fill(con, frame)
        paths = library_paths()
        meta = {"format": FORMAT, "manifest": digest, "library": library_stamp(paths),
                "library_paths": orjson.dumps(paths).decode(), "snapshot": orjson.dumps(snapshot(lib)).decode()}
        con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        con.commit()
    finally:
        con.close()
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, dest)


def memory(frame: Any) -> sqlite3.Connection:
    """The sidecar's tables for `frame` in memory (no meta): the full-text search of an index
    whose sidecar cannot be written, or of inputs analysed now (`search --in`)."""
    con = sqlite3.connect(":memory:", check_same_thread=False)
    fill(con, frame)
    con.commit()
    return con


def fill(con: sqlite3.Connection, frame: Any) -> None:
    """Create the tables and write the rows of `frame` (a polars DataFrame of findings)."""
    import orjson

    con.executescript(
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
        f"CREATE TABLE findings(id INTEGER PRIMARY KEY, {', '.join(f'{_q(c)}' for c in COLUMNS)}, text_id INTEGER);"
        "CREATE TABLE lists(id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='unicode61');"
        "CREATE TABLE rank(text_id INTEGER, id INTEGER, ev INTEGER, grp INTEGER, prank INTEGER, seq INTEGER,"
        " line INTEGER, ord INTEGER, ts INTEGER, category TEXT, PRIMARY KEY (text_id, id)) WITHOUT ROWID;"
        "CREATE TABLE prank(pattern TEXT, id INTEGER, grp INTEGER, seq INTEGER, line INTEGER, ord INTEGER,"
        " ts INTEGER, category TEXT, fingerprint TEXT, captures TEXT, text_id INTEGER,"
        " PRIMARY KEY (pattern, id)) WITHOUT ROWID;"
    )
    present = [c for c in COLUMNS if c in frame.columns]
    rows = frame.select(present).iter_rows(named=True)
    placeholders = ", ".join("?" for _ in range(len(COLUMNS) + 2))
    batch: list[tuple[Any, ...]] = []
    fts: list[tuple[int, str]] = []
    lists: dict[str, int] = {}
    texts: dict[str, int] = {}
    indexed: set[int] = set()
    failures: list[tuple[Any, ...]] = []
    patterned: list[tuple[Any, ...]] = []
    for i, r in enumerate(rows, start=1):
        text = r.get("text")
        for c in JSON_COLUMNS:
            r[c] = lists.setdefault(orjson.dumps(r.get(c) or []).decode(), len(lists) + 1)
        tid = texts.setdefault(text, len(texts) + 1) if text else None
        batch.append((i, *(_cell(c, r.get(c)) for c in COLUMNS), tid))
        if r.get("pattern") is not None:
            patterned.append((i, tid, *(r.get(c) for c in _RANK_KEYS), r.get("captures")))
        if tid is not None and r.get("severity") in FAILURE_SEVERITIES:
            failures.append((i, tid, *(r.get(c) for c in _RANK_KEYS)))
            if tid not in indexed:
                indexed.add(tid)
                fts.append((tid, text))
        if len(batch) >= 5000:
            con.executemany(f"INSERT INTO findings VALUES ({placeholders})", batch)
            batch = []
    con.executemany(f"INSERT INTO findings VALUES ({placeholders})", batch)
    fts.sort()  # rowid order: FTS5 appends to its segments fastest
    con.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", fts)
    con.execute("INSERT INTO fts(fts) VALUES ('optimize')")  # one segment: fewer b-tree walks per query
    con.executemany("INSERT INTO rank VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sorted(rank_rows(failures)))
    con.executemany("INSERT INTO prank VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sorted(pattern_rows(patterned)))
    con.executemany("INSERT INTO lists VALUES (?, ?)", [(i, v) for v, i in lists.items()])
    con.execute("CREATE INDEX findings_pattern ON findings(pattern)")
    con.execute("CREATE INDEX findings_session ON findings(session)")
    con.execute("CREATE INDEX findings_text ON findings(text_id)")


_RANK_KEYS = ("origin", "session", "source", "seq", "line", "pattern", "priority", "fingerprint", "ts", "category",
              "file_sha256")  # fmt: skip


def _live(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """search_rank.dedupe over rows (id, text_id, *_RANK_KEYS, ...): per (content hash, session)
    only the rows of the first (origin, source)."""
    first: dict[tuple[Any, Any], tuple[str, str]] = {}
    for f in rows:
        origin, session, source, sha = f[2], f[3], f[4], f[12]
        if sha:
            where = (origin or "", source or "")
            if first.setdefault((sha, session), where) > where:
                first[(sha, session)] = where
    return [f for f in rows if not f[12] or first[(f[12], f[3])] == (f[2] or "", f[4] or "")]


def _order(rows: Sequence[tuple[Any, ...]], by_id: bool = True) -> dict[int, int]:
    """Each row's place in search_rank.best_hits' order among equal scores: newest first, undated
    last, then session, source, origin, line, seq, then id (`by_id`; else rows equal in all
    of those share a place)."""
    def key(f: tuple[Any, ...]) -> tuple[Any, ...]:
        return (f[10] is None, -(_cell("ts", f[10]) or 0), f[3], f[4], f[2] or "", f[6], f[5], f[0] if by_id else 0)

    out: dict[int, int] = {}
    last, place = None, -1
    for f in sorted(rows, key=key):
        k = key(f)
        place += k != last
        out[f[0]], last = place, k
    return out


def pattern_rows(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The `prank` table: per finding with a pattern (after the content-hash dedupe), what
    search_rank.PATTERN_SQL ranks a pattern query by: its error of a session (grp: origin,
    session, source, pattern, fingerprint), seq, line, place in the order (ord), ts, category,
    fingerprint, captures and text."""
    live = _live(rows)
    order = _order(live, by_id=False)
    grp: dict[tuple[Any, ...], int] = {}
    out = []
    for i, tid, origin, session, source, seq, line, pattern, _prio, fp, ts, category, _sha, captures in live:
        g = grp.setdefault((origin, session, source, pattern, fp), len(grp))
        out.append((pattern, i, g, seq, line, order[i], _cell("ts", ts), category, fp, captures, tid))
    return out


def rank_rows(failures: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The `rank` table: per failure row with a text, what search_rank.TEXT_SQL ranks by, as
    integers fixed at write time — the event (ev) and the error of a session (grp) it belongs
    to, its pattern's strength on an event (prank: priority, then pattern id), and its place in
    the order among equal scores (ord: newest first, undated last, then session, source, origin,
    line, seq). The rows of a second copy of a session (same content hash, a later origin or
    source: search_rank.dedupe) take no part and are left out."""
    live = _live(failures)
    ev: dict[tuple[Any, ...], int] = {}
    grp: dict[tuple[Any, ...], int] = {}
    strength = {pp: k for k, pp in enumerate(sorted({(-(f[8] or 0), f[7] or "") for f in live}))}
    order = _order(live)
    out = []
    for i, tid, origin, session, source, seq, line, pattern, priority, fp, ts, category, _ in live:
        e = ev.setdefault((origin or "", session, source, seq), len(ev))
        g = grp.setdefault((origin, session, source, pattern, fp), len(grp))
        out.append((tid, i, e, g, strength[(-(priority or 0), pattern or "")], seq, line, order[i],
                    _cell("ts", ts), category))
    return out


def _q(name: str) -> str:
    return f'"{name}"'


def _cell(column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in BOOL_COLUMNS:
        return int(bool(value))
    if column == "ts":
        return (value - _EPOCH) // timedelta(microseconds=1)
    return value


def write_committed(db: Path, compact: str) -> None:
    """After an `index` run's last commit: the sidecar of that state, from its compact file (with
    the default library's snapshot, the one a plain `logsleuth search` classifies with), unless
    it is current already."""
    import polars as pl

    from logsleuth.search import library

    digest = manifest_digest(db)
    if digest is None or is_current(db, digest):
        return
    write(db, library(()), pl.read_parquet(db / compact), digest)


def refresh(db: Path, lib: PatternLibrary) -> bool:
    """Rewrite the sidecar when it is missing or stale; True when it was written. A state that
    changes while it is read (a concurrent `index` committing) writes nothing: the next search
    tries again."""
    from logsleuth import index

    digest = manifest_digest(db)
    if digest is None or is_current(db, digest):
        return False
    if _restamp(db, lib, digest):  # the rows are current, only the library changed (~10 ms, not a rewrite)
        return True
    try:
        frame = index.load(db, [c for c in COLUMNS if c in index.FINDING_SCHEMA])
    except Exception:  # an index being rebuilt, an unreadable part: Parquet search reports it
        return False
    if manifest_digest(db) != digest:
        return False
    try:
        write(db, lib, frame, digest)
    except OSError:  # a read-only index (a shared folder): search stays on the Parquet path
        with contextlib.suppress(OSError):
            (db / f".{SIDECAR}.{os.getpid()}.tmp").unlink()
        return False
    return True


def _restamp(db: Path, lib: PatternLibrary, digest: str) -> bool:
    """A sidecar of the committed rows whose library snapshot is stale: the snapshot and stamp
    replaced in one transaction (readers see the old meta or the new, whole)."""
    import orjson

    con = open_current(db, digest, library=False)
    if con is None:
        return False
    con.close()
    paths = library_paths()
    meta = {"library": library_stamp(paths), "library_paths": orjson.dumps(paths).decode(),
            "snapshot": orjson.dumps(snapshot(lib)).decode()}
    try:
        with contextlib.closing(sqlite3.connect(db / SIDECAR, timeout=5)) as rw, rw:
            if rw.execute("SELECT value FROM meta WHERE key = 'manifest'").fetchone() != (digest,):
                return False  # replaced meanwhile by a newer state's sidecar
            rw.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", sorted(meta.items()))
    except sqlite3.Error:  # read-only, or locked: the full rewrite decides
        return False
    return True


def remove_temp_files(db: Path) -> None:
    for p in db.glob(f".{SIDECAR}.*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


# ---------------------------------------------------------------- reading


def is_current(db: Path, digest: str | None = None) -> bool:
    con = open_current(db, digest)
    if con is None:
        return False
    con.close()
    return True


def open_current(db: str | Path, digest: str | None = None, library: bool = True) -> sqlite3.Connection | None:
    """A read-only connection to the sidecar when it holds the committed state, else None.
    `library`: its library snapshot must be current too (a full-text search reads no snapshot)."""
    path = os.path.join(db, SIDECAR)
    digest = digest if digest is not None else manifest_digest(db)
    if digest is None:
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        meta = dict(con.execute(
            "SELECT key, value FROM meta WHERE key IN ('format', 'manifest', 'library', 'library_paths')"))
    except sqlite3.Error:
        return None
    ok = meta.get("format") == FORMAT and meta.get("manifest") == digest
    if ok and library:
        import json  # not orjson: its import costs a CLI search ~10 ms (uuid, platform, ...)

        ok = meta.get("library") == library_stamp(json.loads(meta.get("library_paths") or "[]"))
    if not ok:
        con.close()
        return None
    return con


def load_snapshot(con: sqlite3.Connection) -> list[dict[str, Any]]:
    import json

    row = con.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
    return list(json.loads(row[0])) if row else []


def ts_of(us: int | None) -> datetime | None:
    return None if us is None else _EPOCH + timedelta(microseconds=us)


def us_of(ts: datetime | None) -> int | None:
    return None if ts is None else (ts - _EPOCH) // timedelta(microseconds=1)


def resolved_sql(alias: str = "findings") -> str:
    """The select list of the resolution columns, the lists joined back in (for `decode`)."""
    lists = ", ".join(f"(SELECT value FROM lists WHERE id = {alias}.{c}) AS {c}" for c in JSON_COLUMNS)
    return f"{lists}, {alias}.held, {alias}.catch22, {alias}.outcome"


def decode(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row as the Parquet path returns it: datetimes, booleans, lists of dicts."""
    import json

    out = dict(row)
    if "ts" in out:
        out["ts"] = ts_of(out["ts"])
    for c in JSON_COLUMNS:
        if c in out:
            out[c] = json.loads(out[c]) if out[c] is not None else []
    for c in BOOL_COLUMNS:
        if c in out and out[c] is not None:
            out[c] = bool(out[c])
    return out


def select(con: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    for r in cur:
        yield dict(zip(names, r, strict=True))


def fts_query(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of the terms as a substring (each a quoted trigram phrase)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
