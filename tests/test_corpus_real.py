"""The project's own corpus of real error excerpts (tests/corpus/*.jsonl): shape and a score floor.

Every record names its public source; `logsleuth patterns eval` on it must stay at or above the
figure reached when the patterns were written (raise FLOOR when the library improves).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from logsleuth.evaluate import NONE, evaluate
from logsleuth.library import load_library

CORPUS = Path(__file__).parent / "corpus" / "real_errors.jsonl"
FLOOR = 1.0  # accuracy reached on 2026 batches 1-2 (168 records); see the file's records
MIN_RECORDS, MIN_BENIGN = 160, 40


def _records() -> list[dict[str, str]]:
    return [orjson.loads(line) for line in CORPUS.read_bytes().splitlines() if line.strip()]


def test_every_record_has_a_public_source() -> None:
    recs = _records()
    assert len(recs) >= MIN_RECORDS
    assert len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert r["log"].strip() and r["category"], r["id"]
        assert r["source"].startswith("https://github.com/"), r["id"]
    assert sum(r["category"] == NONE for r in recs) >= MIN_BENIGN


def test_labels_are_library_categories() -> None:
    cats = set(load_library().categories)
    assert {r["category"] for r in _records()} - {NONE} <= cats


def test_eval_floor() -> None:
    result = evaluate(str(CORPUS), load_library())
    wrong = [f"{o.id}: expected {o.expected}, got {o.predicted}" for o in result.confusions]
    assert result.accuracy >= FLOOR, "\n".join(wrong)
    benign_flagged = [o.id for o in result.outcomes if o.expected == NONE and not o.correct]
    assert benign_flagged == []
