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
    """Maps every string of a structure through `fn` (copying dataclasses, tuples, frames).

    With `collect`, it maps nothing: it lists the strings it meets and, for each frame, the texts
    of the rows a rule may match, in the order met (the order secrets are learned in)."""

    def __init__(self, redactor: Any, collect: bool = False, rows: dict[int, np.ndarray] | None = None,
                 changing: frozenset[str] = frozenset()):
        self.r = redactor
        self.collect = collect
        self.items: list[str | list[str]] = []  # collect: strings, and lists of a frame's texts
        self.changing = changing  # mask: the strings redaction changes (all others map to themselves)
        self.memo: dict[int, Any] = {}  # shared objects stay shared: link code compares by identity
        # per frame (by id): the rows a rule may match, found by the collect pass, reused by the mask pass
        self.rows = rows if rows is not None else {}
        self.frames = 0  # frames met so far

    def fn(self, text: str) -> str:
        if self.collect:
            self.items.append(text)
            return text
        return self.r.redact(text) if text in self.changing else text

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
        self.frames += 1
        if "text" not in frame.columns:
            return frame
        texts = frame["text"]
        if id(frame) not in self.rows:
            self.rows[id(frame)] = self.r.maybe_secret(texts, known=False)
        maybe = self.rows[id(frame)]
        if self.collect:  # reading; no copy of the frame
            self.items.append([t or "" for t in texts.gather(np.flatnonzero(maybe)).to_list()])
            return frame
        rows = np.flatnonzero(maybe | self.r.maybe_secret(texts, rules=False))
        picked = texts.gather(rows).to_list()
        new = [self.r.redact(t) if t else t for t in picked]
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
    # pass 1 lists every string; the ones a rule may match (one vectorised test) are learned, in
    # the order met, so every secret is known in its context before anything is masked
    collect = _Masker(redactor, collect=True)
    with_frames: set[str] = set()
    for name in names:
        before = collect.frames
        collect(getattr(an, name))
        if collect.frames > before:
            with_frames.add(name)
    strings = list(dict.fromkeys(x for x in collect.items if isinstance(x, str)))
    series = pl.Series(strings, dtype=pl.Utf8)
    maybe = dict(zip(strings, redactor.maybe_secret(series, known=False).tolist(), strict=True))
    for item in collect.items:
        if isinstance(item, str):
            if maybe[item]:
                redactor.learn(item)
        else:
            for text in item:
                redactor.learn(text)
    # pass 2 masks them everywhere, context or not; a field with no frame and no string that
    # redaction changes is kept as it is (its walk would only rebuild the same objects)
    # (the rules' answer is `maybe`; only the values learned just now are new to test)
    known = redactor.maybe_secret(series, rules=False).tolist()
    changing = [s for s, hit in zip(strings, known, strict=True) if hit or maybe[s]]
    masker = _Masker(redactor, rows=collect.rows, changing=frozenset(changing))
    masker.memo[id(an.library)] = an.library
    fields = {name: masker(getattr(an, name)) for name in names if changing or name in with_frames}
    return dataclasses.replace(an, **fields), redactor
