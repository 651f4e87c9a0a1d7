"""Search the corpus index: have we seen this error before, and what fixed it?

The query (pasted error text, one line or a whole traceback, or a pattern id) is classified with
the pattern library as if it were a log event; the hits are prior findings of the same pattern,
ranked by fingerprint equality, then capture similarity, then text similarity (rapidfuzz
token_set_ratio), then newest first, ties broken by session, source and line. One hit per
(session, source, pattern, fingerprint): a session that hit the same error thirty times is one
result with `occurrences: 30`. A query no pattern recognises falls back to full-text search over
the indexed failure text, ranked by FTS5's bm25. Both are ranked in SQLite over the index's
search sidecar (search_rank.PATTERN_SQL, TEXT_SQL) when it holds the committed state; otherwise
pattern queries are ranked in Python over the Parquet rows (the same order, tested) and full-text
ones over an in-memory sidecar (`--in`, a stale read-only index).
Never imports spaCy (no reasoning is run), and importing this module does not import polars:
the lean command-line path (search_cli.py over the SQLite sidecar of search_sidecar.py) shares
its Query, Hit, ranking and rendering with the Parquet path here.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logsleuth import search_render
from logsleuth.errors import InputError, Location, UsageError
from logsleuth.search_rank import pattern_hits, rank, text_hits

if TYPE_CHECKING:
    import polars as pl

    from logsleuth.library import PatternLibrary
    from logsleuth.model import Finding

DEFAULT_LIMIT = 10
COMMAND_WIDTH = search_render.COMMAND_WIDTH
FAILURE_SEVERITIES = ("fatal", "error", "warning")
# What ranking a pattern's rows reads, and the resolution columns of its hits.
RANK_COLUMNS = (
    "session", "source", "line", "seq", "ts", "pattern", "category", "severity", "priority", "fingerprint",
    "captures", "text", "origin", "file_sha256",
)  # fmt: skip
RESOLUTION_COLUMNS = ("success", "resolved_by", "held", "attempts", "catch22", "outcome")
COLUMNS = RANK_COLUMNS + RESOLUTION_COLUMNS


@functools.cache
def library(pattern_dirs: tuple[str, ...] = (), builtins: bool = True) -> PatternLibrary:
    """The pattern library, loaded (and validated) once per process."""
    from logsleuth.library import load_library

    lib = load_library(list(pattern_dirs), builtins=builtins)
    if not pattern_dirs and builtins:
        _DEFAULT.add(id(lib))  # cached for the life of the process: its id stays its own
    return lib


_DEFAULT: set[int] = set()  # id() of the default library once loaded


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
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


held_text = search_render.held_text


@dataclass(frozen=True, slots=True)
class Hit:
    session: str
    source: str
    line: int
    seq: int
    ts: datetime | None
    pattern: str
    category: str
    text: str
    score: float
    fixes: tuple[Mapping[str, Any], ...]  # the action(s) that stopped the episode
    held: bool | None
    attempts: tuple[Mapping[str, Any], ...]  # attempts that did not fix it
    catch22: bool
    outcome: str
    occurrences: int
    origin: str | None = None  # who/which machine indexed the input (`index --origin`)
    fingerprint: str | None = None

    @property
    def action(self) -> str | None:
        return search_render.action(self.fixes)

    def resolution(self) -> dict[str, Any] | None:
        if self.action is None:
            return None
        return {"action": self.action, "held": self.held, "catch22": self.catch22, "outcome": self.outcome}

    def resolution_text(self, width: int = 0) -> str:
        """"fixed by `uv pip install …` in session X — did not hold", or what was tried (`width` > 0
        shortens each command to that many characters)."""
        return search_render.resolution_text(self.session, self.fixes, self.held, self.attempts, self.catch22,
                                             self.outcome, width)

    def to_dict(self) -> dict[str, Any]:
        from logsleuth.jsonout import iso

        return {
            "session": self.session,
            "source": self.source,
            "line": self.line,
            "seq": self.seq,
            "ts": iso(self.ts),
            "pattern": self.pattern,
            "category": self.category,
            "text": self.text,
            "score": self.score,
            "resolution": self.resolution(),
            "attempts": list(dict.fromkeys(str(a["command"]) for a in self.attempts)),
            "occurrences": self.occurrences,
            "summary": self.resolution_text(),
            "origin": self.origin,
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: Query
    hits: tuple[Hit, ...]
    errors: tuple[str, ...] = ()  # inputs of --in that could not be read

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query.to_dict(), "results": [h.to_dict() for h in self.hits]}
        if self.errors:
            out["errors"] = list(self.errors)
        return out


def search(
    text: str,
    *,
    db: Path | None = None,
    files: Sequence[str] = (),
    category: str | None = None,
    since: datetime | None = None,
    limit: int = DEFAULT_LIMIT,
    pattern_dirs: Sequence[str] = (),
    lib: PatternLibrary | None = None,
    sidecar: bool = True,
) -> SearchResult:
    """Prior occurrences of the query's error in the index at `db` (or in `files`, analysed now).

    `sidecar`: with the default library, rewrite the index's search sidecar when it is stale (a
    read-only reader, `serve`, passes False)."""
    import polars as pl

    from logsleuth import index, index_rows, search_sidecar

    if limit < 1:
        raise UsageError("--limit must be at least 1")
    lib = lib if lib is not None else library(tuple(pattern_dirs))
    q = classify_query(text, lib)
    pred = _predicate(q, category, since)
    errors: list[str] = []
    if files:
        frame, errors = index_rows.analyse_files(files, lib)
        if q.pattern is None:  # the same SQL ranking as over an index, over these inputs' failures
            mem = search_sidecar.memory(frame.filter(pl.col("severity").is_in(FAILURE_SEVERITIES)))
            try:
                return SearchResult(q, _text_hits(mem, q, category, since, limit), tuple(errors))
            finally:
                mem.close()
        best = rank(q, frame.filter(pred).select(COLUMNS), limit)
        return SearchResult(q, _hits(best), tuple(errors))
    where = Path(db if db is not None else index.default_dir())
    if sidecar and id(lib) in _DEFAULT:  # the default library: the one the lean path classifies with
        search_sidecar.refresh(where, lib)  # stale or missing: rebuilt for the next search
    # ranked in SQL (search_rank.PATTERN_SQL, TEXT_SQL) over the sidecar when it holds the committed
    # state (any library: the query is read already, the rows are the index's)
    con = search_sidecar.open_current(where, library=False)
    if con is not None:
        try:
            if q.pattern is not None:
                top = pattern_hits(con, q.pattern, q.text, q.captures, q.fingerprint,
                                   since_us=search_sidecar.us_of(since), category=category, limit=limit)
                return SearchResult(q, _sidecar_hits(con, top))
            return SearchResult(q, _text_hits(con, q, category, since, limit))
        finally:
            con.close()
    if q.pattern is not None:  # one pattern's rows: row groups already decoded, read it all at once
        return SearchResult(q, _hits(rank(q, index.load(where, COLUMNS, pred), limit)))
    # full text without a current sidecar: over an in-memory one of the committed state
    with _MEMORY_LOCK:
        return SearchResult(q, _text_hits(_memory_sidecar(where), q, category, since, limit))


_MEMORY: dict[tuple[str, str], Any] = {}  # (index, manifest digest) -> in-memory sidecar (the latest only)
_MEMORY_LOCK = threading.Lock()


def _memory_sidecar(where: Path) -> Any:
    """An in-memory sidecar of the committed failures of the index at `where` (a read-only index
    whose sidecar is stale: `serve` beside a running `index`), kept while the state is current."""
    from logsleuth import index, search_sidecar

    for _ in range(3):
        digest = search_sidecar.manifest_digest(where) or ""
        key = (str(where), digest)
        if key in _MEMORY:
            return _MEMORY[key]
        frame = index.load(where, [c for c in search_sidecar.COLUMNS if c in index.FINDING_SCHEMA],
                           _failures())
        if search_sidecar.manifest_digest(where) == digest or not digest:
            for old in _MEMORY.values():
                old.close()
            _MEMORY.clear()
            _MEMORY[key] = search_sidecar.memory(frame)
            return _MEMORY[key]
        # a concurrent `index` run committed while it was read: read the new state
    raise InputError("index changed while reading it", Location(str(where)), "retry")


def _failures() -> pl.Expr:
    import polars as pl

    return pl.col("severity").is_in(FAILURE_SEVERITIES)


def _text_hits(con: Any, q: Query, category: str | None, since: datetime | None, limit: int) -> tuple[Hit, ...]:
    from logsleuth import search_sidecar

    top = text_hits(con, q.text, since_us=search_sidecar.us_of(since), category=category, limit=limit)
    return _sidecar_hits(con, top)


def _sidecar_hits(con: Any, top: Sequence[tuple[int, float, int]]) -> tuple[Hit, ...]:
    from logsleuth import search_cli

    return search_cli.hits_of(con, top)


def _predicate(q: Query, category: str | None, since: datetime | None) -> pl.Expr:
    import polars as pl

    # a full-text query is ranked in SQL (its filters too): this reads its failures only
    pred = pl.col("pattern") == q.pattern if q.pattern is not None else pl.col("severity").is_in(FAILURE_SEVERITIES)
    if category:
        pred = pred & (pl.col("category") == category)
    if since is not None:
        pred = pred & (pl.col("ts") >= pl.lit(since, pl.Datetime("us", "UTC")))
    return pred


def _hits(best: pl.DataFrame) -> tuple[Hit, ...]:
    return tuple(hit_of(r) for r in best.iter_rows(named=True))


def hit_of(r: Mapping[str, Any]) -> Hit:
    """A hit from one ranked row (the Parquet path's and the sidecar's rows alike)."""
    return Hit(**search_render.hit_values(r))


def render_table(result: SearchResult) -> str:
    """Plain text: the query's reading, then one block per hit."""
    q = result.query
    query = {"text": q.text, "pattern": q.pattern, "category": q.category, "captures": q.captures}
    hits = [{f: getattr(h, f) for f in Hit.__slots__} for h in result.hits]
    return search_render.table(query, hits, result.errors)
