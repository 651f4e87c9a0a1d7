"""The lean command-line search: `logsleuth search QUERY` answered from the SQLite sidecar.

A search from the shell used to spend ~0.5 s importing polars and typer before reading a few
hundred rows. `run` (the console script) looks at argv first: a plain `search QUERY [--db DIR]
[--since DATE] [--limit N] [-O table|json]` against an index whose sidecar is current is answered
here, importing sqlite3, json, re and datetime, and the `regex` module only when some pattern's
prefilter occurs in the query (no pathlib, typing, dataclasses, orjson, rapidfuzz or OpenSSL's
hashlib: at ~5-40 ms of CPU each, start-up was most of a search); anything else — other
commands, other options, `--help`, no sidecar or a stale one, an error — goes to the typer
application, which owns the behaviour (and the exit status) of those cases. No hits is answered
here as the typer command answers it ("no prior occurrences", exit status 1, as grep). The
answer is the one the Parquet path gives: the same query reading (the default library's
snapshot, classified as search.classify_query does), the same ranking (search_rank.PATTERN_SQL
and TEXT_SQL, which search.search runs over this sidecar too; its Parquet fallback is tested
equal), the same rendering (search_render).
"""

from __future__ import annotations

import os
import sqlite3
import sys

from logsleuth import search_sidecar as sc

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

HIT_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "category", "priority", "fingerprint",
           "captures", "text", "origin", "file_sha256")  # fmt: skip
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
    text = sys.stdin.read() if opts["query"] == "-" else opts["query"]
    if not text.strip():
        return None
    con = sc.open_current(opts.get("db") or default_dir())
    if con is None:
        return None
    try:
        query, hits = lean_search(con, text, since_us=since_us(opts.get("since")),
                                  limit=int(opts.get("limit", DEFAULT_LIMIT)))
    finally:
        con.close()
    if opts.get("format") == "json":
        from logsleuth import jsonout, search

        result = search.SearchResult(search.Query(**query), tuple(search.Hit(**h) for h in hits))
        return jsonout.dumps(result.to_dict()), len(hits)
    from logsleuth.search_render import table

    return table(query, hits).encode(), len(hits)


DEFAULT_LIMIT = 10  # search.DEFAULT_LIMIT


def default_dir() -> str:
    """index_files.default_dir (that module imports pathlib and dataclasses)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "logsleuth")


def since_us(value: str | None) -> int | None:
    """search.parse_since as microseconds since the epoch; ValueError when it is no date (the
    full path reports it)."""
    if not value:
        return None
    from datetime import UTC, datetime

    ts = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    return sc.us_of(ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC))


def lean_search(con: sqlite3.Connection, text: str, *, since_us: int | None = None, limit: int = 10,
                category: str | None = None, query: Mapping[str, Any] | None = None,
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """search.search over the sidecar as plain values: the fields of search.Query (the default
    library's reading from the snapshot, unless `query` is given) and of each search.Hit."""
    if query is None:
        from logsleuth.search_query import reading

        query = reading(text, sc.load_snapshot(con))
    from logsleuth import search_rank

    if query["pattern"] is not None:
        top = search_rank.pattern_hits(con, query["pattern"], query["text"], query["captures"], query["fingerprint"],
                                       since_us=since_us, category=category, limit=limit)
    else:
        top = search_rank.text_hits(con, query["text"], since_us=since_us, category=category, limit=limit)
    return dict(query), hit_rows(con, top)


def search_sidecar(con: sqlite3.Connection, text: str, *, since: Any = None, limit: int = 10,
                   category: str | None = None, query: Any = None) -> Any:
    """search.search over the sidecar (the default library, or the given `query` reading): a
    SearchResult."""
    from logsleuth import search as s

    if query is None:
        from logsleuth.search_query import classify

        query = classify(text, sc.load_snapshot(con))
    fields = {f: getattr(query, f) for f in s.Query.__slots__}
    _, hits = lean_search(con, text, since_us=sc.us_of(since), limit=limit, category=category, query=fields)
    return s.SearchResult(query, tuple(s.Hit(**h) for h in hits))


def hits_of(con: sqlite3.Connection, top: Sequence[tuple[int, float, int]]) -> tuple[Any, ...]:
    """The hits (search.Hit) of ranked finding ids: (id, score, occurrences), in that order."""
    from logsleuth import search as s

    return tuple(s.Hit(**h) for h in hit_rows(con, top))


def hit_rows(con: sqlite3.Connection, top: Sequence[tuple[int, float, int]]) -> list[dict[str, Any]]:
    """The fields of search.Hit of ranked finding ids: (id, score, occurrences), in that order."""
    from logsleuth.search_render import hit_values

    if not top:
        return []
    ids = [i for i, _, _ in top]
    marks = ", ".join("?" for _ in ids)
    sql = f"SELECT {', '.join(HIT_SQL)}, {sc.resolved_sql()} FROM findings WHERE id IN ({marks})"
    by_id = {r["id"]: r for r in map(sc.decode, sc.select(con, sql, ids))}
    return [hit_values({**by_id[i], "score": score, "occurrences": n}) for i, score, n in top]
