"""The lock an `index` run holds for its whole length (DB/.lock, flock'd): a second run waits
for it, or fails with IndexBusy (`--no-wait`)."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from logsleuth.errors import InputError, Location
from logsleuth.index.schema import LOCK


class IndexBusy(InputError):
    """Another `logsleuth index` holds the index lock (and --no-wait was given)."""


@contextlib.contextmanager
def locked(db: Path, wait: bool = True) -> Iterator[None]:
    db.mkdir(parents=True, exist_ok=True)
    with open(db / LOCK, "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise IndexBusy(
                "another `logsleuth index` is updating this index",
                Location(str(db)),
                "wait for it to finish, or rerun without --no-wait to wait for the lock",
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
