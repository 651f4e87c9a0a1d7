"""Command-line entry point: `logsleuth` and `python -m logsleuth`."""

from __future__ import annotations

import sys

from logsleuth.cli import analyze as _analyze  # noqa: F401  (registers commands)
from logsleuth.cli import classify as _classify  # noqa: F401
from logsleuth.cli import events as _events  # noqa: F401
from logsleuth.cli import index as _index  # noqa: F401
from logsleuth.cli import patterns as _patterns  # noqa: F401
from logsleuth.cli import serve as _serve  # noqa: F401
from logsleuth.cli import sessions as _sessions  # noqa: F401
from logsleuth.cli.app import app, fail
from logsleuth.errors import ExitCode
from logsleuth.termsafe import say


def main(argv: list[str] | None = None) -> int:
    try:
        rv = app(args=argv, standalone_mode=False)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as exc:
        # typer ships its own click; match its exceptions by shape, not by import path
        name = type(exc).__name__
        if name == "Exit":
            return int(getattr(exc, "exit_code", 0))
        if name == "NoArgsIsHelpError":  # bare `logsleuth` (or `logsleuth patterns`): the help as help
            return _usage(exc)
        if hasattr(exc, "show") and hasattr(exc, "exit_code") and name != "Abort":
            # one line, as every other error (click's own show() prints four)
            ctx = getattr(exc, "ctx", None)
            cmd = getattr(ctx, "command_path", None) or "logsleuth"
            msg = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            say(f"logsleuth: error: {msg} (hint: see `{cmd} --help`)")
            return int(ExitCode.USAGE)
        return fail(exc)
    except KeyboardInterrupt as exc:
        return fail(exc)
    # click returns typer.Exit's code instead of raising when not standalone
    return rv if isinstance(rv, int) else int(ExitCode.OK)


def _usage(exc: Exception) -> int:
    """The help, laid out, on stderr, and exit 2, as ripgrep does when given no arguments (click
    put it in the message of an error, which the one-line error format flattened)."""
    ctx = getattr(exc, "ctx", None)
    text = ctx.get_help() if ctx is not None else str(exc)
    sys.stderr.write(text.rstrip("\n") + "\n")
    return int(ExitCode.USAGE)


def run() -> None:
    sys.exit(main())


__all__ = ["app", "main", "run"]
