"""The lean command-line search: `logsleuth search QUERY` answered from the SQLite sidecar.

A search from the shell used to spend ~0.5 s importing polars and typer before reading a few
hundred rows. `run` (the console script) looks at argv first: a plain `search QUERY [--db DIR]
[--since DATE] [--limit N] [-O table|json]` against an index whose sidecar is current is answered
here, importing only sqlite3, orjson, regex and rapidfuzz; anything else — other commands, other
options, `--help`, no sidecar or a stale one, an error — goes to the typer application, which
owns the behaviour (and the exit status) of those cases. No hits is answered here as the typer
command answers it ("no prior occurrences", exit status 1, as grep). The answer is the one the
Parquet path gives: the same query reading (the default library's snapshot, classified as
search.classify_query does), the same candidate rows, the same ranking code (search_rank; full
text: search_rank.TEXT_SQL, which search.search runs over this sidecar too).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from logsleuth import search_sidecar as sc

HIT_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "category", "priority", "fingerprint",
           "captures", "text", "origin", "file_sha256")  # fmt: skip
# what ranking a pattern's rows reads: plain values, decoded only for the hits (`decode` of every
# row of a frequent pattern was most of a search)
PATTERN_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "fingerprint", "captures", "text_id",
               "origin", "file_sha256")  # fmt: skip
RESOLUTION_SQL = ("resolved_by", "held", "attempts", "catch22", "outcome")
_VALUE_OPTS = {"--db": "db", "--since": "since", "--limit": "limit", "--output-format": "format", "-O": "format"}


def run() -> None:
    """The console script: the lean search when it can answer, else the full application."""
    code = main(sys.argv[1:])
    if code is None:
        from logsleuth.cli import run as full

        full()
    sys.exit(code)


def main(argv: Sequence[str]) -> int | None:
    """Exit status of a search answered here, None when the full application must answer."""
    opts = parse(argv)
    if opts is None:
        return None
    try:
        found = answer(opts)
    except (sqlite3.Error, OSError, ValueError):
        return None  # the full path reports whatever this was, with its location and hint
    if found is None:
        return None
    out, hits = found
    from logsleuth.termsafe import inert

    out = inert(out)  # as cli.app.emit: a transcript never drives the terminal
    try:
        sys.stdout.buffer.write(out if out.endswith(b"\n") else out + b"\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0 if hits else 1  # as grep and ripgrep: 1 when nothing was found


def parse(argv: Sequence[str]) -> dict[str, str] | None:
    """The options of a plain search, or None for anything the lean path does not handle."""
    if not argv or argv[0] != "search":
        return None
    opts: dict[str, str] = {}
    rest = list(argv[1:])
    while rest:
        a = rest.pop(0)
        name, eq, value = a.partition("=")
        if name in _VALUE_OPTS:
            if not eq:
                if not rest:
                    return None
                value = rest.pop(0)
            opts[_VALUE_OPTS[name]] = value
        elif a.startswith("-") and a != "-":
            return None  # --in, --category, --patterns, --help, ...: the full path
        elif "query" in opts:
            return None
        else:
            opts["query"] = a
    if "query" not in opts or opts.get("format", "table") not in ("table", "json"):
        return None
    if not opts.get("limit", "1").isdigit() or int(opts.get("limit", "1")) < 1:
        return None
    return opts


def answer(opts: Mapping[str, str]) -> tuple[bytes, int] | None:
    """(output, number of hits), or None when the full application must answer."""
    from logsleuth import search as s
    from logsleuth.errors import UsageError

    text = sys.stdin.read() if opts["query"] == "-" else opts["query"]
    if not text.strip():
        return None
    if opts.get("db"):
        db = Path(opts["db"])
    else:
        from logsleuth.index_files import default_dir

        db = default_dir()
    con = sc.open_current(db)
    if con is None:
        return None
    try:
        since = s.parse_since(opts.get("since"))
        result = search_sidecar(con, text, since=since, limit=int(opts.get("limit", s.DEFAULT_LIMIT)))
    except UsageError:
        return None
    finally:
        con.close()
    if opts.get("format") == "json":
        from logsleuth import jsonout

        return jsonout.dumps(result.to_dict()), len(result.hits)
    return s.render_table(result).encode(), len(result.hits)


def search_sidecar(con: sqlite3.Connection, text: str, *, since: Any = None, limit: int = 10,
                   category: str | None = None, query: Any = None) -> Any:
    """search.search over the sidecar (the default library, or the given `query` reading): a
    SearchResult."""
    from logsleuth import search as s

    if query is None:
        from logsleuth.search_query import classify

        query = classify(text, sc.load_snapshot(con))
    if query.pattern is not None:
        top = _rank_pattern(con, query, since, category, limit)
    else:
        from logsleuth.search_rank import text_hits

        top = text_hits(con, query.text, since_us=sc.us_of(since), category=category, limit=limit)
    return s.SearchResult(query, hits_of(con, top))


def hits_of(con: sqlite3.Connection, top: Sequence[tuple[int, float, int]]) -> tuple[Any, ...]:
    """The hits (search.Hit) of ranked finding ids: (id, score, occurrences), in that order."""
    from logsleuth import search as s

    if not top:
        return ()
    ids = [i for i, _, _ in top]
    marks = ", ".join("?" for _ in ids)
    sql = f"SELECT {', '.join(HIT_SQL)}, {sc.resolved_sql()} FROM findings WHERE id IN ({marks})"
    by_id = {r["id"]: r for r in map(sc.decode, sc.select(con, sql, ids))}
    return tuple(s.hit_of({**by_id[i], "score": score, "occurrences": n}) for i, score, n in top)


def _filters(since: Any, category: str | None) -> tuple[str, list[Any]]:
    sql, params = "", list[Any]()
    if category:
        sql, params = sql + " AND category = ?", [*params, category]
    if since is not None:
        sql, params = sql + " AND ts >= ?", [*params, sc.us_of(since)]
    return sql, params


def _rank_pattern(con: sqlite3.Connection, q: Any, since: Any, category: str | None,
                  limit: int) -> list[tuple[int, float, int]]:
    """search_rank.rank_pattern over the pattern's rows, read as plain columns; each distinct
    text is read (and scored) once."""
    from logsleuth.search_rank import best_hits, pattern_scores

    where, params = _filters(since, category)
    sql = f"SELECT {', '.join(PATTERN_SQL)} FROM findings WHERE pattern = ?{where} ORDER BY id"
    found = con.execute(sql, [q.pattern, *params]).fetchall()
    if not found:
        return []
    rows = {c: list(v) for c, v in zip(PATTERN_SQL, zip(*found, strict=True), strict=True)}
    tids = sorted({t for t in rows["text_id"] if t is not None})
    text_of: dict[int, str] = {}
    for chunk in range(0, len(tids), 900):  # SQLite's bound-parameter limit
        part = tids[chunk:chunk + 900]
        marks = ", ".join("?" for _ in part)
        one = f"SELECT min(id) FROM findings WHERE text_id IN ({marks}) GROUP BY text_id"
        text_of.update(con.execute(f"SELECT text_id, text FROM findings WHERE id IN ({one})", part).fetchall())
    texts = [text_of.get(t) if t is not None else None for t in rows["text_id"]]
    fp_eq, caps, text_sim, score = pattern_scores(q, texts, rows["captures"], rows["fingerprint"])
    top = best_hits(rows, fp_eq, caps, text_sim, score, limit)
    return [(rows["id"][i], sc_, n) for i, sc_, n in top]
