"""The lean command-line search: `logsleuth search QUERY` answered from the SQLite sidecar.

A search from the shell used to spend ~0.5 s importing polars and typer before reading a few
hundred rows. `run` (the console script) looks at argv first: a plain `search QUERY [--db DIR]
[--since DATE] [--limit N] [-O table|json]` against an index whose sidecar is current is answered
here, importing only sqlite3, orjson, regex and rapidfuzz; anything else — other commands, other
options, `--help`, no sidecar or a stale one, an error, no hits — goes to the typer application,
which owns the behaviour (and the exit status) of those cases. The answer is the one the Parquet
path gives: the same query reading (the default library's snapshot, classified as
search.classify_query does), the same candidate rows, the same ranking code (search_rank).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from logsleuth import search_sidecar as sc

RANK_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "category", "priority", "fingerprint",
            "captures", "text", "origin", "file_sha256")  # fmt: skip
TEXT_RANK_SQL = ("id", "session", "source", "line", "seq", "ts", "pattern", "priority", "fingerprint", "origin",
                 "file_sha256")
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
        out = answer(opts)
    except (sqlite3.Error, OSError, ValueError):
        return None  # the full path reports whatever this was, with its location and hint
    if out is None:
        return None
    try:
        sys.stdout.buffer.write(out if out.endswith(b"\n") else out + b"\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0


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


def answer(opts: Mapping[str, str]) -> bytes | None:
    from logsleuth import search as s
    from logsleuth.errors import UsageError
    from logsleuth.index_files import default_dir

    text = sys.stdin.read() if opts["query"] == "-" else opts["query"]
    if not text.strip():
        return None
    db = Path(opts["db"]) if opts.get("db") else default_dir()
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
    if not result.hits:
        return None
    if opts.get("format") == "json":
        from logsleuth import jsonout

        return jsonout.dumps(result.to_dict())
    return s.render_table(result).encode()


def search_sidecar(con: sqlite3.Connection, text: str, *, since: Any = None, limit: int = 10,
                   category: str | None = None) -> Any:
    """search.search over the sidecar (the default library): a SearchResult."""
    from logsleuth import search as s
    from logsleuth.search_query import classify

    q = classify(text, sc.load_snapshot(con))
    if q.pattern is not None:
        rows = _pattern_rows(con, q.pattern, since, category)
        top = _rank_pattern(q, rows, limit)
    else:
        rows, top = _rank_text(con, q, since, category, limit)
    extra = _resolutions(con, [rows["id"][i] for i, _, _ in top])
    hits = []
    for i, score, n in top:
        row = {c: rows[c][i] for c in rows}
        row.update(extra[row["id"]], score=score, occurrences=n)
        hits.append(s.hit_of(row))
    return s.SearchResult(q, tuple(hits))


def _columns(records: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, list[Any]]:
    return {c: [r[c] for r in records] for c in names}


def _filters(since: Any, category: str | None) -> tuple[str, list[Any]]:
    sql, params = "", list[Any]()
    if category:
        sql, params = sql + " AND category = ?", [*params, category]
    if since is not None:
        sql, params = sql + " AND ts >= ?", [*params, sc.us_of(since)]
    return sql, params


def _pattern_rows(con: sqlite3.Connection, pattern: str, since: Any, category: str | None) -> dict[str, list[Any]]:
    where, params = _filters(since, category)
    sql = f"SELECT {', '.join(RANK_SQL)} FROM findings WHERE pattern = ?{where} ORDER BY id"
    recs = [sc.decode(r) for r in sc.select(con, sql, [pattern, *params])]
    return _columns(recs, RANK_SQL)


def _rank_pattern(q: Any, rows: dict[str, list[Any]], limit: int) -> list[tuple[int, float, int]]:
    from logsleuth.search_rank import best_hits, pattern_scores

    fp_eq, caps, text_sim, score = pattern_scores(q, rows["text"], rows["captures"], rows["fingerprint"])
    return best_hits(rows, fp_eq, caps, text_sim, score, limit)


def _rank_text(con: sqlite3.Connection, q: Any, since: Any, category: str | None,
               limit: int) -> tuple[dict[str, list[Any]], list[tuple[int, float, int]]]:
    """search_rank.rank's full-text branch over the rows FTS5 finds: the same prefilter (any term,
    ASCII case-insensitive: SQLite's lower()), the same IDF-weighted overlap (Unicode lower-case,
    as polars' to_lowercase), the same one-hit-per-event choice."""
    from logsleuth.search_rank import MIN_TEXT_SCORE, best_hits, query_terms, term_weights

    terms = query_terms(q.text)
    if not terms:  # no term: no candidate scores above zero
        return _columns([], RANK_SQL), []
    where, params = _filters(since, category)
    # candidates: failures FTS5 finds, holding a term ASCII-case-insensitively (polars' contains_any)
    cand = (f"FROM findings WHERE id IN (SELECT rowid FROM fts WHERE fts MATCH ?) "
            f"AND severity IN ('fatal', 'error', 'warning') AND ({' OR '.join('instr(alow, ?) > 0' for _ in terms)}){where}")
    cand_params = [sc.fts_query(terms), *terms, *params]
    # one pass for the document frequencies, one for the scores: both in SQLite, in the order
    # and double precision polars' sum_horizontal uses (left to right), so the same floats
    has = ["(instr(low, ?) > 0)" for _ in terms]
    n, *df = con.execute(f"SELECT count(*), {', '.join(f'total({h})' for h in has)} {cand}",
                         [*terms, *cand_params]).fetchone()
    weights, total, coverage = term_weights(n, [int(d) for d in df], len(terms))
    live = [(h, t, w) for h, t, w in zip(has, terms, weights, strict=True) if w]
    if not live:
        return _columns([], RANK_SQL), []
    sim = f"((0.0 + {' + '.join(f'{h} * ?' for h, _, _ in live)}) / ? * ?)"
    sim_params = [x for _, t, w in live for x in (t, w)] + [total, coverage]
    sql = f"SELECT {', '.join(TEXT_RANK_SQL)}, {sim} AS sim {cand} AND {sim} >= ? ORDER BY id"
    scored = [(r, r["sim"]) for r in sc.select(con, sql, [*sim_params, *cand_params, *sim_params, MIN_TEXT_SCORE])]
    # several patterns on one event are one hit: the strongest speaks for it
    scored.sort(key=lambda rs: (rs[0]["origin"] or "", rs[0]["session"], rs[0]["source"], rs[0]["seq"],
                                -rs[0]["priority"], rs[0]["pattern"]))
    kept, seen = [], set()
    for r, sim in scored:
        key = (r["origin"], r["session"], r["source"], r["seq"])
        if key not in seen:
            seen.add(key)
            kept.append((r, sim))
    rows = _columns([r for r, _ in kept], TEXT_RANK_SQL)
    sims = [sim for _, sim in kept]
    zeros = [0.0] * len(kept)
    top = best_hits(rows, zeros, zeros, sims, sims, limit)
    # the hits' own rows, whole: (row index among the hits, score, occurrences)
    ids = [rows["id"][i] for i, _, _ in top]
    sql = f"SELECT {', '.join(RANK_SQL)} FROM findings WHERE id IN ({', '.join('?' for _ in ids)})"
    by_id = {r["id"]: r for r in map(sc.decode, sc.select(con, sql, ids))}
    return _columns([by_id[i] for i in ids], RANK_SQL), [(k, s, n) for k, (_, s, n) in enumerate(top)]


def _resolutions(con: sqlite3.Connection, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    sql = f"SELECT id, {sc.resolved_sql()} FROM findings WHERE id IN ({', '.join('?' for _ in ids)})"
    return {r["id"]: {c: r[c] for c in RESOLUTION_SQL} for r in map(sc.decode, sc.select(con, sql, list(ids)))}
