"""`index` on several cores (index.pool): the same index as one process, errors kept per input,
a dead worker costs one input, and small runs start no worker at all."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from index_sessions import FIXTURE_PATTERNS, write_corpus
from logsleuth.index import analyse as analyse_mod
from logsleuth.index import build as indexer
from logsleuth.index import pool, store
from logsleuth.library import load_library


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([str(FIXTURE_PATTERNS)], builtins=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = write_corpus(tmp_path / "corpus")
    (root / "c.log").write_text("ptxas fatal   : Unsupported .version 9.2; current version is '9.0'\n" * 50)
    return root


def _built(corpus: Path, db: Path, lib, jobs: int) -> tuple[dict, pl.DataFrame, pl.DataFrame]:  # type: ignore[no-untyped-def,type-arg]
    s = indexer.build([str(corpus)], db, library=lib, jobs=jobs)
    manifest = store.read_manifest(db).drop("part").sort("path")
    return s.to_dict(), manifest, store.load(db).sort("source", "session", "seq", "pattern", "line")


def test_workers_build_the_index_one_process_builds(corpus: Path, tmp_path: Path, lib, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pool, "MIN_PARALLEL_BYTES", 0)  # the fixtures are small: use workers anyway
    one = _built(corpus, tmp_path / "one", lib, jobs=1)
    two = _built(corpus, tmp_path / "two", lib, jobs=2)
    assert one[0] == two[0]
    assert one[0]["files"] == 5 and one[0]["errors"] == []
    assert one[1].equals(two[1]) and one[2].equals(two[2]) and one[2].height > 0


def _dies_on_other(batch: list[analyse_mod.Task]) -> pool.Packed:
    """Runs in a worker (pickled by reference): the worker analysing `other.jsonl` dies."""
    if any(task.source.endswith("other.jsonl") for task in batch):
        os._exit(3)
    assert pool._LIBRARY is not None
    return pool._pack([analyse_mod.analyse(task, pool._LIBRARY) for task in batch])


def test_a_dead_worker_fails_one_input_and_the_rest_are_indexed(corpus: Path, tmp_path: Path, lib, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pool, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setattr(pool, "_work", _dies_on_other)
    monkeypatch.setattr(pool, "BATCH_FILES", 1)  # a dead worker fails its whole batch: one input here
    s = indexer.build([str(corpus)], tmp_path / "db", library=lib, jobs=2)
    # the input waited for when the pool broke fails; whatever was still to come is analysed here
    assert len(s.errors) == 1 and "a worker process died" in s.errors[0]
    assert s.files == 4 and s.total_files == 4
    listed = set(store.read_manifest(tmp_path / "db")["source"])
    assert str(corpus / "c.log") in listed


def test_a_small_run_starts_no_worker(corpus: Path, tmp_path: Path, lib, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_pool(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("a worker pool was started for a few KB")

    monkeypatch.setattr(pool, "ProcessPoolExecutor", no_pool)
    s = indexer.build([str(corpus)], tmp_path / "db", library=lib, jobs=4)
    assert s.files == 5 and s.errors == []


def test_jobs_default_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(pool.JOBS_ENV, "3")
    assert pool.default_jobs() == 3
    monkeypatch.delenv(pool.JOBS_ENV)
    assert 1 <= pool.default_jobs() <= pool.MAX_JOBS


def test_a_batch_travels_as_one_frame_and_comes_back_the_same() -> None:
    from logsleuth.index.rows import findings_frame

    def frame(n: int) -> pl.DataFrame:
        return findings_frame([{"session": "s", "source": f"{n}.log", "seq": i, "line": i, "pattern": "p"} for i in range(n)])

    outcomes = [
        analyse_mod.FileOutcome(analyse_mod.FileResult(frame(2), "text", 1, 0)),
        analyse_mod.FileOutcome(None, "bad.log: unreadable"),
        analyse_mod.FileOutcome(analyse_mod.FileResult(frame(0), "text", 0, 3, ("w",))),
        analyse_mod.FileOutcome(analyse_mod.FileResult(frame(3), "codex", 2, 1)),
    ]
    back = pool._unpack(pool._pack(outcomes))
    assert [(o.error, o.result is None) for o in back] == [(o.error, o.result is None) for o in outcomes]
    for a, b in zip(outcomes, back, strict=True):
        if a.result is not None:
            assert b.result is not None and b.result.frame.equals(a.result.frame)
            assert (b.result.format, b.result.sessions, b.result.skipped, b.result.warnings) == (
                a.result.format, a.result.sessions, a.result.skipped, a.result.warnings)
    odd = [analyse_mod.FileOutcome(analyse_mod.FileResult(frame(1), "text", 1, 0)),
           analyse_mod.FileOutcome(analyse_mod.FileResult(pl.DataFrame({"x": [1]}), "text", 1, 0))]
    assert [o.result.frame.equals(b.result.frame) for o, b in zip(odd, pool._unpack(pool._pack(odd)), strict=True)] == [True, True]  # type: ignore[union-attr]


@pytest.mark.parametrize("count", [5000, 5 * pool.BATCH_FILES // 2])
def test_small_inputs_are_cut_into_batches_each_worker_gets_as_many_of(count: int) -> None:
    """Full batches would leave a worker idle for the last round (5 batches on 2 workers)."""
    tasks = [analyse_mod.Task(f"f{i}", "sha", 1024) for i in range(count)]
    one = pool.batches(tasks)
    full = pool.BATCH_FILES
    assert [len(g) for g in one] == [full] * (count // full) + [count % full] * bool(count % full)
    two = pool.batches(tasks, jobs=2)
    sizes = [len(g) for g in two]
    assert len(two) % 2 == 0 and max(sizes) - min(sizes) < len(two) and max(sizes) <= pool.BATCH_FILES
    assert [t for g in two for t in g] == tasks  # in order, none lost


@pytest.mark.parametrize("tmp_writable", [True, False])
def test_workers_get_the_library_by_file_and_single_threaded_polars(lib, monkeypatch, tmp_writable: bool) -> None:  # type: ignore[no-untyped-def]
    import tempfile

    monkeypatch.delenv(pool.POLARS_THREADS_ENV, raising=False)
    if not tmp_writable:  # no temporary folder: the library goes through the pipe instead
        def no_tmp(*a, **k):  # type: ignore[no-untyped-def]
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(tempfile, "mkstemp", no_tmp)
    workers = pool.Workers(lib, 2)
    try:
        assert os.path.exists(workers.path) if tmp_writable else workers.path == ""
        assert workers.pool.submit(_env, pool.POLARS_THREADS_ENV).result() == "1"
        assert pool.POLARS_THREADS_ENV not in os.environ  # this process's environment is left as it was
        assert workers.pool.submit(_library_size).result() == len(lib.patterns)
    finally:
        workers.close()
    assert not workers.path or not os.path.exists(workers.path)


def _counted_work(batch: list[analyse_mod.Task]) -> pool.Packed:
    """Runs in a worker (pickled by reference; there `pool._work` is the real one): leaves a mark
    per batch, after checking the worker's environment."""
    assert os.environ.get(pool.POLARS_THREADS_ENV) == "1"
    (Path(os.environ["LOGSLEUTH_TEST_MARKS"]) / f"{os.getpid()}-{batch[0].source.replace('/', '_')}").touch()
    return pool._work(batch)


