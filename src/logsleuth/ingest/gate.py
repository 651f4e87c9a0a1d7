"""Which records of a plain log `classify` must see: each pattern's regex confirmed on the lines
its prefilter literals flagged, before any record is built (issue #31).

`logscan` flags the lines that hold a (seam-safe) prefilter literal or an error word with one
Hyperscan pass over the raw bytes. A literal is a weak test: `.py:` is in every SGLang
scheduler line, and each flagged record brought its next three records along, so a 256 MiB log
gave ~700k candidate records for ~1.6k findings, and building, classifying and masking them was
most of `classify`'s time. The gate keeps a flagged record only when something there can match:

- an error word (`regexes`, e.g. `residue.ERRORISH`) on one of its lines: the residue reads it;
- a literal of a pattern whose regex may match across lines (`\\s`, `[^x]`, a look-around…):
  as before, the literal alone keeps the record (its match may run into the next records);
- a literal of a single-line pattern, and that pattern's regex matching one of the record's
  lines as the record's text holds it (the first line's timestamp stripped, as `records` does).

A single-line regex matching a record's text matches one of its lines, and `^`/`$`/`\\b` only
match more often on a line alone than inside the record, so no record with a match is dropped;
the same engine (polars' Rust regex) runs the test that classify's stage 2 runs. Exact findings:
every record that matches a pattern, or holds an error word, is kept with its three followers as
before; only records in which nothing can match are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from re import _constants as C  # type: ignore[attr-defined]  # the parser of `re` (Python 3.11+), as library/linear.py
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

import numpy as np
import polars as pl

# Words a level prefix (vLLM `INFO …`, glog `I0314 …`) ends with: stripping the timestamp puts
# them right before the message, so a needle may straddle that seam in the record text.
_SEAM_WORDS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL", "I", "W", "E", "F")


def seam_safe(needles: Iterable[str]) -> list[str]:
    """Needles to look for in raw lines so that every record text holding a needle is found.

    A record's first line loses its timestamp: `[2026-01-05 10:11:12 TP0] x` becomes `[TP0] x`,
    `INFO 04-28 20:50:23 x` becomes `INFO x`. A needle can then appear across the seam (`[TP0`
    or `INFO x`) without being in the raw line. Its part after the seam is in the raw line, so
    that part is added: after a `[`, after a space that follows `]` or a level word, and the
    needle without a trailing space (a seam may have had none).
    """
    out: set[str] = set()
    for n in needles:
        if not n:
            continue
        out.add(n)
        for i, ch in enumerate(n):
            if ch == "[" and n[i + 1 :]:
                out.add(n[i + 1 :])
            if ch == " ":
                before = n[:i]
                if (not before or before.endswith("]") or before.endswith(_SEAM_WORDS)
                        or any(w.endswith(before) for w in _SEAM_WORDS)) and n[i + 1 :]:
                    out.add(n[i + 1 :])
        if n.endswith(" ") and n.strip():
            out.add(n.rstrip(" "))
    # a needle inside another is implied by it: keep the shortest ones
    kept = sorted(out, key=lambda s: (len(s), s))
    minimal: list[str] = []
    for n in kept:
        if not any(m in n for m in minimal):
            minimal.append(n)
    return sorted(minimal)


_RUST_ONLY = re.compile(r"\\[pPzZ]|\[\[:|&&|--|~~|\(\?[^:)]*[uUR]")  # syntax `re` reads otherwise, or not at all


def single_line(regex: str) -> bool:
    """Whether no match of `regex` (Rust syntax, as polars runs it) can hold a line break, nor
    depend on what lies beyond its own line. False whenever unsure."""
    if _RUST_ONLY.search(regex):
        return False
    try:
        parsed = P.parse(regex)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    return not _spans(parsed.data, bool(parsed.state.flags & re.DOTALL))


_NL = ord("\n")
_SPACE_CATS = {C.CATEGORY_SPACE, C.CATEGORY_NOT_WORD, C.CATEGORY_NOT_DIGIT}
_SAFE_CATS = {C.CATEGORY_NOT_SPACE, C.CATEGORY_WORD, C.CATEGORY_DIGIT}


def _spans(items: Sequence[tuple[Any, Any]], dotall: bool) -> bool:
    """Whether a parsed sequence may match a line break or look past a line (conservative)."""
    for op, av in items:
        if op is C.LITERAL:
            if av == _NL:
                return True
        elif op is C.NOT_LITERAL:
            if av != _NL:
                return True
        elif op is C.ANY:
            if dotall:
                return True
        elif op is C.IN:
            if _class_has_nl(av):
                return True
        elif op is C.AT:
            continue  # ^ $ \b \B \A \Z: match no less often on a line alone
        elif op is C.SUBPATTERN:
            _group, add, _del, sub = av
            if _spans(sub.data, dotall or bool(add & re.DOTALL)):
                return True
        elif op is C.BRANCH:
            if any(_spans(b.data, dotall) for b in av[1]):
                return True
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            if _spans(av[2].data, dotall):
                return True
        elif op is getattr(C, "ATOMIC_GROUP", None):
            if _spans(av.data, dotall):
                return True
        else:  # look-arounds, back-references, conditionals: unsure
            return True
    return False


def _class_has_nl(items: Sequence[tuple[Any, Any]]) -> bool:
    negate = False
    has = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            has |= av == _NL
        elif op is C.RANGE:
            lo, hi = av
            has |= lo <= _NL <= hi
        elif op is C.CATEGORY:
            if av in _SPACE_CATS:
                has = True
            elif av not in _SAFE_CATS:
                return True  # a category not known here: unsure
        else:
            return True
    return has != negate


@dataclass(frozen=True)
class Gate:
    """The tests of the module docstring, from (regex, prefilter literals) of each pattern."""

    keep_literals: tuple[str, ...]  # of patterns that may match across lines: a literal keeps its record
    regexes: tuple[str, ...]  # line-local regexes that keep a record (error words)
    single: tuple[tuple[str, tuple[str, ...]], ...]  # (regex, literals) of single-line patterns
    by_literal: dict[str, tuple[int, ...]] = field(default_factory=dict)  # literal -> indexes into `single`

    @classmethod
    def build(cls, patterns: Iterable[tuple[str, Sequence[str]]], regexes: Sequence[str] = ()) -> Gate:
        keep: set[str] = set()
        single: list[tuple[str, tuple[str, ...]]] = []
        for regex, literals in patterns:
            lits = tuple(sorted({lit for lit in literals if lit}))
            if not lits:
                continue
            if single_line(regex) and not any("\n" in lit for lit in lits):
                single.append((regex, lits))
            else:
                keep.update(lits)
        by_literal: dict[str, list[int]] = {}
        for i, (_, lits) in enumerate(single):
            for lit in lits:
                by_literal.setdefault(lit, []).append(i)
        return cls(tuple(sorted(keep)), tuple(regexes), tuple(single),
                   {k: tuple(v) for k, v in by_literal.items()})

    def kept(self, marked: pl.DataFrame, flagged: np.ndarray, plain: bool) -> np.ndarray:
        """The record ids (`rec`) of `marked` that classify must see, of the records holding a
        `flagged` line (used lines logscan's test flagged); sorted, unique."""
        rec = marked["rec"].to_numpy()
        idx = np.flatnonzero(flagged)
        if not idx.size:
            return idx
        recs = np.unique(rec[idx])
        # every used line of the flagged records (most records are one line), as the record holds it
        lines = idx if recs.size == idx.size else np.flatnonzero(marked["used"].to_numpy() & np.isin(rec, recs))
        sub = marked[lines].select("line", "tskind", "start", pl.col("text").fill_null(""))
        texts = _as_in_record(sub, plain)
        raw = sub["text"]
        keep = np.zeros(lines.size, bool)
        for rx in self.regexes:
            keep |= raw.str.contains(rx).fill_null(False).to_numpy() | texts.str.contains(rx).fill_null(False).to_numpy()
        # every literal each line holds, in one Aho-Corasick pass: a pattern's literal that may
        # match across lines keeps its record; one of a single-line pattern asks its regex
        at = rec[lines]
        held = (pl.DataFrame({"j": np.arange(lines.size, dtype=np.int64), "rec": at,
                              "lit": texts.str.extract_many(self._literals(), overlapping=True)})
                .explode("lit").drop_nulls("lit"))
        if self.keep_literals:
            keep[held.filter(pl.col("lit").is_in(self.keep_literals))["j"].to_numpy()] = True
        kept = np.unique(at[keep])
        rest = ~np.isin(at, kept)
        if not self.by_literal or not rest.any():
            return kept
        return np.union1d(kept, self._confirmed(at, texts, held, rest))

    def _confirmed(self, rec: np.ndarray, texts: pl.Series, held: pl.DataFrame, rest: np.ndarray) -> np.ndarray:
        """Of the records of lines `rest` (`rec` and text of each line, every line of each
        record; `held`: (j, lit), the literals line j holds), those where a single-line pattern
        one of whose literals they hold matches one of their lines: a regex per (line, pattern)."""
        pairs = (held.filter(pl.Series(rest).gather(held["j"]))
                 .join(self._literal_table(), on="lit").select("rec", "rx").unique())
        lines = pl.DataFrame({"rec": rec, "text": texts}).filter(pl.Series(rest))
        return (lines.join(pairs, on="rec")
                .filter(pl.col("text").str.contains(pl.col("rx")))
                ["rec"].unique().sort().to_numpy())

    def _literals(self) -> list[str]:
        got = self.__dict__.get("_all")
        if got is None:
            got = sorted({*self.keep_literals, *self.by_literal})
            object.__setattr__(self, "_all", got)
        return got

    def _literal_table(self) -> pl.DataFrame:
        table = self.__dict__.get("_table")
        if table is None:
            rows = [(lit, self.single[i][0]) for lit, ids in self.by_literal.items() for i in ids]
            table = pl.DataFrame(rows, schema={"lit": pl.Utf8, "rx": pl.Utf8}, orient="row")
            object.__setattr__(self, "_table", table)
        return table


def _as_in_record(sub: pl.DataFrame, plain: bool) -> pl.Series:
    """The texts of some lines (`line`, `tskind`, `start`, `text`) as their records hold them: a
    record's first line without its timestamp (`plaintext.strip_timestamps`, as `records` with
    the frame's `bracket_plain`)."""
    from logsleuth.ingest import plaintext as pt

    starts = sub["start"].to_numpy()
    if not starts.any():
        return sub["text"]
    heads = sub.filter(pl.col("start"))
    stripped = pt.strip_timestamps(heads, plain)["text"]
    text = sub["text"].clone()
    return text.scatter(np.flatnonzero(starts), stripped)
