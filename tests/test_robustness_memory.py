"""Memory of big outputs and the cost of indexing many inputs: structural checks (no timing).

`events`/`classify` JSON is written a chunk of rows at a time (never the whole document at once)
and byte for byte as one dump of it; an index run commits its manifest at a pace bounded by what
a commit costs, and deletes only the parts it unlisted between commits."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from logsleuth import ingest, jsonout
from logsleuth.cli import events as events_cli
from logsleuth.cli import jsonstream
from logsleuth.index import build as indexer
from logsleuth.index import schema

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
INPUTS = sorted(p for p in FIXTURES.glob("*/*") if p.suffix in (".jsonl", ".json", ".log", ".md"))


@pytest.mark.parametrize("path", INPUTS[:12], ids=lambda p: p.name)
def test_streamed_json_is_the_one_dump(path: Path) -> None:
    t = ingest.read(str(path), None)
    whole = jsonout.dumps({"report": t.report.to_dict(), "events": jsonout.event_rows(t.events)})
    assert b"".join(events_cli.json_chunks(t.report.to_dict(), t.events, lines=False)) == whole
    lines = b"".join(events_cli.json_chunks(t.report.to_dict(), t.events, lines=True))
    assert [orjson.loads(x) for x in lines.splitlines()] == jsonout.event_rows(t.events)


def test_empty_arrays_and_several_arrays() -> None:
    doc = {"a": {"x": [1, {"y": "z\nw"}]}, "b": [], "c": [{"k": [1, 2]}, 3, "s"], "d": [None]}
    arrays = {k: (len(doc[k]), iter(doc[k])) for k in ("b", "c", "d")}
    assert b"".join(jsonstream.chunks({"a": doc["a"]}, arrays)) == jsonout.dumps(doc)


class _Recorder(io.RawIOBase):
    """stdout that records how many rows had been made when each write came."""

    def __init__(self, made: list[int]) -> None:
        self.made = made
        self.writes: list[int] = []

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.writes.append(self.made[0])
        return len(b)


def test_events_output_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first bytes are written before most rows are even turned into dicts."""
    n = 5 * events_cli.CHUNK_ROWS
    frame = ingest.read(str(FIXTURES / "text" / "build.log"), None).events
    frame = pl.concat([frame] * (n // frame.height + 1)).head(n)
    made = [0]
    real = jsonout.event_rows

    def counting(chunk: Any) -> list[dict[str, Any]]:
        made[0] += chunk.height
        return real(chunk)

    monkeypatch.setattr(jsonout, "event_rows", counting)
    rec = _Recorder(made)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(rec)))
    jsonstream.write(events_cli.json_chunks({}, frame, lines=True))
    sys.stdout.flush()
    assert made[0] == n
    assert len(rec.writes) >= 5 and rec.writes[0] <= events_cli.CHUNK_ROWS, rec.writes[:5]


def test_commits_are_spaced_by_their_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from logsleuth.analysis import load_library

    monkeypatch.delenv(indexer.COMMIT_ENV, raising=False)
    b = indexer._Builder(tmp_path, load_library([]), False, "here")
    calls: list[int] = []
    monkeypatch.setattr(b, "commit", lambda final=False: calls.append(b.since_commit))
    b.since_commit = 10 * indexer.COMMIT_EVERY_FILES
    b.commit_cost = 1000.0  # a commit that took this long waits ten times as long
    b.maybe_commit()
    assert calls == []
    b.commit_cost = 0.0
    b.maybe_commit()
    assert calls == [10 * indexer.COMMIT_EVERY_FILES]


def test_a_commit_deletes_what_this_run_unlisted_only(tmp_path: Path) -> None:
    from logsleuth.analysis import load_library

    b = indexer._Builder(tmp_path, load_library([]), False, "here")
    parts = tmp_path / schema.PARTS
    parts.mkdir()
    for name in ("part-old.parquet", "part-stray.parquet"):
        (parts / name).write_bytes(b"x")
    b.rows[("here", "/a")] = {"path": "/a", "part": f"{schema.PARTS}/part-old.parquet", "origin": "here",
                              "source": "a", "size": 1, "mtime_ns": 1, "sha256": "s", "format": "text",
                              "sessions": 1, "findings": 1, "skipped": 0, "library": "l", "version": 2}
    b.drop("/a")
    b.commit()
    assert not (parts / "part-old.parquet").exists()
    assert (parts / "part-stray.parquet").exists()  # swept by the run's first and last commits only
    b.commit(final=True)
    assert not (parts / "part-stray.parquet").exists()


