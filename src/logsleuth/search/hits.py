"""A search's hits: one prior finding each (the best occurrence of an error in a session), what
was done about it, and the answer they form (`SearchResult`), as JSON or as a table (render.py).
A hit is built from a ranked stored row (ranked.Ranked, typed at index/record.py); `hits_of`
reads the hits of ranked finding ids from a sidecar (sidecar.hit_rows)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from logsleuth.enums import Outcome
from logsleuth.index.record import StoredAction
from logsleuth.search import render
from logsleuth.search.query import Query
from logsleuth.search.ranked import Ranked, ranked_of


@dataclass(frozen=True, slots=True)
class Hit:
    session: str
    source: str
    line: int
    seq: int
    ts: datetime | None
    pattern: str
    category: str
    text: str
    score: float
    fixes: tuple[StoredAction, ...]  # the action(s) that stopped the episode
    held: bool | None
    attempts: tuple[StoredAction, ...]  # attempts that did not fix it
    catch22: bool
    outcome: Outcome | None  # the session's; None when the index does not say
    occurrences: int
    origin: str | None = None  # who/which machine indexed the input (`index --origin`)
    fingerprint: str | None = None
    fix: str | None = None  # the verdict's fix: the state that changed (index/sessionrows.py)
    fix_state: str | None = None  # the verdict's: held | came back | gone on re-run | … | open

    @classmethod
    def of(cls, r: Ranked) -> Hit:
        return cls(**{name: getattr(r, name) for name in cls.__slots__})

    @property
    def action(self) -> str | None:
        """What fixed it: the verdict's change of state, else the command (an older index)."""
        return render.fix_of(self.fix, self.fix_state, self.fixes)

    @property
    def fix_held(self) -> bool | None:
        return render.held_of(self.fix_state, self.held)

    def resolution(self) -> dict[str, Any] | None:
        if self.action is None:
            return None
        return {"action": self.action, "held": self.fix_held, "catch22": self.catch22,
                "outcome": render.outcome_text(self.outcome), "state": self.fix_state,
                "command": render.action(self.fixes)}

    def resolution_text(self, width: int = 0) -> str:
        """"fixed by `uv pip install …` in session X — did not hold", or what was tried (`width` > 0
        shortens each command to that many characters)."""
        return render.resolution_text(self.session, self.fixes, self.held, self.attempts, self.catch22,
                                      self.outcome, width, self.fix, self.fix_state)

    def to_dict(self) -> dict[str, Any]:
        from logsleuth.jsonout import iso

        return {
            "session": self.session,
            "source": self.source,
            "line": self.line,
            "seq": self.seq,
            "ts": iso(self.ts),
            "pattern": self.pattern,
            "category": self.category,
            "text": self.text,
            "score": self.score,
            "resolution": self.resolution(),
            "attempts": list(dict.fromkeys(a.command for a in self.attempts)),
            "occurrences": self.occurrences,
            "summary": self.resolution_text(),
            "origin": self.origin,
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: Query
    hits: tuple[Hit, ...]
    errors: tuple[str, ...] = ()  # inputs of --in that could not be read

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query.to_dict(), "results": [h.to_dict() for h in self.hits]}
        if self.errors:
            out["errors"] = list(self.errors)
        return out


def hit_of(r: Mapping[str, Any]) -> Hit:
    """A hit from one ranked row (a stored row with `score` and `occurrences`)."""
    return Hit.of(ranked_of(r))


def hits_of(con: sqlite3.Connection, top: Sequence[tuple[int, float, int]]) -> tuple[Hit, ...]:
    """The hits of ranked finding ids in a sidecar: (id, score, occurrences), in that order."""
    from logsleuth.search.sidecar import hit_rows

    return tuple(Hit.of(h) for h in hit_rows(con, top))


def render_table(result: SearchResult) -> str:
    """Plain text: the query's reading, then one block per hit."""
    q = result.query
    query = {"text": q.text, "pattern": q.pattern, "category": q.category, "captures": q.captures}
    return render.table(query, result.hits, result.errors)
