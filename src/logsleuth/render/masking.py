"""Redact a whole Analysis before rendering.

Redacting the rendered text is not enough: renderers shorten strings ("…"), and a secret cut in
half no longer matches its pattern. So every string the renderers can see — event texts, commands,
findings, sentences, graph labels — is masked first, and the rendered context is masked again.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import polars as pl

from logsleuth.analysis import Analysis


class _Masker:
    """Maps every string of a structure through `fn` (copying dataclasses, tuples, frames)."""

    def __init__(self, redactor: Any, learn: bool = False):
        self.r = redactor
        self.fn = self._learn if learn else redactor.redact
        self.memo: dict[int, Any] = {}  # shared objects stay shared: link code compares by identity

    def _learn(self, text: str) -> str:
        self.r.learn(text)
        return text

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, enum.Enum) or obj is None or isinstance(obj, (bool, int, float)):
            return obj
        if isinstance(obj, str):
            new = self.fn(obj)
            return obj if new == obj else new
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        out: Any
        if isinstance(obj, pl.DataFrame) and self.fn == self._learn:
            for text in obj["text"] if "text" in obj.columns else ():
                self._learn(text or "")  # learning reads; it need not build a copy of the frame
            out = obj
        elif isinstance(obj, pl.DataFrame):
            out = obj.with_columns(
                pl.col("text").map_elements(self.fn, return_dtype=pl.Utf8) if "text" in obj.columns else []
            )
        elif isinstance(obj, (tuple, list)):
            items = [self(x) for x in obj]
            same = all(a is b for a, b in zip(items, obj, strict=True))
            out = obj if same else type(obj)(items)
        elif isinstance(obj, dict):
            new = {k: self(v) for k, v in obj.items()}
            out = obj if all(new[k] is v for k, v in obj.items()) else new
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            # rebuild only what changed: most findings and actions hold no secret
            values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
            changed = {k: nv for k, v in values.items() if (nv := self(v)) is not v}
            out = dataclasses.replace(obj, **changed) if changed else obj
        else:
            out = obj  # datetimes, the pattern library: nothing secret
        self.memo[key] = out
        return out


def redact_analysis(an: Analysis, *, hosts: bool = False) -> tuple[Analysis, Any]:
    """A copy of `an` with every string masked, and the redactor (its `count`, `counts`)."""
    from logsleuth.redact import Redactor

    redactor = Redactor(hosts=hosts)
    names = [f.name for f in dataclasses.fields(an) if f.name != "library"]
    # pass 1 learns every secret in its context; pass 2 masks them everywhere, context or not
    learn = _Masker(redactor, learn=True)
    for name in names:
        learn(getattr(an, name))
    masker = _Masker(redactor)
    masker.memo[id(an.library)] = an.library
    fields = {name: masker(getattr(an, name)) for name in names}
    return dataclasses.replace(an, **fields), redactor
