"""The typer application and the one place that turns errors into exit codes.

Commands live in sibling modules (one per command group) and only parse arguments, call one
library function and print. Heavy imports happen inside the commands, so `--help` stays fast.
"""

from __future__ import annotations

import enum
import os
import sys
from typing import Any

import typer

from logsleuth.errors import ExitCode, LogsleuthError, exit_code_for

app = typer.Typer(
    name="logsleuth",
    help="Explain long GPU-stack debugging sessions: what failed, in what order, what fixed it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_state: dict[str, Any] = {"debug": False}


class TableOrJson(enum.StrEnum):
    """`--output-format` of the commands that print a table or a JSON document."""

    table = "table"
    json = "json"


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
) -> None:
    _state["debug"] = debug or bool(os.environ.get("LOGSLEUTH_DEBUG"))


def emit(text: str | bytes) -> None:
    """Write a command's result to stdout (bytes or text), ending with one newline."""
    out = sys.stdout.buffer
    data = text.encode() if isinstance(text, str) else text
    out.write(data)
    if not data.endswith(b"\n"):
        out.write(b"\n")
    out.flush()


def fail(exc: BaseException) -> int:
    """Print a one-line error (a traceback only with --debug) and return the exit code."""
    code = exit_code_for(exc)
    if _state["debug"] or (code == ExitCode.INTERNAL and os.environ.get("LOGSLEUTH_DEBUG")):
        import traceback

        traceback.print_exception(exc)
    if isinstance(exc, LogsleuthError):
        msg = exc.one_line()
    elif isinstance(exc, OSError) and exc.filename:
        msg = f"{exc.filename}: {exc.strerror or exc}"
    else:
        msg = f"internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)"
    sys.stderr.write(f"logsleuth: error: {msg}\n")
    return int(code)
