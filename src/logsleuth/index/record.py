"""A stored finding row as a typed record: the one place a row read back from the index (a Parquet
row of schema.FINDING_SCHEMA, or a row of the search sidecar, sidecar.py) becomes typed values —
Severity, Outcome and ActionKind members, booleans, datetimes, tuples of actions — so that search
and serve compare enums and typed fields, never the stored text.

Standard library and `enum` only (no dataclasses, typing or polars at run time): the lean
command-line search (search/cli.py) reads its hits through `finding_of`, and a search started from
the shell is mostly interpreter start-up (dataclasses and typing are ~10-30 ms of CPU each). So the
records are small classes with __slots__, frozen by `Record` (equal and hashable by value).
A value a column does not hold (an older index, a kind this version does not know) reads as None.
"""

from __future__ import annotations

import json
from datetime import datetime

from logsleuth.enums import ActionKind, Outcome, Severity
from logsleuth.index.sidecar import ts_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from enum import StrEnum
    from typing import Any, TypeVar

    E = TypeVar("E", bound=StrEnum)


class Record:
    """Frozen, equal and hashable by the values of its slots."""

    __slots__ = ()

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for c in type(self).__mro__ for n in c.__dict__.get("__slots__", ()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        names = [n for c in reversed(type(self).__mro__) for n in c.__dict__.get("__slots__", ())]
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"


class StoredAction(Record):
    """One action of a finding's `resolved_by` or `attempts` (schema.ACTION_STRUCT)."""

    __slots__ = ("command", "kind", "resolved", "seq", "subject", "value")
    command: str
    kind: ActionKind | None
    subject: str | None
    value: str | None
    seq: int | None
    resolved: str | None

    def __init__(self, *, command: str, kind: ActionKind | None = None, subject: str | None = None,
                 value: str | None = None, seq: int | None = None, resolved: str | None = None) -> None:
        self._set("command", command)
        self._set("kind", kind)
        self._set("subject", subject)
        self._set("value", value)
        self._set("seq", seq)
        self._set("resolved", resolved)


class StoredFinding(Record):
    """One indexed finding: where it was seen, what it is, and what was done about it."""

    __slots__ = (
        "attempts",
        "captures",
        "catch22",
        "category",
        "file_sha256",
        "fingerprint",
        "fix",
        "fix_state",
        "format",
        "held",
        "line",
        "origin",
        "outcome",
        "pattern",
        "primary",
        "priority",
        "resolved_by",
        "seq",
        "session",
        "severity",
        "source",
        "text",
        "ts",
    )  # fmt: skip
    session: str
    source: str
    line: int
    seq: int
    ts: datetime | None
    pattern: str
    category: str
    severity: Severity | None
    priority: int | None
    fingerprint: str | None
    captures: str | None  # JSON object, keys sorted (as stored: ranking compares it in SQL)
    text: str
    origin: str | None
    file_sha256: str | None
    format: str | None
    primary: bool
    resolved_by: tuple[StoredAction, ...]  # the action(s) that stopped the episode
    held: bool | None  # None: nothing resolved it
    attempts: tuple[StoredAction, ...]  # the attempts that did not fix it
    catch22: bool
    outcome: Outcome | None  # the session's
    fix: str | None  # the verdict's fix of the episode: the state that changed, one line
    fix_state: str | None  # the verdict's: held | came back | gone on re-run | gone by a later run | open

    def __init__(self, *, session: str, source: str, line: int, seq: int, ts: datetime | None, pattern: str,
                 category: str, severity: Severity | None, priority: int | None, fingerprint: str | None,
                 captures: str | None, text: str, origin: str | None, file_sha256: str | None, format: str | None,
                 primary: bool, resolved_by: tuple[StoredAction, ...], held: bool | None,
                 attempts: tuple[StoredAction, ...], catch22: bool, outcome: Outcome | None,
                 fix: str | None = None, fix_state: str | None = None) -> None:
        self._set("session", session)
        self._set("source", source)
        self._set("line", line)
        self._set("seq", seq)
        self._set("ts", ts)
        self._set("pattern", pattern)
        self._set("category", category)
        self._set("severity", severity)
        self._set("priority", priority)
        self._set("fingerprint", fingerprint)
        self._set("captures", captures)
        self._set("text", text)
        self._set("origin", origin)
        self._set("file_sha256", file_sha256)
        self._set("format", format)
        self._set("primary", primary)
        self._set("resolved_by", resolved_by)
        self._set("held", held)
        self._set("attempts", attempts)
        self._set("catch22", catch22)
        self._set("outcome", outcome)
        self._set("fix", fix)
        self._set("fix_state", fix_state)


def finding_of(row: Mapping[str, Any]) -> StoredFinding:
    """The typed record of a stored row: a Parquet row (datetimes, booleans, lists of action
    structs) or a sidecar row (microseconds since the epoch, 0/1, the action lists as JSON) alike.
    Columns the row does not hold read as None (False for the flags, () for the lists)."""
    get = row.get
    ts = get("ts")
    return StoredFinding(
        session=row["session"], source=row["source"], line=row["line"], seq=row["seq"],
        ts=ts_of(ts) if isinstance(ts, int) else ts, pattern=row["pattern"], category=row["category"],
        severity=enum_of(Severity, get("severity")), priority=get("priority"), fingerprint=get("fingerprint"),
        captures=get("captures"), text=row["text"], origin=get("origin"), file_sha256=get("file_sha256"),
        format=get("format"), primary=bool(get("primary")), resolved_by=actions_of(get("resolved_by")),
        held=_flag(get("held")), attempts=actions_of(get("attempts")), catch22=bool(get("catch22")),
        outcome=enum_of(Outcome, get("outcome")), fix=get("fix"), fix_state=get("fix_state"),
    )  # fmt: skip


def actions_of(value: str | list[Mapping[str, Any]] | None) -> tuple[StoredAction, ...]:
    """A stored list of actions (JSON text in the sidecar, a list of structs in Parquet)."""
    items = json.loads(value) if isinstance(value, str) else value
    return tuple(
        StoredAction(command=str(a["command"]), kind=enum_of(ActionKind, a.get("kind")), subject=a.get("subject"),
                     value=a.get("value"), seq=a.get("seq"), resolved=a.get("resolved"))
        for a in items or ()
    )


def enum_of(cls: type[E], value: object) -> E | None:
    """The member of `cls` a stored value names; None when it names none."""
    if value is None or isinstance(value, cls):
        return value
    try:
        return cls(str(value))
    except ValueError:
        return None


def _flag(value: object) -> bool | None:
    return None if value is None else bool(value)
