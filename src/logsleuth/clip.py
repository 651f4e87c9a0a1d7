"""Text cut to fit a report: the first lines of an output, a command on one line."""

from __future__ import annotations


def first_lines(text: str, n: int = 3, width: int = 160) -> list[str]:
    """The first `n` non-blank lines, each cut to `width` with an ellipsis."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    return [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in lines[:n]]


def short(text: str, width: int = 110) -> str:
    """`text` on one line (whitespace runs become one space), cut to `width` with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
