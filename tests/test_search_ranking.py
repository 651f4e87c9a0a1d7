"""Full-text ranking in SQL (rank.TEXT_SQL): FTS5's bm25 per distinct text, then the
ranking rules (threshold, one hit per event, content-hash dedupe, one hit per error of a session
with its count, newest first on equal scores). Checked against a bm25 written out here."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

import polars as pl
import pytest

from logsleuth.index import sidecar, sidecar_write
from logsleuth.search import rank
from logsleuth.search.hits import hits_of

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _row(session: str, text: str, *, seq: int = 1, day: int = 1, pattern: str = "p", priority: int = 50,
         fp: str = "f", category: str = "c", severity: str = "error", source: str | None = None,
         origin: str | None = "o", sha: str | None = None) -> dict[str, Any]:
    return {"session": session, "source": source or f"/{session}.jsonl", "line": seq, "seq": seq,
            "ts": T0.replace(day=day), "pattern": pattern, "category": category, "severity": severity,
            "priority": priority, "fingerprint": fp, "captures": "{}", "text": text, "origin": origin,
            "file_sha256": sha, "held": None, "catch22": False, "outcome": "unresolved"}


def _hits(rows: list[dict[str, Any]], query: str, **kw: Any) -> list[tuple[str, float, int]]:
    con = sidecar_write.memory(pl.DataFrame(rows))
    try:
        top = rank.text_hits(con, query, **kw)
        hits = hits_of(con, top)
    finally:
        con.close()
    return [(h.session, h.score, h.occurrences) for h in hits]


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())  # unicode61: letters and digits, folded


def _bm25(texts: list[str], terms: list[str]) -> list[float]:
    """FTS5's bm25 (k1 1.2, b 0.75, idf floored at 1e-6), each term a phrase of its tokens."""
    docs = [_tokens(t) for t in texts]
    avg = sum(map(len, docs)) / len(docs)
    phrases = [_tokens(t) for t in terms]

    def tf(doc: list[str], ph: list[str]) -> int:
        return sum(doc[i:i + len(ph)] == ph for i in range(len(doc) - len(ph) + 1))

    out = []
    for d in docs:
        score = 0.0
        for ph in phrases:
            n = sum(1 for x in docs if tf(x, ph))
            idf = math.log((len(docs) - n + 0.5) / (n + 0.5))
            idf = idf if idf > 0 else 1e-6
            f = tf(d, ph)
            score += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len(d) / avg))
        out.append(-score)
    return out


TEXTS = [
    "ImportError: libnvrtc.so.13: cannot open shared object file",
    "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "error: linker failed with exit status 1",
    "ModuleNotFoundError: No module named sgl_kernel",
    "ImportError: libnvrtc.so.13 missing for sgl_kernel, cannot open shared object",
    "warning: deprecated API, nothing is broken here at all, carry on with the build",
]


@pytest.mark.parametrize("query", ["sgl_kernel libnvrtc.so.13 cannot open", "shared object file", "ImportError exit"])
def test_bm25_order_and_scores_match_the_formula(query: str) -> None:
    rows = [_row(f"s{i}", t, day=1 + i) for i, t in enumerate(TEXTS)]
    ref = _bm25(TEXTS, rank.query_terms(query))
    best = min(ref)
    want = sorted(((r, -i) for i, r in enumerate(ref) if r <= rank.MIN_TEXT_SCORE * best and r < 0))
    got = _hits(rows, query)
    # equal scores: newest first (higher day)
    assert [s for s, _, _ in got] == [f"s{-i}" for _, i in want]
    assert [sc for _, sc, _ in got] == pytest.approx([round(r / best, 3) for r, _ in want], abs=1e-3)


def test_a_rare_term_outranks_a_common_one_and_a_weak_match_is_no_hit() -> None:
    common = [_row(f"c{i}", f"error in step {i} of the build") for i in range(8)]
    rare = _row("rare", "ptxas fatal error: Unsupported .version 9.9")
    got = _hits([*common, rare], "ptxas error")
    assert got[0][0] == "rare" and got[0][1] == 1.0
    # "error" alone is in 9 of 9 texts: no information, under the threshold of the best
    assert [s for s, _, _ in got] == ["rare"]


def test_one_hit_per_error_of_a_session_with_its_count_and_best_occurrence() -> None:
    rows = [
        _row("a", "nvcc fatal: unsupported gpu architecture compute_120", seq=1),
        _row("a", "then again: nvcc fatal: unsupported gpu architecture compute_120 in the second build", seq=2),
        _row("a", "nvcc fatal: unsupported gpu architecture compute_120", seq=3),
        _row("a", "nvcc fatal: unsupported gpu architecture compute_120", seq=4, fp="other"),
        _row("b", "unrelated text about pip", seq=1),
    ]
    con = sidecar_write.memory(pl.DataFrame(rows))
    try:
        top = rank.text_hits(con, "unsupported gpu architecture compute_120")
        hits = hits_of(con, top)
    finally:
        con.close()
    assert [(h.session, h.seq, h.occurrences, h.fingerprint) for h in hits] == [("a", 1, 3, "f"), ("a", 4, 1, "other")]


