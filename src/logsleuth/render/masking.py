"""Redact a whole Analysis before rendering.

Redacting the rendered text is not enough: renderers shorten strings ("…"), and a secret cut in
half no longer matches its pattern. So every string the renderers can see — event texts, commands,
findings, sentences, graph labels — is masked first, and the rendered context is masked again.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np
import polars as pl

from logsleuth.analysis import Analysis

_ATOMS = frozenset({bool, int, float, type(None)})


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(t: type) -> tuple[str, ...]:
    """The fields of a dataclass type (empty for anything else), looked up once per type."""
    names = _FIELDS.get(t)
    if names is None:
        names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(t)) if dataclasses.is_dataclass(t) else ()
    return names


class _Masker:
    """Maps every string of a structure through `fn` (copying dataclasses, tuples, frames)."""

    def __init__(self, redactor: Any, learn: bool = False, rows: dict[int, np.ndarray] | None = None):
        self.r = redactor
        self.fn = self._learn if learn else redactor.redact
        self.memo: dict[int, Any] = {}  # shared objects stay shared: link code compares by identity
        # per frame (by id): the rows a rule may match, found by the learn pass, reused by the mask pass
        self.rows = rows if rows is not None else {}

    def _learn(self, text: str) -> str:
        self.r.learn(text)
        return text

    def __call__(self, obj: Any) -> Any:
        t = type(obj)
        if t is str:
            new = self.fn(obj)
            return obj if new == obj else new
        if t in _ATOMS or isinstance(obj, enum.Enum):
            return obj
        if isinstance(obj, str):
            return self.fn(obj)
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        out: Any
        names = _field_names(t)
        if names:
            # rebuild only what changed: most findings and actions hold no secret
            changed = {}
            for name in names:
                value = getattr(obj, name)
                new = self(value)
                if new is not value:
                    changed[name] = new
            out = dataclasses.replace(obj, **changed) if changed else obj
        elif isinstance(obj, pl.DataFrame):
            out = self._frame(obj)
        elif isinstance(obj, (tuple, list)):
            items = [self(x) for x in obj]
            same = all(a is b for a, b in zip(items, obj, strict=True))
            out = obj if same else type(obj)(items)
        elif isinstance(obj, dict):
            new_dict = {k: self(v) for k, v in obj.items()}
            out = obj if all(new_dict[k] is v for k, v in obj.items()) else new_dict
        else:
            out = obj  # datetimes, the pattern library: nothing secret
        self.memo[key] = out
        return out

    def _frame(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The `text` column masked. Only the rows that may hold a secret (one vectorised test,
        `Redactor.maybe_secret`) go through the Python rules: an events table is mostly not."""
        if "text" not in frame.columns:
            return frame
        texts = frame["text"]
        if id(frame) not in self.rows:
            self.rows[id(frame)] = self.r.maybe_secret(texts, known=False)
        maybe = self.rows[id(frame)]
        if self.fn == self._learn:  # learning reads; it need not build a copy of the frame
            for text in texts.gather(np.flatnonzero(maybe)).to_list():
                self._learn(text or "")
            return frame
        rows = np.flatnonzero(maybe | self.r.maybe_secret(texts, rules=False))
        picked = texts.gather(rows).to_list()
        new = [self.fn(t) if t else t for t in picked]
        changed = [i for i, (a, b) in enumerate(zip(picked, new, strict=True)) if a != b]
        if not changed:
            return frame
        values = pl.Series("text", [new[i] for i in changed], dtype=pl.Utf8)
        return frame.with_columns(texts.clone().scatter(rows[changed], values))


def redact_analysis(an: Analysis, *, hosts: bool = False) -> tuple[Analysis, Any]:
    """A copy of `an` with every string masked, and the redactor (its `count`, `counts`)."""
    from logsleuth.redact import Redactor

    redactor = Redactor(hosts=hosts)
    names = [f.name for f in dataclasses.fields(an) if f.name != "library"]
    # pass 1 learns every secret in its context; pass 2 masks them everywhere, context or not
    learn = _Masker(redactor, learn=True)
    for name in names:
        learn(getattr(an, name))
    masker = _Masker(redactor, rows=learn.rows)
    masker.memo[id(an.library)] = an.library
    fields = {name: masker(getattr(an, name)) for name in names}
    return dataclasses.replace(an, **fields), redactor
