"""Small inputs analysed in batches (index/batch.py, index/textbatch.py) get exactly the rows they
get analysed alone, and a part shared by a batch stays right when some of its inputs change."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from logsleuth.index import build as indexer
from logsleuth.index import schema, store
from logsleuth.index.analyse import Task, analyse
from logsleuth.index.batch import analyse_batch
from logsleuth.library import load_library

ROOT = Path(__file__).resolve().parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT / "corpus" / "real_errors.jsonl"

# a few shapes the record marking must keep per file: leading blanks, a traceback chained over a
# blank line, continuation lines, bracket stamps of both shapes, CRLF, colours, a BOM, no final
# newline (read alone), a file opening inside what would continue the previous file's record
EDGE = {
    "blank-first.log": "\n\n  indented first\nERROR: boom\n  at x\n",
    "chain.log": "Traceback (most recent call last):\n  File \"a\", line 1\nValueError: x\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"b\"\nRuntimeError: y\n",
    "bracket-odd.log": "[2026-01-05 10:11:12.123 TP0] RuntimeError: CUDA error: out of memory\n[2026-01-05 10:11:13] ok\n",
    "bracket-plain.log": "[2026-01-05 10:11:12] ok\n[2026-01-05 10:11:13 TP0] error: no kernel image is available\n",
    "crlf.log": "2024-01-01 10:00:00 INFO start\r\n2024-01-01 10:00:01 ERROR failed\r\n  detail\r\n",
    "ansi.log": "\x1b[31merror: subprocess-exited-with-error\x1b[0m\n  x\n",
    "bom.log": "\ufeffERROR: could not find a version that satisfies the requirement torch==9\n",
    "no-newline.log": "fatal error: cuda_runtime.h: No such file or directory",
    "plain-after.log": "continues?\nImportError: libcudart.so.12: cannot open shared object file\n",
    "empty.log": "\n\n",
}


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([])


def _inputs(tmp: Path) -> list[Path]:
    """Real inputs: every ingest fixture, the real error logs of the corpus, the edge cases."""
    out = sorted(p for p in (FIXTURES / "ingest").rglob("*") if p.is_file() and p.suffix != ".md" and "subagents" not in p.parts)
    logs = tmp / "logs"
    logs.mkdir()
    for i, raw in enumerate(CORPUS.read_bytes().splitlines()[:120]):
        text = orjson.loads(raw)["log"]
        (logs / f"real-{i:03d}.log").write_text(text.rstrip("\n") + "\n")
    for name, text in EDGE.items():
        (logs / name).write_text(text)
    return out + sorted(logs.iterdir())


@pytest.mark.parametrize("walked", [False, True])
def test_a_batch_gives_every_input_the_rows_it_gets_alone(tmp_path: Path, lib, walked: bool) -> None:  # type: ignore[no-untyped-def]
    """`walked`: the tasks carry the reader the parent's folder walk detected (as `index` sends
    them), so the batch does not probe and detect each input again: the same rows."""
    from logsleuth import ingest

    inputs = _inputs(tmp_path)
    readers: dict[str, str | None] = {}
    if walked:
        for folder in sorted({str(p.parent) for p in inputs}):
            ingest.discover(folder)
        readers = {str(p): ingest.detected_reader(str(p)) for p in inputs}
        assert sum(r == "text" for r in readers.values()) > 100 and any(r not in (None, "text") for r in readers.values())
    tasks = [Task(str(p), "sha", p.stat().st_size, readers.get(str(p))) for p in inputs]
    together = analyse_batch(tasks, lib)
    compared = 0
    for task, got in zip(tasks, together, strict=True):
        alone = analyse(task, lib)
        assert got.error == alone.error, task.source
        if alone.result is None:
            continue
        assert got.result is not None
        assert_frame_equal(got.result.frame, alone.result.frame)
        assert (got.result.format, got.result.sessions, got.result.skipped, got.result.warnings) == (
            alone.result.format, alone.result.sessions, alone.result.skipped, alone.result.warnings), task.source
        compared += got.result.frame.height
    assert compared > 100  # the comparison saw real findings, not empty frames


def test_the_text_batch_reads_each_log_as_logscan_does(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    from logsleuth import ingest
    from logsleuth.classify import scan_terms
    from logsleuth.index.textbatch import read_texts
    from logsleuth.ingest import logscan

    terms = scan_terms(lib)
    logs = [p for p in _inputs(tmp_path) if p.suffix == ".log"]
    got = read_texts([(str(p), p.read_bytes()) for p in logs], logscan.needle_regex(*terms))
    batched = 0
    for p, t in zip(logs, got, strict=True):
        if t is None:
            continue
        alone = ingest.read_candidates(str(p), None, *terms)
        assert_frame_equal(t.events, alone.events)
        assert t.report == alone.report, p
        batched += 1
    assert batched >= len(logs) - 20  # only the odd ones (no final newline, vLLM folding) are read alone
    assert got[logs.index(tmp_path / "logs" / "no-newline.log")] is None


def test_a_shared_part_loses_the_rows_of_an_input_that_changed(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "logs"
    src.mkdir()
    for i, raw in enumerate(CORPUS.read_bytes().splitlines()[:12]):
        (src / f"r{i:02d}.log").write_text(orjson.loads(raw)["log"].rstrip("\n") + "\n")
    db = tmp_path / "db"
    indexer.build([str(src)], db, library=lib)
    manifest = store.read_manifest(db)
    with_rows = manifest.filter(pl.col("part").is_not_null())
    assert with_rows["part"].n_unique() < with_rows.height  # small inputs share a part
    before = store.load(db)
    changed, gone = src / "r00.log", src / "r01.log"
    changed.write_text("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    gone.unlink()
    s = indexer.build([str(src)], db, library=lib)
    assert (s.files, s.removed, s.errors) == (1, 1, [])
    after = store.load(db)
    fresh = analyse(Task(str(changed), "", 0), lib).result
    assert fresh is not None
    mine = after.filter(pl.col("source") == str(changed))
    assert mine.height == schema.finding_count(fresh.frame)  # only its new rows, none of the old ones
    assert not after.filter(pl.col("source") == str(gone)).height
    rest = before.filter(~pl.col("source").is_in([str(changed), str(gone)]))
    key = ["source", "session", "seq", "pattern", "line"]
    assert_frame_equal(after.filter(~pl.col("source").is_in([str(changed)])).sort(key), rest.sort(key))
    # every listed part holds only rows of inputs listing it, and nothing unlisted is left behind
    manifest = store.read_manifest(db)
    for part, group in manifest.filter(pl.col("part").is_not_null()).group_by("part"):
        rows = pl.read_parquet(db / str(part[0]))
        assert set(rows["source"]) == set(group["source"])
        assert schema.finding_count(rows) == group["findings"].sum()
    listed = {f"findings/{p.name}" for p in (db / "findings").iterdir()}
    assert listed == set(manifest["part"].drop_nulls())
    # --force rebuilds the same rows
    shutil.rmtree(db / "findings")
    assert indexer.build([str(src)], db, library=lib, force=True).errors == []
    assert_frame_equal(store.load(db).sort(key), after.sort(key))


def test_an_input_changed_since_the_walk_is_probed_again(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    """A task carries the reader the parent's walk detected; a file deleted or turned binary since
    then gets the error it gets without that hint, not a read as text."""
    gone, binary, fine = tmp_path / "gone.log", tmp_path / "bin.log", tmp_path / "fine.log"
    binary.write_bytes(b"\x00\x01\x02" * 4000)
    fine.write_text("2024-05-01 10:00:00 RuntimeError: CUDA error: out of memory\n")
    tasks = [Task(str(p), "sha", 100, "text") for p in (gone, binary, fine)]
    hinted = analyse_batch(tasks, lib)
    alone = [analyse(Task(t.source, t.sha, t.size), lib) for t in tasks]
    assert [o.error for o in hinted] == [o.error for o in alone]
    assert "no such file" in (hinted[0].error or "") and "binary" in (hinted[1].error or "")
    assert hinted[2].error is None and hinted[2].result is not None and hinted[2].result.frame.height
