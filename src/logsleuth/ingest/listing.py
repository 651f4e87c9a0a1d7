"""Documentation listings: runs of lines that each define a *different* error or status name.

A page that lists CUDA/NCCL/cuDNN result codes (`cudaErrorMemoryAllocation = 2`, a bare `ncclSystemError` line
followed by its description, `• CUDA_ERROR_OUT_OF_MEMORY |`) names many errors and reports none. Output names
one failure, or repeats the same one; a listing names several, one per entry, with no command output between
them. The plain-text reader uses this to keep a listing in one event (`plaintext.join_listings`), and
`quoting.py` to treat a match inside one as quoted.

Pure functions over lines, shared by the reader (vectorised pre-test `ENTRY_RX`, then `listing_spans` on the
few candidate runs) and by quoting (on an event's text).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

# an error/status identifier as a runtime's enum defines it (not a message): cudaErrorX / hipErrorX,
# ncclSystemError, cudaSuccess, NCCL's non-`Error` results, CUDA_ERROR_X, CUBLAS_STATUS_X, CUDNN_STATUS_X, X_SUCCESS
NAME = (
    r"(?:[a-z]{2,8}Error[A-Z][A-Za-z0-9]*|[a-z]{2,8}(?:[A-Z][a-z0-9]+)+Error|(?:cuda|cu|hip|nccl|rccl)Success"
    r"|nccl(?:InvalidArgument|InvalidUsage|InProgress|NumResults)"
    r"|[A-Z][A-Z0-9]*_(?:STATUS|ERROR|ERR|RESULT)_[A-Z0-9_]+|[A-Z][A-Z0-9]*(?:_STATUS)?_SUCCESS)"
)
# an entry line: the name first, in the shape of a definition. After a list marker, a table pipe or a doc
# generator's prefix: then anything but an identifier character or `(` (a call in code, `cudaGetLastError()`).
# Without one: the name alone (`ncclSystemError`, `CUDNN_STATUS_X,` `CUDA_SUCCESS |`), an enum value
# (`cudaErrorMemoryAllocation = 2,`) or the name then its description (`cudaErrorLaunchFailure An exception …`) —
# never `name: message`, which is how output prints it (`ncclSystemError: System call … failed`).
# Rust-regex compatible (the reader runs it in polars): no look-around.
_Q = r"[`*\"']{0,2}"
ENTRY_RX = (
    rf"^[ \t]{{0,8}}(?:(?:[-*+•·◆][ \t]+|\d{{1,4}}[.)][ \t]+|\|[ \t]*|enumerator[ \t]+|\.\. c:macro::[ \t]+){_Q}"
    rf"({NAME}){_Q}(?:$|[^\w.(\[])|{_Q}({NAME}){_Q}(?:[ \t,|¶]*$|[ \t]*[=|¶]|[ \t]+[A-Za-z(]))"
)
_ENTRY = re.compile(ENTRY_RX)
_NAME_ANY = re.compile(rf"(?<![\w.]){NAME}(?![\w(])")
# command output between entries ends a listing: a traceback, a raised exception, a timestamp, a log level,
# a compiler diagnostic, a rank/prompt prefix, the shell's own messages (tested after any list marker)
_OUTPUT = re.compile(
    r"""^(?:Traceback \(most recent call last\)|File "[^"]*", line \d+|During handling of|The above exception|"""
    r"""(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit)(?:\[\w+\])?:(?:\s|$)|"""
    r"""\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d\b|[IWEF]\d{4} \d\d:\d\d|"""
    r"""(?:ERROR|WARNING|WARN|INFO|DEBUG|FATAL|CRITICAL|error|warning|fatal|note)(?:\[[^\]]*\])?[:\] ]|"""
    r"""\S+?:\d+(?::\d+)?: (?:fatal error|error|warning|note)|\[rank\d+\]|\$ |>>> |"""
    r"""terminate called|Aborted\b|Segmentation fault|Killed\b|\S+ \d+:\d+:\d+ \S+ )"""
)
_MARKER = re.compile(r"^[ \t]*(?:[-*+•·◆][ \t]+|\d{1,4}[.)][ \t]+)?")
MAX_ENTRY_LINES = 8  # lines from one entry's name to the next (name, code, message, description, blanks)
MIN_NAMES = 2  # distinct names that make a run of entries a listing
MIN_NAMES_ONE_LINE = 3  # distinct names on one line (`pub enum cudnnStatus_t { CUDNN_STATUS_SUCCESS, … }`)


# Every NAME alternative holds one of these: a line without any names none (exact). `analyze` of a
# 105 MB session spent 27 s of its profile in `in_listing`'s regexes over such lines.
_NAME_PARTS = ("Error", "Success", "nccl", "_STATUS", "_ERR", "_RESULT", "_SUCCESS")


def _may_name(line: str) -> bool:
    return any(part in line for part in _NAME_PARTS)


def is_output(line: str) -> bool:
    """The line (after any list marker) looks like command output rather than documentation."""
    return bool(_OUTPUT.match(_MARKER.sub("", line, count=1)))


def entry_name(line: str) -> str | None:
    if not _may_name(line):
        return None
    m = _ENTRY.match(line)
    return (m.group(1) or m.group(2)) if m and not is_output(line) else None


def listing_spans(lines: Sequence[str]) -> list[tuple[int, int]]:
    """[start, end) line spans of `lines` that are documentation listings, in order.

    A run of entry lines (each within MAX_ENTRY_LINES of the next, no output line between) naming at least
    MIN_NAMES different names is a listing from its first entry to the end of its last entry (as long as the
    longest gap between entries, cut at output and at trailing blank lines). A line naming MIN_NAMES_ONE_LINE
    different names is a listing of its own.
    """
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if not run and not _may_name(line):
            continue  # neither an entry nor a line of names, and no run for output to end
        if is_output(line):
            if run:
                spans.extend(_close(lines, run, i))
                run = []
            continue
        name = entry_name(line)
        if name is None:
            if _may_name(line) and len(set(_NAME_ANY.findall(line))) >= MIN_NAMES_ONE_LINE:
                spans.append((i, i + 1))
            continue
        if run and i - run[-1][0] > MAX_ENTRY_LINES:
            spans.extend(_close(lines, run, i))
            run = []
        run.append((i, name))
    if run:
        spans.extend(_close(lines, run, len(lines)))
    return sorted(set(spans))


def _close(lines: Sequence[str], run: list[tuple[int, str]], stop: int) -> list[tuple[int, int]]:
    """The span of a run of entries, when it is a listing; `stop`: the first line it may not reach."""
    if len({name for _, name in run}) < MIN_NAMES:
        return []
    rows = [i for i, _ in run]
    period = max(b - a for a, b in itertools.pairwise(rows))
    end = min(stop, rows[-1] + period)
    while end > rows[-1] + 1 and not lines[end - 1].strip():
        end -= 1
    return [(rows[0], end)]


def in_listing(lines: Sequence[str], row: int) -> bool:
    """Line `row` of `lines` lies in a documentation listing (judged on the lines around it)."""
    reach = 3 * MAX_ENTRY_LINES
    lo = max(0, row - reach)
    return any(a <= row - lo < b for a, b in listing_spans(lines[lo : row + reach + 1]))
