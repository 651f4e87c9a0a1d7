"""The lean command-line search: `logsleuth search QUERY` answered from the SQLite sidecar.

A search from the shell used to spend ~0.5 s importing polars and typer before reading a few
hundred rows. `run` (the console script) looks at argv first: a plain `search QUERY [--db DIR]
[--since DATE] [--limit N] [-O table|json]` against an index whose sidecar is current is answered
here, importing sqlite3, json, re and datetime, and the `regex` module only when some pattern's
prefilter occurs in the query (no pathlib, typing, dataclasses, orjson, rapidfuzz or OpenSSL's
hashlib: at ~5-40 ms of CPU each, start-up was most of a search); anything else — other
commands, other options, `--help`, no sidecar or a stale one, an error — goes to the typer
application, which owns the behaviour (and the exit status) of those cases. No hits is answered
here as the typer command answers it (nothing on stdout, "no prior occurrences" and the pattern's
advice on stderr, exit status 1, as ripgrep). The
answer is the one the Parquet path gives: the same query reading (the default library's
snapshot, classified as query.classify_query does: snapshot_query.py), the same ranking
(rank.PATTERN_SQL and TEXT_SQL, which engine.search runs over this sidecar too; its Parquet
fallback is tested equal), the same rendering (render.py).

This module belongs to the CLI layer (it falls back to logsleuth.cli); nothing in search/
imports it.
"""

from __future__ import annotations

import os
import sqlite3
import sys

from logsleuth.index import sidecar as sc
from logsleuth.search.sidecar import lean_search

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

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
    out, hits, note = found
    from logsleuth.termsafe import inert

    out = inert(out)  # as cli.app.emit: a transcript never drives the terminal
    try:
        if out:
            sys.stdout.buffer.write(out if out.endswith(b"\n") else out + b"\n")
            sys.stdout.flush()
        if note:
            sys.stderr.buffer.write(inert(note))
            sys.stderr.flush()
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


def answer(opts: Mapping[str, str]) -> tuple[bytes, int, bytes] | None:
    """(stdout, number of hits, stderr), or None when the full application must answer."""
    text = sys.stdin.read() if opts["query"] == "-" else opts["query"]
    if not text.strip():
        return None
    con = sc.open_current(opts.get("db") or default_dir())
    if con is None:
        return None
    try:
        query, hits = lean_search(con, text, since_us=since_us(opts.get("since")),
                                  limit=min(int(opts.get("limit", DEFAULT_LIMIT)), MAX_LIMIT))
    finally:
        con.close()
    if opts.get("format") == "json":
        from logsleuth import jsonout
        from logsleuth.search.hits import Hit, SearchResult
        from logsleuth.search.query import Query

        result = SearchResult(Query(**query), tuple(Hit.of(h) for h in hits))
        return jsonout.dumps(result.to_dict()), len(hits), b""
    from logsleuth.search.render import no_hits, table

    if not hits:  # nothing on stdout, as ripgrep; what was looked for (and the library's advice) on stderr
        return b"", 0, no_hits(query).encode()
    return table(query, hits).encode(), len(hits), b""


DEFAULT_LIMIT = 10  # engine.DEFAULT_LIMIT
MAX_LIMIT = 1_000_000  # engine.MAX_LIMIT


def default_dir() -> str:
    """index.files.default_dir (that module imports pathlib and dataclasses)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "logsleuth")


def since_us(value: str | None) -> int | None:
    """query.parse_since as microseconds since the epoch; ValueError when it is no date (the
    full path reports it)."""
    if not value:
        return None
    from datetime import UTC, datetime

    ts = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    try:
        return sc.us_of(ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC))
    except OverflowError as exc:  # 9999-12-31T23:59-23:59 is past year 9999 in UTC
        raise ValueError(value) from exc
