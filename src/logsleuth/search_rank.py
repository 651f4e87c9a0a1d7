"""Ranking the prior findings of a search (search.py): one hit per session and error, best first.

Pattern queries (a few hundred rows) are ranked in Python: each polars step costs ~0.5 ms
whatever the size, which made ranking most of a search. The per-error choice itself
(`best_hits`) and the pattern scores work on plain columns (lists), so the lean search path over
the SQLite sidecar (search_sidecar.py) ranks with this same code without importing polars.

Full-text queries (tens of thousands of candidate rows) are ranked in SQLite, in one statement
(`TEXT_SQL`), over the sidecar (or its in-memory twin): FTS5's bm25 of each distinct failure text
against the query's terms (each term a phrase, any term matching), then the same rules as
`best_hits` — a text scoring under MIN_TEXT_SCORE of the best is no hit, one hit per event (its
strongest pattern), content-hash dedupe, one hit per (origin, session, source, pattern,
fingerprint) with its best occurrence and the count, best score first, then newest.

The same session reached through two inputs (one file found twice by `index --auto`, or the same
content on two machines) is counted once: per (content hash, session), only the rows of the first
(origin, source) take part (`dedupe`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    import polars as pl

    from logsleuth.search import Query

Columns = dict[str, list[Any]]  # a table as plain columns: name -> values

MIN_TEXT_SCORE = 0.25  # full-text hits: a text's bm25 at least this share of the best text's
# Weights of the reported score; the order itself is lexicographic (see the module docstring).
W_PATTERN, W_FP, W_CAPTURES, W_TEXT = 0.4, 0.3, 0.2, 0.1
_TERM = re.compile(r"[\w][\w.+/-]*")
_STOP = frozenset(["the", "and", "for", "not", "with", "from", "this", "that", "was", "were", "are", "has", "have", "into", "its", "but", "you", "your"])
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _text_scores(query: str, texts: list[str]) -> list[float]:
    """rapidfuzz token_set_ratio of the query against each text, 0-1.

    A plain loop, not `process.cdist`: cdist returns a numpy array, and importing numpy costs a
    CLI search more (~35 ms) than the loop over a pattern's few hundred findings."""
    if not texts:
        return []
    from rapidfuzz import fuzz, utils

    q = utils.default_process(query)
    ratio = fuzz.token_set_ratio
    # an error recurs word for word across sessions: each distinct text is scored once
    score = {t: ratio(q, utils.default_process(t)) / 100 for t in dict.fromkeys(texts)}
    return [score[t] for t in texts]


def query_terms(text: str) -> list[str]:
    """Distinctive lower-case terms of a query (`libnvrtc.so.13` stays one term: one phrase)."""
    terms = dict.fromkeys(t.strip(".-+/") for t in _TERM.findall(text.lower()))
    return [t for t in terms if len(t) >= 3 and t not in _STOP and any(c.isalnum() for c in t)][:64]


