"""Which texts of a table may hold a secret, in one vectorised pass (polars, Rust regex).

The redaction rules (redact.py) use the `regex` module: look-arounds, Unicode classes. Each rule
gets a Rust-regex *superset* here: a text none of them matches cannot be changed by the rules,
so an events table of 100 MB sends only its few candidate rows through the Python rule loop.

The superset is derived, not hand-kept: negative look-arounds and look-aheads are dropped (an
assertion dropped only widens), a positive look-behind becomes plain text before the match (a
text holds the match iff it holds the look-behind's text right before it), named groups lose
their names, `\\b`, `^` and `$` are dropped, and `\\w`/`\\d` outside a negated class become `\\S` (the `regex`
module knows a newer Unicode than Rust; both agree on `\\s`, measured over every code point).
Whitespace also matches the characters of a JSON escape (`\\`, `n`, `r`, `t`): the rules read `\\n`
in a text as a space and a line break (redact.rule_view).
Case-insensitive rules add the characters whose case folding reaches ASCII (`K` Kelvin sign,
`ſ`): a text holding one is always a candidate.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import regex

from logsleuth.library.ripgrep import class_end

# Characters whose case mapping (str.lower/upper/casefold/title) or `regex` IGNORECASE folding
# reaches an ASCII letter. Checked against every code point in tests/test_redact_scan.py.
FOLDS_TO_ASCII = (
    "\u00df\u0130\u0131\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
FOLD_SPECIAL = regex.compile(f"[{FOLDS_TO_ASCII}]")


def _group_end(p: str, i: int) -> int:
    """Index just past the group that starts at p[i] == '('."""
    depth, j = 0, i
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = class_end(p, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


# the rules read a JSON escape `\n` as a space and a line break (redact.rule_view): wherever
# a rule may match whitespace, its superset also matches the escape's own characters
_ESCAPE_CHARS = "\\\\nrt"


def _widen_class(body: str) -> str:
    """A positive class with `\\w`/`\\d` widened to `\\S`, and to an escape's characters where it
    holds whitespace; a negated class is kept (it only excludes less in Rust)."""
    if body.startswith("[^"):
        return body
    body = body.replace("\\w", "\\S").replace("\\d", "\\S")
    if any(ws in body for ws in ("\\s", " ", "\\t", "\\n", "\\r")):
        body = body[:-1] + _ESCAPE_CHARS + "]"
    return body


def superset(pattern: str, leading_only: bool = False) -> str:
    """A Rust regex matching (somewhere) every text `pattern` matches (see the module docstring).
    `leading_only`: a positive look-behind becomes text only at the pattern's start and is dropped
    elsewhere (after consumed text it may look back at that text: `["']\\s*,\\s*["'](?<=")…`
    holds one quote, its text form two), as `rule_matrix` needs of a test per rule."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            esc = pattern[i : i + 2]
            out.append({"\\b": "", "\\w": "\\S", "\\d": "\\S", "\\s": f"[\\s{_ESCAPE_CHARS}]",
                        "\\n": f"[\\n{_ESCAPE_CHARS}]", "\\r": f"[\\r{_ESCAPE_CHARS}]",
                        "\\t": f"[\\t{_ESCAPE_CHARS}]"}.get(esc, esc))
            i += 2
        elif c == "[":
            j = class_end(pattern, i)
            out.append(_widen_class(pattern[i:j]))
            i = j
        elif pattern.startswith("(?<=", i):
            j = _group_end(pattern, i)
            inner = pattern[i + 4 : j - 1]
            # one that may be empty asserts nothing
            if regex.fullmatch(inner, "") is None and (i == 0 or not leading_only):
                out.append("(?:" + superset(inner, leading_only) + ")")
            i = j
        elif pattern.startswith(("(?=", "(?!", "(?<!"), i):
            i = _group_end(pattern, i)
        elif c in "^$":  # an anchor (multi-line in some rules) asserts; dropped, it only widens
            i += 1
        elif c == " ":
            out.append(f"[ {_ESCAPE_CHARS}]")
            i += 1
        elif pattern.startswith("(?P<", i):
            out.append("(?:")
            i = pattern.index(">", i) + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


