"""Which command a position of a text belongs to, in linear time: the `after` rules of redact.py.

A rule such as `curl … -u USER:PASS` needs the command's name somewhere before its flag in the same
command. As a variable-length look-behind (`(?<=\\bcurl\\b[^\\n|;&]*\\s)-u`) that is one backward scan
per flag: a line of 40,000 `-p` after `mysql` took 15 s. Here the separators and the names are
found once per text, and each flag is judged by two binary searches.
"""

from __future__ import annotations

import bisect
from typing import Any

import regex

_SEPARATORS = regex.compile(r"[\n|;&]")


class Commands:
    """The separators of one text and, per name regex, where its matches end (computed once each)."""

    def __init__(self, text: str):
        self.text = text
        self._bounds: list[int] | None = None
        self._ends: dict[Any, list[int]] = {}

    def _separators(self) -> list[int]:
        if self._bounds is None:
            self._bounds = [m.start() for m in _SEPARATORS.finditer(self.text)]
        return self._bounds

    def follows(self, name: Any, pos: int) -> bool:
        """Whether a match of `name` ends before `pos - 1` with no separator from its end up to
        `pos - 1` (the space before the flag), as `(?<=NAME[^\\n|;&]*\\s)` at `pos` asks."""
        ends = self._ends.get(name)
        if ends is None:
            ends = self._ends[name] = [m.end() for m in name.finditer(self.text)]
        i = bisect.bisect_right(ends, pos - 1) - 1
        if i < 0:
            return False
        end = ends[i]
        bounds = self._separators()
        j = bisect.bisect_left(bounds, end)
        return j == len(bounds) or bounds[j] >= pos - 1
