"""Error types with a location and a hint, and the one place that maps them to exit codes."""

from __future__ import annotations

import enum
import errno
from dataclasses import dataclass


class ExitCode(enum.IntEnum):
    OK = 0
    FINDINGS = 1  # findings at or above --fail-on
    USAGE = 2  # bad flags or arguments
    INPUT = 3  # unreadable, undetectable or malformed input
    INTERNAL = 4  # a bug in logsleuth: please report it (traceback with --debug)


def shown_path(path: str) -> str:
    """A path as text: a file name that is not UTF-8 (`caf\\xe9.log`, held by Python as a lone
    surrogate) shows its odd bytes as `\\xe9`, since text columns, JSON and the terminal need
    valid UTF-8. The real path stays in `Probe.path` for opening."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file system byte makes (`\ud800` from JSON)
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    line: int | None = None

    def __str__(self) -> str:
        path = shown_path(self.path)
        return f"{path}:{self.line}" if self.line is not None else path


class LogsleuthError(Exception):
    """Base error: a message, where it happened, and what to do about it."""

    exit_code = ExitCode.INTERNAL

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def one_line(self) -> str:
        where = f"{self.location}: " if self.location else ""
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{where}{self.message}{hint}"

    def __str__(self) -> str:
        return self.one_line()


class UsageError(LogsleuthError):
    exit_code = ExitCode.USAGE


class InputError(LogsleuthError):
    """The input cannot be read at all (missing, unreadable, unknown format, empty)."""

    exit_code = ExitCode.INPUT


class FormatError(InputError):
    """No reader recognises the input, or the forced reader cannot parse it."""


class PatternError(InputError):
    """A pattern file is invalid (schema, regex, examples)."""


# faults of the machine around the input: a full disk or quota, a read-only or forbidden place
FAULT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO})
FAULT_HINTS = {errno.ENOSPC: "free some space, or give --db a folder on another disk",
               errno.EDQUOT: "free some space, or give --db a folder on another disk",
               errno.EROFS: "give --db a folder you can write to", errno.EACCES: "check the folder's permissions",
               errno.EPERM: "check the folder's permissions"}


def exit_code_for(exc: BaseException) -> ExitCode:
    """The one mapping from exceptions to process exit codes."""
    if isinstance(exc, LogsleuthError):
        return exc.exit_code
    # a path in the way (a file where a folder is needed, or the reverse) is the input's problem too
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError,
                        UnicodeDecodeError)):
        return ExitCode.INPUT
    if isinstance(exc, OSError) and exc.errno in FAULT_ERRNOS:  # the machine's state, not a bug (issue 35)
        return ExitCode.INPUT
    if type(exc).__module__ == "sqlite3" and any(w in str(exc).lower() for w in ("disk is full", "readonly", "read-only")):
        return ExitCode.INPUT  # sqlite says a fault in words
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.INTERNAL
    return ExitCode.INTERNAL
