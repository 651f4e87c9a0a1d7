"""A stored finding row is typed once (index/record.py): the Parquet row and the sidecar row of the
same finding give the same record, with enums, booleans and datetimes, whatever form they had."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from logsleuth.enums import ActionKind, Outcome, Severity
from logsleuth.index.record import StoredAction, finding_of
from logsleuth.index.sidecar import us_of
from logsleuth.search.render import held_text, resolution_text

TS = datetime(2026, 3, 14, 10, 0, tzinfo=UTC)
FIX = {"seq": 4, "command": "export LD_LIBRARY_PATH=/x", "kind": "env_set", "subject": "LD_LIBRARY_PATH",
       "value": "/x", "resolved": None}
PARQUET = {"session": "s", "source": "a.jsonl", "line": 3, "seq": 2, "ts": TS, "pattern": "p", "category": "c",
           "severity": "error", "priority": 80, "fingerprint": "f", "captures": "{}", "text": "t", "origin": "o",
           "file_sha256": "h", "format": "claude", "primary": True, "resolved_by": [FIX], "held": False,
           "attempts": [], "catch22": True, "outcome": "worked around"}
SIDECAR = {**PARQUET, "ts": us_of(TS), "primary": 1, "resolved_by": json.dumps([FIX]), "held": 0,
           "attempts": "[]", "catch22": 1}


def test_a_parquet_row_and_a_sidecar_row_are_one_record() -> None:
    a, b = finding_of(PARQUET), finding_of(SIDECAR)
    assert a == b and hash(a) == hash(b)
    assert a.ts == TS and a.severity is Severity.ERROR and a.outcome is Outcome.WORKED_AROUND
    assert a.held is False and a.catch22 is True and a.primary is True
    assert a.resolved_by == (StoredAction(command=FIX["command"], kind=ActionKind.ENV_SET, subject="LD_LIBRARY_PATH",
                                          value="/x", seq=4),)


def test_missing_and_unknown_values_read_as_none() -> None:
    row = {k: PARQUET[k] for k in ("session", "source", "line", "seq", "pattern", "category", "text")}
    f = finding_of({**row, "outcome": "maybe", "resolved_by": [{"command": "x", "kind": "teleport"}]})
    assert f.ts is None and f.severity is None and f.outcome is None and f.held is None and not f.catch22
    assert f.resolved_by[0].kind is None and f.attempts == ()


def test_records_are_frozen() -> None:
    f = finding_of(PARQUET)
    with pytest.raises(AttributeError):
        f.held = True  # type: ignore[misc]


def test_the_answer_reads_enums_not_text() -> None:
    fix = finding_of(PARQUET).resolved_by
    assert held_text(True, Outcome.UNRESOLVED) == "held"  # the fix held for its error; the outcome is said apart
    assert held_text(True, Outcome.RESOLVED) == "held" and held_text(None, None, "gone on re-run") == "gone on re-run"
    assert resolution_text("s", fix, False, (), False, None) == (
        "fixed by `export LD_LIBRARY_PATH=/x` in session s — did not hold (session )")
