"""What an in-place `sed`/`perl -pi` substitution takes out of a file and puts in, as text.

A script says its change in regex syntax (`s/foo\\(bar\\)/baz\\1/`, `s/\\["a"\\]/["a", "b"]/`,
`s/^    /\\t/`); a reader wants the lines the file had and has. `substitutions` turns each
`s<d>old<d>new<d>` of the scripts into (old, new) where escaped literals are plain, group marks
are gone, `\\1`/`&`/`$1` in the replacement are filled with what they stand for, `\\n`/`\\t` are the
characters, and an unbounded `.*` is `…`. What stays a regex (`[0-9]+`) is shown as written.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

# one `s<d>old<d>new<d>` expression of a script (escaped delimiters stay inside)
SED_SUB = re.compile(r"(?<![A-Za-z_])s([/|#,:@!])((?:\\.|(?!\1).)*?)\1((?:\\.|(?!\1).)*?)\1[gIimpex0-9]*")
# an address before the `s` (`32s/…`, `/^foo/s/…`): only a line number is worth saying
_LINE_ADDRESS = re.compile(r"^\s*(\d+)\s*s[/|#,:@!]")

_CHAR_ESCAPES = {"n": "\n", "t": "\t"}
_CLASS_ESCAPES = frozenset("wWsSdD")  # still a regex: shown as written, `…` when repeated
_ZERO_WIDTH = frozenset("bB<>`'")  # word and buffer boundaries: where, not what
_BRE_OPERATORS = frozenset("{}+?|")  # `\+` in a BRE is the operator, shown without its backslash


@dataclass(slots=True)
class _Pattern:
    text: str = ""
    groups: dict[int, str] = field(default_factory=dict)


def _pattern(pat: str, extended: bool) -> _Pattern:
    """The text a pattern matches as a reader would write it, and each group's text."""
    out: list[str] = []
    opened: list[tuple[int, int]] = []  # (group number, where its text starts in out)
    groups: dict[int, str] = {}
    n_groups = 0
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            e = pat[i + 1]
            i += 2
            group_mark = not extended and e in "()"
            if group_mark and e == "(":
                n_groups += 1
                opened.append((n_groups, len(out)))
            elif group_mark and opened:
                num, start = opened.pop()
                groups[num] = "".join(out[start:])
            elif e in _CHAR_ESCAPES:
                out.append(_CHAR_ESCAPES[e])
            elif e.isdigit():
                out.append(groups.get(int(e), "…"))
            elif e in _ZERO_WIDTH:
                pass
            elif e in _CLASS_ESCAPES:
                i = _atom(out, "\\" + e, pat, i, extended)
            else:  # an escaped literal (`\.`, `\[`, `\/`, `\*`), or a BRE operator (`\+`)
                out.append(e)
            continue
        if extended and c == "(":
            n_groups += 1
            opened.append((n_groups, len(out)))
        elif extended and c == ")" and opened:
            num, start = opened.pop()
            groups[num] = "".join(out[start:])
        elif (c == "^" and i == 0) or (c == "$" and i == len(pat) - 1):
            pass  # anchors: where the text is, not the text
        elif c == ".":
            i = _atom(out, c, pat, i + 1, extended)
            continue
        elif c == "[" and (end := _bracket_end(pat, i)) > i:
            i = _atom(out, pat[i:end + 1], pat, end + 1, extended)
            continue
        else:
            out.append(c)
        i += 1
    text = "".join(out)
    return _Pattern(text, {k: v for k, v in groups.items()})


def _quantifier(pat: str, k: int, extended: bool) -> int:
    """The length of a repetition at pat[k] (`*`, `+`, `\\+`, `{2,}`), 0 when none."""
    if pat[k:k + 1] == "*" or (extended and pat[k:k + 1] in ("+", "?")):
        return 1
    if not extended and pat[k:k + 2] in ("\\+", "\\?"):
        return 2
    m = re.match(r"\{\d*,?\d*\}" if extended else r"\\\{\d*,?\d*\\\}", pat[k:])
    return len(m.group(0)) if m else 0


def _atom(out: list[str], atom: str, pat: str, k: int, extended: bool) -> int:
    """One atom that matches a class of characters: repeated it is `…` (some text), else as
    written; returns where the pattern goes on."""
    q = _quantifier(pat, k, extended)
    out.append("…" if q else atom)
    return k + q


