"""The typer application and the one place that turns errors into exit codes.

Commands live in sibling modules (one per command group) and only parse arguments, call one
library function and print. Heavy imports happen inside the commands, so `--help` stays fast.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import Any

import typer

from logsleuth.errors import (
    FAULT_ERRNOS,
    FAULT_HINTS,
    ExitCode,
    LogsleuthError,
    UsageError,
    exit_code_for,
    shown_path,
)
from logsleuth.termsafe import say

app = typer.Typer(
    name="logsleuth",
    help="Explain long GPU-stack debugging sessions: what failed, in what order, what fixed it.",
    no_args_is_help=True,
    # typer's own --install-completion/--show-completion (docs/cli.md, "Shell completion")
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_state: dict[str, Any] = {"debug": False, "color": "auto"}


class Color(enum.StrEnum):
    """`--color`: colour and rich rendering on a terminal (auto), always, or never."""

    auto = "auto"
    always = "always"
    never = "never"


class TableOrJson(enum.StrEnum):
    """`--output-format` of the commands that print a table or a JSON document."""

    table = "table"
    json = "json"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("logsleuth")
        except PackageNotFoundError:  # a source tree that was never installed
            v = "unknown"
        sys.stdout.write(f"logsleuth {v}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    color: Color = typer.Option(
        Color.auto, "--color", help="Colour and rich terminal output: auto (a terminal without NO_COLOR), always, never."
    ),
    _show_version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    max_input: str | None = typer.Option(
        None, "--max-input", metavar="SIZE",
        help="Most bytes a compressed input may expand to or a stream may hold (default 2G; $LOGSLEUTH_MAX_INPUT).",
    ),
) -> None:
    _state["debug"] = debug or bool(os.environ.get("LOGSLEUTH_DEBUG"))
    if max_input is not None:
        from logsleuth.errors import UsageError
        from logsleuth.ingest.bounds import MAX_INPUT_ENV, parse_size

        if not parse_size(max_input):
            raise UsageError(f"--max-input {max_input!r} is not a size", hint="e.g. 4G, 512M, 1000000")
        os.environ[MAX_INPUT_ENV] = max_input  # index workers inherit it
    _state["color"] = color.value


def stdout_is_terminal() -> bool:
    try:
        isatty = getattr(sys.stdout, "isatty", None)  # a test or a host may swap in a plain writer
        return bool(isatty and isatty())
    except ValueError:  # a closed stdout
        return False


def use_color() -> bool:
    """Colour (and rich rendering) for stdout: `--color`, else a terminal without NO_COLOR set."""
    choice = _state["color"]
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stdout_is_terminal()


def console(width: int | None = None) -> Any:
    """A rich console on stdout that colours only when `use_color` says so."""
    from rich.console import Console

    color = use_color()
    return Console(force_terminal=color, no_color=not color, color_system="auto" if color else None,
                   highlight=False, width=width, soft_wrap=False)


def reader_format_hint(format: str | None, outputs: tuple[str, ...]) -> None:
    """`--format` names a reader; `--format json` almost always meant the output format."""
    aliases = {"markdown": "md", "htm": "html"}
    wanted = aliases.get((format or "").lower(), (format or "").lower())
    if format and wanted in outputs:
        raise UsageError(
            f"--format chooses the input reader, and '{format}' is not a reader",
            hint=f"did you mean `-O {wanted}` (--output-format)?",
        )


def open_with_system(path: Path) -> None:
    """Open a written report with the system's opener (`$LOGSLEUTH_OPENER`, xdg-open, open, start)."""
    import shlex
    import subprocess

    opener = os.environ.get("LOGSLEUTH_OPENER")
    if opener:
        cmd = [*shlex.split(opener), str(path)]
    elif sys.platform == "darwin":
        cmd = ["open", str(path)]
    elif sys.platform == "win32":  # pragma: no cover - not run on the CI
        os.startfile(str(path))  # type: ignore[attr-defined]
        return
    else:
        cmd = ["xdg-open", str(path)]
    try:
        subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    except OSError as exc:
        raise UsageError(f"cannot run the opener {cmd[0]!r}: {exc.strerror or exc}",
                         hint=f"the report is at {path}; set LOGSLEUTH_OPENER to a program that opens it") from exc


def emit(text: str | bytes) -> None:
    """Write a command's result to stdout (bytes or text), ending with one newline."""
    from logsleuth.termsafe import inert

    out = sys.stdout.buffer
    data = inert(text.encode() if isinstance(text, str) else text)  # a transcript never drives the terminal
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
    elif isinstance(exc, OSError) and (exc.filename or exc.errno in FAULT_ERRNOS):
        where = f"{shown_path(str(exc.filename))}: " if exc.filename else ""
        hint = FAULT_HINTS.get(exc.errno or 0)
        msg = f"{where}{exc.strerror or exc}" + (f" (hint: {hint})" if hint else "")
    else:
        msg = f"internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)"
    say(f"logsleuth: error: {msg}")
    return int(code)


def complete_reader(incomplete: str) -> list[str]:
    """Shell completion of `--format`: the reader names (what `--format` takes)."""
    from logsleuth.ingest.detect import format_names

    return [n for n in format_names() if n.startswith(incomplete)]


def complete_category(incomplete: str) -> list[str]:
    """Shell completion of `--category`: the built-in library's categories."""
    from logsleuth.index.patterns import library

    return sorted(c for c in library().categories if c.startswith(incomplete))