def _env(name: str) -> str | None:
    return os.environ.get(name)


def _library_size() -> int:
    assert pool._LIBRARY is not None
    return len(pool._LIBRARY.patterns)


def test_a_new_index_of_many_files_starts_its_workers_first(corpus: Path, tmp_path: Path, lib, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    started: list[pool.Workers] = []
    real = pool.Workers

    class Spy(real):  # type: ignore[misc,valid-type]
        def __init__(self, *a, **k):  # type: ignore[no-untyped-def]
            super().__init__(*a, **k)
            started.append(self)

    monkeypatch.setattr(pool, "Workers", Spy)
    monkeypatch.setattr(pool, "MIN_PARALLEL_FILES", 3)
    monkeypatch.setattr(pool, "BATCH_FILES", 2)  # several batches: the early workers analyse them
    monkeypatch.delenv(pool.POLARS_THREADS_ENV, raising=False)
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("LOGSLEUTH_TEST_MARKS", str(marks))  # the workers inherit it
    monkeypatch.setattr(pool, "_work", _counted_work)  # pickled by reference: runs in the worker
    one = _built(corpus, tmp_path / "one", lib, jobs=1)
    assert started == []  # one process asked for: no worker
    first = indexer.build([str(corpus)], tmp_path / "db", library=lib, jobs=2)
    assert len(started) == 1 and first.errors == [] and first.files == 5
    assert not os.path.exists(started[0].path)  # the library's temporary file is gone with the workers
    assert pool.POLARS_THREADS_ENV not in os.environ
    manifest = store.read_manifest(tmp_path / "db").drop("part").sort("path")
    rows = store.load(tmp_path / "db").sort("source", "session", "seq", "pattern", "line")
    assert one[1].equals(manifest) and one[2].equals(rows)  # the rows one process writes
    assert len(list(marks.iterdir())) >= 2  # batches were analysed by the early workers
    again = indexer.build([str(corpus)], tmp_path / "db", library=lib, jobs=2)
    assert len(started) == 1 and again.unchanged == 5  # nothing new: no worker started
