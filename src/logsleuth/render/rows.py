"""The events of a session as small read-only rows for the narrative (`row["kind"]`, `row["text"]`).

A long session has tens of thousands of events. A row is only (its table, its index): a column
becomes a Python list the first time any row reads it (strings that repeat shared), and `text` is
read from the events table when asked (the report reads few texts). As dicts they took ~1 KB
each; as rows holding every column in slots, ~350 bytes; as views, ~80.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import polars as pl

from logsleuth.model import EVENT_SCHEMA

_COLUMNS = tuple(c for c in EVENT_SCHEMA if c != "text")
_SHARED = frozenset({"session", "source", "role", "kind", "tool"})


class _Table:
    """The columns of the events, each made a list when first read."""

    __slots__ = ("frame", "lists", "texts")

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame
        self.texts = frame["text"]
        self.lists: dict[str, list[Any]] = {}

    def column(self, name: str) -> list[Any]:
        col = self.lists.get(name)
        if col is None:
            col = self.frame[name].to_list()
            if name in _SHARED:
                shared: dict[Any, Any] = {}
                col = [shared.setdefault(v, v) for v in col]
            self.lists[name] = col
        return col


class EventRow(Mapping[str, Any]):
    __slots__ = ("_i", "_t")

    def __init__(self, table: _Table, i: int):
        self._t = table
        self._i = i

    def __getitem__(self, key: str) -> Any:
        if key == "text":
            return self._t.texts[self._i]
        if key in _COLUMNS:
            return self._t.column(key)[self._i]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter((*_COLUMNS, "text"))

    def __len__(self) -> int:
        return len(_COLUMNS) + 1


def event_rows(events: pl.DataFrame) -> list[EventRow]:
    """One row per event, in seq order."""
    table = _Table(events)
    order = np.argsort(events["seq"].to_numpy(), kind="stable")
    return [EventRow(table, i) for i in order.tolist()]
