"""The project's own corpus of real error excerpts (tests/corpus/*.jsonl): shape and score floors.

Every record names its source: a public thread or file (`https://github.com/...`), a documentation page (its
`https://` address) or the exact command that produced the text with a real tool on a developer machine (`command: ...`, see tests/corpus/README.md).
`logsleuth patterns eval` must stay at or above the figure reached when the patterns were written (raise a
FLOOR when the library improves).

heldout.jsonl is a held-out split: no pattern was written from its records, so its score measures how the
library generalises to real text it has not seen. Its floor is lower on purpose; never write a pattern
(or an example) from a held-out record — move the record to real_errors.jsonl first and take a new held-out
batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from logsleuth.evaluate import NONE, Record, evaluate, failures_by_record, read_records
from logsleuth.library import load_library

CORPUS_DIR = Path(__file__).parent / "corpus"
CORPUS = CORPUS_DIR / "real_errors.jsonl"
HELDOUT = CORPUS_DIR / "heldout.jsonl"
FLOOR = 0.998  # real_errors.jsonl: 823/824 (miss: pnpm ELIFECYCLE, which also ends a failing `pnpm run`)
HELDOUT_FLOOR = 0.97  # heldout.jsonl (round 5 batch), held out: 75/77 = 0.974 at its first and only scoring
# (tests/corpus/README.md); no pattern was written from it
HELDOUT_RECALL = CORPUS_DIR / "heldout_recall.jsonl"
RECALL_FLOOR = 0.95  # heldout_recall.jsonl (issue #34), held out: 23/24 = 0.958 at its one scoring after the patterns
MIN_RECORDS, MIN_BENIGN, MIN_CATEGORIES = 300, 40, 40
# benign texts the library still flags, by file. Held out: left unfixed while the batch is held out (fixing them means
# writing a pattern from it).
KNOWN_FALSE_ALARMS: dict[str, set[str]] = {
    "real_errors.jsonl": set(),
    "heldout.jsonl": set(),
    "heldout_recall.jsonl": set(),
}
# failures of each file that produce no finding at all (bench/no_finding.py); held out: left as scored
KNOWN_SILENT: dict[str, set[str]] = {
    "real_errors.jsonl": {"nccl-shm-pytorch-37004"},  # only NCCL WARN lines: warnings, not failures
    "heldout.jsonl": {"r5-ort-rust-loadlibrary-126-232"},
    # hr-rdzv-connection-64926 (torchelastic's JSON error record) has a finding since a record's "message" value
    # is output, not code (quoting.py; written from https://github.com/facebookresearch/av_hubert/issues/19)
    "heldout_recall.jsonl": set(),
}


def _records(path: Path) -> list[dict[str, str]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _all() -> list[dict[str, str]]:
    return _records(CORPUS) + _records(HELDOUT) + _records(HELDOUT_RECALL)


def test_every_record_has_a_source() -> None:
    recs = _all()
    assert len(recs) >= MIN_RECORDS
    assert len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert r["log"].strip() and r["category"], r["id"]
        # a thread or a repository file on GitHub, a documentation page (its address), a command run here,
        # or a case of bench/gpu_harvest.py run on the lent H100
        assert r["source"].startswith(("https://", "command: ", "H100, ")), r["id"]
    assert sum(r["category"] == NONE for r in recs) >= MIN_BENIGN
    assert len({r["category"] for r in recs} - {NONE}) >= MIN_CATEGORIES


def test_heldout_is_disjoint_from_the_patterns_corpus() -> None:
    dev, held = _records(CORPUS), _records(HELDOUT) + _records(HELDOUT_RECALL)
    assert {r["id"] for r in dev}.isdisjoint(r["id"] for r in held)
    assert {r["log"] for r in dev}.isdisjoint(r["log"] for r in held)


def test_no_pattern_example_comes_from_a_heldout_record() -> None:
    examples = {ex.text.strip() for p in load_library().patterns for ex in p.match_examples}
    leaked = [r["id"] for r in _records(HELDOUT) + _records(HELDOUT_RECALL) if r["log"].strip() in examples]
    assert leaked == []


def test_labels_are_library_categories() -> None:
    cats = set(load_library().categories)
    assert {r["category"] for r in _all()} - {NONE} <= cats


@pytest.mark.parametrize(("path", "floor"), [(CORPUS, FLOOR), (HELDOUT, HELDOUT_FLOOR), (HELDOUT_RECALL, RECALL_FLOOR)],
                         ids=["dev", "heldout", "heldout_recall"])
def test_eval_floor(path: Path, floor: float) -> None:
    result = evaluate(str(path), load_library())
    wrong = [f"{o.id}: expected {o.expected}, got {o.predicted}" for o in result.confusions]
    assert result.accuracy >= floor, "\n".join(wrong)
    benign_flagged = {o.id for o in result.outcomes if o.expected == NONE and not o.correct}
    assert benign_flagged - KNOWN_FALSE_ALARMS[path.name] == set()


@pytest.mark.parametrize("path", [CORPUS, HELDOUT, HELDOUT_RECALL], ids=["dev", "heldout", "heldout_recall"])
def test_no_real_failure_passes_without_a_finding(path: Path) -> None:
    """Every failure record yields at least one finding of failure severity (the tool_error floor)."""
    lib = load_library()
    recs = [r for r in _records(path) if r["category"] != NONE
            and lib.categories[r["category"]].role not in ("success", "progress")]
    found = failures_by_record([Record(r["id"], r["category"], r["log"]) for r in recs], lib)
    assert {i for i, f in found.items() if not f} == KNOWN_SILENT[path.name]


HELDOUT4 = CORPUS_DIR / "heldout4_batch.jsonl"
# spent: 0.835 (163/194) at its one scoring; patterns were then written from its misses (by class, each with
# a second example from another source where one was found), so it is a dev set now: 0.985 (191/194)
HELDOUT4_FLOOR = 0.98


def test_the_fourth_batch_keeps_its_score(tmp_path: Path) -> None:
    """A spent held-out batch: the floor guards what its misses taught, and no benign text is flagged."""
    batch = _records(HELDOUT4)
    right, result = _scored(batch, tmp_path)
    assert right / len(batch) >= HELDOUT4_FLOOR
    assert not [p.id for p in result.outcomes if p.expected == NONE and not p.correct]


def _scored(batch: list[dict[str, Any]], tmp_path: Path) -> tuple[int, Any]:
    """(records right, the evaluation) of a held-out batch: an "other:" label is right when the
    record has any finding, a labelled one when its category is named, a benign one when it has none."""
    recs = tmp_path / "r.jsonl"
    recs.write_text("".join(orjson.dumps({"id": r["id"], "log": r["text"], "category": NONE if r["label"] == "benign" else
                                          "tool_error" if r["label"].startswith("other:") else r["label"]}).decode() + "\n"
                            for r in batch))
    found = failures_by_record(read_records(str(recs)), load_library())
    result = evaluate(str(recs), load_library())
    return sum(bool(found[p.id]) if p.expected == "tool_error" else p.correct for p in result.outcomes), result


HELDOUT_LH5 = CORPUS_DIR / "heldout_lh5.jsonl"
HELDOUT_LH5_FLOOR = 0.77  # 17/22 = 0.773 at its one scoring, before any pattern for the batch (README.md, "lh5")


def test_the_local_toolchain_heldout_keeps_its_score_and_stays_unseen(tmp_path: Path) -> None:
    """bench/local_harvest.py's held-out 40%: scored once; no pattern example may come from it."""
    batch = _records(HELDOUT_LH5)
    examples = {ex.text.strip() for p in load_library().patterns for ex in p.match_examples}
    assert [r["id"] for r in batch if r["text"].strip() in examples] == []
    assert {r["id"] for r in batch}.isdisjoint(r["id"] for r in _records(CORPUS))
    right, result = _scored(batch, tmp_path)
    assert right / len(batch) >= HELDOUT_LH5_FLOOR
    assert not [p.id for p in result.outcomes if p.expected == NONE and not p.correct]


