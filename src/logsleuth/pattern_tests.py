"""Every embedded example is a test: `patterns test` and the pytest suite both run these.

Per example: a `match` example must pass the prefilter, match in both engines (Python `regex`
and polars) and yield its captures; a `no_match` example must not be found. Across the library:
each `match` example, classified as an event of its own, must be won by its own pattern (or at
least its own category) — so a new pattern cannot silently steal another's errors.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from logsleuth.classify import classify, primary_of
from logsleuth.ingest.base import EventSink
from logsleuth.library import regexes
from logsleuth.library.fact_patterns import FactLibrary
from logsleuth.library.fact_patterns import check_example as check_fact_example
from logsleuth.library.pattern import DEFAULT_KINDS, Example, Pattern, PatternLibrary

_ROLE_FOR_KIND = {"log": "log", "tool_result": "tool", "tool_call": "assistant", "text": "system",
                  "reasoning": "assistant"}


@dataclass(frozen=True, slots=True)
class ExampleResult:
    pattern: str
    check: str  # "match" | "no_match" | "wins"
    index: int
    ok: bool
    message: str
    path: str
    line: int

    @property
    def name(self) -> str:
        return f"{self.pattern}:{self.check}[{self.index}]"

    def __str__(self) -> str:
        status = "ok" if self.ok else "FAIL"
        return f"{self.path}:{self.line}: {status} {self.name}" + (f": {self.message}" if self.message else "")


def _polars_finds(rx: str, text: str) -> tuple[bool, dict[str, str]]:
    s = pl.Series([text], dtype=pl.Utf8)
    found = bool(s.str.contains(rx).item())
    caps: dict[str, str] = {}
    if found:
        first = s.str.extract_groups(rx).item() or {}
        caps = {k: v for k, v in first.items() if v is not None and not k.isdigit()}
    return found, caps


def check_example(p: Pattern, ex: Example, expect_match: bool, timeout: float = regexes.DEFAULT_TIMEOUT) -> str:
    """'' when the example behaves as declared, else what went wrong."""
    prefiltered = any(lit in ex.text for lit in p.prefilter)
    try:
        m = regexes.search(p.regex, ex.text, timeout)
    except regexes.RegexTimeout as exc:
        return f"Python regex: {exc} (catastrophic backtracking?)"
    py_caps = regexes.captures_of(m) if m else {}
    if p.portable:
        pl_found, pl_caps = _polars_finds(p.regex, ex.text)
        if pl_found != (m is not None):
            return f"engines disagree: Python {'matches' if m else 'does not match'}, polars " \
                   f"{'matches' if pl_found else 'does not'}"
        if m is not None and pl_caps != py_caps:
            return f"engines disagree on captures: Python {py_caps}, polars {pl_caps}"
    if not expect_match:
        if m is not None and prefiltered:
            return f"matched, but is a no_match example (matched {m.group(0)!r})"
        return ""
    if m is None:
        return "the regex does not match"
    if not prefiltered:
        return f"no prefilter literal {list(p.prefilter)} occurs in the example: stage 1 would skip it"
    wrong = {k: (v, py_caps.get(k)) for k, v in ex.captures.items() if py_caps.get(k) != v}
    if wrong:
        return "captures differ: " + ", ".join(f"{k}: expected {e!r}, got {g!r}" for k, (e, g) in sorted(wrong.items()))
    return ""


def _event_kind(p: Pattern, ex: Example) -> str:
    if ex.kind:
        return ex.kind
    kinds = p.scope.kinds if p.scope.kinds is not None else DEFAULT_KINDS
    return "log" if "log" in kinds else kinds[0]


def _winner_checks(library: PatternLibrary) -> list[ExampleResult]:
    """Classify every match example as its own session, in one classify call."""
    sink = EventSink("-", "examples")
    sessions: list[tuple[str, Pattern, int, Example]] = []
    for p in library.patterns:
        for i, ex in enumerate(p.match_examples):
            sess = f"{p.id}#{i}"
            kind = _event_kind(p, ex)
            is_error = ex.is_error if ex.is_error is not None else p.scope.is_error
            call_id = None
            if ex.command is not None or kind == "tool_result":
                call_id = "c"
                sink.add(line=ex.line, role="assistant", kind="tool_call", text=ex.command or "", tool="bash",
                         call_id=call_id, session=sess)
            sink.add(line=ex.line, role=_ROLE_FOR_KIND[kind], kind=kind, text=ex.text, call_id=call_id,
                     is_error=is_error, session=sess)
            sessions.append((sess, p, i, ex))
    result = classify(sink.frame(), library)
    by_session = defaultdict(list)
    for f in result.findings:
        by_session[f.session].append(f)
    out = []
    for sess, p, i, ex in sessions:
        found = by_session.get(sess, [])
        if p.severity.is_failure:
            winner = primary_of(found)
        else:
            same = [f for f in found if not f.severity.is_failure]
            winner = max(same, key=lambda f: (f.priority, f.pattern == p.id), default=None)
        if winner is None:
            own = "" if any(f.pattern == p.id for f in found) else " (its own pattern did not fire on it)"
            msg = "nothing won" + own
        elif winner.pattern == p.id or winner.category == p.category:
            msg = ""
        else:
            msg = f"won by {winner.pattern} ({winner.category}, priority {winner.priority}) over priority {p.priority}"
        out.append(ExampleResult(p.id, "wins", i, msg == "", msg, p.path, ex.line))
    return out


def _each_example(patterns: Iterable[Any], check_one: Callable[[Any, Any, bool], str]) -> list[ExampleResult]:
    """Every match / no_match example of every pattern (error or fact pattern: both carry an id, a
    path and their examples), checked by `check_one(pattern, example, expect_match)`."""
    out: list[ExampleResult] = []
    for p in patterns:
        for check, examples, expect in (("match", p.match_examples, True), ("no_match", p.no_match_examples, False)):
            for i, ex in enumerate(examples):
                msg = check_one(p, ex, expect)
                out.append(ExampleResult(p.id, check, i, msg == "", msg, p.path, ex.line))
    return out


def fact_example_checks(facts: FactLibrary) -> list[ExampleResult]:
    """Every example of every fact pattern (patterns/_facts), as results like the error patterns'."""
    return _each_example(facts.patterns, check_fact_example)


def example_checks(library: PatternLibrary, *, whole_library: bool = True) -> list[ExampleResult]:
    """Run every example of every pattern; with whole_library, also the 'won by its own' check."""
    out = _each_example(library.patterns, check_example)
    if whole_library and library.patterns:
        out.extend(_winner_checks(library))
    return sorted(out, key=lambda r: (r.pattern, r.check, r.index))


def summary(results: Sequence[ExampleResult]) -> str:
    failed = sum(1 for r in results if not r.ok)
    return f"{len(results) - failed} passed, {failed} failed"