def _bracket_end(pat: str, i: int) -> int:
    """Where the bracket expression opened at pat[i] closes (`[]a]` and `[^]a]` hold a `]`), else i."""
    j = i + 1
    if pat[j:j + 1] == "^":
        j += 1
    if pat[j:j + 1] == "]":
        j += 1
    end = pat.find("]", j)
    return end if end > 0 else i


def _replacement(rep: str, pat: _Pattern, perl: bool) -> str:
    """The text a replacement writes: `\\1`/`$1` the group's text, `&` the whole match."""
    out: list[str] = []
    i = 0
    while i < len(rep):
        c = rep[i]
        if c == "\\" and i + 1 < len(rep):
            e = rep[i + 1]
            i += 2
            if e.isdigit():
                out.append(pat.groups.get(int(e), "…") if e != "0" else pat.text)
            elif e in _CHAR_ESCAPES:
                out.append(_CHAR_ESCAPES[e])
            elif e in "LUElu":
                pass  # case conversion marks
            else:
                out.append(e)
            continue
        if c == "&" and not perl:
            out.append(pat.text)
        elif c == "$" and perl and (m := re.match(r"\$\{?(\d)\}?", rep[i:])):
            out.append(pat.groups.get(int(m.group(1)), "…"))
            i += len(m.group(0))
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def substitutions(scripts: list[str], extended: bool = False, perl: bool = False) -> list[tuple[str, str]]:
    """(old, new) of every substitution of the scripts, as text (see the module's docstring)."""
    pairs: list[tuple[str, str]] = []
    for script in scripts:
        for _, old, new in SED_SUB.findall(script):
            pat = _pattern(old, extended or perl)
            pairs.append((pat.text, _replacement(new, pat, perl)))
    return pairs


@dataclass(frozen=True, slots=True)
class Edit:
    """An in-place edit command: its scripts in one line, the files it edits, the text it puts in
    and takes out (one line per substitution)."""

    summary: str
    files: tuple[str, ...]
    added: str
    removed: str


def _edit(summary: str, files: list[str], pairs: list[tuple[str, str]]) -> Edit:
    return Edit(summary, tuple(files), "\n".join(new for _, new in pairs), "\n".join(old for old, _ in pairs))


# `-E`, `-r`, `-Ei`, `-nr`: extended regexes (`-ir` is `-i` with the suffix `r`)
_SED_ERE = re.compile(r"^-[nsuz]*[Er]")


def sed_edit(args: list[str]) -> Edit:
    """`sed -i` with these arguments (after `sed`)."""
    scripts: list[str] = []
    rest: list[str] = []
    j = 0
    while j < len(args):
        a = args[j]
        if a in ("-e", "--expression", "-f", "--file") and j + 1 < len(args):
            scripts.append(args[j + 1])
            j += 2
        elif a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
            j += 1
        elif a == "-i" and j + 1 < len(args) and args[j + 1] == "":
            j += 2  # BSD sed: -i ''
        elif a.startswith("-") and len(a) > 1:
            j += 1
        else:
            rest.append(a)
            j += 1
    if not scripts and rest:
        scripts, rest = [rest[0]], rest[1:]
    extended = any(a == "--regexp-extended" or _SED_ERE.match(a) for a in args)
    return _edit(("sed " + "; ".join(scripts))[:100], rest, substitutions(scripts, extended=extended))


def perl_edit(args: list[str]) -> Edit:
    """`perl -pi -e 's/…/…/'` with these arguments (after `perl`); the files are the caller's."""
    scripts = [b for a, b in itertools.pairwise(args) if re.match(r"^-\w*[eE]$", a)]
    return _edit("perl -i", [], substitutions(scripts, perl=True))


def line_address(summary: str) -> int | None:
    """The line a one-line `sed NNs/…/` edit names (its summary as `sed …`), else None."""
    m = _LINE_ADDRESS.match(summary.removeprefix("sed "))
    return int(m.group(1)) if m else None


def blank_name(s: str) -> str:
    """A run of white space in words: "8 spaces", "a tab", "2 tabs and a space"."""
    parts = []
    for ch, one, many in ((" ", "a space", "spaces"), ("\t", "a tab", "tabs"), ("\n", "a newline", "newlines")):
        n = s.count(ch)
        if n:
            parts.append(one if n == 1 else f"{n} {many}")
    return " and ".join(parts) or "nothing"
