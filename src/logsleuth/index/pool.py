"""The analysis of an index run's inputs, on several cores.

Analysing one input (ingest, classify, actions, link) is mostly single-threaded Python, and the
inputs are independent: worker processes analyse them side by side. Only the analysis moves:
the parent still writes every part, commits the manifest and collects garbage under the lock, in
the order of the inputs, so what lands on disk, and when, is what one process would write.

Small inputs travel in batches (`batches`): a worker analyses a batch in one pass
(batch.py, ~1.5 ms of CPU per 1 KB input instead of ~80 ms alone) and the parent writes
one part for the batch. Workers are spawned, not forked (polars' thread pool does not survive a
fork) and each imports the analysis stages once (~1 s): a small run stays in this process. A
worker that dies (killed, out of memory) fails the batch being waited for; the rest are
analysed here.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from logsleuth.index.analyse import FileOutcome, Task, analyse

if TYPE_CHECKING:
    import polars as pl

    from logsleuth.library.pattern import PatternLibrary

JOBS_ENV = "LOGSLEUTH_INDEX_JOBS"  # worker processes (default: the cores this process may use, at most MAX_JOBS)
MAX_JOBS = 4  # each worker holds one input's analysis: memory grows with the count
MIN_PARALLEL_BYTES = 32 * 1024 * 1024  # less to analyse than this: starting workers costs more than it saves ...
MIN_PARALLEL_FILES = 2000  # ... unless there are this many inputs (a small one costs ~5 ms analysed in a batch)


POLARS_THREADS_ENV = "POLARS_MAX_THREADS"
BATCH_FILES = 2048  # small inputs analysed in one pass (batch.py) ...
BATCH_BYTES = 4 * 1024 * 1024  # ... up to this much of them


def batches(tasks: Sequence[Task], jobs: int = 1) -> list[list[Task]]:
    """Consecutive small inputs (batch.SMALL_BYTES) grouped for `batch.analyse_batch`;
    any other input is a batch of its own. With several workers, the small inputs are cut into
    a multiple of `jobs` batches of about equal count (up to BATCH_FILES each): five full
    batches on two workers left one of them idle for the last fifth of the run."""
    import math

    from logsleuth.index.batch import SMALL_BYTES

    small = sum(1 for t in tasks if t.size <= SMALL_BYTES)
    per = BATCH_FILES
    if jobs > 1 and small:
        per = math.ceil(small / (jobs * math.ceil(small / (jobs * BATCH_FILES))))
    out: list[list[Task]] = []
    size = 0
    for t in tasks:
        is_small = t.size <= SMALL_BYTES
        if is_small and out and size + t.size <= BATCH_BYTES and len(out[-1]) < per and out[-1][-1].size <= SMALL_BYTES:
            out[-1].append(t)
            size += t.size
        else:
            out.append([t])
            size = t.size
    return out


def _run(batch: Sequence[Task], library: PatternLibrary) -> list[FileOutcome]:
    if len(batch) == 1:
        return [analyse(batch[0], library)]
    from logsleuth.index.batch import analyse_batch

    return analyse_batch(batch, library)


def _numbered(n: int, outcomes: Sequence[FileOutcome]) -> Generator[FileOutcome, None, None]:
    import dataclasses

    for i, o in enumerate(outcomes):
        yield dataclasses.replace(o, batch=n, closes=i == len(outcomes) - 1)


def jobs_for(asked: int | None) -> int:
    """The worker processes a run asked for (`--jobs`), else the default."""
    return default_jobs() if asked is None else max(1, asked)


def default_jobs() -> int:
    raw = os.environ.get(JOBS_ENV, "").strip()
    if raw:
        if not raw.isdigit():  # a typo must say so, not crash (int('two'))
            from logsleuth.errors import UsageError

            raise UsageError(f"{JOBS_ENV}={raw!r} is not a number of workers", hint=f"set it to 1-{MAX_JOBS * 4} or unset it")
        return max(1, int(raw[:6]))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, MAX_JOBS))


def worth_workers(count: int, size: int = 0) -> bool:
    """Whether this many inputs of this many bytes are worth starting workers for."""
    return size >= MIN_PARALLEL_BYTES or count >= MIN_PARALLEL_FILES


class Workers:
    """Worker processes, started before the work is known in full: their start-up (~1 s of
    imports each) overlaps the parent's planning. The library reaches them through a temporary
    file: sent as an argument, its ~300 KB filled the pipe, and the parent waited for each
    worker's imports in turn before it could start the next one."""

    def __init__(self, library: PatternLibrary, jobs: int):
        import tempfile

        from logsleuth.library.loader import dumps_library

        data = dumps_library(library)
        self.path = ""
        try:
            fd, self.path = tempfile.mkstemp(prefix="logsleuth-library-", suffix=".pickle")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except OSError:  # no writable temporary folder: the bytes go through the pipe (slower start)
            with contextlib.suppress(OSError):
                if self.path:
                    os.unlink(self.path)
            self.path = ""
        self.jobs = jobs
        self.pool = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(self.path or data,),
        )
        # the workers are the parallelism: polars' own thread pool in each of them only adds
        # hand-offs between threads (~5-10 % of a worker's CPU on small inputs), unless the
        # user set its size
        saved = os.environ.get(POLARS_THREADS_ENV)
        os.environ.setdefault(POLARS_THREADS_ENV, "1")
        try:
            for _ in range(jobs):  # each submit while no worker is idle spawns one, with this environment
                self.pool.submit(default_jobs)
        except BaseException:  # a spawn failed (no processes left, Ctrl-C): nothing left behind
            self.close()
            raise
        finally:
            if saved is None:
                os.environ.pop(POLARS_THREADS_ENV, None)

    def close(self) -> None:
        # a run stopped early (an error in the parent, Ctrl-C) does not wait for the queued inputs
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self.path:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


