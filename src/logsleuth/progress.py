"""What a long piece of work is doing now, for whoever listens (the CLI's progress line on stderr).

A stage says what it starts (`stage("classifying 120,000 events")`); nothing listens unless a
caller set a listener with `listening`, so the library never writes to a terminal itself and a
stage that nobody hears costs one context-variable read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_listener: ContextVar[Callable[[str], None] | None] = ContextVar("logsleuth_progress", default=None)


def stage(text: str) -> None:
    """Tell the listener, if any, that the work now does `text`."""
    fn = _listener.get()
    if fn is not None:
        fn(text)


@contextmanager
def listening(fn: Callable[[str], None]) -> Iterator[None]:
    """`fn` hears every stage started inside the block (in this thread or task)."""
    token = _listener.set(fn)
    try:
        yield
    finally:
        _listener.reset(token)
