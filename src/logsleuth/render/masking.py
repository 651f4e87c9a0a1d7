"""The one masking pass every output goes through: analyses, findings, event tables, index rows.

Redacting the rendered text is not enough: renderers shorten strings ("…"), and a secret cut in
half no longer matches its pattern. So every string a renderer can see — event texts, commands,
findings, sentences, graph labels — is masked first (`redact_object`, `redact_analysis`), and the
rendered context is masked again. Commands that print rows call `mask_events` (an event table)
or `mask_tree` (JSON-like rows: `classify`, index rows). Every entry point learns all secrets in
their context first (`mysql -pX` teaches X) and then masks them everywhere.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis
    from logsleuth.redact import Redactor

T = TypeVar("T")

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

    def __init__(self, redactor: Any, collect: bool = False, rows: dict[tuple[int, str], np.ndarray] | None = None,
                 changing: frozenset[str] = frozenset(), on_chunk: Callable[[list[str | list[str]]], None] | None = None,
                 frames: bool = True):
        self.r = redactor
        self.collect = collect
        self.items: list[str | list[str]] = []  # collect: strings, and lists of a frame's texts
        # collect: handed the items every LEARN_CHUNK of them, which are then dropped (with the
        # memo): the walk of a few hundred thousand findings held every string and object at once
        self.on_chunk = on_chunk
        self.chunks = 0  # chunks handed over so far
        self.walk_frames = frames  # False: frames are passed over (a second collecting walk)
        self.changing = changing  # mask: the strings redaction changes (all others map to themselves)
        self.memo: dict[int, Any] = {}  # each object is walked once (a shared object masked once)
        # per frame (by id): the rows a rule may match, found by the collect pass, reused by the mask pass
        self.rows = rows if rows is not None else {}
        self.frames = 0  # frames met so far

    def flush(self) -> None:
        """Hand the items collected so far to `on_chunk` and start afresh."""
        if self.on_chunk is not None:
            self.on_chunk(self.items)
            self.chunks += 1
            self.items = []
            self.memo.clear()  # a shared object met again is walked again: its strings come again, later

    def fn(self, text: str) -> str:
        if self.collect:
            self.items.append(text)
            if len(self.items) >= LEARN_CHUNK and self.on_chunk is not None:
                self.flush()
            return text
        return self.r.redact(text) if text in self.changing else text

    def _item(self, obj: Any) -> Any:
        """`self(obj)`, with the leaves (a plain string, a number, None) handled without the call:
        a few hundred thousand findings are millions of leaves."""
        t = type(obj)
        if t is str:
            if self.collect:
                self.items.append(obj)
                if len(self.items) >= LEARN_CHUNK and self.on_chunk is not None:
                    self.flush()
                return obj
            if obj in self.changing:
                new = self.r.redact(obj)
                return obj if new == obj else new
            return obj
        if t in _ATOMS:
            return obj
        return self(obj)

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
                new = self._item(value)
                if new is not value:
                    changed[name] = new
            out = dataclasses.replace(obj, **changed) if changed else obj
        elif isinstance(obj, pl.DataFrame):
            out = self._frame(obj) if self.walk_frames else obj
        elif isinstance(obj, (tuple, list)):
            items = [self._item(x) for x in obj]
            same = all(a is b for a, b in zip(items, obj, strict=True))
            out = obj if same else type(obj)(items)
        elif isinstance(obj, dict):
            new_dict = {k: self._item(v) for k, v in obj.items()}
            out = obj if all(new_dict[k] is v for k, v in obj.items()) else new_dict
        else:
            out = obj  # datetimes, the pattern library: nothing secret
        self.memo[key] = out
        return out

    def _frame(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Every string column masked (`text` above all; ids and names a transcript chose too).
        Only the rows that may hold a secret (one vectorised test, `Redactor.maybe_secret`) go
        through the Python rules: an events table is mostly not."""
        self.frames += 1
        out = frame
        for name, dtype in frame.schema.items():
            if dtype == pl.Utf8:
                out = self._column(out, name, (id(frame), name))
        return out

    def _pem_bodies(self, texts: pl.Series) -> None:
        if texts.str.contains("PRIVATE KEY", literal=True).any():
            for line in pem_body_rows(texts):
                self.r.remember(line, "private_key")
        for joined in wrapped_rows(texts):  # a token or a blob that a line-based reader split into rows
            self.r.learn(joined)

    def _column(self, frame: pl.DataFrame, name: str, key: tuple[int, str]) -> pl.DataFrame:
        texts = frame[name]
        if key not in self.rows:
            self.rows[key] = self.r.maybe_secret(texts, known=False)
        maybe = self.rows[key]
        if self.collect:  # reading; no copy of the frame
            self.items.append([t or "" for t in texts.gather(np.flatnonzero(maybe)).to_list()])
            self._pem_bodies(texts)
            if len(self.items) >= LEARN_CHUNK and self.on_chunk is not None:
                self.flush()
            return frame
        rows = np.flatnonzero(maybe | self.r.maybe_secret(texts, rules=False))
        picked = texts.gather(rows).to_list()
        new = [self.r.redact(t) if t else t for t in picked]
        changed = [i for i, (a, b) in enumerate(zip(picked, new, strict=True)) if a != b]
        if not changed:
            return frame
        values = pl.Series(name, [new[i] for i in changed], dtype=pl.Utf8)
        return frame.with_columns(texts.clone().scatter(rows[changed], values))


