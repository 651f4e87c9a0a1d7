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
    """The best `limit` hits, in order: one row per (session, source, pattern, fingerprint).

    Built as one lazy query (one collect): as a chain of eager steps, each a query of its own,
    ranking cost ~10 ms however few the rows."""
    if not rows.height:
        return rows.with_columns(score=pl.lit(0.0), occurrences=pl.lit(0, pl.UInt32))
    if q.pattern is not None:
        return rank_pattern(q, rows, limit)
    text_sim = _overlap_scores(query_terms(q.text), rows)
    fp = pl.lit(False) if q.fingerprint is None else pl.col("fingerprint") == q.fingerprint
    caps = [
        (pl.col("captures").str.json_path_match(f"$.{k}") == v).fill_null(False).cast(pl.Float64)
        for k, v in sorted(q.captures.items())
        if re.fullmatch(r"\w+", k)
    ]
    cap_sim = (pl.sum_horizontal(caps) / len(caps)) if caps else pl.lit(0.0)
    scored = rows.with_columns(text_sim).lazy().with_columns(fp_eq=fp.cast(pl.Float64), cap_sim=cap_sim)
    scored = (
        scored.filter(pl.col("text_sim") >= MIN_TEXT_SCORE)
        .with_columns(score=pl.col("text_sim"))
        # several patterns on one event are one hit: the strongest speaks for it
        .sort(["session", "source", "seq", "priority", "pattern"], descending=[False, False, False, True, False])
        .unique(["session", "source", "seq"], keep="first", maintain_order=True)
    )
    # one hit per session and error: its best-matching occurrence, the first one on ties
    key = ["session", "source", "pattern", "fingerprint"]
    counts = scored.group_by(key).len("occurrences")
    best = (
        scored.sort(["fp_eq", "cap_sim", "text_sim", "seq", "line"], descending=[True, True, True, False, False])
        .unique(key, keep="first", maintain_order=True)
        .join(counts, on=key, how="left")
    )
    order = ["fp_eq", "cap_sim", "text_sim", "ts", "session", "source", "line", "seq"]
    desc = [True, True, True, True, False, False, False, False]
    return best.sort(order, descending=desc, nulls_last=True).head(limit).collect()


def rank_pattern(q: Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """`rank` for one pattern's findings (hundreds of rows): the same order, in Python. Each
    polars step costs ~0.5 ms whatever the size, which made ranking most of a search.

    Per (session, source, pattern, fingerprint), its best occurrence: fingerprint equal to the
    query's, then captures equal, then text similarity, then the earliest (seq, line), the first
    row on full ties. Hits in order: the same three scores, newest first (undated last), then
    session, source, line, seq."""
    import orjson

    n = rows.height
    texts = rows["text"].fill_null("").to_list()
    text_sim = _text_scores(q.text, texts)
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
    fps = rows["fingerprint"].to_list()
    fp_eq = [1.0 if q.fingerprint is not None and f == q.fingerprint else 0.0 for f in fps]
    sessions, sources, seqs, lines = (rows[c].to_list() for c in ("session", "source", "seq", "line"))
    ts = rows["ts"].to_list()
    pats = rows["pattern"].to_list()
    best: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    for i in range(n):
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
    score = [W_PATTERN + W_FP * fp_eq[i] + W_CAPTURES * caps[i] + W_TEXT * text_sim[i] for i in top]
    occurrences = [counts[(sessions[i], sources[i], pats[i], fps[i])] for i in top]
    return rows[top].with_columns(
        pl.Series("score", score, pl.Float64), pl.Series("occurrences", occurrences, pl.UInt32)
    )