def analysed(
    tasks: Sequence[Task], library: PatternLibrary, jobs: int | None = None, workers: Workers | None = None
) -> Generator[FileOutcome, None, None]:
    """The outcome of every task, in the order of `tasks` (on `workers` when given and the work
    is worth them; they are closed either way)."""
    jobs = workers.jobs if workers is not None else jobs_for(jobs)
    parallel = jobs > 1 and worth_workers(len(tasks), sum(t.size for t in tasks))
    groups = batches(tasks, jobs if parallel else 1)
    if not parallel or len(groups) < 2:
        if workers is not None:
            workers.close()
        for n, group in enumerate(groups):
            yield from _numbered(n, _run(group, library))
        return
    if workers is None:
        workers = Workers(library, min(jobs, len(groups)))
    try:
        futures: list[Future[Packed]] = [workers.pool.submit(_work, g) for g in groups]
        for n, (group, fut) in enumerate(zip(groups, futures, strict=True)):
            try:
                outcomes = _unpack(fut.result())
            except Exception as exc:  # a dead worker (BrokenProcessPool), one without its library
                why = "a worker process died while it was analysed (out of memory?)" if isinstance(exc, BrokenProcessPool) else "a worker failed"
                died = f"internal error: {why}: {exc}"
                yield from _numbered(n, [FileOutcome(None, f"{t.source}: {died}") for t in group])
                for m, rest in enumerate(groups[n + 1 :], start=n + 1):
                    yield from _numbered(m, _run(rest, library))
                return
            yield from _numbered(n, outcomes)
    finally:
        workers.close()


_LIBRARY: PatternLibrary | None = None  # a worker's library, sent once when it starts


def _start_worker(source: str | bytes) -> None:
    """`source`: the library's temporary file, or its bytes."""
    global _LIBRARY
    from logsleuth.library.loader import loads_library

    if isinstance(source, bytes):
        _LIBRARY = loads_library(source)
        return
    try:
        with open(source, "rb") as f:
            _LIBRARY = loads_library(f.read())
    except FileNotFoundError:  # closed before this worker started (the run needed no workers): no task comes
        _LIBRARY = None


# A batch's outcomes as a worker sends them: their frames as one frame (one serialised frame per
# 1 KB input cost the parent more than its rows) and, per outcome, its error or its result's
# other fields and row count (and its own frame, when the frames do not share one schema).
_Fields = tuple[str, int, int, tuple[str, ...], int, "pl.DataFrame | None"]
Packed = tuple["pl.DataFrame | None", list[tuple[str | None, _Fields | None]]]


def _work(batch: list[Task]) -> Packed:
    if _LIBRARY is None:
        raise RuntimeError("this worker has no pattern library (its temporary file was removed)")
    return _pack(_run(batch, _LIBRARY))


def _pack(outcomes: Sequence[FileOutcome]) -> Packed:
    import polars as pl

    frames = [o.result.frame for o in outcomes if o.result is not None]
    one = bool(frames) and all(f.schema == frames[0].schema for f in frames)
    whole = pl.concat(frames, how="vertical", rechunk=True) if one else None
    items: list[tuple[str | None, _Fields | None]] = []
    for o in outcomes:
        r = o.result
        items.append((o.error, None if r is None else
                      (r.format, r.sessions, r.skipped, r.warnings, r.frame.height, None if one else r.frame)))
    return whole, items


def _unpack(packed: Packed) -> list[FileOutcome]:
    """The outcomes `_pack` was given (each frame a slice of the batch's frame: the same rows)."""
    from logsleuth.index.analyse import FileResult

    whole, items = packed
    out = []
    at = 0
    for error, res in items:
        if res is None:
            out.append(FileOutcome(None, error))
            continue
        fmt, sessions, skipped, warnings, height, own = res
        frame = own if own is not None else whole.slice(at, height) if whole is not None else None
        assert frame is not None
        out.append(FileOutcome(FileResult(frame, fmt, sessions, skipped, warnings), error))
        at += height
    return out
