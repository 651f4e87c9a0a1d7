"""Pattern regexes as ripgrep takes them from `rg -f FILE`: one line-oriented Rust regex per line.

ripgrep joins the lines of a pattern file into one alternation and searches line by line, so a
pattern regex is rewritten (never silently weakened beyond what a line-oriented search implies):
- named groups become plain groups: names repeat across patterns and rg rejects duplicates;
- each regex is wrapped in `(?:…)`, so a leading `(?m)` or an alternation stays inside it;
- `\\A` / `\\z` (start / end of the event text) become `^` / `$` (start / end of the line);
- a regex spanning lines (`\\n` outside a class) keeps its most specific single-line piece: optional
  groups holding a newline are dropped, then the top-level sequence is cut at each newline and the
  piece with the most literal characters is kept (rg without `-U` cannot match across lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ESCAPE_WITH_BRACES = re.compile(r"\\[pPx]\{[^}]*\}|\\[pP][A-Za-z]|\\x[0-9A-Fa-f]{2}|\\.", re.S)
_QUANT = re.compile(r"(?:[?*+]|\{\d+(?:,\d*)?\})[?+]?")
_GROUP_OPEN = re.compile(r"\((?:\?P<[A-Za-z_]\w*>|\?<[A-Za-z_]\w*>|\?[a-zA-Z-]*:|\?[a-zA-Z-]+\)|\?)?")
_OPTIONAL = re.compile(r"^(?:\?|\*|\{0(?:,\d*)?\})[?+]?$")


@dataclass
class _Atom:
    text: str
    literal: int = 0  # literal characters it contributes (for choosing the most specific piece)
    newline: bool = False
    quant: str = ""


@dataclass
class _Group:
    opener: str
    alts: list[list[_Atom | _Group]] = field(default_factory=lambda: [[]])
    quant: str = ""

    @property
    def newline(self) -> bool:
        return any(item.newline for alt in self.alts for item in alt)


class _Unsupported(ValueError):
    pass


def _parse(rx: str) -> _Group:
    root = _Group("")
    stack = [root]
    i, n = 0, len(rx)
    while i < n:
        c = rx[i]
        cur = stack[-1].alts[-1]
        if c == "\\":
            m = _ESCAPE_WITH_BRACES.match(rx, i)
            tok = m.group(0) if m else rx[i:]
            i += len(tok)
            if tok in ("\\A",):
                cur.append(_Atom("^"))
            elif tok in ("\\z", "\\Z"):
                cur.append(_Atom("$"))
            else:
                literal = 1 if len(tok) == 2 and not tok[1].isalnum() else 0
                cur.append(_Atom(tok, literal, newline=tok == "\\n"))
        elif c == "[":
            j = _class_end(rx, i)
            cur.append(_Atom(rx[i:j]))
            i = j
        elif c == "(":
            m = _GROUP_OPEN.match(rx, i)
            assert m is not None
            tok = m.group(0)
            i += len(tok)
            if tok.endswith(")"):
                cur.append(_Atom(tok))  # inline flags `(?m)`: scoped by the wrapper
                continue
            if tok == "(?":
                raise _Unsupported(f"look-around at {i}")  # rg has none either
            opener = "(?:" if tok.startswith(("(?P<", "(?<")) else tok
            group = _Group(opener)
            cur.append(group)
            stack.append(group)
        elif c == ")":
            if len(stack) == 1:
                raise _Unsupported("unbalanced ')'")
            stack.pop()
            i += 1
        elif c == "|":
            stack[-1].alts.append([])
            i += 1
        elif c == "\n":
            cur.append(_Atom("\\n", 0, newline=True))
            i += 1
        elif c == "\r":
            cur.append(_Atom("\\r"))
            i += 1
        else:
            m = _QUANT.match(rx, i)
            if m and cur:
                cur[-1].quant += m.group(0)
                i = m.end()
                continue
            cur.append(_Atom(c, 0 if c in ".^$" else 1))
            i += 1
    if len(stack) != 1:
        raise _Unsupported("unbalanced '('")
    return root


def class_end(rx: str, i: int) -> int:
    """Index after the character class starting at rx[i] == '[' (nested classes allowed);
    ValueError when it is not terminated."""
    j = i + 1
    if rx.startswith("^", j):
        j += 1
    if rx.startswith("]", j):
        j += 1
    depth = 1
    while j < len(rx):
        c = rx[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError("unterminated character class")


def _class_end(rx: str, i: int) -> int:
    try:
        return class_end(rx, i)
    except ValueError as exc:
        raise _Unsupported(str(exc)) from None


def _drop_optional_newlines(items: list[_Atom | _Group]) -> list[_Atom | _Group]:
    out: list[_Atom | _Group] = []
    for item in items:
        if isinstance(item, _Group):
            if item.newline and _OPTIONAL.match(item.quant or ""):
                continue
            item.alts = [_drop_optional_newlines(alt) for alt in item.alts]
        out.append(item)
    return out


def _literal(items: list[_Atom | _Group]) -> int:
    total = 0
    for item in items:
        if isinstance(item, _Atom):
            total += item.literal if not item.quant else 0
        elif not _OPTIONAL.match(item.quant or ""):
            total += min((_literal(alt) for alt in item.alts), default=0)
    return total


def _one_line(seq: list[_Atom | _Group]) -> list[_Atom | _Group]:
    seq = _drop_optional_newlines(seq)
    for item in seq:
        if isinstance(item, _Group) and item.newline:
            raise _Unsupported("a newline inside a group that is not optional")
    pieces: list[list[_Atom | _Group]] = [[]]
    for item in seq:
        if isinstance(item, _Atom) and item.newline:
            pieces.append([])
        else:
            pieces[-1].append(item)
    return max(pieces, key=_literal)  # first of the most specific


def _render(items: list[_Atom | _Group]) -> str:
    out = []
    for item in items:
        if isinstance(item, _Atom):
            out.append(item.text + item.quant)
        else:
            out.append(item.opener + "|".join(_render(alt) for alt in item.alts) + ")" + item.quant)
    return "".join(out)


def to_ripgrep(rx: str) -> str | None:
    """`rx` rewritten for `rg -f` (see the module docstring), or None when it cannot be."""
    try:
        root = _parse(rx)
        alts = [_one_line(alt) for alt in root.alts]
    except _Unsupported:
        return None
    return "(?:" + "|".join(_render(alt) for alt in alts) + ")"
