"""The events of a session as small read-only rows for the narrative (`row["kind"]`, `row["text"]`).

A long session has tens of thousands of events. As dicts (polars `to_dicts`) they took ~1 KB
each plus every text as a Python string; these rows keep the columns in slots, share the
strings that repeat (session, source, role, kind, tool), and make `text` from the events table
only when it is read (the report reads few texts).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from logsleuth.model import EVENT_SCHEMA

_COLUMNS = tuple(c for c in EVENT_SCHEMA if c != "text")
_SHARED = frozenset({"session", "source", "role", "kind", "tool"})


class EventRow(Mapping[str, Any]):
    __slots__ = ("_i", "_texts", *_COLUMNS)
    _texts: pl.Series
    _i: int

    def __getitem__(self, key: str) -> Any:
        if key == "text":
            return self._texts[self._i]
        if key in _COLUMNS:
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter((*_COLUMNS, "text"))

    def __len__(self) -> int:
        return len(_COLUMNS) + 1


def event_rows(events: pl.DataFrame) -> list[EventRow]:
    """One row per event, in seq order."""
    texts = events["text"]
    shared: dict[Any, Any] = {}
    out: list[EventRow] = []
    for i, values in enumerate(events.select(_COLUMNS).iter_rows()):
        row = EventRow()
        row._texts, row._i = texts, i
        for name, value in zip(_COLUMNS, values, strict=True):
            setattr(row, name, shared.setdefault(value, value) if name in _SHARED else value)
        out.append(row)
    out.sort(key=lambda r: r.seq)  # type: ignore[attr-defined]
    return out