# ---------------------------------------------------------------- the plain-text readers' working set


def _dense_log(path: Path, records: int = 3000) -> Path:
    """Benign lines with an error block every few records (multi-line, timestamped heads)."""
    out = []
    for i in range(records):
        stamp = f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d}"
        if i % 4 == 0:
            out.append(f"{stamp} ERROR Traceback (most recent call last):\n"
                       f'  File "/opt/app/m{i}.py", line {i}, in run\n'
                       f"RuntimeError: CUDA error: out of memory (step {i})")
        elif i % 4 == 2:  # a one-line record: its text is a slice of the line
            out.append(f"{stamp} worker {i}: RuntimeError: CUDA error: out of memory")
        else:
            out.append(f"{stamp} worker {i}: heartbeat ok " + "x" * 60)
    path.write_text("\n".join(out) + "\n")
    return path


def _buffer_bytes(texts: pl.Series) -> int:
    """Bytes of every buffer the string column keeps alive (views share their chunk's buffers)."""
    arr = texts.to_arrow(compat_level=pl.CompatLevel.newest())
    chunks = arr.chunks if hasattr(arr, "chunks") else [arr]
    return sum(b.size for c in chunks for b in c.buffers() if b is not None)


def test_candidate_reader_keeps_few_chunks_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are read at most AHEAD (+ the one being marked) before they are marked and freed:
    the reader's working set is a few chunks whatever the input size."""
    from logsleuth.classify import scan_terms
    from logsleuth.ingest import logscan
    from logsleuth.ingest import plaintext as pt
    from logsleuth.library import load_library

    log = _dense_log(tmp_path / "dense.log")
    monkeypatch.setattr(pt, "CHUNK_BYTES", 4096)
    read, marked, most = [0], [0], [0]
    real_chunks, real_mark = pt.iter_byte_chunks, logscan._mark

    def chunks(f: Any, size: int | None = None) -> Any:
        for data in real_chunks(f, size):
            read[0] += 1
            most[0] = max(most[0], read[0] - marked[0])
            yield data

    def mark(frame: pl.DataFrame) -> pl.DataFrame:
        marked[0] += 1
        return real_mark(frame)

    monkeypatch.setattr(pt, "iter_byte_chunks", chunks)
    monkeypatch.setattr(logscan, "_mark", mark)
    t = ingest.read_candidates(str(log), None, *scan_terms(load_library([])))
    assert read[0] > 50  # the bound below means something
    assert most[0] <= logscan.AHEAD + 1, (most[0], read[0])
    # the error records and, as classify's join needs, up to CONTINUATION_RECORDS records after each
    assert 1500 <= t.events.height <= 1500 * (1 + logscan.CONTINUATION_RECORDS)


@pytest.mark.parametrize("candidates", [True, False], ids=["read_candidates", "read"])
def test_kept_records_own_their_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, candidates: bool) -> None:
    """The records kept of each chunk until the end of the input hold their own strings, not
    views into the chunk they were cut from: else every chunk stays alive with the few records
    taken from it, and memory grows with the input instead of with what is kept."""
    from logsleuth.classify import scan_terms
    from logsleuth.ingest import logscan
    from logsleuth.ingest import plaintext as pt
    from logsleuth.library import load_library

    log = _dense_log(tmp_path / "dense.log")
    monkeypatch.setattr(pt, "CHUNK_BYTES", 64 * 1024)
    kept: list[pl.DataFrame] = []
    if candidates:
        real_records = logscan._Picked.records

        def records(self: Any) -> pl.DataFrame:
            kept.extend(self.parts)
            return real_records(self)

        monkeypatch.setattr(logscan._Picked, "records", records)
        ingest.read_candidates(str(log), None, *scan_terms(load_library([])))
    else:
        real_emit = pt._emit
        monkeypatch.setattr(pt, "_emit", lambda *a: kept.append(real_emit(*a)) or kept[-1])
        ingest.read(str(log), None)
    assert len(kept) > 3
    for part in kept:
        text = part["text"]
        own = int(text.str.len_bytes().sum()) + 16 * text.len()  # the strings and their views
        assert _buffer_bytes(text) <= own + 1024, (_buffer_bytes(text), own)