def fts_query(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of the terms, each a phrase of its words (`libnvrtc.so.13`
    is the phrase `libnvrtc so 13`)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


# bm25() is negative, lower is better: `r <= share * best` keeps texts scoring at least `share` of
# the best text that has a row passing the filters. The rest reads the sidecar's `rank` table,
# whose integers were fixed when it was written (search_sidecar.rank_rows).
TEXT_SQL = """
WITH m(tid, r) AS MATERIALIZED (SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH :match),
b(best) AS MATERIALIZED (SELECT min(r) FROM m WHERE EXISTS (SELECT 1 FROM rank k WHERE k.text_id = m.tid{filters})),
t AS (SELECT tid, r FROM m, b WHERE r <= :share * best),
c AS (SELECT k.id, k.ev, k.grp, k.prank, k.seq, k.line, k.ord, t.r FROM t JOIN rank k ON k.text_id = t.tid
      WHERE 1{filters}),
e AS (SELECT *, row_number() OVER (PARTITION BY ev ORDER BY prank) AS strongest FROM c),
g AS (SELECT *, row_number() OVER (PARTITION BY grp ORDER BY r, seq, line, id) AS first,
             count(*) OVER (PARTITION BY grp) AS n
      FROM e WHERE strongest = 1)
SELECT g.id, g.r / b.best, g.n FROM g, b WHERE g.first = 1 ORDER BY g.r, g.ord LIMIT :limit
"""
# one hit per event (its strongest pattern speaks for it), one per error of a session (its best
# occurrence, earliest on ties, and how many there were), best score first, then newest (`ord`)


def text_hits(con: sqlite3.Connection, text: str, *, since_us: int | None = None, category: str | None = None,
              limit: int = 10) -> list[tuple[int, float, int]]:
    """The best `limit` full-text hits of `text` in a sidecar: (finding id, score, occurrences);
    the score is the bm25 of the hit's text relative to the best text's (1.0 for the best)."""
    terms = query_terms(text)
    if not terms:  # no term: nothing to match
        return []
    filters, params = "", {"match": fts_query(terms), "share": MIN_TEXT_SCORE, "limit": limit}
    if category:
        filters, params["category"] = filters + " AND k.category = :category", category
    if since_us is not None:
        filters, params["since"] = filters + " AND k.ts >= :since", since_us
    rows = con.execute(TEXT_SQL.format(filters=filters), params).fetchall()
    return [(int(i), float(s), int(n)) for i, s, n in rows]





def rank(q: Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The best `limit` hits of a pattern query, in order: one row per (session, source,
    pattern, fingerprint). (Full-text queries are ranked in SQL: `text_hits`.)"""
    import polars as pl

    if not rows.height:
        return rows.with_columns(score=pl.lit(0.0), occurrences=pl.lit(0, pl.UInt32))
    return rank_pattern(q, rows, limit)


def rank_pattern(q: Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """`rank` for one pattern's findings (hundreds of rows), in Python: each polars step costs
    ~0.5 ms whatever the size, which made ranking most of a search."""
    cols = {c: rows[c].to_list() for c in ("text", "captures", "fingerprint")}
    fp_eq, caps, text_sim, score = pattern_scores(q, cols["text"], cols["captures"], cols["fingerprint"])
    return _best_hits(rows, fp_eq, caps, text_sim, score, limit)


def pattern_scores(q: Query, texts: Sequence[str | None], captures: Sequence[str | None],
                   fingerprints: Sequence[str | None]) -> tuple[list[float], list[float], list[float], list[float]]:
    """(fingerprint equal, captures equal, text similarity, score) of each finding of the query's
    pattern: fingerprint equal to the query's, captures equal, text similarity (rapidfuzz)."""
    import orjson

    n = len(texts)
    text_sim = _text_scores(q.text, [t or "" for t in texts])
    keys = [k for k in sorted(q.captures) if re.fullmatch(r"\w+", k)]
    caps = [0.0] * n
    if keys:
        for i, raw in enumerate(captures):
            try:
                got = orjson.loads(raw) if raw else {}
            except orjson.JSONDecodeError:
                got = {}
            got = got if isinstance(got, dict) else {}
            caps[i] = sum(1.0 if got.get(k) == q.captures[k] else 0.0 for k in keys) / len(keys)
    fp_eq = [1.0 if q.fingerprint is not None and f == q.fingerprint else 0.0 for f in fingerprints]
    score = [W_PATTERN + W_FP * f + W_CAPTURES * c + W_TEXT * t for f, c, t in zip(fp_eq, caps, text_sim, strict=True)]
    return fp_eq, caps, text_sim, score


def _best_hits(rows: pl.DataFrame, fp_eq: Sequence[float], caps: Sequence[float], text_sim: Sequence[float],
               score: Sequence[float], limit: int) -> pl.DataFrame:
    import polars as pl

    cols = {c: rows[c].to_list() for c in BEST_COLUMNS if c in rows.columns}
    top = best_hits(cols, fp_eq, caps, text_sim, score, limit)
    return rows[[i for i, _, _ in top]].with_columns(
        pl.Series("score", [s for _, s, _ in top], pl.Float64),
        pl.Series("occurrences", [n for _, _, n in top], pl.UInt32),
    )


BEST_COLUMNS = ("session", "source", "seq", "line", "ts", "pattern", "fingerprint", "origin", "file_sha256")


def dedupe(cols: Columns) -> list[int]:
    """The rows that take part: per (content hash, session), those of the first (origin, source)
    only; rows without a content hash (inputs analysed by `--in`) all take part."""
    n = len(cols["session"])
    sha = cols.get("file_sha256") or [None] * n
    origin = cols.get("origin") or [None] * n
    first: dict[tuple[str, str], tuple[str, str]] = {}
    for i in range(n):
        if sha[i]:
            key, where = (sha[i], cols["session"][i]), (origin[i] or "", cols["source"][i] or "")
            if key not in first or where < first[key]:
                first[key] = where
    return [
        i for i in range(n)
        if not sha[i] or first[(sha[i], cols["session"][i])] == (origin[i] or "", cols["source"][i] or "")
    ]


def best_hits(cols: Columns, fp_eq: Sequence[float], caps: Sequence[float], text_sim: Sequence[float],
              score: Sequence[float], limit: int) -> list[tuple[int, float, int]]:
    """Per (origin, session, source, pattern, fingerprint), its best occurrence: fingerprint
    equal, then captures equal, then text similarity, then the earliest (seq, line), the first row
    on full ties. Hits in order: the same three, newest first (undated last), then session,
    source, line, seq. Returns (row, score, occurrences) of the best `limit`."""
    sessions, sources, seqs, lines, ts, pats, fps = (
        cols[c] for c in ("session", "source", "seq", "line", "ts", "pattern", "fingerprint")
    )
    origin = cols.get("origin") or [None] * len(sessions)
    best: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    for i in dedupe(cols):
        key = (origin[i], sessions[i], sources[i], pats[i], fps[i])
        counts[key] = counts.get(key, 0) + 1
        j = best.get(key)
        if j is None or (-fp_eq[i], -caps[i], -text_sim[i], seqs[i], lines[i]) < (
            -fp_eq[j], -caps[j], -text_sim[j], seqs[j], lines[j]
        ):
            best[key] = i

    def order(i: int) -> tuple[Any, ...]:
        when = ts[i]  # a datetime, or microseconds since the epoch (the sidecar's rows)
        if when is None:
            newest = (1, 0)
        else:
            newest = (0, -when if isinstance(when, int) else (_EPOCH - when) // _MICROSECOND)
        return (-fp_eq[i], -caps[i], -text_sim[i], newest, sessions[i], sources[i], origin[i] or "", lines[i], seqs[i])

    top = sorted(best.values(), key=order)[:limit]
    return [(i, score[i], counts[(origin[i], sessions[i], sources[i], pats[i], fps[i])]) for i in top]