@functools.lru_cache(maxsize=4)
def _forms(rules: tuple[tuple[str, int], ...]) -> tuple[tuple[str, ...], bool]:
    """The supersets, grouped for speed (measured on a 122 MB events table: 0.97 s one by one,
    0.22 s grouped): the literal-led ones in one alternation (Rust's literal prefilter covers
    them all), the case-insensitive ones in another, each of the rest alone. An alternation
    matches iff one of its branches does, so grouping changes nothing but the time."""
    literal, nocase, other = [], [], []
    for p, flags in rules:
        form = superset(p)
        if flags & regex.IGNORECASE:
            nocase.append(f"(?:{form})")
        elif regex.match(r"[A-Za-z0-9_@\-]", form):
            literal.append(f"(?:{form})")
        else:
            other.append(form)
    grouped = tuple(g for g in ("|".join(literal), "(?i:" + "|".join(nocase) + ")" if nocase else "") if g)
    return grouped + tuple(other), bool(nocase)


def maybe_secret(rules: tuple[tuple[str, int], ...], known: Sequence[str], texts: Any) -> Any:
    """Per text (numpy bools): may one of `rules` ((pattern, flags) of the `regex` module) match
    it, or does it hold one of the `known` values? Nulls are False."""
    import numpy as np
    import polars as pl

    forms, nocase = _forms(rules)
    t = pl.col("t").str
    tests = [t.contains(f) for f in forms]
    tests += [t.contains_any(list(FOLDS_TO_ASCII))] if nocase else []
    tests += [t.contains_any(list(known))] if known else []
    out = np.zeros(texts.len(), bool)
    if tests:
        frame = pl.DataFrame({"t": texts}).lazy()
        for hit in pl.collect_all([frame.select(test.fill_null(False)) for test in tests]):  # in parallel
            out |= hit.to_series().to_numpy()
    return out


@functools.lru_cache(maxsize=4)
def _rule_tests(rules: tuple[tuple[str, int] | None, ...]) -> tuple[tuple[str, str] | None, ...]:
    """Per rule: its superset (look-behinds as text only where they lead) and its group as `_forms`
    groups them ("literal", "nocase" or "other"); None for a rule tested by needles instead."""
    out: list[tuple[str, str] | None] = []
    for r in rules:
        if r is None:
            out.append(None)
            continue
        form = superset(r[0], leading_only=True)
        if r[1] & regex.IGNORECASE:
            out.append((f"(?i:{form})", "nocase"))
        else:
            out.append((form, "literal" if regex.match(r"[A-Za-z0-9_@\-]", form) else "other"))
    return tuple(out)


def rule_matrix(rules: tuple[tuple[str, int] | None, ...], needles: Sequence[str], texts: Any) -> Any:
    """Per text and rule (numpy bools, texts × rules): may the rule match the text? `maybe_secret`'s
    test taken apart: each rule's superset alone (a case-insensitive one also wherever a character
    folds to ASCII), and a rule given as None wherever one of `needles` occurs. A text's row is
    false for a rule that finds nothing in it; its any() is `maybe_secret(rules, needles)`.

    The literal-led and the case-insensitive rules are first tested as one alternation each (as
    `_forms` does); a rule of a group is tested alone only on the texts its group matched."""
    import numpy as np
    import polars as pl

    tests = _rule_tests(rules)
    n = texts.len()
    out = np.zeros((n, len(tests)), bool)
    t = pl.col("t").str
    groups = {g: [i for i, x in enumerate(tests) if x is not None and x[1] == g] for g in ("literal", "nocase")}
    exprs = [t.contains(x[0]).alias(f"r{i}") for i, x in enumerate(tests) if x is not None and x[1] == "other"]
    exprs += [t.contains("|".join(f"(?:{tests[i][0]})" for i in members)).alias(g)  # type: ignore[index]
              for g, members in groups.items() if members]
    exprs += [t.contains_any(list(FOLDS_TO_ASCII)).alias("folds")]
    exprs += [t.contains_any(list(needles)).alias("near")] if needles else []
    frame = pl.DataFrame({"t": texts})
    hits = frame.select(e.fill_null(False) for e in exprs)
    folds = hits["folds"].to_numpy()
    for i, x in enumerate(tests):
        if x is None:
            out[:, i] = hits["near"].to_numpy() if needles else False
        elif x[1] == "other":
            out[:, i] = hits[f"r{i}"].to_numpy()
    for g, members in groups.items():
        rows = np.flatnonzero(hits[g].to_numpy()) if members else np.zeros(0, np.int64)
        if len(rows):
            sub = frame[rows].select(t.contains(tests[i][0]).fill_null(False).alias(f"r{i}")  # type: ignore[index]
                                     for i in members)
            for i in members:
                out[rows, i] = sub[f"r{i}"].to_numpy()
        if g == "nocase":  # the folding characters (`K` Kelvin sign) count for every case-insensitive rule
            out[:, members] |= folds[:, None]
    return out
