"""A query classified against the pattern snapshot a search sidecar carries, without the library.

query.classify_query reads a query as one event with the pattern library; the library's types
import polars, which the lean command-line search (cli.py) must not. This module does the
same work over `index.patterns.snapshot` (plain data): the pattern-id lookup, the query as a log
line then as a failed tool's output, prefilter literals, scope rules, regexes with their
timeouts, fingerprints, suppression, and the primary finding as classify.primary_of chooses it.
tests/test_search_sidecar.py checks it against classify_query on every example of the library.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

    from logsleuth.search.query import Query

    Found = dict[str, Any]  # one finding of the query: pattern, category, rank, priority, line, captures, fingerprint

MAX_MATCHES_PER_EVENT = 200  # classify.MAX_MATCHES_PER_EVENT
DEFAULT_KINDS = ("tool_result", "log")  # library.pattern.DEFAULT_KINDS
_WS = re.compile(r"\s+")
TIMEOUT = 0.5  # library.regexes.DEFAULT_TIMEOUT (that package's __init__ imports the library's types)


def classify(text: str, patterns: Sequence[Mapping[str, Any]]) -> Query:
    """query.Query of `text` (query.classify_query over the snapshot)."""
    from logsleuth.errors import UsageError
    from logsleuth.search.query import Query

    if not text.strip():
        raise UsageError("empty query", hint="paste the error text, or give a pattern id")
    return Query(**reading(text, patterns))


def reading(text: str, patterns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The fields of query.Query for a non-empty `text`, as plain values (the lean path imports
    neither query.py nor dataclasses). The `regex` module is imported only when some pattern's
    prefilter occurs in the query."""
    text = text.strip()
    for p in patterns:
        if p["id"] == text:
            return {"text": text, "pattern": p["id"], "category": p["category"], "captures": {},
                    "fingerprint": None, "by_id": True}
    for as_result in (False, True):
        found = _findings(text, patterns, as_result)
        f = _pick(found)
        if f is not None:
            return {"text": text, "pattern": f["pattern"], "category": f["category"],
                    "captures": dict(f["captures"]), "fingerprint": f["fingerprint"], "by_id": False}
    return {"text": text, "pattern": None, "category": None, "captures": {}, "fingerprint": None, "by_id": False}


def fingerprint(pattern_id: str, captures: Mapping[str, str], names: Sequence[str]) -> str:
    """classify.fingerprint."""
    try:  # the interpreter's own SHA-1: hashlib loads OpenSSL first
        from _sha1 import sha1
    except ImportError:  # pragma: no cover
        from hashlib import sha1

    parts = [pattern_id] + [_WS.sub(" ", captures.get(n, "")).strip().strip("'\"`").lower() for n in names]
    return str(sha1("\x1f".join(parts).encode()).hexdigest())[:12]


def _pick(found: Sequence[Found]) -> Found | None:
    """query._pick over classify.primary_of: the primary (highest-priority error or fatal not
    outranked on its event within its category, earliest among equals), else the strongest
    warning-or-worse finding, else the strongest of all."""
    primary: Found | None = None
    best: dict[str, int] = {}
    for f in found:
        best[f["category"]] = max(best.get(f["category"], f["priority"]), f["priority"])
    for f in sorted(found, key=lambda f: (-f["priority"], f["pattern"], f["line"], f["fingerprint"])):
        if f["priority"] < best[f["category"]] or f["rank"] < 3:
            continue
        if primary is None or f["priority"] > primary["priority"]:
            primary = f
    if primary is not None:
        return primary
    failures = [f for f in found if f["rank"] >= 2]
    pool = failures or list(found)
    return max(pool, key=lambda f: (f["rank"], f["priority"]), default=None)


def _findings(text: str, patterns: Sequence[Mapping[str, Any]], tool_result: bool) -> list[Found]:
    """query._query_findings over the snapshot."""
    kind = "tool_result" if tool_result else "log"
    out: list[Found] = []
    seen: set[tuple[str, str]] = set()
    cancelled: set[str] = set()
    for p in patterns:
        if not any(lit in text for lit in p["prefilter"]):
            continue
        kinds = DEFAULT_KINDS if p["kinds"] is None else p["kinds"]
        if kind not in kinds or (p["is_error"] is not None and p["is_error"] != tool_result):
            continue
        if p["command"] is not None and not _matches(p["command"], ""):
            continue
        try:
            matches = [m for _, m in zip(range(MAX_MATCHES_PER_EVENT), _finditer(p["regex"], text), strict=False)]
        except TimeoutError:
            continue
        for m in matches:
            if m.end() <= m.start():
                continue
            captures = _captures(p["regex"], m, p["portable"], set(p["groups"]))
            fp = fingerprint(p["id"], captures, p["fingerprint"])
            if (p["id"], fp) in seen:
                continue
            seen.add((p["id"], fp))
            cancelled.update(p["suppresses"])
            line = 1 + (text.count("\n", 0, m.start()) if kind == "log" else 0)
            out.append({"pattern": p["id"], "category": p["category"], "rank": p["rank"], "priority": p["priority"],
                        "line": line, "captures": dict(sorted(captures.items())), "fingerprint": fp})
    out = [f for f in out if f["category"] not in cancelled]
    return sorted(out, key=lambda f: (-f["priority"], f["pattern"], f["line"], f["fingerprint"]))


_COMPILED: dict[str, Any] = {}


def _compiled(rx: str) -> Any:
    c = _COMPILED.get(rx)
    if c is None:
        import regex  # ~20 ms of CPU: only for a query some pattern's prefilter matched

        c = _COMPILED[rx] = regex.compile(rx)
    return c


def _search(rx: str, text: str) -> Any:
    return _compiled(rx).search(text, timeout=TIMEOUT)


def _finditer(rx: str, text: str) -> Iterator[Any]:
    yield from _compiled(rx).finditer(text, timeout=TIMEOUT)


def _named(m: Any) -> dict[str, str]:
    return {k: v for k, v in m.groupdict().items() if v is not None}


def _matches(rx: str, text: str) -> bool:
    try:
        return _search(rx, text) is not None
    except TimeoutError:
        return False


def _captures(rx: str, m: Any, portable: bool, named: set[str]) -> dict[str, str]:
    if portable:
        try:
            again = _search(rx, m.group(0))
        except TimeoutError:
            again = None
        if again is not None:
            return {k: v for k, v in _named(again).items() if k in named}
    return _named(m)
