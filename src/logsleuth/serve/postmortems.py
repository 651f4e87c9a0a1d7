"""Postmortems rendered in worker processes, kept per index generation.

Analysing a transcript and rendering its postmortem is pure-Python work of 0.3 to several
seconds. In a thread of the server it would hold the GIL in 5 ms slices the whole time, and every
request waiting on the event loop would pay for it; in a worker process it costs the server
nothing but a core. The workers run at a lower CPU priority (nice), so that on a busy machine the
server's answers come before a postmortem's next slice. A rendered postmortem is kept by
(generation, session, source) with the stats of the transcript's files: it is served again only
while they are unchanged (a transcript edited since is hashed again by the next render, which
refuses it). Requests for a postmortem being rendered wait on that render; past MAX_WAITING
renders at once a request is answered 503 at once rather than queued behind minutes of work.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from logsleuth.errors import InputError

Rendered = tuple[str | None, str]  # (the HTML, or None and why not)
Stamp = tuple[tuple[str, int, int, int], ...]
KEPT = 16  # postmortems kept rendered (a few hundred KB each)
MAX_WAITING = 8  # distinct postmortems rendering or queued at once
NICE = 10  # the workers' CPU priority below the server's
TASKS_PER_WORKER = 64  # a worker is replaced after this many renders (what analysis caches is let go)


def workers() -> int:
    """One worker per core beyond the one the server's event loop runs on (at least one)."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


def stamp_of(source: str) -> Stamp | None:
    """(path, inode, size, mtime) of each file a transcript is read from, or None when one is gone."""
    from logsleuth.index.files import members_of

    try:
        return tuple((str(m), st.st_ino, st.st_size, st.st_mtime_ns)
                     for m in members_of(Path(source)) for st in (m.stat(),))
    except OSError:
        return None


def render(source: str, sha: str, session: str, reasoning: bool) -> tuple[str | None, str, Stamp | None]:
    """(HTML, why not, the files' stamp when it may be kept): the postmortem of an indexed session,
    rendered from its source (masked) when the source is on this machine with the indexed content."""
    from logsleuth.index.files import content_hash

    path = Path(source)
    if not path.exists():
        return None, "its transcript is not on this machine (indexed elsewhere, or moved)", None
    before = stamp_of(source)
    if sha and content_hash(path) != sha:
        return None, "its transcript changed since it was indexed: run `logsleuth index` again", None
    from logsleuth.analysis import analyze
    from logsleuth.render import postmortem as pm

    html = pm.render_html(analyze(str(path), session=session, with_reasoning=reasoning), redact=True)
    return html, "", before if stamp_of(source) == before else None  # changed while read: not kept


def _warm() -> None:
    """A worker's start: below the server's priority, the analysis stack imported once."""
    with contextlib.suppress(OSError):  # a platform without nice
        os.nice(NICE)
    import logsleuth.analysis
    import logsleuth.render.postmortem  # noqa: F401


class Postmortems:
    """Renders in a process pool (started on first use), keeps the last KEPT."""

    def __init__(self, render_fn: Callable[..., tuple[str | None, str, Stamp | None]] = render, *,
                 kept: int = KEPT, max_waiting: int = MAX_WAITING, processes: int | None = None) -> None:
        self.render_fn, self.kept, self.max_waiting = render_fn, kept, max_waiting
        self.processes = processes or workers()
        self._pool: ProcessPoolExecutor | None = None
        self._done: OrderedDict[Any, tuple[Rendered, Stamp]] = OrderedDict()
        self._running: dict[Any, asyncio.Future[Any]] = {}

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:  # spawn: the server has threads, which a fork would copy mid-state
            self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_warm, max_tasks_per_child=TASKS_PER_WORKER)
        return self._pool

    def start(self) -> None:
        """Start the workers now (their imports take seconds), not at the first request."""
        pool = self.pool()
        for _ in range(self.processes):
            pool.submit(os.getpid)

    async def get(self, key: Any, source: str, sha: str, session: str, reasoning: bool) -> Rendered:
        """The postmortem for `key` (generation, session, source): kept, being rendered, or rendered now."""
        loop = asyncio.get_running_loop()
        hit = self._done.get(key)
        if hit is not None:
            if await loop.run_in_executor(None, stamp_of, source) == hit[1]:
                self._done.move_to_end(key)
                return hit[0]
            self._done.pop(key, None)
        running = self._running.get(key)
        if running is None:
            if len(self._running) >= self.max_waiting:
                raise Busy(len(self._running))
            running = self._submit(loop, source, sha, session, reasoning)
            self._running[key] = running
            running.add_done_callback(lambda f: self._finished(key, f))
        html, problem, _ = await asyncio.shield(running)
        return html, problem

    def _submit(self, loop: asyncio.AbstractEventLoop, *args: Any) -> asyncio.Future[Any]:
        try:
            return asyncio.wrap_future(self.pool().submit(self.render_fn, *args), loop=loop)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start new ones
            self._pool = None
            return asyncio.wrap_future(self.pool().submit(self.render_fn, *args), loop=loop)

    def _finished(self, key: Any, future: asyncio.Future[Any]) -> None:
        self._running.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            if isinstance(future.exception(), BrokenProcessPool):
                self._pool = None
            return
        html, problem, stamp = future.result()
        if stamp is None:
            return
        self._done[key] = ((html, problem), stamp)
        while len(self._done) > self.kept:
            self._done.popitem(last=False)

    def close(self) -> None:
        """Stop the workers now: a render under way is abandoned (the server is stopping)."""
        if self._pool is None:
            return
        processes = list(getattr(self._pool, "_processes", {}).values())  # CPython's; shutdown waits for a render
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
        for p in processes:
            p.terminate()
        for p in processes:
            p.join(5)


class Busy(InputError):
    """Too many postmortems rendering at once: retry shortly (503)."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} postmortems are rendering", hint="retry in a few seconds")