def test_the_strongest_pattern_speaks_for_an_event() -> None:
    text = "RuntimeError: CUDA error: out of memory"
    rows = [_row("a", text, pattern="weak", priority=10), _row("a", text, pattern="strong", priority=90)]
    con = sidecar_write.memory(pl.DataFrame(rows))
    try:
        hits = hits_of(con, rank.text_hits(con, "cuda out of memory"))
    finally:
        con.close()
    assert [h.pattern for h in hits] == ["strong"]


def test_a_session_found_twice_counts_once() -> None:
    text = "ImportError: libnvrtc.so.13: cannot open shared object file"
    rows = [_row("a", text, source="/z/copy.jsonl", sha="h1"), _row("a", text, source="/a/orig.jsonl", sha="h1"),
            _row("a", text, source="/b/other.jsonl", sha="h1", origin="laptop-2")]
    con = sidecar_write.memory(pl.DataFrame(rows))
    try:
        hits = hits_of(con, rank.text_hits(con, "libnvrtc.so.13"))
    finally:
        con.close()
    # per (content hash, session), the first (origin, source) speaks for it: ("laptop-2", ...) < ("o", ...)
    assert [(h.source, h.origin, h.occurrences) for h in hits] == [("/b/other.jsonl", "laptop-2", 1)]
    rows[2]["origin"] = "z"
    con = sidecar_write.memory(pl.DataFrame(rows))
    try:
        hits = hits_of(con, rank.text_hits(con, "libnvrtc.so.13"))
    finally:
        con.close()
    assert [(h.source, h.origin, h.occurrences) for h in hits] == [("/a/orig.jsonl", "o", 1)]


def test_filters_apply_before_the_threshold() -> None:
    rows = [_row("new", "ptxas fatal Unsupported .version 9.9", day=20, category="ptx"),
            _row("old", "ptxas fatal: something else entirely went wrong in this long line", day=2, category="ptx"),
            _row("other", "ptxas fatal Unsupported .version 9.9 again", day=25, category="else"),
            _row("info", "ptxas fatal Unsupported .version 9.9", severity="info", day=28)]
    query = "ptxas Unsupported .version 9.9"
    assert [s for s, _, _ in _hits(rows, query, category="ptx")] == ["new"]  # "old" is under the threshold
    since = sidecar.us_of(datetime(2026, 1, 10, tzinfo=UTC))
    got = _hits(rows, query, since_us=since)
    assert [s for s, _, _ in got] == ["new", "other"] and got[0][1] == 1.0  # info rows are not failures
    # the threshold is relative to the best row that passes the filters
    early = sidecar.us_of(datetime(2026, 1, 1, tzinfo=UTC))
    assert _hits(rows, query, category="ptx", since_us=early, limit=1)[0][0] == "new"
    until_old = [r for r in rows if r["session"] != "new"]
    assert [s for s, _, _ in _hits(until_old, query, category="ptx")] == ["old"]


def _random_pattern_rows(seed: int) -> list[dict[str, Any]]:
    """Rows of two patterns with ties everywhere: same texts, days, lines, fingerprints, copies
    of a session under another origin (the same content: the same rows), captures that match the
    query's in part, undated rows."""
    import random

    rng = random.Random(seed)
    texts = ["CUDA error: out of memory", "RuntimeError: CUDA error: out of memory (alloc 2 GiB)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB…", "oom", ""]
    rows = []
    for _ in range(160):
        session = f"s{rng.randint(0, 7)}"
        r = _row(session, rng.choice(texts), seq=rng.randint(1, 4), day=rng.randint(1, 3),
                 pattern=rng.choice(["oom", "oom", "other"]), fp=rng.choice(["f1", "f2", "f3"]),
                 origin="o", sha=f"h{session}" if session < "s4" else None)
        r["line"] = rng.randint(1, 3)
        r["captures"] = rng.choice(['{"gib": "2", "dev": "0"}', '{"gib": "2"}', '{"dev": "0"}', "{}", None, "[1]"])
        if rng.random() < 0.1:
            r["ts"] = None
        rows.append(r)
    copies = [{**r, "origin": "a" if r["session"] == "s1" else "p"} for r in rows  # found twice
              if r["file_sha256"] and r["session"] != "s0"]
    rng.shuffle(copies)
    return rows + copies


@pytest.mark.parametrize("seed", range(6))
def test_pattern_ranking_in_sql_is_rank_pattern(seed: int) -> None:
    from logsleuth.search.query import Query

    rows = [{**r, "row": i + 1} for i, r in enumerate(_random_pattern_rows(seed))]
    frame = pl.DataFrame(rows)
    con = sidecar_write.memory(frame)
    try:
        for q in (Query("CUDA error: out of memory (alloc 2 GiB)", "oom", "c", {"gib": "2", "dev": "0"}, "f2"),
                  Query("oom", "oom", "c"), Query("CUDA out of memory", "other", "c", {"gib": "2"}, "f9")):
            for since, limit in ((None, 10), (T0.replace(day=2), 3), (None, 100)):
                want = frame.filter(pl.col("pattern") == q.pattern)
                if since is not None:
                    want = want.filter(pl.col("ts") >= since)
                best = rank.rank_pattern(q, want, limit)
                expected = list(zip(best["row"], best["score"], best["occurrences"], strict=True))
                got = rank.pattern_hits(con, q.pattern, q.text, q.captures, q.fingerprint, limit=limit,
                                               since_us=sidecar.us_of(since))
                assert got == expected, (q, since, limit)
                assert got
    finally:
        con.close()
