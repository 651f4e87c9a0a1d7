"""The fast paths give the same results as the paths they replace.

- `ingest.read_candidates` (plain text logs read as their candidate records only) + `classify`
  == `ingest.read` + `classify`, byte for byte in the JSON, across chunk boundaries too;
- the index rows of a plain log (`index.analyse.analyse_input`, which reads candidates) == the rows
  of the full read;
- `render.fasttable.render_table` == rich's own table for the same (plain-text) cells.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from logsleuth import ingest, jsonout
from logsleuth.classify import classify, scan_terms
from logsleuth.ingest import logscan, plaintext
from logsleuth.library import load_library
from logsleuth.render.fasttable import render_table

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted([*ROOT.glob("sample_logs/*/*.log"), *(ROOT / "tests" / "fixtures" / "ingest" / "text").iterdir()])


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([])


def _both(path: Path, lib) -> tuple[bytes, bytes]:  # type: ignore[no-untyped-def]
    full = ingest.read(str(path))
    fast = ingest.read_candidates(str(path), None, *scan_terms(lib))
    a = jsonout.dumps({"report": full.report.to_dict(), **classify(full.events, lib).to_dict()})
    b = jsonout.dumps({"report": fast.report.to_dict(), **classify(fast.events, lib).to_dict()})
    return a, b


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_candidate_records_classify_like_the_full_read(path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    a, b = _both(path, lib)
    assert a == b


def test_same_across_chunk_boundaries(tmp_path: Path, lib, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(5)
    lines = [ln for p in LOGS for ln in p.read_text(errors="replace").splitlines()]
    text = "\n".join(rng.choice(lines) for _ in range(6000))
    path = tmp_path / "mixed.log"
    path.write_text(text)
    monkeypatch.setattr(plaintext, "CHUNK_BYTES", 16 * 1024)  # dozens of chunks, records carried over
    a, b = _both(path, lib)
    assert a == b and b'"findings": []' not in b


def _full_rows(path: Path, lib):  # type: ignore[no-untyped-def]
    """The index rows of a plain log from the full read (what `analyse_input` did before)."""
    from logsleuth.analysis import analyze_transcript
    from logsleuth.index.rows import analysis_rows, findings_frame

    t = ingest.read(str(path))
    rows = []
    for s in t.events["session"].unique(maintain_order=True).to_list():
        rows += analysis_rows(analyze_transcript(t, lib, session=s, with_reasoning=False), t.report.format)
    return findings_frame(rows), t.report


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_index_rows_of_a_log_are_those_of_the_full_read(path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    from logsleuth.index.analyse import analyse_input

    want, report = _full_rows(path, lib)
    got = analyse_input(str(path), lib)
    assert got.frame.equals(want), path.name
    assert (got.format, got.skipped) == (report.format, len(report.skipped))


def test_index_rows_same_across_chunk_boundaries(tmp_path: Path, lib, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from logsleuth.index.analyse import analyse_input

    rng = random.Random(11)
    lines = [ln for p in LOGS for ln in p.read_text(errors="replace").splitlines()]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(rng.choice(lines) for _ in range(6000)))
    monkeypatch.setattr(plaintext, "CHUNK_BYTES", 16 * 1024)
    want, _ = _full_rows(path, lib)
    got = analyse_input(str(path), lib).frame
    assert want.height > 50 and got.equals(want)


def test_a_needle_across_the_stripped_timestamp_is_found(tmp_path: Path) -> None:
    # `[2026-… 100%] Built target` becomes `[100%] Built target`: a needle only the record has
    path = tmp_path / "x.log"
    path.write_text("[2026-01-05 10:11:12] starting\n[2026-01-05 10:11:13 100%] Built target kernels\n")
    full = ingest.read(str(path)).events
    fast = ingest.read_candidates(str(path), None, ["[100%] Built target"]).events
    assert "[100%] Built target" in full["text"][1]
    assert fast["text"].to_list() == [full["text"][1]] and fast["seq"].to_list() == [1]
    assert "Built target" in logscan.seam_safe(["[100%] Built target"])


def _rich(title: str, cols: list[tuple[str, str]], rows: list[tuple[str, ...]], width: int) -> str:
    t = Table(title=title)
    for name, overflow in cols:
        t.add_column(name, overflow=overflow)  # type: ignore[arg-type]
    for r in rows:
        t.add_row(*(Text(c) for c in r))
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(t)
    return buf.getvalue()


def test_fast_table_is_richs_table() -> None:
    rng = random.Random(3)
    cols = [("seq", "ellipsis"), ("line", "ellipsis"), ("pattern", "ellipsis"), ("text", "fold")]
    words = ["error:", "CUDA", "[rank0]:[E312", "16:08:21.913402", "x" * 70, "⏎", "日本語", "a", "Traceback (most"]
    for _ in range(60):
        rows = [
            (str(rng.randint(0, 10 ** rng.randint(1, 7))), str(rng.randint(0, 999)),
             rng.choice(["", "*", "-"]) + rng.choice(["python-traceback", "y" * rng.randint(1, 70)]),
             " ".join(rng.choice(words) for _ in range(rng.randint(0, 25)))[:200])
            for _ in range(rng.choice([0, 1, 3, 20]))
        ]
        width = rng.choice([160, 80, 40])
        assert render_table("t", cols, rows, width) == _rich("t", cols, rows, width)
