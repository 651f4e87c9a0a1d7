"""rapidfuzz's token_set_ratio in the standard library, for the few strings a CLI search compares.

Importing rapidfuzz costs a command-line search ~25-40 ms of CPU (its C extensions and their
feature detection); a search compares the query with a few dozen texts at most, which this pure
implementation (the bit-parallel LCS of rapidfuzz's own Python fallback, fuzz_py / LCSseq_py)
does in under a millisecond. Many texts, or letters beyond ASCII, go to rapidfuzz (`ratio_many`).
tests/test_search_fuzzy.py checks both agree, to the last bit of the float.
"""

from __future__ import annotations

import re

PURE_LIMIT = 400  # distinct texts above which rapidfuzz (C) outruns its own import cost
# a letter, digit or space beyond ASCII: case folding and what counts as a letter or a space may
# differ in detail from rapidfuzz's tables (punctuation such as the `…` of a cut text does not)
_RISKY = re.compile(r"[^\x00-\x7f\W]|[^\S\x00-\x7f]")
_NON_WORD = re.compile(r"[\W_]")  # rapidfuzz (C) treats `_` as a separator too


def default_process(s: str) -> str:
    """rapidfuzz.utils.default_process: non-alphanumerics to spaces, trimmed, lower case."""
    return _NON_WORD.sub(" ", s).strip().lower()


def _as_is(s: str) -> str:
    return s


def _lcs(s1: str, s2: str) -> int:
    if not s1:
        return 0
    s = (1 << len(s1)) - 1
    block: dict[str, int] = {}
    x = 1
    for ch in s1:
        block[ch] = block.get(ch, 0) | x
        x <<= 1
    for ch in s2:
        u = s & block.get(ch, 0)
        s = (s + u) | (s - u)
    return bin(s)[-len(s1):].count("0")


def _norm(dist: int, lensum: int) -> float:
    return (100 - 100 * dist / lensum) if lensum else 100


def token_set_ratio(s1: str, s2: str) -> float:
    """rapidfuzz.fuzz.token_set_ratio(s1, s2) (no processor, no cutoff), 0-100."""
    a, b = set(s1.split()), set(s2.split())
    if not a or not b:
        return 0
    sect, ab, ba = a & b, a - b, b - a
    if sect and (not ab or not ba):
        return 100
    ab_j, ba_j = " ".join(sorted(ab)), " ".join(sorted(ba))
    sect_len = len(" ".join(sect))
    sect_ab_len = sect_len + (sect_len != 0) + len(ab_j)
    sect_ba_len = sect_len + (sect_len != 0) + len(ba_j)
    dist = len(ab_j) + len(ba_j) - 2 * _lcs(ab_j, ba_j)
    result = _norm(dist, sect_ab_len + sect_ba_len)
    if not sect_len:
        return result
    ab_ratio = _norm((sect_len != 0) + len(ab_j), sect_len + sect_ab_len)
    ba_ratio = _norm((sect_len != 0) + len(ba_j), sect_len + sect_ba_len)
    return max(result, ab_ratio, ba_ratio)


def ratio_many(query: str, texts: list[str], process: bool = True) -> dict[str, float]:
    """token_set_ratio of `query` against each distinct text, 0-1 (with default_process when
    `process`): in pure Python for a few texts, with rapidfuzz for many."""
    distinct = list(dict.fromkeys(texts))
    if len(distinct) > PURE_LIMIT or any(not t.isascii() and _RISKY.search(t) for t in [query, *distinct]):
        from rapidfuzz import fuzz, utils

        proc = utils.default_process if process else _as_is
        q, ratio = proc(query), fuzz.token_set_ratio
        return {t: ratio(q, proc(t)) / 100 for t in distinct}
    proc = default_process if process else _as_is
    q = proc(query)
    return {t: token_set_ratio(q, proc(t)) / 100 for t in distinct}
