"""Property-based fuzzing of every reader and of the classifier (the long run: bench/fuzz_long.py).

Each example mutates valid records of one format (see robustness_fuzz.py) and checks that reading
it never raises anything but a clean, located InputError, and that `lines == used + ignored +
skipped` holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from robustness_fuzz import (
    CLASSIFIER_ROWS,
    FORMATS,
    Fmt,
    available,
    case_strategy,
    check_case,
    check_classifier,
    fmt_id,
    write_case,
)

EXAMPLES = 40
# derandomize: the default run is the same every time (the long, random run is bench/fuzz_long.py)
_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("f", FORMATS, ids=fmt_id)
def test_reader_survives_mutated_input(f: Fmt, tmp_path: Path) -> None:
    if not available(f):
        pytest.skip(f"reader {f.name} is not registered yet")
    seen: dict[str, int] = {}

    @_SETTINGS
    @given(case=case_strategy(f, huge_max=100_000))
    def prop(case: Any) -> None:
        path = write_case(f, case, tmp_path / "case")
        outcome = check_case(f, path)
        seen[outcome] = seen.get(outcome, 0) + 1

    prop()
    # the generator must reach both sides of the contract, or the property is vacuous
    assert any(k.startswith("events") for k in seen), seen


# -- the classifier --------------------------------------------------------------------------------

_LIBRARY: list[Any] = []


@settings(max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(rows=CLASSIFIER_ROWS)
def test_classifier_survives_random_events(rows: list[tuple[str, str]]) -> None:
    from logsleuth.library import load_library

    if not _LIBRARY:
        _LIBRARY.append(load_library([]))
    check_classifier(rows, _LIBRARY[0])
