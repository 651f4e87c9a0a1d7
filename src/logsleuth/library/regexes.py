"""One regex, two engines: Python `regex` (examples, fallback) and polars/Rust (matching).

Pattern regexes must compile in both. Polars' Rust engine runs in linear time, so matching can
never hang; Python `regex` can backtrack catastrophically, so every Python-side search goes
through `search`/`finditer` here with a timeout that turns into a warning, never a hang.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

# Seconds one Python-side search may take before it is abandoned (with a warning).
DEFAULT_TIMEOUT = 0.5


class RegexTimeout(Exception):
    """A Python-side regex search exceeded its timeout (catastrophic backtracking)."""


@dataclass(frozen=True, slots=True)
class Check:
    python_error: str | None
    polars_error: str | None
    groups: tuple[str, ...]
    matches_empty: bool


@lru_cache(maxsize=4096)
def compile_py(rx: str) -> Any:
    return regex.compile(rx)


def python_error(rx: str) -> str | None:
    try:
        compile_py(rx)
    except (regex.error, ValueError, TypeError, OverflowError) as exc:
        return str(exc)
    return None


_POLARS_OK: set[str] = set()  # regexes polars is known to compile (see `prime_polars`)


def prime_polars(rxs: Iterable[object]) -> None:
    """Compile many regexes in one polars call (one call each costs about a millisecond: a
    library of a few hundred patterns). When any is rejected nothing is recorded, and
    `polars_error` checks each on its own as before."""
    import polars as pl

    todo = sorted({rx for rx in rxs if isinstance(rx, str)} - _POLARS_OK)  # non-strings: schema reports them
    if not todo:
        return
    try:
        pl.select([pl.lit("", pl.Utf8).str.contains(rx).alias(f"r{i}") for i, rx in enumerate(todo)])
    except Exception:  # polars raises ComputeError; any failure means "check one by one"
        return
    _POLARS_OK.update(todo)


def polars_error(rx: str) -> str | None:
    """Why polars (Rust `regex`) rejects `rx`, or None when it compiles."""
    if rx in _POLARS_OK:
        return None
    import polars as pl

    try:
        pl.Series([""], dtype=pl.Utf8).str.contains(rx)
    except Exception as exc:  # polars raises ComputeError; any failure means "not portable"
        return _short_polars_error(str(exc))
    return None


def _short_polars_error(msg: str) -> str:
    # Polars wraps the Rust message in the failing expression; keep the "error: …" line.
    for line in msg.splitlines():
        s = line.strip()
        if s.startswith("error:"):
            return s[len("error:") :].strip()
    return msg.splitlines()[0] if msg else "rejected"


def check(rx: str) -> Check:
    perr = python_error(rx)
    groups: tuple[str, ...] = ()
    empty = False
    if perr is None:
        compiled = compile_py(rx)
        groups = tuple(sorted(compiled.groupindex, key=lambda n: compiled.groupindex[n]))
        try:
            empty = compiled.search("", timeout=DEFAULT_TIMEOUT) is not None
        except TimeoutError:
            empty = False
    return Check(perr, polars_error(rx), groups, empty)


def search(rx: str, text: str, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """First match of `rx` in `text` (Python `regex`), raising RegexTimeout instead of hanging."""
    try:
        return compile_py(rx).search(text, timeout=timeout)
    except TimeoutError as exc:
        raise RegexTimeout(f"regex timed out after {timeout}s") from exc


def finditer(rx: str, text: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[Any]:
    """All matches (Python `regex`); the timeout covers the whole scan."""
    try:
        yield from compile_py(rx).finditer(text, timeout=timeout)
    except TimeoutError as exc:
        raise RegexTimeout(f"regex timed out after {timeout}s") from exc


def captures_of(m: Any) -> dict[str, str]:
    """Named captures of a match that took part in it (unset groups are left out)."""
    return {k: v for k, v in m.groupdict().items() if v is not None}


_PY_NAMED_GROUP = re.compile(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>")


def to_ripgrep(rx: str) -> str | None:
    """The regex as one line of an `rg -f` file (see library/ripgrep.py), or None when impossible."""
    from logsleuth.library.ripgrep import to_ripgrep as convert

    out = convert(rx)
    return out if out is not None and polars_error(out) is None else None


def named_groups(rx: str) -> list[str]:
    """Named groups by a syntactic scan (used when the regex does not compile in Python)."""
    return _PY_NAMED_GROUP.findall(rx)
