"""Writing the search sidecar (its format and currency check: sidecar.py): after an `index`
run's last commit (`write_committed`), when a search finds it stale (`refresh`), and in memory
for a full-text search of inputs analysed now or of a read-only index (`memory`).

The `rank` and `prank` tables hold what search.rank's SQL orders hits by, as integers fixed
here, at write time; tests/test_search_ranking.py checks the SQL agrees with the Python ranking.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from typing import TYPE_CHECKING, Any

from logsleuth.index.patterns import library, snapshot
from logsleuth.index.sidecar import (
    BOOL_COLUMNS,
    COLUMNS,
    FAILURE_SEVERITIES,
    FORMAT,
    JSON_COLUMNS,
    SIDECAR,
    is_current,
    library_paths,
    library_stamp,
    manifest_digest,
    open_current,
    us_of,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from logsleuth.library import PatternLibrary


def write(db: Path, lib: PatternLibrary, frame: Any, digest: str) -> None:
    """Write DB/search.sqlite from the committed findings `frame` (a polars DataFrame of the
    state whose manifest digest is `digest`), atomically."""
    import orjson

    dest = db / SIDECAR
    tmp = db / f".{SIDECAR}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    try:
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
    except (OSError, sqlite3.Error) as exc:  # a full disk, a read-only folder: no temp file is left behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _as_os_error(exc, tmp) from exc


def _as_os_error(exc: BaseException, path: Path) -> OSError:
    """A failed write as an OSError with its errno (sqlite says "database or disk is full" in words)."""
    import errno

    if isinstance(exc, OSError):
        return exc
    full = "full" in str(exc).lower()
    code = errno.ENOSPC if full else errno.EIO
    return OSError(code, os.strerror(code), str(path.parent))


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
    import polars as pl

    present = [c for c in COLUMNS if c in frame.columns]
    # timestamps as the integers stored (`us_of`), converted in one pass, not a datetime per row;
    # the rows are built column by column (a dict per row cost ~100 us of a 1 KB input's index)
    picked = frame.select(present)
    if "ts" in present:
        picked = picked.with_columns(pl.col("ts").dt.epoch("us"))
    n = picked.height
    cols = {c: picked[c].to_list() if c in present else [None] * n for c in {*COLUMNS, *_RANK_KEYS}}
    lists: dict[str, int] = {}
    jsons = [[orjson.dumps(v or []).decode() for v in cols[c]] for c in JSON_COLUMNS]
    ids: list[list[int]] = [[0] * n for _ in JSON_COLUMNS]
    for i, values in enumerate(zip(*jsons, strict=True)):  # numbered row by row, as first seen
        for k, v in enumerate(values):
            ids[k][i] = lists.setdefault(v, len(lists) + 1)
    texts: dict[str, int] = {}
    tids = [texts.setdefault(t, len(texts) + 1) if t else None for t in cols["text"]]
    stored = {c: cols[c] for c in COLUMNS} | dict(zip(JSON_COLUMNS, ids, strict=True))
    for c in BOOL_COLUMNS:
        stored[c] = [None if v is None else int(bool(v)) for v in cols[c]]
    placeholders = ", ".join("?" for _ in range(len(COLUMNS) + 2))
    con.executemany(f"INSERT INTO findings VALUES ({placeholders})",
                    zip(range(1, n + 1), *(stored[c] for c in COLUMNS), tids, strict=True))
    keys = list(zip(*(cols[c] for c in _RANK_KEYS), strict=True)) if n else []
    patterned = [(i + 1, tids[i], *keys[i], cols["captures"][i]) for i, p in enumerate(cols["pattern"]) if p is not None]
    failures = [(i + 1, t, *keys[i]) for i, (t, sev) in enumerate(zip(tids, cols["severity"], strict=True))
                if t is not None and sev in FAILURE_SEVERITIES]
    fts: list[tuple[int, str]] = []
    indexed: set[int] = set()
    for f in failures:
        if f[1] not in indexed:
            indexed.add(f[1])
            fts.append((f[1], cols["text"][f[0] - 1]))
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
    """search.rank.dedupe over rows (id, text_id, *_RANK_KEYS, ...): per (content hash, session)
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
    """Each row's place in search.rank.best_hits' order among equal scores: newest first, undated
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
    search.rank.PATTERN_SQL ranks a pattern query by: its error of a session (grp: origin,
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
    """The `rank` table: per failure row with a text, what search.rank.TEXT_SQL ranks by, as
    integers fixed at write time — the event (ev) and the error of a session (grp) it belongs
    to, its pattern's strength on an event (prank: priority, then pattern id), and its place in
    the order among equal scores (ord: newest first, undated last, then session, source, origin,
    line, seq). The rows of a second copy of a session (same content hash, a later origin or
    source: search.rank.dedupe) take no part and are left out."""
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
        return value if isinstance(value, int) else us_of(value)  # `fill` converts them in one pass
    return value


def write_committed(db: Path, compact: str) -> None:
    """After an `index` run's last commit: the sidecar of that state, from its compact file (with
    the default library's snapshot, the one a plain `logsleuth search` classifies with: it is
    loaded here, whatever library the run used), unless it is current already."""
    import polars as pl

    digest = manifest_digest(db)
    if digest is None or is_current(db, digest):
        return
    write(db, library(()), pl.read_parquet(db / compact), digest)


def refresh(db: Path, lib: PatternLibrary) -> bool:
    """Rewrite the sidecar when it is missing or stale; True when it was written. A state that
    changes while it is read (a concurrent `index` committing) writes nothing: the next search
    tries again."""
    from logsleuth.index import store
    from logsleuth.index.schema import FINDING_SCHEMA

    digest = manifest_digest(db)
    if digest is None or is_current(db, digest):
        return False
    if _restamp(db, lib, digest):  # the rows are current, only the library changed (~10 ms, not a rewrite)
        return True
    try:
        frame = store.load(db, [c for c in COLUMNS if c in FINDING_SCHEMA])
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
