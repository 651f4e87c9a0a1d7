"""Score the classifier on a labelled corpus: JSONL records `{"id", "category", "log"}`.

Each record is classified as a plain log; its predicted category is the primary finding's
(else the top warning's, else the top success/info finding's, else `none`). A record labelled `none` is right when it yields no
error finding. Reports per-category precision/recall, overall accuracy and the confusions.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from logsleuth.classify import classify, primary_of
from logsleuth.errors import InputError, Location
from logsleuth.ingest.base import EventSink
from logsleuth.library.pattern import PatternLibrary
from logsleuth.model import Finding, Severity

NONE = "none"


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    category: str
    log: str


@dataclass(frozen=True, slots=True)
class Prediction:
    id: str
    expected: str
    predicted: str
    pattern: str | None
    correct: bool


@dataclass(frozen=True, slots=True)
class CategoryScore:
    category: str
    support: int  # records labelled with it
    predicted: int  # records predicted as it
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.support if self.support else 0.0


@dataclass(frozen=True, slots=True)
class EvalResult:
    reader: str
    outcomes: tuple[Prediction, ...]
    categories: tuple[CategoryScore, ...]

    @property
    def accuracy(self) -> float:
        return sum(o.correct for o in self.outcomes) / len(self.outcomes) if self.outcomes else 0.0

    @property
    def confusions(self) -> tuple[Prediction, ...]:
        return tuple(o for o in self.outcomes if not o.correct)

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": len(self.outcomes),
            "correct": sum(o.correct for o in self.outcomes),
            "accuracy": round(self.accuracy, 4),
            "reader": self.reader,
            "categories": [
                {"category": c.category, "support": c.support, "predicted": c.predicted, "correct": c.correct,
                 "precision": round(c.precision, 4), "recall": round(c.recall, 4)}
                for c in self.categories
            ],
            "confusions": [
                {"id": o.id, "expected": o.expected, "predicted": o.predicted, "pattern": o.pattern}
                for o in self.confusions
            ],
        }

    def to_text(self) -> str:
        lines = [f"{'category':<34} {'support':>7} {'pred':>5} {'prec':>6} {'recall':>6}"]
        for c in self.categories:
            lines.append(f"{c.category:<34} {c.support:>7} {c.predicted:>5} {c.precision:>6.2f} {c.recall:>6.2f}")
        lines.append("")
        for o in self.confusions:
            lines.append(f"confused: {o.id}: expected {o.expected}, got {o.predicted}"
                         + (f" ({o.pattern})" if o.pattern else ""))
        correct = sum(o.correct for o in self.outcomes)
        lines.append(f"accuracy {self.accuracy:.3f} ({correct}/{len(self.outcomes)} records, reader: {self.reader})")
        return "\n".join(lines)


def read_records(path: str) -> list[Record]:
    out = []
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", Location(path)) from exc
    for n, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", Location(path, n)) from exc
        if not isinstance(obj, dict) or not all(isinstance(obj.get(k), str) for k in ("id", "category", "log")):
            raise InputError("expected an object with string id, category and log", Location(path, n))
        out.append(Record(obj["id"], obj["category"], obj["log"]))
    return out


def _plaintext_reader() -> Any:
    from logsleuth.ingest.detect import readers

    for spec in readers():
        if spec.name in ("plaintext", "plain", "text", "log"):
            return spec
    return None


def record_events(records: Sequence[Record], reader: str = "auto") -> tuple[pl.DataFrame, str]:
    """One session per record: read by the plaintext reader when it exists, else one log event each."""
    spec = _plaintext_reader() if reader in ("auto", "plaintext") else None
    if spec is None:
        sink = EventSink("-", "corpus")
        for r in records:
            sink.add(line=1, role="log", kind="log", text=r.log, session=r.id, source=r.id)
        return sink.frame(), "record"
    from logsleuth.ingest.base import make_probe

    frames = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, r in enumerate(records):
            path = Path(tmp) / f"{i}.log"
            path.write_text(r.log + "\n", encoding="utf-8")
            t = spec.read(make_probe(str(path)))
            frames.append(t.events.with_columns(session=pl.lit(r.id), source=pl.lit(r.id)))
    return pl.concat(frames), spec.name


def _predicted(findings: Sequence[Finding]) -> tuple[str, str | None]:
    primary = primary_of(findings)
    if primary is not None:
        return primary.category, primary.pattern
    warns = [f for f in findings if f.severity is Severity.WARNING]
    if warns:
        top = max(warns, key=lambda f: f.priority)
        return top.category, top.pattern
    # no failure at all: a record labelled with a success category (tests passed) is scored on it
    rest = [f for f in findings if f.severity in (Severity.SUCCESS, Severity.INFO)]
    if rest:
        top = max(rest, key=lambda f: f.priority)
        return top.category, top.pattern
    return NONE, None


def evaluate(path: str, library: PatternLibrary, reader: str = "auto") -> EvalResult:
    records = read_records(path)
    events, used = record_events(records, reader)
    result = classify(events, library)
    by_session: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_session.setdefault(f.session, []).append(f)
    outcomes = []
    for r in records:
        found = by_session.get(r.id, [])
        predicted, pattern = _predicted(found)
        if r.category == NONE:
            correct = not any(f.severity.is_failure for f in found)
            predicted = NONE if correct else predicted
        else:
            correct = predicted == r.category
        outcomes.append(Prediction(r.id, r.category, predicted, pattern, correct))
    return EvalResult(used, tuple(outcomes), _scores(outcomes))


def failures_by_record(records: Sequence[Record], library: PatternLibrary) -> dict[str, list[Finding]]:
    """Record id -> its findings of failure severity (none: a failure passed in silence)."""
    events, _ = record_events(records)
    out: dict[str, list[Finding]] = {r.id: [] for r in records}
    for f in classify(events, library).findings:
        if f.severity.is_failure:
            out[f.session].append(f)
    return out


def _scores(outcomes: Sequence[Prediction]) -> tuple[CategoryScore, ...]:
    support = Counter(o.expected for o in outcomes)
    predicted = Counter(o.predicted for o in outcomes)
    correct = Counter(o.expected for o in outcomes if o.correct)
    cats = sorted(set(support) | set(predicted))
    return tuple(CategoryScore(c, support[c], predicted[c], correct[c]) for c in cats)
