"""Search the corpus index: have we seen this error before, and what fixed it?

The query is read as a finding (query.classify_query); the hits are prior findings of the same
pattern, ranked by fingerprint equality, then capture similarity, then text similarity (rapidfuzz
token_set_ratio), then newest first, ties broken by session, source and line. One hit per
(session, source, pattern, fingerprint): a session that hit the same error thirty times is one
result with `occurrences: 30`. A query no pattern recognises falls back to full-text search over
the indexed failure text, ranked by FTS5's bm25. Both are ranked in SQLite over the index's
search sidecar (rank.PATTERN_SQL, TEXT_SQL) when it holds the committed state; otherwise
pattern queries are ranked in Python over the Parquet rows (the same order, tested) and full-text
ones over an in-memory sidecar (`--in`, a stale read-only index).
Never imports spaCy (no reasoning is run). The lean command-line path (cli.py over the SQLite
sidecar) shares the query reading, ranking and rendering with this one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logsleuth.errors import InputError, Location, UsageError
from logsleuth.index.patterns import is_default, library
from logsleuth.index.sidecar import FAILURE_SEVERITIES
from logsleuth.search.hits import Hit, SearchResult, hit_of, hits_of
from logsleuth.search.query import Query, classify_query
from logsleuth.search.rank import pattern_hits, rank, text_hits

if TYPE_CHECKING:
    import sqlite3

    import polars as pl

    from logsleuth.library import PatternLibrary

DEFAULT_LIMIT = 10
MAX_LIMIT = 1_000_000  # a larger --limit means "all": SQLite's LIMIT is a 64-bit integer
# What ranking a pattern's rows reads, and the resolution columns of its hits.
RANK_COLUMNS = (
    "session", "source", "line", "seq", "ts", "pattern", "category", "severity", "priority", "fingerprint",
    "captures", "text", "origin", "file_sha256",
)  # fmt: skip
RESOLUTION_COLUMNS = ("success", "resolved_by", "held", "attempts", "catch22", "outcome", "fix", "fix_state")
COLUMNS = RANK_COLUMNS + RESOLUTION_COLUMNS


def search(
    text: str,
    *,
    db: Path | None = None,
    files: Sequence[str] = (),
    category: str | None = None,
    since: datetime | None = None,
    limit: int = DEFAULT_LIMIT,
    pattern_dirs: Sequence[str] = (),
    lib: PatternLibrary | None = None,
    sidecar: bool = True,
    connection: sqlite3.Connection | None = None,
) -> SearchResult:
    """Prior occurrences of the query's error in the index at `db` (or in `files`, analysed now).

    `sidecar`: with the default library, rewrite the index's search sidecar when it is stale (a
    read-only reader, `serve`, passes False). `connection`: an open sidecar known to hold the
    committed state (a server keeps one per thread and index generation); left open."""
    import polars as pl

    from logsleuth.index import sidecar as sc
    from logsleuth.index import sidecar_write, store
    from logsleuth.index.analyse import analyse_files
    from logsleuth.index.files import default_dir

    if limit < 1:
        raise UsageError("--limit must be at least 1")
    limit = min(limit, MAX_LIMIT)
    lib = lib if lib is not None else library(tuple(pattern_dirs))
    q = classify_query(text, lib)
    errors: list[str] = []
    if files:
        pred = _predicate(q, category, since)
        frame, errors = analyse_files(files, lib)
        if q.pattern is None:  # the same SQL ranking as over an index, over these inputs' failures
            mem = sidecar_write.memory(frame.filter(pl.col("severity").is_in(FAILURE_SEVERITIES)))
            try:
                return SearchResult(q, _text_hits(mem, q, category, since, limit), tuple(errors))
            finally:
                mem.close()
        best = rank(q, frame.filter(pred).select(COLUMNS), limit)
        return SearchResult(q, _hits(best), tuple(errors))
    where = Path(db if db is not None else default_dir())
    if sidecar and is_default(lib):  # the default library: the one the lean path classifies with
        sidecar_write.refresh(where, lib)  # stale or missing: rebuilt for the next search
    # ranked in SQL (rank.PATTERN_SQL, TEXT_SQL) over the sidecar when it holds the committed
    # state (any library: the query is read already, the rows are the index's)
    con = connection if connection is not None else sc.open_current(where, library=False)
    if con is not None:
        try:
            if q.pattern is not None:
                top = pattern_hits(con, q.pattern, q.text, q.captures, q.fingerprint,
                                   since_us=sc.us_of(since), category=category, limit=limit)
                return SearchResult(q, hits_of(con, top))
            return SearchResult(q, _text_hits(con, q, category, since, limit))
        finally:
            if connection is None:
                con.close()
    if q.pattern is not None:  # one pattern's rows: row groups already decoded, read it all at once
        return SearchResult(q, _hits(rank(q, store.load(where, COLUMNS, _predicate(q, category, since)), limit)))
    # full text without a current sidecar: over an in-memory one of the committed state
    with _MEMORY_LOCK:
        return SearchResult(q, _text_hits(_memory_sidecar(where), q, category, since, limit))


_MEMORY: dict[tuple[str, str], Any] = {}  # (index, manifest digest) -> in-memory sidecar (the latest only)
_MEMORY_LOCK = threading.Lock()


def _memory_sidecar(where: Path) -> Any:
    """An in-memory sidecar of the committed failures of the index at `where` (a read-only index
    whose sidecar is stale: `serve` beside a running `index`), kept while the state is current."""
    from logsleuth.index import sidecar, sidecar_write, store
    from logsleuth.index.schema import FINDING_SCHEMA

    for _ in range(3):
        digest = sidecar.manifest_digest(where) or ""
        key = (str(where), digest)
        if key in _MEMORY:
            return _MEMORY[key]
        frame = store.load(where, [c for c in sidecar.COLUMNS if c in FINDING_SCHEMA], _failures())
        if sidecar.manifest_digest(where) == digest or not digest:
            for old in _MEMORY.values():
                old.close()
            _MEMORY.clear()
            _MEMORY[key] = sidecar_write.memory(frame)
            return _MEMORY[key]
        # a concurrent `index` run committed while it was read: read the new state
    raise InputError("index changed while reading it", Location(str(where)), "retry")


def _failures() -> pl.Expr:
    import polars as pl

    return pl.col("severity").is_in(FAILURE_SEVERITIES)


def _text_hits(con: sqlite3.Connection, q: Query, category: str | None, since: datetime | None,
               limit: int) -> tuple[Hit, ...]:
    from logsleuth.index.sidecar import us_of

    top = text_hits(con, q.text, since_us=us_of(since), category=category, limit=limit)
    return hits_of(con, top)


def _predicate(q: Query, category: str | None, since: datetime | None) -> pl.Expr:
    import polars as pl

    # a full-text query is ranked in SQL (its filters too): this reads its failures only
    pred = pl.col("pattern") == q.pattern if q.pattern is not None else pl.col("severity").is_in(FAILURE_SEVERITIES)
    if category:
        pred = pred & (pl.col("category") == category)
    if since is not None:
        pred = pred & (pl.col("ts") >= pl.lit(since, pl.Datetime("us", "UTC")))
    return pred


def _hits(best: pl.DataFrame) -> tuple[Hit, ...]:
    return tuple(hit_of(r) for r in best.iter_rows(named=True))




def search_sidecar(con: sqlite3.Connection, text: str, *, since: datetime | None = None, limit: int = DEFAULT_LIMIT,
                   category: str | None = None, query: Query | None = None) -> SearchResult:
    """`search` over an open sidecar (the default library's reading from its snapshot, unless
    `query` is given), as the lean command-line path answers it."""
    from logsleuth.index.sidecar import us_of
    from logsleuth.search.sidecar import lean_search, load_snapshot
    from logsleuth.search.snapshot_query import classify

    if query is None:
        query = classify(text, load_snapshot(con))
    fields = {f: getattr(query, f) for f in Query.__slots__}
    _, hits = lean_search(con, text, since_us=us_of(since), limit=limit, category=category, query=fields)
    return SearchResult(query, tuple(Hit.of(h) for h in hits))