_PEM_BEGIN = r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
PEM_MAX_ROWS = 200  # a key is ~50 lines of base64; a BEGIN with no END in sight stops here


_PEM_ROW = re.compile(r"[A-Za-z0-9+/=]*|[A-Z][A-Za-z\-]*: [^\n]*")


def pem_body_rows(texts: pl.Series) -> list[str]:
    """The lines of private keys a line-based reader split into rows (one row per line: the rule
    sees `-----BEGIN … PRIVATE KEY-----` alone, and the base64 below it has no context)."""
    begins = np.flatnonzero(texts.str.contains(_PEM_BEGIN).fill_null(False).to_numpy())
    body: list[str] = []
    for b in begins.tolist():
        if "-----END" in (texts[b] or ""):
            continue
        for row in texts.slice(b + 1, PEM_MAX_ROWS).to_list():
            # a key cut short ends where its lines stop being base64 or RFC 1421 headers
            if row is None or "-----END" in row or not _PEM_ROW.fullmatch(row.strip()):
                break
            body.append(row.strip())
    return body


# a row that may be a wrapped token's head (a token shape's prefix and a few characters, at its
# end) or a line of a wrapped base64 blob; the rows after it are joined to it and learned
_WRAP_HEAD = r"(?:^|[^A-Za-z0-9_\-.])(?:{heads})[A-Za-z0-9_\-.]{{2,}}[ \t]*$|^[A-Za-z0-9+/]{{40,}}$"
WRAP_ROWS = 4  # a head and up to three more lines (redact_families.split_rule)


def wrapped_rows(texts: pl.Series) -> list[str]:
    """Each row that may start a wrapped token or blob, joined to the WRAP_ROWS - 1 rows after it:
    the rules see the whole (and remember its pieces), where each row alone shows too little."""
    from logsleuth.redact_families import SPLIT_PREFIXES
    from logsleuth.redact_rules import TOKEN_HEADS

    if texts.len() < 2:
        return []
    head = _WRAP_HEAD.format(heads="|".join([SPLIT_PREFIXES, *TOKEN_HEADS]))
    starts = np.flatnonzero(texts.str.contains(head).fill_null(False).to_numpy())
    out = []
    for i in starts.tolist():
        rows = [t or "" for t in texts.slice(i, WRAP_ROWS).to_list()]
        if len(rows) > 1:
            out.append("\n".join(rows))
    return out


SMALL_KNOWN_TEST = 50_000  # strings × known values up to which the known-value test runs in Python


TEST_CHUNK = 20_000  # strings per vectorised test: a Series of every string of 200k findings was ~200 MB


def _tested(redactor: Redactor, strings: list[str], **which: bool) -> list[bool]:
    """`Redactor.maybe_secret` of each string (a test per string), a chunk of strings at a time."""
    out: list[bool] = []
    for i in range(0, len(strings), TEST_CHUNK):
        out.extend(redactor.maybe_secret(pl.Series(strings[i:i + TEST_CHUNK], dtype=pl.Utf8), **which).tolist())
    return out


LEARN_CHUNK = 200_000  # items a learning walk collects before it tests and learns them


def _learn(
    redactor: Redactor, parts: dict[str, Any], rules: Mapping[str, bool] | None = None
) -> tuple[_Masker, frozenset[str], set[str]]:
    """Pass 1: walk every string of each part; learn the ones a rule may match (a vectorised
    test, or `rules`: that test already run on these strings), in the order met, so every secret
    is known in its context before anything is masked. Returns the collecting walk (its frame
    rows are reused), the strings redaction changes, and the parts that hold a frame.

    The walk is learned a chunk of LEARN_CHUNK items at a time, in order, and each chunk dropped:
    the same secrets in the same order as one list of every string (a string met again later is
    learned already; the private-key lines of a frame are remembered when the frame is met, as
    before, and every caller walks its frames first). Which strings hold a learned value is
    known only once all are learned: a walk longer than one chunk is walked a second time
    (frames passed over), a chunk at a time."""
    rules = rules or {}
    maybe: set[str] = set()  # the strings a rule may match (a set of the few, not a flag for each of a million)
    last: list[str] = []  # the distinct strings of the last chunk

    def learn(items: list[str | list[str]]) -> None:
        nonlocal last
        strings = list(dict.fromkeys(x for x in items if isinstance(x, str)))
        untested = [s for s in strings if s not in rules] if rules else strings
        hits = {s for s in strings if rules.get(s, False)} if rules else set()
        if untested:
            hits.update(s for s, hit in zip(untested, _tested(redactor, untested, known=False), strict=True) if hit)
        # the rules that may match each text (None: all), found for a chunk in one vectorised pass
        picked = [s for s in strings if s in hits]
        only = dict(zip(picked, redactor.rule_sets(picked), strict=True))
        for item in items:
            if isinstance(item, str):
                if item in hits:
                    redactor.learn(item, only[item])
            else:
                for text, subset in zip(item, redactor.rule_sets(item), strict=True):
                    redactor.learn(text, subset)
        maybe.update(hits)
        last = strings

    collect = _Masker(redactor, collect=True, on_chunk=learn)
    with_frames: set[str] = set()
    for name, value in parts.items():
        before = collect.frames
        collect(value)
        if collect.frames > before:
            with_frames.add(name)
    collect.flush()
    changing = set(maybe)
    values = redactor.known_values()

    def known(strings: list[str]) -> None:
        """The strings holding a value learned (the rules' answer is `maybe`)."""
        if len(strings) * len(values) <= SMALL_KNOWN_TEST:  # a few rows: a polars query costs more
            hit = [any(v in s for v in values) for s in strings]
        else:
            hit = _tested(redactor, strings, rules=False)
        changing.update(s for s, h in zip(strings, hit, strict=True) if h)

    if values and collect.chunks == 1:
        known(last)
    elif values:
        again = _Masker(redactor, collect=True, frames=False,
                        on_chunk=lambda items: known(list(dict.fromkeys(x for x in items if isinstance(x, str)))))
        for value in parts.values():
            again(value)
        again.flush()
    return collect, frozenset(changing), with_frames


