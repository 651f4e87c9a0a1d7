"""Deterministic JSON output (orjson): stable key order, UTC `Z` timestamps, no wall clock."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson


def _default(obj: Any) -> Any:
    if isinstance(obj, datetime):
        return iso(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def iso(ts: datetime | None) -> str | None:
    if ts is None:
        return None
    return ts.strftime("%Y-%m-%dT%H:%M:%S") + (f".{ts.microsecond // 1000:03d}" if ts.microsecond else "") + "Z"


def dumps(obj: Any, *, indent: bool = True) -> bytes:
    opts = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
    if indent:
        opts |= orjson.OPT_INDENT_2
    return orjson.dumps(obj, default=_default, option=opts)


def event_rows(frame: Any) -> list[dict[str, Any]]:
    """Event-table rows as plain dicts with ISO timestamps. The normalised call's columns
    (model.CALL_SCHEMA) are keys of tool calls only: every other row keeps the contract's shape."""
    from logsleuth.model import CALL_SCHEMA  # here: model imports polars, most users of this module need not

    present = [c for c in CALL_SCHEMA if c in frame.columns]
    calls = frame.select(present).to_dicts() if present and (frame["kind"] == "tool_call").any() else None
    rows: list[dict[str, Any]] = frame.drop(present).to_dicts()
    for i, r in enumerate(rows):
        r["ts"] = iso(r["ts"])
        if calls is not None and r["kind"] == "tool_call":
            r.update(calls[i])
    return rows


def plain(obj: Any) -> Any:
    """Datetimes to ISO strings, tuples to lists: a tree JSON and templates can take as is."""
    if isinstance(obj, datetime):
        return iso(obj)
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj
