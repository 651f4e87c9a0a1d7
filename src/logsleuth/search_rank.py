"""Ranking the prior findings of a search (search.py): one hit per session and error, best first.

Pattern queries (a few hundred rows) are ranked in Python: each polars step costs ~0.5 ms
whatever the size, which made ranking most of a search. Full-text queries (tens of thousands of
rows) are ranked by an IDF-weighted term overlap in polars, as one lazy query.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from logsleuth.search import Query

MIN_TEXT_SCORE = 0.25  # full-text hits: IDF-weighted share of the query terms, times coverage
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
    """Distinctive lower-case terms of a query (`libnvrtc.so.13` stays one term)."""
    terms = dict.fromkeys(t.strip(".-+/") for t in _TERM.findall(text.lower()))
    return [t for t in terms if len(t) >= 3 and t not in _STOP][:64]


def _overlap_scores(terms: Sequence[str], rows: pl.DataFrame) -> pl.Series:
    """IDF-weighted share of the query terms each text contains (a BM25 without length norm).

    Terms no candidate contains carry no information and do not count against anyone.
    """
    if not terms or not rows.height:
        return pl.Series("text_sim", [0.0] * rows.height, pl.Float64)
    low = pl.col("text").fill_null("").str.to_lowercase()
    present = rows.lazy().select(  # one query: small eager steps cost ~0.5 ms each
        [low.str.contains(t, literal=True).alias(f"t{i}") for i, t in enumerate(terms)]
    ).collect()
    n = rows.height
    df = present.sum().row(0)
    weights = [math.log(1 + n / (1 + d)) if d else 0.0 for d in df]
    total = sum(weights) or 1.0
    # query terms found nowhere lower every score alike (how much of the query the corpus knows)
    coverage = math.sqrt(sum(1 for d in df if d) / len(terms))
    score = present.select(
        pl.sum_horizontal([pl.col(f"t{i}").cast(pl.Float64) * w for i, w in enumerate(weights)]) / total * coverage
    ).to_series()
    return score.alias("text_sim")


def rank(q: Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The best `limit` hits, in order: one row per (session, source, pattern, fingerprint)."""
    if not rows.height:
        return rows.with_columns(score=pl.lit(0.0), occurrences=pl.lit(0, pl.UInt32))
    if q.pattern is not None:
        return rank_pattern(q, rows, limit)
    # full text (no pattern, so no fingerprint or captures to compare): term overlap scores in
    # polars over every candidate, one hit per event, then the same per-error choice as patterns
    scored = (
        rows.with_columns(_overlap_scores(query_terms(q.text), rows))
        .lazy()
        .filter(pl.col("text_sim") >= MIN_TEXT_SCORE)
        # several patterns on one event are one hit: the strongest speaks for it
        .sort(["session", "source", "seq", "priority", "pattern"], descending=[False, False, False, True, False])
        .unique(["session", "source", "seq"], keep="first", maintain_order=True)
        .collect()
    )
    sims = scored["text_sim"].to_list()
    zeros = [0.0] * scored.height
    return _best_hits(scored.drop("text_sim"), zeros, zeros, sims, sims, limit)


def rank_pattern(q: Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """`rank` for one pattern's findings (hundreds of rows), in Python: each polars step costs
    ~0.5 ms whatever the size, which made ranking most of a search. Scores: fingerprint equal to
    the query's, captures equal, text similarity (rapidfuzz)."""
    import orjson

    n = rows.height
    text_sim = _text_scores(q.text, rows["text"].fill_null("").to_list())
    keys = [k for k in sorted(q.captures) if re.fullmatch(r"\w+", k)]
    caps = [0.0] * n
    if keys:
        for i, raw in enumerate(rows["captures"].to_list()):
            try:
                got = orjson.loads(raw) if raw else {}
            except orjson.JSONDecodeError:
                got = {}
            got = got if isinstance(got, dict) else {}
            caps[i] = sum(1.0 if got.get(k) == q.captures[k] else 0.0 for k in keys) / len(keys)
    fp_eq = [1.0 if q.fingerprint is not None and f == q.fingerprint else 0.0 for f in rows["fingerprint"].to_list()]
    score = [W_PATTERN + W_FP * f + W_CAPTURES * c + W_TEXT * t for f, c, t in zip(fp_eq, caps, text_sim, strict=True)]
    return _best_hits(rows, fp_eq, caps, text_sim, score, limit)


def _best_hits(rows: pl.DataFrame, fp_eq: Sequence[float], caps: Sequence[float], text_sim: Sequence[float],
               score: Sequence[float], limit: int) -> pl.DataFrame:
    """Per (session, source, pattern, fingerprint), its best occurrence: fingerprint equal, then
    captures equal, then text similarity, then the earliest (seq, line), the first row on full
    ties; with `score` and `occurrences`. Hits in order: the same three, newest first (undated
    last), then session, source, line, seq."""
    sessions, sources, seqs, lines, ts, pats, fps = (
        rows[c].to_list() for c in ("session", "source", "seq", "line", "ts", "pattern", "fingerprint")
    )
    best: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    for i in range(rows.height):
        key = (sessions[i], sources[i], pats[i], fps[i])
        counts[key] = counts.get(key, 0) + 1
        j = best.get(key)
        if j is None or (-fp_eq[i], -caps[i], -text_sim[i], seqs[i], lines[i]) < (
            -fp_eq[j], -caps[j], -text_sim[j], seqs[j], lines[j]
        ):
            best[key] = i

    def order(i: int) -> tuple[Any, ...]:
        when = ts[i]
        newest = (0, (_EPOCH - when) // _MICROSECOND) if when is not None else (1, 0)
        return (-fp_eq[i], -caps[i], -text_sim[i], newest, sessions[i], sources[i], lines[i], seqs[i])

    top = sorted(best.values(), key=order)[:limit]
    return rows[top].with_columns(
        pl.Series("score", [score[i] for i in top], pl.Float64),
        pl.Series("occurrences", [counts[(sessions[i], sources[i], pats[i], fps[i])] for i in top], pl.UInt32),
    )
