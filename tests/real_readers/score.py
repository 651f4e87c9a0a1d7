"""Score logsleuth's readers on the real transcripts here against expected.json (see SCORE.md).

Per file: the format detection picked (no --format), tool calls and results read against the
counts in expected.json, results read with no text, lines skipped, and whether the coverage check
would warn. Run from the repository root: `.venv/bin/python tests/real_readers/score.py [--json]`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl

from logsleuth import ingest
from logsleuth.ingest import coverage

HERE = Path(__file__).parent


def score(path: Path, want: dict[str, int]) -> dict[str, object]:
    t = ingest.read(str(path))
    ev = t.events
    kind = pl.col("kind").cast(pl.Utf8)
    calls = ev.filter(kind == "tool_call").height
    results = ev.filter(kind == "tool_result")
    empty = results.filter(pl.col("text").fill_null("").str.strip_chars() == "").height
    exact = calls == want["tool_calls"] and results.height == want["tool_results"]
    return {
        "format": t.report.format,
        "calls": f"{calls}/{want['tool_calls']}",
        "results": f"{results.height}/{want['tool_results']}",
        "empty_results": empty,
        "skipped": f"{len(t.report.skipped)}/{t.report.lines}",
        "warns": bool(coverage.under_read_quiet(t)),
        "exact": exact,
    }


def main() -> None:
    expected = json.loads((HERE / "expected.json").read_text())
    rows = {name: score(HERE / name, want) for name, want in expected.items()}
    if "--json" in sys.argv:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return
    print(f"{'file':<44} {'format':<16} {'calls':>7} {'results':>7} {'empty':>5} {'skipped':>9} warns exact")
    for name, r in rows.items():
        print(f"{name.split('/')[0]:<44} {r['format']:<16} {r['calls']:>7} {r['results']:>7} "
              f"{r['empty_results']:>5} {r['skipped']:>9} {r['warns']!s:<5} {r['exact']}")
    print(f"exact: {sum(1 for r in rows.values() if r['exact'])} of {len(rows)}")


if __name__ == "__main__":
    main()
