"""The search sidecar: the committed findings of an index in SQLite (FTS5), for instant search.

`DB/search.sqlite` is derived from the Parquet index, never a commit point: `index` writes it
after its last commit, from the findings that commit lists, and records in it the digest of the
manifest (files.parquet) it was built from and a stamp of the pattern library and search code.
A reader trusts it only when both still match (`open_current`); otherwise the search runs over
Parquet and rewrites the sidecar for the next one (`refresh`). Written to a temp file and renamed
into place, so a reader's open connection keeps a whole, consistent file.

Reading it needs only the standard library (sqlite3), orjson and regex: the command-line search
(search_cli.py) answers from it without importing polars or typer. The sidecar also carries the
default pattern library as plain data (`snapshot`), so that the lean path classifies a query the
way search.classify_query does without loading the library (its types import polars).

Tables: `findings` (one row per indexed finding, in the compact file's order; timestamps as
microseconds since the epoch; the fix and attempt lists as ids into `lists`, which holds each
distinct list once, as JSON: every finding of an episode repeats them), `fts` (a contentless FTS5 trigram index over the
text of failure rows: substring search, case-insensitive, for terms of three characters or more,
the same superset a full-text query's prefilter needs), `meta` (key, value).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary

SIDECAR = "search.sqlite"
MANIFEST = "files.parquet"  # index.MANIFEST (not imported: index.py imports polars)
FORMAT = "2"  # bump when the tables or what goes into them change
FAILURE_SEVERITIES = ("fatal", "error", "warning")  # search.FAILURE_SEVERITIES
COLUMNS = (
    "session", "source", "line", "seq", "ts", "pattern", "category", "severity", "priority", "fingerprint",
    "captures", "text", "origin", "file_sha256", "resolved_by", "held", "attempts", "catch22", "outcome",
    "primary", "format",
)  # fmt: skip
JSON_COLUMNS = ("resolved_by", "attempts")
BOOL_COLUMNS = ("held", "catch22", "primary")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PKG = Path(__file__).resolve().parent
# what a lean search's answer depends on besides the index: a change makes the sidecar stale
# (the code that reads it is whatever runs; what matters is what was written: the library snapshot)
_CODE = ("search_sidecar.py",)


def manifest_digest(db: Path) -> str | None:
    """The content hash of the manifest (the commit point), None when there is none."""
    try:
        with open(db / MANIFEST, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except FileNotFoundError:
        return None


def _pattern_roots() -> list[Path]:
    """The directories the default library is read from (library.loader._roots with no --patterns)."""
    roots = [c for c in (_PKG / "_patterns", _PKG.parent.parent / "patterns") if c.is_dir()][:1]
    roots += [Path(d) for d in (os.environ.get("LOGSLEUTH_PATTERNS") or "").split(os.pathsep) if d]
    return roots


def library_stamp() -> str:
    """Stats of the default library's pattern files and of this module (~1 ms): when any
    changes, the snapshot in a sidecar may no longer classify a query as the library would. (An
    upgrade of logsleuth rewrites its pattern files, hence changes their stats too.)"""
    h = hashlib.sha256(f"{FORMAT}\0{os.environ.get('LOGSLEUTH_PATTERNS')}\0".encode())
    files = [_PKG / c for c in _CODE]
    for root in _pattern_roots():
        files += sorted(p for p in root.rglob("*") if p.is_file())
    for f in files:
        with contextlib.suppress(OSError):
            st = f.stat()
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
        con.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
            f"CREATE TABLE findings(id INTEGER PRIMARY KEY, {', '.join(f'{_q(c)}' for c in COLUMNS)}, low TEXT, alow TEXT);"
            "CREATE TABLE lists(id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='trigram');"
        )
        present = [c for c in COLUMNS if c in frame.columns]
        rows = frame.select(present).iter_rows(named=True)
        placeholders = ", ".join("?" for _ in range(len(COLUMNS) + 3))
        batch: list[tuple[Any, ...]] = []
        fts: list[tuple[int, str]] = []
        lists: dict[str, int] = {}
        for i, r in enumerate(rows, start=1):
            text = r.get("text")
            for c in JSON_COLUMNS:
                r[c] = lists.setdefault(orjson.dumps(r.get(c) or []).decode(), len(lists) + 1)
            # lower-cased as polars' to_lowercase (scores) and ASCII-only as its contains_any (prefilter)
            lows = (text.lower(), text.encode().lower().decode()) if text else (text, text)
            batch.append((i, *(_cell(c, r.get(c)) for c in COLUMNS), *lows))
            if text and r.get("severity") in FAILURE_SEVERITIES:
                fts.append((i, text))
            if len(batch) >= 5000:
                con.executemany(f"INSERT INTO findings VALUES ({placeholders})", batch)
                con.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", fts)
                batch, fts = [], []
        con.executemany(f"INSERT INTO findings VALUES ({placeholders})", batch)
        con.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", fts)
        con.executemany("INSERT INTO lists VALUES (?, ?)", [(i, v) for v, i in lists.items()])
        con.execute("CREATE INDEX findings_pattern ON findings(pattern)")
        con.execute("CREATE INDEX findings_session ON findings(session)")
        meta = {"format": FORMAT, "manifest": digest, "library": library_stamp(),
                "snapshot": orjson.dumps(snapshot(lib)).decode()}
        con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        con.commit()
    finally:
        con.close()
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, dest)


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


def open_current(db: Path, digest: str | None = None) -> sqlite3.Connection | None:
    """A read-only connection to the sidecar when it holds the committed state, else None."""
    path = db / SIDECAR
    if not path.is_file():
        return None
    digest = digest if digest is not None else manifest_digest(db)
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('format', 'manifest', 'library')"))
    except sqlite3.Error:
        return None
    if meta != {"format": FORMAT, "manifest": digest, "library": library_stamp()}:
        con.close()
        return None
    return con


def load_snapshot(con: sqlite3.Connection) -> list[dict[str, Any]]:
    import orjson

    row = con.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
    return list(orjson.loads(row[0])) if row else []


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
    import orjson

    out = dict(row)
    if "ts" in out:
        out["ts"] = ts_of(out["ts"])
    for c in JSON_COLUMNS:
        if c in out:
            out[c] = orjson.loads(out[c]) if out[c] is not None else []
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
