"""Whether a regex may take super-linear time on a crafted line (issue 35): a structural check.

A backtracking engine (`re`, `regex`) is quadratic or worse where it can split one run of
characters between two unbounded repeats in more than one way, and every split fails:

- **nested**: an unbounded repeat inside another whose body may be just that run (`(a+)+`, `(\\w+\\s?)*`);
- **adjacent**: two unbounded repeats whose characters overlap, with only optional items between
  (`\\S*?[\\w.-]+`, `\\d+\\.?\\d+`);
- **leading**: a searched pattern that starts with an unbounded repeat and no anchor or guard: it
  is retried from every position of a run of its class (`[\\w./-]+\\.py` on 272 KB of path characters).

A repeat is exempt where it cannot backtrack (possessive `++`, atomic `(?>…)`), and a leading one
where a look-behind or `^`/`\\A` anchors it, or where a literal or a class disjoint from it must come
first. Characters are compared over ASCII and a few non-ASCII probes. A pattern the parser cannot
read (Unicode properties of `regex`) is reported as unchecked, never as linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from re import _constants as C  # type: ignore[attr-defined]  # the parser of `re` (Python 3.11+)
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

_PROBES = [chr(c) for c in range(128)] + ["é", "\u00a0", "—", "中"]
_UNBOUNDED = C.MAXREPEAT
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT}
_POSSESSIVE = getattr(C, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(C, "ATOMIC_GROUP", None)
_CATEGORY: dict[Any, Callable[[str], bool]] = {
    C.CATEGORY_DIGIT: str.isdigit, C.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdigit(),
    C.CATEGORY_SPACE: str.isspace, C.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    C.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    C.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
}


@dataclass(frozen=True)
class Finding:
    """One super-linear shape of a pattern, said in a line."""

    shape: str  # nested | adjacent | leading | unchecked
    message: str


def _item_chars(op: Any, av: Any, ignore_case: bool) -> frozenset[str] | None:
    """The probe characters one single-character item matches, or None for a longer item."""
    if op is C.LITERAL:
        ch = chr(av)
        return frozenset({ch, ch.lower(), ch.upper()} if ignore_case else {ch})
    if op is C.NOT_LITERAL:
        return frozenset(c for c in _PROBES if c != chr(av))
    if op is C.ANY:
        return frozenset(c for c in _PROBES if c != "\n")
    if op is C.IN:
        neg = bool(av) and av[0][0] is C.NEGATE
        hit = frozenset(c for c in _PROBES if any(_in_member(o, a, c, ignore_case) for o, a in av))
        return frozenset(_PROBES) - hit if neg else hit
    return None


def _in_member(op: Any, av: Any, ch: str, ignore_case: bool) -> bool:
    cands = {ch, ch.lower(), ch.upper()} if ignore_case else {ch}
    if op is C.LITERAL:
        return chr(av) in cands
    if op is C.RANGE:
        return any(av[0] <= ord(c) <= av[1] for c in cands)
    if op is C.CATEGORY:
        test = _CATEGORY.get(av)
        return bool(test and test(ch))
    return False


def _chars(seq: Any, ignore_case: bool) -> frozenset[str] | None:
    """The characters a repeat's body can start with, where the body is one item or a group of
    single-character alternatives; None when it is longer (then it is judged as nested, not here)."""
    items = list(seq)
    if len(items) == 1:
        op, av = items[0]
        if op is C.SUBPATTERN:
            return _chars(av[-1], ignore_case)
        if op is C.BRANCH:
            parts = [_chars(b, ignore_case) for b in av[1]]
            return None if any(p is None for p in parts) else frozenset().union(*parts)  # type: ignore[arg-type]
        return _item_chars(op, av, ignore_case)
    return None


def _unbounded(op: Any, av: Any) -> bool:
    return op in _REPEATS and av[1] == _UNBOUNDED


def _optional(op: Any, av: Any) -> bool:
    """An item that may match nothing (`x?`, `\\s*`, a look-around): it does not separate repeats."""
    return (op in _REPEATS and av[0] == 0) or op in (C.ASSERT, C.ASSERT_NOT)


def _runs_only(seq: Any) -> bool:
    r"""Whether a repeat's body can match a run of one unbounded repeat with nothing else
    required (`a+`, `\w+\s?`, `(?:x|\d+)`): then the outer repeat can split the run many ways."""
    items = list(seq)
    required = [(op, av) for op, av in items if not _optional(op, av)]
    if any(_unbounded(op, av) for op, av in items) and len(required) <= 1:
        return not required or _unbounded(*required[0]) or _runs_only(_children(*required[0])[0] if _children(
            *required[0]) else [])
    if len(items) == 1 and items[0][0] is C.BRANCH:
        return any(_runs_only(b) for b in items[0][1][1])
    if len(items) == 1 and items[0][0] is C.SUBPATTERN:
        return _runs_only(items[0][1][-1])
    return False


def _children(op: Any, av: Any) -> list[Any]:
    """The sub-sequences of one item (groups, branches, repeats; not look-arounds' insides)."""
    if op is C.SUBPATTERN:
        return [av[-1]]
    if op is C.BRANCH:
        return list(av[1])
    if op in _REPEATS or op is _POSSESSIVE:
        return [av[2]]
    if op is _ATOMIC:
        return [av]
    return []


def _walk(seq: Any, ignore_case: bool, out: list[Finding]) -> None:
    items = list(seq)
    for i, (op, av) in enumerate(items):
        if _unbounded(op, av) and _runs_only(av[2]):
            out.append(Finding("nested", "an unbounded repeat inside another (`(a+)+`): make the inner one possessive "
                                          "or atomic, or bound it"))
        if _unbounded(op, av):
            _adjacent(items, i, ignore_case, out)
        if op is _ATOMIC or op is _POSSESSIVE:
            continue  # cannot backtrack into it
        for sub in _children(op, av):
            _walk(sub, ignore_case, out)


def _adjacent(items: list[Any], i: int, ignore_case: bool, out: list[Finding]) -> None:
    first = _chars(items[i][1][2], ignore_case)
    if not first:
        return
    for op, av in items[i + 1 :]:
        if _unbounded(op, av):
            second = _chars(av[2], ignore_case)
            if second and first & second:
                shown = "".join(sorted(first & second))[:12]
                out.append(Finding("adjacent", f"two unbounded repeats can share the characters {shown!r}: make the first "
                                               "possessive, or the classes disjoint"))
            return
        if op is C.ASSERT_NOT and av[0] == -1:  # `(?<![…])`: the second starts where a run starts
            return
        if not _optional(op, av):
            return


def _leading(items: list[Any], ignore_case: bool, guards: list[frozenset[str]] | None = None) -> Finding | None:
    """The leading shape: the first unbounded repeat, when nothing before it pins where it starts
    (an anchor, a look-behind, a longer literal, a character its class lacks) and something
    required after it can fail."""
    guards = [] if guards is None else guards
    for k, (op, av) in enumerate(items):
        if op is C.AT or (op in (C.ASSERT, C.ASSERT_NOT) and av[0] == -1):
            return None
        if op is C.SUBPATTERN:
            return _leading([*av[-1], *items[k + 1 :]], ignore_case, guards)
        if _unbounded(op, av):
            run = _chars(av[2], ignore_case)
            if not run or any(g.isdisjoint(run) for g in guards):
                return None
            if all(_optional(o, a) for o, a in items[k + 1 :]):
                return None  # a match cannot fail after the run: the first try succeeds
            return Finding("leading", "searched from every position, the leading repeat rescans a run of its class: "
                                      "anchor it, or lead with a literal or a character its class lacks")
        if _optional(op, av):
            continue
        if op is C.LITERAL and k + 1 < len(items) and items[k + 1][0] is C.LITERAL:
            return None  # a literal of several characters: a run starts only where it occurs
        chars = _chars([(op, av)], ignore_case)
        if chars is None:
            return None  # a literal of several characters, or an alternation with an anchor: pinned
        guards.append(chars)
    return None


def check(pattern: str, flags: int = 0, searched: bool = True) -> list[Finding]:
    """The super-linear shapes of `pattern` (empty: linear as far as this check sees);
    `searched`: the pattern is searched (`search`, `finditer`), not matched at a position."""
    try:
        tree = P.parse(pattern, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        return [Finding("unchecked", f"not checked for linear time ({exc})")]
    state = getattr(tree, "state", None)
    ignore_case = bool((getattr(state, "flags", 0) | flags) & re.IGNORECASE)
    out: list[Finding] = []
    _walk(list(tree), ignore_case, out)
    if searched:
        lead = _leading(list(tree), ignore_case)
        if lead is not None:
            out.append(lead)
    return out


def problems_of(patterns: Any) -> list[Any]:
    """One located lint error per super-linear shape of each pattern's regex (`patterns lint`)."""
    from logsleuth.library.pattern import Problem

    out = []
    for p in patterns:
        for f in check(p.regex):
            level = "warning" if f.shape == "unchecked" else "error"
            out.append(Problem(p.path, p.key_lines.get("regex", p.line),
                               f"regex may take super-linear time ({f.shape}): {f.message}", level, p.id))
    return out
