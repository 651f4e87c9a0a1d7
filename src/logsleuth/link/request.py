"""What the user's request asks for, read once: the targets it names to get passing, those it only
keeps as checks, and the failures it pastes (the same failures a later run shows)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import polars as pl

from logsleuth.actions.shellparse import commands
from logsleuth.link.constraints import request_text
from logsleuth.link.runs import target_of
from logsleuth.model import Finding


def goal_targets(events: pl.DataFrame) -> list[str]:
    """The targets the user's first request names in backticks (`make check`, `pytest`)."""
    text = request_text(events)
    out = []
    for span in re.findall(r"`([^`\n]{2,200})`", text):
        for c in commands(span):
            t = target_of(c)
            if t is not None:
                out.append(t.name)
    return list(dict.fromkeys(out))


# "`make hardening` has to keep passing": a check the request keeps, not what it asks to get passing
_KEEPS_PASSING = re.compile(r"\b(?:has|have|needs?|must|should)\s+(?:to\s+)?(?:keep|stay|remain|still)\s+"
                            r"(?:passing|green|working|clean|succeeding)\b|\bmust (?:still )?pass\b", re.I)


_CLAUSE = re.compile(r"(?<=[.;!?])\s+|;\s*")


def clauses(text: str) -> list[str]:
    """The request's sentences and semicolon clauses."""
    return _CLAUSE.split(text)


def kept_targets(events: pl.DataFrame) -> list[str]:
    """The targets the request names only as checks that must keep passing (a rule, not the goal)."""
    text = request_text(events)
    kept: list[str] = []
    asked: list[str] = []
    for clause in clauses(text):
        for span in re.findall(r"`([^`\n]{2,200})`", clause):
            names = [t.name for c in commands(span) if (t := target_of(c)) is not None]
            (kept if _KEEPS_PASSING.search(clause) else asked).extend(names)
    return [n for n in dict.fromkeys(kept) if n not in asked]


def quoted_as_found(main: Sequence[Finding], events: pl.DataFrame) -> list[Finding]:
    """A failure the user pasted into a message is the failure a later run shows when that run's line
    is inside the quote: one failure, first seen in the user's words (heldout7 tessera: the request's
    quoted nvcc error and the build's own were two failures, their lines clipped differently)."""
    users = set(events.filter(pl.col("role").cast(pl.Utf8) == "user")["seq"].to_list()) if events.height else set()
    if not users:
        return list(main)
    out = []
    for f in main:
        if f.seq in users:
            later = next((g for g in main if g.seq > f.seq and g.seq not in users and g.pattern == f.pattern
                          and (head := g.text.strip().split("\n", 1)[0].strip()) and head in f.text), None)
            f = dataclasses.replace(f, fingerprint=later.fingerprint) if later is not None else f
        out.append(f)
    return out
