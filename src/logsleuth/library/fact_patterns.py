"""Fact patterns: what a session shows about its machine and stack, read by library data.

`patterns/_facts/<id>.yaml` (see its README) holds one pattern per file: a regex with named
captures, the fact it states (`gpu`, `driver`, `package` …), where it looks (tool output, the
commands run, file names a search printed) and its examples. The facts stage
(`logsleuth.facts`) runs them; no renderer reads transcript text with a regex of its own.
A bad file is a located `Problem` and is left out, as for error patterns.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logsleuth.library.loader import builtin_dir, parse_yaml
from logsleuth.library.pattern import Example, Problem

FACTS_DIR = "_facts"
FACTS = ("gpu", "driver", "cuda", "nvcc", "package", "host", "gpu_arch")
APPLIES_TO = ("output", "command", "file_name")
DEFAULT_KINDS = ("tool_result", "log")
_KEYS = frozenset({"id", "title", "fact", "applies_to", "kinds", "priority", "prefilter", "regex", "matches",
                   "keep", "value", "how", "examples"})
_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class FactMatch:
    """One match of a fact pattern: its captures and the value they make (`value` formatted)."""

    value: str
    captures: dict[str, str]


@dataclass(frozen=True, slots=True)
class FactPattern:
    id: str
    title: str
    fact: str  # one of FACTS
    applies_to: str  # one of APPLIES_TO
    kinds: tuple[str, ...]
    priority: int
    prefilter: tuple[str, ...]  # empty: every text is searched
    regex: str
    every: bool  # every match in a text counts (else the first)
    keep: str  # "first" or "last", across the session
    value: str
    how: str
    match_examples: tuple[Example, ...]
    no_match_examples: tuple[Example, ...]
    path: str
    line: int = 1

    @property
    def compiled(self) -> re.Pattern[str]:
        return _compile(self.regex)

    def gate(self, text: str) -> bool:
        """Can `text` hold a match (a substring test, far cheaper than the regex on long output)?"""
        return not self.prefilter or any(p in text for p in self.prefilter)

    def find(self, text: str) -> Iterator[FactMatch]:
        """The matches in `text`: every one, or the first, as the pattern says."""
        if not self.gate(text):
            return
        rx = self.compiled
        found = rx.finditer(text) if self.every else filter(None, (rx.search(text),))
        for m in found:
            caps = {k: v for k, v in m.groupdict().items() if v is not None}
            yield FactMatch(self.value.format_map(_Blank(caps)), caps)


class _Blank(dict[str, str]):
    """Captures for `str.format_map`: a group that did not take part reads as empty."""

    def __missing__(self, key: str) -> str:
        return ""


@functools.lru_cache(maxsize=64)
def _compile(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


@dataclass(frozen=True, slots=True)
class FactLibrary:
    patterns: tuple[FactPattern, ...]  # by priority (highest first), then id
    problems: tuple[Problem, ...] = ()

    def of(self, applies_to: str, fact: str | None = None) -> tuple[FactPattern, ...]:
        return tuple(p for p in self.patterns if p.applies_to == applies_to and (fact is None or p.fact == fact))

    @property
    def prefilters(self) -> tuple[str, ...]:
        """Every literal of the `output` patterns (one vectorised pass picks the rows to read)."""
        return tuple(sorted({lit for p in self.of("output") for lit in p.prefilter}))


@functools.cache
def builtin_facts() -> FactLibrary:
    """The built-in fact patterns (patterns/_facts), loaded once per process."""
    root = builtin_dir()
    return load_facts(root / FACTS_DIR if root is not None else None)


def load_facts(folder: Path | None) -> FactLibrary:
    """Every `*.yaml` of `folder`, validated; a bad file is a Problem and is left out."""
    if folder is None or not folder.is_dir():
        return FactLibrary(())
    problems: list[Problem] = []
    patterns = []
    for path in sorted(folder.glob("*.yaml")):
        display = f"patterns/{FACTS_DIR}/{path.name}"
        pattern = _parse(path, display, problems)
        if pattern is not None:
            patterns.append(pattern)
    patterns.sort(key=lambda p: (-p.priority, p.id))
    return FactLibrary(tuple(patterns), tuple(problems))


def _parse(path: Path, display: str, problems: list[Problem]) -> FactPattern | None:
    try:
        data, lines = parse_yaml(path.read_text(encoding="utf-8"))
    except Exception as exc:  # a YAML or read error: located at the file
        problems.append(Problem(display, 1, f"cannot read: {exc}"))
        return None
    before = len(problems)

    def bad(key: str, message: str) -> None:
        problems.append(Problem(display, lines.get((key,), 1), message, pattern=path.stem))

    if not isinstance(data, dict):
        bad("", "a fact pattern is a mapping")
        return None
    for key in sorted(set(data) - _KEYS):
        bad(key, f"unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
    if data.get("id") != path.stem:
        bad("id", f"id {data.get('id')!r} must equal the file name {path.stem!r}")
    _choice(data, "fact", FACTS, bad)
    _choice(data, "applies_to", APPLIES_TO, bad)
    _choice(data, "matches", ("every", "first"), bad)
    _choice(data, "keep", ("first", "last"), bad)
    try:
        groups = set(re.compile(str(data.get("regex", ""))).groupindex)
    except re.error as exc:
        bad("regex", f"regex does not compile: {exc}")
        groups = set()
    for name in _FIELD.findall(str(data.get("value", ""))):
        if name not in groups:
            bad("value", f"value names {{{name}}}, not a capture of the regex")
    examples = data.get("examples") or {}
    match = tuple(_examples(examples.get("match"), ("examples", "match"), lines))
    no_match = tuple(_examples(examples.get("no_match"), ("examples", "no_match"), lines))
    if not match or not no_match:
        bad("examples", "needs at least one `match` and one `no_match` example")
    if len(problems) > before:
        return None
    return FactPattern(
        id=path.stem, title=str(data.get("title", "")), fact=data["fact"], applies_to=data["applies_to"],
        kinds=tuple(data.get("kinds") or DEFAULT_KINDS), priority=int(data.get("priority", 50)),
        prefilter=tuple(str(p) for p in data.get("prefilter") or ()), regex=str(data["regex"]),
        every=data["matches"] == "every", keep=data["keep"], value=str(data.get("value", "")),
        how=str(data.get("how", "")), match_examples=match, no_match_examples=no_match, path=display,
        line=lines.get((), 1),
    )


def _choice(data: dict[str, Any], key: str, allowed: Sequence[str], bad: Any) -> None:
    if data.get(key) not in allowed:
        bad(key, f"{key} must be one of {', '.join(allowed)}, not {data.get(key)!r}")


def _examples(items: Any, key: tuple[str, ...], lines: dict[tuple[Any, ...], int]) -> Iterator[Example]:
    for i, item in enumerate(items or ()):
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            caps = {str(k): str(v) for k, v in (item.get("captures") or {}).items()}
            yield Example(item["text"], lines.get((*key, i), 1), caps)


def check_examples(p: FactPattern) -> list[str]:
    """What is wrong with the pattern's examples (empty when each behaves): a `match` example
    must match with its captures (its first match), a `no_match` example must not match."""
    out = []
    for expect, examples in ((True, p.match_examples), (False, p.no_match_examples)):
        out += [f"{p.path}:{ex.line}: {msg}" for ex in examples for msg in _example_problems(p, ex, expect)]
    return out


def check_example(p: FactPattern, ex: Example, expect: bool) -> str:
    """What is wrong with one example ("" when it behaves): `expect` it to match, or not."""
    return "; ".join(_example_problems(p, ex, expect))


def _example_problems(p: FactPattern, ex: Example, expect: bool) -> list[str]:
    m = p.compiled.search(ex.text) if p.gate(ex.text) else None
    if not expect:
        return [f"{ex.text!r} matches"] if m is not None else []
    if m is None:
        return [f"{ex.text!r} does not match"]
    return [f"capture {k} is {m.groupdict().get(k)!r}, not {v!r}" for k, v in ex.captures.items()
            if m.groupdict().get(k) != v]


def facts_for(dirs: Sequence[str | Path] = (), builtins: bool = True) -> FactLibrary:
    """The fact patterns `patterns lint` and `patterns test` check: the built-in ones, and those
    of each pattern directory's `_facts/` (a directory given twice, or the built-in one given by
    path, is read once)."""
    root = builtin_dir()
    folders = [root / FACTS_DIR] if builtins and root is not None else []
    folders += [Path(d) / FACTS_DIR for d in dirs]
    seen: set[Path] = set()
    patterns: list[FactPattern] = []
    problems: list[Problem] = []
    for folder in folders:
        if not folder.is_dir() or folder.resolve() in seen:
            continue
        seen.add(folder.resolve())
        lib = load_facts(folder)
        patterns += lib.patterns
        problems += lib.problems
    patterns.sort(key=lambda p: (-p.priority, p.id))
    return FactLibrary(tuple(patterns), tuple(problems))
