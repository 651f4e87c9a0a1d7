"""The analysis of an index run's inputs, on several cores.

Analysing one input (ingest, classify, actions, link) is mostly single-threaded Python, and the
inputs are independent: worker processes analyse them side by side. Only the analysis moves:
the parent still writes every part, commits the manifest and collects garbage under the lock, in
the order of the inputs, so what lands on disk, and when, is what one process would write.

Workers are spawned, not forked (polars' thread pool does not survive a fork) and each imports
the analysis stages once (~1 s): a small run stays in this process. A worker that dies (killed,
out of memory) fails the input being waited for; the rest are analysed here.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from logsleuth.index_rows import FileResult
    from logsleuth.library.pattern import PatternLibrary

JOBS_ENV = "LOGSLEUTH_INDEX_JOBS"  # worker processes (default: the cores this process may use, at most MAX_JOBS)
MAX_JOBS = 4  # each worker holds one input's analysis: memory grows with the count
MIN_PARALLEL_BYTES = 32 * 1024 * 1024  # less to analyse than this: starting workers costs more than it saves ...
MIN_PARALLEL_FILES = 200  # ... unless there are this many inputs (each costs ~50 ms whatever its size)


@dataclass(frozen=True, slots=True)
class Task:
    source: str
    sha: str
    size: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one input gave: its result, or the one-line error that replaces it."""

    result: FileResult | None
    error: str | None = None


def default_jobs() -> int:
    raw = os.environ.get(JOBS_ENV, "").strip()
    if raw:
        if not raw.isdigit():  # a typo must say so, not crash (int('two'))
            from logsleuth.errors import UsageError

            raise UsageError(f"{JOBS_ENV}={raw!r} is not a number of workers", hint=f"set it to 1-{MAX_JOBS * 4} or unset it")
        return max(1, int(raw[:6]))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, MAX_JOBS))


def analysed(tasks: Sequence[Task], library: PatternLibrary, jobs: int | None = None) -> Generator[Outcome, None, None]:
    """The outcome of every task, in the order of `tasks`."""
    jobs = default_jobs() if jobs is None else max(1, jobs)
    few = sum(t.size for t in tasks) < MIN_PARALLEL_BYTES and len(tasks) < MIN_PARALLEL_FILES
    if jobs == 1 or len(tasks) < 2 or few:
        for t in tasks:
            yield analyse(t, library)
        return
    from logsleuth.library.loader import dumps_library

    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(dumps_library(library),),
    )
    try:
        futures: list[Future[Outcome]] = [pool.submit(_work, t) for t in tasks]
        for i, (t, fut) in enumerate(zip(tasks, futures, strict=True)):
            try:
                yield fut.result()
            except BrokenProcessPool as exc:
                yield Outcome(None, f"{t.source}: internal error: a worker process died while it was analysed (out of memory?): {exc}")
                for rest in tasks[i + 1 :]:
                    yield analyse(rest, library)
                return
    finally:
        # a run stopped early (an error in the parent, Ctrl-C) does not wait for the queued inputs
        pool.shutdown(wait=False, cancel_futures=True)


def analyse(task: Task, library: PatternLibrary) -> Outcome:
    from logsleuth.index_rows import analyse_input

    try:
        return Outcome(analyse_input(task.source, library, task.sha))
    except Exception as exc:  # one bad input never aborts the run
        return Outcome(None, error_line(task.source, exc))


def error_line(source: str, exc: BaseException) -> str:
    from logsleuth.errors import LogsleuthError

    if isinstance(exc, LogsleuthError):
        line = exc.one_line()
        return line if line.startswith(source) else f"{source}: {line}"
    if isinstance(exc, OSError):
        return f"{source}: {exc.strerror or exc}"
    return f"{source}: internal error: {type(exc).__name__}: {exc}"


_LIBRARY: PatternLibrary | None = None  # a worker's library, sent once when it starts


def _start_worker(library: bytes) -> None:
    global _LIBRARY
    from logsleuth.library.loader import loads_library

    _LIBRARY = loads_library(library)


def _work(task: Task) -> Outcome:
    assert _LIBRARY is not None
    return analyse(task, _LIBRARY)
