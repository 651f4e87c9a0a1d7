"""The progress line of a long command on stderr: what it is doing now and for how long.

On a terminal it is one live line (a spinner, the stage, the time so far) that is gone when the
work ends; `--progress` without a terminal prints a line a stage instead, for a log; stdout is
never touched. The stages come from the library (logsleuth.progress)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from logsleuth.progress import listening


def wanted(flag: bool | None) -> bool:
    """`--progress`/`--no-progress` when given, else whether stderr is a terminal."""
    if flag is not None:
        return flag
    try:
        return sys.stderr.isatty()
    except ValueError:  # a closed stderr
        return False


@contextmanager
def progress_line(what: str, flag: bool | None) -> Iterator[None]:
    """Show the stages of the block's work on stderr, as `wanted` says."""
    if not wanted(flag):
        yield
        return
    if not sys.stderr.isatty():
        start = time.monotonic()

        def line(text: str) -> None:
            sys.stderr.write(f"logsleuth: {what}: {text} ({time.monotonic() - start:.1f} s)\n")
            sys.stderr.flush()

        with listening(line):
            yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from logsleuth.termsafe import inert_text

    bar = Progress(SpinnerColumn(), TextColumn(what), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task("starting", total=None)
    with bar, listening(lambda text: bar.update(task, description=inert_text(text)[-80:])):
        yield
