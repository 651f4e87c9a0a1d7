"""Ranking the prior findings of a search (engine.py): one hit per session and error, best first.

Pattern queries are ranked in SQLite over the sidecar (`PATTERN_SQL` over its `prank` table:
fingerprint equal, captures equal, text similarity, newest first), the text similarity of each
distinct text computed once in Python (rapidfuzz's token_set_ratio; fuzzy.py for a few). The
Parquet path (an index without a current sidecar, `search --in`) ranks the same way in Python
(`rank_pattern`, `best_hits`: each polars step costs ~0.5 ms whatever the size, so not polars);
tests/test_search_ranking.py checks both agree.

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
from datetime import UTC, datetime, timedelta

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping, Sequence
    from typing import Any

    import polars as pl

    from logsleuth.search.query import Query

    Columns = dict[str, list[Any]]  # a table as plain columns: name -> values

MIN_TEXT_SCORE = 0.25  # full-text hits: a text's bm25 at least this share of the best text's
# Weights of the reported score; the order itself is lexicographic (see the module docstring).
W_PATTERN, W_FP, W_CAPTURES, W_TEXT = 0.4, 0.3, 0.2, 0.1
_TERM = re.compile(r"[\w][\w.+/-]*")
_STOP = frozenset(["the", "and", "for", "not", "with", "from", "this", "that", "was", "were", "are", "has", "have", "into", "its", "but", "you", "your"])
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _text_scores(query: str, texts: list[str]) -> list[float]:
    """rapidfuzz token_set_ratio (default_process) of the query against each text, 0-1; each
    distinct text is scored once (an error recurs word for word across sessions), in pure Python
    when there are few (fuzzy.py: importing rapidfuzz costs a CLI search more)."""
    if not texts:
        return []
    from logsleuth.search.fuzzy import ratio_many

    score = ratio_many(query, texts)
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
# whose integers were fixed when it was written (index.sidecar_write.rank_rows).
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


# A pattern query over the sidecar's `prank` table (index.sidecar_write.pattern_rows: one row per
# finding with a pattern, the content-hash dedupe done): best_hits in one statement. f, c, t:
# fingerprint equal, captures equal (share of the query's), text similarity (`sim`, a function
# registered per query: rapidfuzz's token_set_ratio of each distinct text, computed once). `ord`
# is the order among equal scores (newest first, ...), `seen` keeps groups tied on all of it in
# the order best_hits meets them.
PATTERN_SQL = """
WITH c AS (SELECT id, grp, seq, line, ord, coalesce(fingerprint = :fp, 0) AS f, {caps} AS c, sim(text_id) AS t
           FROM prank k WHERE pattern = :pattern{filters}),
g AS (SELECT *, row_number() OVER (PARTITION BY grp ORDER BY f DESC, c DESC, t DESC, seq, line, id) AS first,
             count(*) OVER (PARTITION BY grp) AS n, min(id) OVER (PARTITION BY grp) AS seen FROM c)
SELECT id, :wp + :wf * f + :wc * c + :wt * t, n FROM g WHERE first = 1
ORDER BY f DESC, c DESC, t DESC, ord, seen LIMIT :limit
"""


def pattern_hits(con: sqlite3.Connection, pattern: str, text: str, captures: Mapping[str, str],
                 fingerprint: str | None, *, since_us: int | None = None, category: str | None = None,
                 limit: int = 10) -> list[tuple[int, float, int]]:
    """The best `limit` hits of a pattern query in a sidecar: (finding id, score, occurrences),
    as rank_pattern orders them."""
    filters, params = "", {"pattern": pattern, "fp": fingerprint, "limit": limit, "wp": W_PATTERN, "wf": W_FP,
                           "wc": W_CAPTURES, "wt": W_TEXT}  # fmt: skip
    if category:
        filters, params["category"] = filters + " AND k.category = :category", category
    if since_us is not None:
        filters, params["since"] = filters + " AND k.ts >= :since", since_us
    keys = [k for k in sorted(captures) if re.fullmatch(r"\w+", k)]
    caps = "0.0"
    if keys:
        terms = []
        for n, k in enumerate(keys):
            params[f"p{n}"], params[f"v{n}"] = f'$."{k}"', captures[k]
            terms.append(f"coalesce(json_extract(captures, :p{n}) = :v{n}, 0)")
        valid = "json_valid(captures) AND json_type(captures) = 'object'"
        caps = f"(CASE WHEN {valid} THEN {' + '.join(terms)} ELSE 0 END) * 1.0 / {len(keys)}"
    sql = ("SELECT k.text_id, (SELECT text FROM findings f WHERE f.text_id = k.text_id LIMIT 1) FROM"
           f" (SELECT DISTINCT text_id FROM prank k WHERE pattern = :pattern AND text_id IS NOT NULL{filters}) k")
    texts = dict(con.execute(sql, params).fetchall())
    score = dict(zip(texts, _text_scores(text, [t or "" for t in texts.values()]), strict=True))
    con.create_function("sim", 1, lambda tid: score.get(tid, 0.0), deterministic=True)
    rows = con.execute(PATTERN_SQL.format(caps=caps, filters=filters), params).fetchall()
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
    fp_eq, caps, text_sim, score = pattern_scores(q.text, q.captures, q.fingerprint, cols["text"], cols["captures"],
                                                  cols["fingerprint"])
    return _best_hits(rows, fp_eq, caps, text_sim, score, limit)


def pattern_scores(q_text: str, q_captures: Mapping[str, str], q_fingerprint: str | None, texts: Sequence[str | None],
                   captures: Sequence[str | None], fingerprints: Sequence[str | None],
                   ) -> tuple[list[float], list[float], list[float], list[float]]:
    """(fingerprint equal, captures equal, text similarity, score) of each finding of the query's
    pattern: fingerprint equal to the query's, captures equal, text similarity (rapidfuzz)."""
    import json  # not orjson: its import costs a CLI search ~10 ms

    n = len(texts)
    text_sim = _text_scores(q_text, [t or "" for t in texts])
    keys = [k for k in sorted(q_captures) if re.fullmatch(r"\w+", k)]
    caps = [0.0] * n
    if keys:
        for i, raw in enumerate(captures):
            try:
                got = json.loads(raw) if raw else {}
            except ValueError:
                got = {}
            got = got if isinstance(got, dict) else {}
            caps[i] = sum(1.0 if got.get(k) == q_captures[k] else 0.0 for k in keys) / len(keys)
    fp_eq = [1.0 if q_fingerprint is not None and f == q_fingerprint else 0.0 for f in fingerprints]
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
