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
from hypothesis import strategies as st
from robustness_fuzz import FORMATS, NASTY_STRINGS, Fmt, available, case_strategy, check_case, fmt_id, write_case

from logsleuth.ingest.base import EventSink

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

_LINES = (
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "ptxas fatal   : Unsupported .version 9.2; current version is '9.0'",
    "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "Traceback (most recent call last):",
    "INFO:     Application startup complete.",
    "a" * 5000 + "!",
)
_TEXT = st.lists(
    st.sampled_from(_LINES) | st.sampled_from(NASTY_STRINGS) | st.text(max_size=80)
    | st.integers(1, 200_000).map(lambda n: "(" * n),
    max_size=6,
).map("\n".join)


@settings(max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(("log", "tool", "assistant")), _TEXT), max_size=12))
def test_classifier_survives_random_events(rows: list[tuple[str, str]]) -> None:
    from logsleuth.classify import classify
    from logsleuth.library import load_library

    sink = EventSink("s", "fuzz.log")
    for i, (role, text) in enumerate(rows):
        kind = {"log": "log", "tool": "tool_result", "assistant": "text"}[role]
        sink.add(line=1000 * i + 1, role=role, kind=kind, text=text, is_error=(i % 2 == 0), exit_code=i % 3)
    result = classify(sink.frame(), _lib(load_library))
    for f in result.findings:
        # every finding points into the event it came from: seq, and a line inside its text
        _, text = rows[f.seq]
        first = 1000 * f.seq + 1
        assert first <= f.line <= first + text.count("\n"), (f.line, f.seq)
    assert result.primary is None or result.primary in result.findings


_CACHE: dict[str, Any] = {}


def _lib(load: Any) -> Any:
    if "lib" not in _CACHE:
        _CACHE["lib"] = load([])
    return _CACHE["lib"]
