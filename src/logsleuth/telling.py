"""The lines of a command's output that say what went wrong (text only: used by classify's
excerpts and by the linker's naming of failures no pattern names)."""

from __future__ import annotations

import re

# A line that reads like an error: word-bounded, so `-Werror` and `stderr` are not errors.
TELLING = re.compile(
    r"\b(error|errors|fatal|failed|failure|cannot|can't|could not|couldn't|not found|no such|denied|refused|"
    r"rejected|ignored|invalid|unable|exception|traceback|abort|aborted|undefined|unsupported|unknown|not permitted|"
    r"segmentation fault|killed|mismatch|incompatible|multiple definition|can not be used)\b|✘|\bhint:",
    re.I,
)
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning|Failure)|[\w.]*\.\w+Error)\b:?")


def telling_lines(text: str, limit: int = 4) -> str:
    """The lines of an output that say what went wrong: from the first line that reads like an
    error (not the `Exit code 1` header a tool puts first; for a Python traceback, its exception
    line, not its frames), else the first lines."""
    body = [ln for ln in lines_of(text) if ln.strip() and not _is_status(ln)]
    tracebacks = [i for i, ln in enumerate(body) if _TRACEBACK.match(ln)]
    if tracebacks:  # the run ended on its last traceback; lines before it may be a file it printed
        start = next((i for i in range(tracebacks[-1] + 1, len(body)) if _EXCEPTION.match(body[i])), tracebacks[-1])
    else:
        start = next((i for i, ln in enumerate(body) if TELLING.search(ln)), 0)
    return "\n".join(body[start : start + limit]) or text[:300]


def lines_of(text: str) -> list[str]:
    """Lines, where output that is itself escaped text (a hook's JSON `reason`) counts its
    literal `\\n` as line breaks: its first line is its headline, not the whole report."""
    return text.replace("\\n", "\n").splitlines()


def _is_status(line: str) -> bool:
    return re.match(r"^\s*(Exit code|Process exited with code|exit status)\b", line, re.I) is not None
