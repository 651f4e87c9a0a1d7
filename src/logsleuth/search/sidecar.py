"""Reading the search sidecar's rows (its format and currency check: index/sidecar.py): a
search over it (`lean_search`: the fields of query.Query as plain values, and each hit as a
typed record, ranked.Ranked), standard library only, for the lean command-line path (cli.py) and
search.engine alike."""

from __future__ import annotations

import sqlite3

from logsleuth.index.sidecar import JSON_COLUMNS
from logsleuth.search.ranked import Ranked, ranked_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

HIT_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "category", "priority", "fingerprint",
           "captures", "text", "origin", "file_sha256")  # fmt: skip


def load_snapshot(con: sqlite3.Connection) -> list[dict[str, Any]]:
    """The default library as plain data (index.patterns.snapshot), as the sidecar carries it."""
    import json

    row = con.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
    return list(json.loads(row[0])) if row else []


def resolved_sql(alias: str = "findings") -> str:
    """The select list of the resolution columns, the lists joined back in (as JSON: the typed
    record reads them, index.record.finding_of)."""
    lists = ", ".join(f"(SELECT value FROM lists WHERE id = {alias}.{c}) AS {c}" for c in JSON_COLUMNS)
    return f"{lists}, {alias}.held, {alias}.catch22, {alias}.outcome, {alias}.fix, {alias}.fix_state"


def select(con: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    for r in cur:
        yield dict(zip(names, r, strict=True))


def lean_search(con: sqlite3.Connection, text: str, *, since_us: int | None = None, limit: int = 10,
                category: str | None = None, query: Mapping[str, Any] | None = None,
                ) -> tuple[dict[str, Any], list[Ranked]]:
    """engine.search over the sidecar: the fields of query.Query as plain values (the default
    library's reading from the snapshot, unless `query` is given), and the hits."""
    if query is None:
        from logsleuth.search.snapshot_query import reading

        query = reading(text, load_snapshot(con))
    from logsleuth.search import rank

    if query["pattern"] is not None:
        top = rank.pattern_hits(con, query["pattern"], query["text"], query["captures"], query["fingerprint"],
                                since_us=since_us, category=category, limit=limit)
    else:
        top = rank.text_hits(con, query["text"], since_us=since_us, category=category, limit=limit)
    return dict(query), hit_rows(con, top)


def hit_rows(con: sqlite3.Connection, top: Sequence[tuple[int, float, int]]) -> list[Ranked]:
    """The hits of ranked finding ids: (id, score, occurrences), in that order."""
    if not top:
        return []
    ids = [i for i, _, _ in top]
    marks = ", ".join("?" for _ in ids)
    sql = f"SELECT {', '.join(HIT_SQL)}, {resolved_sql()} FROM findings WHERE id IN ({marks})"
    by_id = {r["id"]: r for r in select(con, sql, ids)}
    return [ranked_of({**by_id[i], "score": score, "occurrences": n}) for i, score, n in top]
