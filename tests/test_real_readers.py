"""The readers on public transcripts they were not written from (tests/real_readers/, SCORE.md):
detected without --format, every tool call and result read, counted as count_truth.py counts
them from the files alone, and nothing skipped in silence."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.ingest import coverage

HERE = Path(__file__).parent / "real_readers"
EXPECTED = json.loads((HERE / "expected.json").read_text())


def _truth_module():
    spec = importlib.util.spec_from_file_location("count_truth", HERE / "count_truth.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_expected_is_what_the_independent_count_says():
    truth = _truth_module()
    assert {f"{p.parent.name}/{p.name}": truth.count(p) for p in truth.transcripts()} == EXPECTED


def test_every_transcript_has_its_source():
    for name in EXPECTED:
        source = (HERE / name).parent / "SOURCE.txt"
        keys = {line.split(":", 1)[0] for line in source.read_text().splitlines()}
        assert {"repo", "path", "commit", "licence"} <= keys, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_calls_and_results_read_exactly(name: str):
    t = ingest.read(str(HERE / name))
    kinds = t.events.get_column("kind").cast(pl.Utf8)
    got = {"tool_calls": int((kinds == "tool_call").sum()), "tool_results": int((kinds == "tool_result").sum())}
    assert got == EXPECTED[name]
    assert t.report.balanced
    assert not coverage.under_read_quiet(t), "read whole: no line lost and no warning due"
