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
    def __init__(self, redactor: Any):
        self.r = redactor
        self.memo: dict[int, Any] = {}  # shared objects stay shared: link code compares by identity

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, enum.Enum) or obj is None or isinstance(obj, (bool, int, float)):
            return obj
        if isinstance(obj, str):
            return self.r.redact(obj)
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        out: Any
        if isinstance(obj, pl.DataFrame):
            out = obj.with_columns(
                pl.col("text").map_elements(self.r.redact, return_dtype=pl.Utf8) if "text" in obj.columns else []
            )
        elif isinstance(obj, tuple):
            out = tuple(self(x) for x in obj)
        elif isinstance(obj, list):
            out = [self(x) for x in obj]
        elif isinstance(obj, dict):
            out = {k: self(v) for k, v in obj.items()}
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            out = dataclasses.replace(obj, **{f.name: self(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
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
    learn = _Masker(Redactor(hosts=hosts))
    for name in names:
        learn(getattr(an, name))
    redactor._known.update(learn.r._known)
    masker = _Masker(redactor)
    masker.memo[id(an.library)] = an.library
    fields = {name: masker(getattr(an, name)) for name in names}
    return dataclasses.replace(an, **fields), redactor
