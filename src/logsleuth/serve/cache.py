"""Answers computed once per index generation, off the event loop.

Every page and API answer of `serve` is a function of the committed index state and the request's
parameters, nothing else (serve only reads). The state is named by the manifest's stat: `index`
replaces files.parquet by rename at each commit, so a new inode, size or mtime is a new
generation (index/store.py trusts the same stamp). `Answers` keeps finished responses by
(generation, route, parameters), computes a missing one in a small thread pool (never on the
event loop), and lets concurrent requests for the same missing answer wait on one computation
instead of each running it. A new generation drops every older answer at once.
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from logsleuth.index.sidecar import MANIFEST  # stdlib only (schema.py imports polars)

Generation = tuple[int, int, int] | None
KEPT = 2048  # answers kept (of the current generation)
KEPT_BYTES = 64 * 1024 * 1024  # and at most this many bytes of them
THREADS = 4  # threads that compute answers: misses are rare and short, the GIL is shared


def generation(db: Path | str) -> Generation:
    """The committed state of the index at `db`: the manifest's (inode, size, mtime), or None."""
    try:
        st = os.stat(os.path.join(db, MANIFEST))
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def size_of(answer: Any) -> int:
    body = getattr(answer, "body", None)
    return len(body) if isinstance(body, bytes | str) else 256


class Answers:
    """An LRU of finished answers with one computation per missing key (single flight)."""

    def __init__(self, db: Path, *, kept: int = KEPT, kept_bytes: int = KEPT_BYTES, threads: int = THREADS) -> None:
        self.db = db
        self.kept, self.kept_bytes = kept, kept_bytes
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="logsleuth-answer")
        self._done: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._running: dict[Hashable, asyncio.Future[Any]] = {}
        self._generation: Generation = None
        self.hits = self.misses = 0

    def current(self) -> Generation:
        """The index's generation now; answers of an older one are dropped."""
        gen = generation(self.db)
        if gen != self._generation:
            self._generation = gen
            self._done.clear()
            self._bytes = 0
        return gen

    async def get(self, key: Hashable, make: Callable[[], Any], keep: Callable[[Any], bool] = lambda _: True) -> Any:
        """The answer for `key` (with the generation in it), made by `make` in a worker thread when
        missing; kept when `keep(answer)`. An exception of `make` reaches every waiter, uncached."""
        key = (self.current(), key)
        hit = self._done.get(key)
        if hit is not None:
            self._done.move_to_end(key)
            self.hits += 1
            return hit[0]
        running = self._running.get(key)
        if running is None:
            self.misses += 1
            running = asyncio.get_running_loop().run_in_executor(self.pool, make)
            self._running[key] = running
            running.add_done_callback(lambda f: self._finished(key, f, keep))
        return await asyncio.shield(running)  # a waiter that gives up does not cancel the others' answer

    def _finished(self, key: Hashable, future: asyncio.Future[Any], keep: Callable[[Any], bool]) -> None:
        self._running.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            return
        answer = future.result()
        if key[0] != self._generation or not keep(answer):  # type: ignore[index]
            return
        size = size_of(answer)
        self._done[key] = (answer, size)
        self._bytes += size
        while self._done and (len(self._done) > self.kept or self._bytes > self.kept_bytes):
            _, (_, gone) = self._done.popitem(last=False)
            self._bytes -= gone

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
