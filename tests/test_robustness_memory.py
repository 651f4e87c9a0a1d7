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