HELDOUT5 = CORPUS_DIR / "heldout5_batch.jsonl"
HELDOUT5_FLOOR = 0.95  # 0.862 at its one scoring (9b93226); spent: 0.936 after its silent families, 0.957 after its wrong-category ones


def test_the_fifth_batch_keeps_its_score(tmp_path: Path) -> None:
    """Scored once, then spent; the floor guards what it taught, and no benign text is flagged."""
    batch = _records(HELDOUT5)
    right, result = _scored(batch, tmp_path)
    assert right / len(batch) >= HELDOUT5_FLOOR
    assert not [p.id for p in result.outcomes if p.expected == NONE and not p.correct]


HELDOUT6 = CORPUS_DIR / "heldout6_batch.jsonl"
HELDOUT6_FLOOR = 0.95  # 0.863 at its one scoring (415367c); spent, 0.953 after its silent families were fixed
HELDOUT6_BENIGN_FLAGGED = {"b6a-023", "b6a-113"}  # a quoted source line of a gcc note; inductor's autotune W-lines


def test_the_sixth_batch_keeps_its_score(tmp_path: Path) -> None:
    """Scored once, then spent; the floor guards what it taught, and no other benign text is flagged."""
    batch = _records(HELDOUT6)
    right, result = _scored(batch, tmp_path)
    assert right / len(batch) >= HELDOUT6_FLOOR
    flagged = {p.id for p in result.outcomes if p.expected == NONE and not p.correct}
    assert flagged <= HELDOUT6_BENIGN_FLAGGED



# spent batches scored since the fifth: (file, floor, records left out of the score). Batch 8: 0.822 (139/169) at its one
# scoring (6509fde), 0.888 (150/169) after its silent families; b8a-071's thread (openxla/xla#20803) is cited by a
# pattern written before the scoring. Batch 9: 0.818 (130/159) at its one scoring (1b7c1ca), 0.868 (138/159) after;
# b9b-024's thread (mudler/LocalAI#791) likewise.
SPENT_BATCHES = {
    "heldout8": (0.88, {"b8a-071"}),
    "heldout9": (0.86, {"b9b-024"}),
}


@pytest.mark.parametrize("name", sorted(SPENT_BATCHES))
def test_a_spent_batch_keeps_its_score(name: str, tmp_path: Path) -> None:
    """Scored once, then spent; the floor guards what it taught, and no benign text is flagged."""
    floor, left_out = SPENT_BATCHES[name]
    batch = [r for r in _records(CORPUS_DIR / f"{name}_batch.jsonl") if r["id"] not in left_out]
    right, result = _scored(batch, tmp_path)
    assert right / len(batch) >= floor
    assert not [p.id for p in result.outcomes if p.expected == NONE and not p.correct]
