"""A query read as a finding: its pattern, captures and fingerprint, with the pattern library.

The query (pasted error text, one line or a whole traceback, or a pattern id) is classified as
if it were a log event (`classify_query`); snapshot_query.py does the same over the library
snapshot a search sidecar carries, for the lean command-line path (tested equal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from logsleuth.errors import UsageError

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary
    from logsleuth.model import Finding


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    pattern: str | None
    category: str | None = None
    captures: Mapping[str, str] = field(default_factory=dict)
    fingerprint: str | None = None
    by_id: bool = False  # the query was a pattern id

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pattern": self.pattern, "captures": dict(sorted(self.captures.items()))}
        out["category"] = self.category
        out["fingerprint"] = self.fingerprint
        out["mode"] = "text" if self.pattern is None else "pattern"
        return out


def _pick(findings: Sequence[Finding], primary: Finding | None) -> Finding | None:
    if primary is not None:
        return primary
    failures = [f for f in findings if f.severity.rank >= 2]  # a warning at least
    pool = failures or list(findings)
    return max(pool, key=lambda f: (f.severity.rank, f.priority), default=None)


def classify_query(text: str, lib: PatternLibrary) -> Query:
    """The query as a finding: its pattern, captures and fingerprint (pattern None: unclassified)."""
    text = text.strip()
    if not text:
        raise UsageError("empty query", hint="paste the error text, or give a pattern id")
    p = lib.get(text)
    if p is not None:
        return Query(text, p.id, p.category, by_id=True)
    # as a log line first; then as a failed tool's output (patterns scoped to tool results)
    for as_result in (False, True):
        findings = _query_findings(text, lib, as_result)
        from logsleuth.classify import primary_of

        f = _pick(findings, primary_of(findings))
        if f is not None:
            return Query(text, f.pattern, f.category, dict(f.captures), f.fingerprint)
    return Query(text, None)


def _query_findings(text: str, lib: PatternLibrary, tool_result: bool) -> list[Finding]:
    """classify.classify of the query as one event, in plain Python: the same findings (stage 1's
    literals, the scope rules, the regexes, fingerprints, suppression), without the polars
    round trips, explanations and residue a whole classify costs (~15 ms against ~0.1 ms).
    tests/test_search.py checks it against classify.classify on every example of the library."""
    from logsleuth.classify import MAX_MATCHES_PER_EVENT, fingerprint
    from logsleuth.library import regexes
    from logsleuth.library.pattern import DEFAULT_KINDS
    from logsleuth.model import Finding

    kind = "tool_result" if tool_result else "log"
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    cancelled: set[str] = set()  # categories a matching pattern declares routine on this event
    for p in lib.patterns:
        if not any(lit in text for lit in p.prefilter):
            continue
        kinds = DEFAULT_KINDS if p.scope.kinds is None else p.scope.kinds
        if kind not in kinds or (p.scope.is_error is not None and p.scope.is_error != tool_result):
            continue
        # no tool call goes with the query: a command scope sees the empty command
        if p.scope.command is not None and not _matches(p.scope.command, ""):
            continue
        try:
            matches = [m for _, m in zip(range(MAX_MATCHES_PER_EVENT), regexes.finditer(p.regex, text), strict=False)]
        except regexes.RegexTimeout:
            continue  # classify skips the event for this pattern too (with a warning)
        for m in matches:
            if m.end() <= m.start():
                continue
            captures = _captures(p.regex, m, p.portable, set(p.groups))
            fp = fingerprint(p.id, captures, p.fingerprint)
            if (p.id, fp) in seen:
                continue
            seen.add((p.id, fp))
            cancelled.update(p.suppresses)
            line = 1 + (text.count("\n", 0, m.start()) if kind == "log" else 0)
            out.append(Finding(
                pattern=p.id, category=p.category, severity=p.severity, priority=p.priority, session="query",
                seq=0, source="query", line=line, text=m.group(0), captures=dict(sorted(captures.items())),
                fingerprint=fp, explanation="", fixes=(), ts=None,
            ))  # fmt: skip
    out = [f for f in out if f.category not in cancelled]
    return sorted(out, key=lambda f: (-f.priority, f.pattern, f.line, f.fingerprint))


def _matches(rx: str, text: str) -> bool:
    from logsleuth.library import regexes

    try:
        return regexes.search(rx, text) is not None
    except regexes.RegexTimeout:
        return False


def _captures(rx: str, m: Any, portable: bool, named: set[str]) -> dict[str, str]:
    """As classify: a portable regex's captures come from re-running it on the matched text,
    falling back to the match in context when the regex needs that context."""
    from logsleuth.library import regexes

    if portable:
        try:
            again = regexes.search(rx, m.group(0))
        except regexes.RegexTimeout:
            again = None
        if again is not None:
            return {k: v for k, v in regexes.captures_of(again).items() if k in named}
    return regexes.captures_of(m)


def parse_since(value: str | None) -> datetime | None:
    """`YYYY-MM-DD` or an ISO datetime (naive means UTC)."""
    if not value:
        return None
    try:
        ts = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise UsageError(f"--since: not a date: {value!r}", hint="use YYYY-MM-DD or an ISO datetime") from exc
    try:
        return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)
    except OverflowError as exc:  # 9999-12-31T23:59-23:59 is past year 9999 in UTC
        raise UsageError(f"--since: out of range: {value!r}", hint="use a date between years 1 and 9999") from exc
