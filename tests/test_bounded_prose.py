"""The reasoning stage reads at most MAX_PROSE_BYTES of the agent's prose: the prose nearest a failure."""

from __future__ import annotations

import polars as pl

from logsleuth.analysis import MAX_PROSE_BYTES, bounded_prose
from logsleuth.model import EVENT_SCHEMA, Finding, Severity


def _events(n: int, size: int) -> pl.DataFrame:
    rows = [
        {"session": "s", "source": "x.jsonl", "line": i + 1, "seq": i, "ts": None,
         "role": "assistant" if i % 2 else "tool", "kind": "text" if i % 2 else "tool_result",
         "tool": None, "call_id": None, "text": ("p" if i % 2 else "o") * size, "is_error": None, "exit_code": None}
        for i in range(n)
    ]
    return pl.DataFrame(rows, schema=EVENT_SCHEMA)


def _failure(seq: int) -> Finding:
    return Finding("p", "c", Severity.ERROR, 1, "s", seq, "x.jsonl", seq + 1, "boom", {}, "fp")


def test_under_the_limit_all_events_pass() -> None:
    ev = _events(10, 100)
    assert bounded_prose(ev, [_failure(4)]) is ev


def test_over_the_limit_the_prose_nearest_the_failures_is_kept_in_order() -> None:
    ev = _events(200, 1000)  # 100 prose events of 1000 bytes
    kept = bounded_prose(ev, [_failure(40), _failure(150)], limit=10_000)
    seqs = kept["seq"].to_list()
    assert len(seqs) == 10 and seqs == sorted(seqs)
    assert set(kept["role"].to_list()) == {"assistant"}
    # nearest first (distance 1, 3, then 5), earlier first among equals: 35 and 45 beat 145 and 155
    assert seqs == [35, 37, 39, 41, 43, 45, 147, 149, 151, 153]


def test_the_default_limit_is_a_megabyte() -> None:
    assert MAX_PROSE_BYTES == 1_000_000