def _mask_parts(
    parts: dict[str, Any], redactor: Redactor, keep: tuple[Any, ...] = (), learn_only: frozenset[str] = frozenset(),
    rules: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """Every part with every string masked (learned across all parts first); a part with no frame
    and no string redaction changes is returned as it is (its walk would rebuild the same objects).
    The parts named in `learn_only` teach their secrets but are not masked (not returned)."""
    collect, changing, with_frames = _learn(redactor, parts, rules)
    rows = collect.rows  # the walk's strings and objects are freed before the second walk makes its own
    del collect
    masker = _Masker(redactor, rows=rows, changing=changing)
    for obj in keep:
        masker.memo[id(obj)] = obj
    return {name: masker(value) if changing or name in with_frames else value
            for name, value in parts.items() if name not in learn_only}


def new_redactor(hosts: bool = False) -> Redactor:
    from logsleuth.redact import Redactor

    return Redactor(hosts=hosts)


def redact_object(obj: T, *, hosts: bool = False, redactor: Redactor | None = None) -> tuple[T, Redactor]:
    """A copy of `obj` (dataclasses, tuples, lists, dicts, frames, strings) with every string masked,
    and the redactor (its `count`, `counts`). Pass one redactor to several calls to share what it
    learned (a secret seen in one object is masked in the next)."""
    r = redactor if redactor is not None else new_redactor(hosts)
    return _mask_parts({"obj": obj}, r)["obj"], r


def redact_output(obj: T, context: Any, rules: Mapping[str, bool] | None = None) -> T:
    """`obj` masked as `redact_object((context, obj))` masks it, without masking `context`: the
    secrets `context` teaches (an event table read for `classify`) are learned in the same order,
    but a context that is not printed is not copied. `rules` as for `mask_tree`."""
    return _mask_parts({"context": context, "obj": obj}, new_redactor(), learn_only=frozenset({"context"}),  # type: ignore[no-any-return]
                       rules=rules)["obj"]


def redact_analysis(an: Analysis, *, hosts: bool = False) -> tuple[Analysis, Redactor]:
    """A copy of `an` with every string masked, and the redactor (its `count`, `counts`)."""
    redactor = new_redactor(hosts)
    parts = {f.name: getattr(an, f.name) for f in dataclasses.fields(an) if f.name != "library"}
    return dataclasses.replace(an, **_mask_parts(parts, redactor, keep=(an.library,))), redactor


def mask_tree(obj: T, redactor: Redactor | None = None, rules: Mapping[str, bool] | None = None) -> T:
    """A JSON-like tree (dicts, lists, strings: `classify` documents, index rows) masked.
    `rules`: `Redactor.maybe_secret(known=False)` of (some of) its strings, already run on a
    batch holding them (index rows of many inputs)."""
    r = redactor if redactor is not None else new_redactor()
    return _mask_parts({"obj": obj}, r, rules=rules)["obj"]  # type: ignore[no-any-return]


def strings_of(obj: Any) -> list[str]:
    """Every distinct string of a JSON-like tree (or dataclasses, tuples), as `mask_tree` meets them."""
    collect = _Masker(None, collect=True)
    collect(obj)
    return list(dict.fromkeys(x for x in collect.items if isinstance(x, str)))


def rule_tests(strings: list[str]) -> list[bool]:
    """`Redactor.maybe_secret(known=False)` of each string: what `mask_tree`'s `rules` holds. A
    test of one string alone: a server keeps the answers of the strings it showed before."""
    return _tested(new_redactor(), strings, known=False)


def mask_events(frame: pl.DataFrame, redactor: Redactor | None = None) -> pl.DataFrame:
    """An event table with every string column masked (`events`, and any command printing rows)."""
    return redact_object(frame, redactor=redactor)[0]
