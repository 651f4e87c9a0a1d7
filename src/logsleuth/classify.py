"""Events x pattern library -> findings, the primary (root-cause) finding, unclassified templates.

Two vectorised stages (see ARCHITECTURE.md, "Matching must be vectorised"):
1. one Aho-Corasick pass over the text column for every prefilter literal of every pattern
   (polars `str.contains_any` to drop rows, then `str.extract_many` on the survivors), giving
   the candidate (row, pattern) pairs; scope filters are joins and column expressions.
   Measured (70 MB of log events, 41 patterns, 2 cores): 0.12 s, against 0.54 s for one `select`
   of per-pattern `str.contains(literal, literal=True)`; the whole classify runs at ~0.28 GB/s,
   faster than loading, so Hyperscan would not pay for its extra dependency;
2. per pattern (a Python loop over patterns, never over lines), the regex runs in polars (Rust,
   linear time) on that pattern's candidate rows only, and captures are extracted from each match.
Python only walks the matches to place them on source lines and render explanations.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from logsleuth.library import regexes
from logsleuth.library.knowledge import Renderer
from logsleuth.library.pattern import DEFAULT_KINDS, Pattern, PatternLibrary
from logsleuth.model import Finding, Severity
from logsleuth.quoting import is_quoted
from logsleuth.residue import Unclassified, unclassified_templates

if TYPE_CHECKING:
    from logsleuth.ingest.gate import Gate

MAX_MATCHES_PER_EVENT = 200  # per pattern: distinct errors beyond this in one event are noise
SNIPPET_CHARS = 400
MAX_SNIPPET_LINES = 6
JOIN_EVENTS = 3  # a log line's message may go on over this many following log lines of its source
JOIN_CHARS = 400  # of their text, at most
JOIN_BLOCK = 8192  # candidates whose windows are read at a time


@dataclass(frozen=True, slots=True)
class Classification:
    """The result of classifying one input.

    `findings` are sorted by (session, seq, -priority, pattern); `secondary` holds the indexes of
    findings outranked on the same event by a higher-priority finding of the same category.
    `warnings` reports regexes abandoned on a row (Python-side timeouts), never a hang.
    """

    findings: tuple[Finding, ...]
    primary: Finding | None
    unclassified: tuple[Unclassified, ...]
    secondary: frozenset[int] = frozenset()
    warnings: tuple[str, ...] = ()

    def is_secondary(self, index: int) -> bool:
        return index in self.secondary

    def finding_dicts(self) -> list[dict[str, Any]]:
        out = []
        for i, f in enumerate(self.findings):
            d = f.to_dict()
            if f.primary:
                d["primary"] = True
            if i in self.secondary:
                d["secondary"] = True
            out.append(d)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": self.primary.to_dict() if self.primary else None,
            "findings": self.finding_dicts(),
            "unclassified": [u.to_dict() for u in self.unclassified],
        }


@dataclass(frozen=True, slots=True)
class _Match:
    row: int
    pid: int
    pos: int  # character offset of the match in the event text
    end: int
    captures: Mapping[str, str]


def classify(
    events: pl.DataFrame,
    library: PatternLibrary,
    *,
    timeout: float = regexes.DEFAULT_TIMEOUT,
    quoted_success: bool = False,
) -> Classification:
    """Classify every event against the library (see the module docstring).

    `quoted_success`: success patterns also read assistant text. For transcripts that keep no
    command output (aider's history), the assistant quoting it is the only record of success.
    """
    ev = events.with_row_index("_row").with_columns(pl.col("text").fill_null(""))
    patterns = library.patterns
    warnings: list[str] = []
    matches: list[_Match] = []
    if patterns and ev.height:
        pairs = _candidates(ev, patterns, quoted_success)
        pairs = _in_scope(ev, pairs, patterns, quoted_success)
        matches = _stage2(ev, pairs, patterns, timeout, warnings)
        mev, own = _joined(ev, pairs)
        if mev is not ev:
            matches += _across_lines(mev, pairs, own, matches, patterns, timeout, warnings)
        matches = _unquoted(mev, matches)
    else:
        mev = ev
    renderer = library.renderer or Renderer(library.knowledge)
    findings, spans = _findings(mev, matches, patterns, renderer, warnings)
    matches.clear()  # freed before the residue is built: the findings hold what is needed of them
    findings = _floor_covered(_unsuppressed(findings, {p.id: p.suppresses for p in patterns if p.suppresses}))
    order = sorted(range(len(findings)), key=lambda i: _sort_key(findings[i]))
    findings = [findings[i] for i in order]
    secondary = _secondary(findings)
    findings, primary = _with_primary(findings, secondary)
    residue = unclassified_templates(ev, spans)
    return Classification(tuple(findings), primary, residue, frozenset(secondary), tuple(warnings))


def scan_terms(library: PatternLibrary) -> tuple[list[str], list[str]]:
    """(needles, regexes) a record must hold one of to be worth classifying: every prefilter
    literal, and the error words of the unclassified residue. For `ingest.read_candidates`."""
    from logsleuth.residue import ERRORISH

    return _minimal({lit for p in library.patterns for lit in p.prefilter}), [ERRORISH]


def _minimal(literals: set[str]) -> list[str]:
    """The literals no shorter one is part of: a line holding `] ERROR:` holds `ERROR:`, and each
    redundant needle is one more match the byte scanner counts against its limit (718 -> 558, 8 ms)."""
    kept: list[str] = []
    for lit in sorted(literals, key=lambda s: (len(s), s)):
        if not any(k in lit for k in kept):
            kept.append(lit)
    return sorted(kept)


def scan_gate(library: PatternLibrary) -> Gate:
    """What `ingest.read_candidates` keeps of a plain log's flagged records (ingest/gate.py):
    those where a pattern's regex can match, or an error word of the residue stands."""
    from logsleuth.ingest.gate import Gate
    from logsleuth.residue import ERRORISH

    return Gate.build([(p.regex, p.prefilter) for p in library.patterns], [ERRORISH])


# ---------------------------------------------------------------- stage 1: prefilter and scope


def _scan_mask(ev: pl.DataFrame, patterns: Sequence[Pattern], quoted_success: bool = False) -> pl.Expr:
    """Rows any pattern could look at (most transcripts are mostly user/assistant text)."""
    kinds: set[str] = set()
    system_text = False
    for p in patterns:
        if p.scope.kinds is None:
            kinds.update(DEFAULT_KINDS)
            system_text = True
        else:
            kinds.update(p.scope.kinds)
    kind = pl.col("kind").cast(pl.Utf8)
    mask = kind.is_in(sorted(kinds))
    if system_text:
        roles = ["system", "user", "assistant"] if quoted_success else ["system", "user"]
        mask = mask | (pl.col("role").cast(pl.Utf8).is_in(roles) & (kind == "text"))
    return mask


def _candidates(ev: pl.DataFrame, patterns: Sequence[Pattern], quoted_success: bool = False) -> pl.DataFrame:
    """(_row, pid) for every row holding at least one of pattern pid's prefilter literals."""
    lit_rows = [(lit, pid) for pid, p in enumerate(patterns) for lit in p.prefilter]
    literals = sorted({lit for lit, _ in lit_rows})
    lit_table = pl.DataFrame(lit_rows, schema={"lit": pl.Utf8, "pid": pl.Int64}, orient="row")
    return (
        ev.lazy()
        .filter(_scan_mask(ev, patterns, quoted_success))
        .select("_row", "text")
        # contains_any drops most rows cheaply; extract_many names the literals on the rest
        .filter(pl.col("text").str.contains_any(literals))
        .select("_row", lit=pl.col("text").str.extract_many(literals, overlapping=True).list.unique())
        .explode("lit")
        .join(lit_table.lazy(), on="lit")
        .select("_row", "pid")
        .unique()
        .sort("pid", "_row")
        .collect()
    )


def _commands(ev: pl.DataFrame) -> pl.DataFrame:
    """_row of each tool_result -> the text of its tool_call (same session and call_id)."""
    calls = (
        ev.filter((pl.col("kind").cast(pl.Utf8) == "tool_call") & pl.col("call_id").is_not_null())
        .group_by("session", "call_id")
        .agg(command=pl.col("text").first())
    )
    results = ev.filter((pl.col("kind").cast(pl.Utf8) == "tool_result") & pl.col("call_id").is_not_null())
    return results.select("_row", "session", "call_id").join(calls, on=["session", "call_id"]).select(
        "_row", "command"
    )


def _in_scope(
    ev: pl.DataFrame, pairs: pl.DataFrame, patterns: Sequence[Pattern], quoted_success: bool = False
) -> pl.DataFrame:
    """Keep the pairs whose event passes the pattern's scope (kinds, is_error, command)."""
    if pairs.is_empty():
        return pairs
    scope = pl.DataFrame(
        {
            "pid": list(range(len(patterns))),
            "s_kinds": [list(p.scope.kinds) if p.scope.kinds is not None else None for p in patterns],
            "s_err": [p.scope.is_error for p in patterns],
            "s_cmd": [p.scope.command for p in patterns],
            "s_quoted": [quoted_success and p.severity is Severity.SUCCESS for p in patterns],
        },
        schema={"pid": pl.Int64, "s_kinds": pl.List(pl.Utf8), "s_err": pl.Boolean, "s_cmd": pl.Utf8,
                "s_quoted": pl.Boolean},
    )
    facts = ev.select(
        "_row",
        kind=pl.col("kind").cast(pl.Utf8),
        role=pl.col("role").cast(pl.Utf8),
        err=(pl.col("is_error").fill_null(False) | (pl.col("exit_code").fill_null(0) != 0)),
    )
    df = pairs.join(scope, on="pid").join(facts, on="_row")
    if any(p.scope.command for p in patterns):
        df = df.join(_commands(ev), on="_row", how="left")
    else:
        df = df.with_columns(command=pl.lit(None, pl.Utf8))
    # users paste the errors they saw (aider chats, bug reports); assistant prose only quotes them
    default_kind = (
        pl.col("kind").is_in(list(DEFAULT_KINDS))
        | (pl.col("role").is_in(["system", "user"]) & (pl.col("kind") == "text"))
        | (pl.col("s_quoted") & (pl.col("role") == "assistant") & (pl.col("kind") == "text"))
    )
    kind_ok = (
        pl.when(pl.col("s_kinds").is_null())
        .then(default_kind)
        .otherwise(pl.col("s_kinds").list.contains(pl.col("kind")))
    )
    err_ok = pl.col("s_err").is_null() | (pl.col("err") == pl.col("s_err"))
    cmd_ok = (
        pl.when(pl.col("s_cmd").is_null())
        .then(True)
        .otherwise(pl.col("command").fill_null("").str.contains(pl.col("s_cmd")))
    )
    return df.filter(kind_ok & err_ok & cmd_ok).select("_row", "pid")


# ---------------------------------------------------------------- joining wrapped messages


def _joined(ev: pl.DataFrame, pairs: pl.DataFrame) -> tuple[pl.DataFrame, dict[int, int]]:
    """The events as matching sees them, and each candidate row's own text length.

    A plain log's reader keeps one line (or one traceback) an event, so a message wrapped over
    several lines (NumPy 2's ABI text, XLA's OOM, pip's "Cannot install") reaches the patterns in
    pieces. Each candidate `log` row sees the next JOIN_EVENTS log rows of its source appended
    (JOIN_CHARS at most); see `_across_lines` for the matches kept from it."""
    rows = np.unique(pairs["_row"].to_numpy()) if pairs.height else np.zeros(0, np.int64)
    texts = ev["text"]
    # each candidate's window (itself and the JOIN_EVENTS rows after it) as Python values, gathered
    # a block of candidates at a time: a Series index per value was most of the join's time on an
    # error-dense log, and all windows at once held every candidate's text four times over
    n = len(texts)
    width = JOIN_EVENTS + 1
    columns = (ev["kind"].cast(pl.Utf8), ev["session"], ev["source"], ev["seq"], texts)
    own: dict[int, int] = {}
    joined, where = [], []
    for b in range(0, len(rows), JOIN_BLOCK):
        block = rows[b:b + JOIN_BLOCK]
        window = np.minimum(block[:, None] + np.arange(width), max(n - 1, 0)).ravel()
        cols = [c.gather(window).to_list() for c in columns]
        for k, r in enumerate(block.tolist()):
            at = k * width
            own[r] = len(cols[4][at])
            if cols[0][at] != "log":
                continue
            tail = _continuation(r, n, [c[at:at + width] for c in cols])
            if tail:
                joined.append(cols[4][at] + tail)
                where.append(r)
    if not where:
        return ev, own
    text = texts.clone().scatter(where, pl.Series(joined, dtype=pl.Utf8))
    return ev.with_columns(text=text), own


def _across_lines(
    mev: pl.DataFrame, pairs: pl.DataFrame, own: Mapping[int, int], found: Sequence[_Match],
    patterns: Sequence[Pattern], timeout: float, warnings: list[str],
) -> list[_Match]:
    """The matches only the joined text has: they start in a row's own text and go on past its
    end, for a (row, pattern) that matched nothing alone. What matched alone stays as it was (a
    `$` that ended the event still does)."""
    rows = list(own)
    lengths = mev["text"].gather(rows).str.len_chars().to_list() if rows else []
    longer = [r for r, length in zip(rows, lengths, strict=True) if length > own[r]]
    portable = [pid for pid, p in enumerate(patterns) if p.portable]  # a slow Python-only regex runs once a row
    sub = pairs.filter(pl.col("_row").is_in(pl.Series(longer, dtype=pl.UInt32).implode())
                       & pl.col("pid").is_in(portable))
    have = {(m.row, m.pid) for m in found}
    return [m for m in _stage2(mev, sub, patterns, timeout, warnings)
            if m.pos < own[m.row] < m.end and (m.row, m.pid) not in have]


def _continuation(row: int, n: int, window: list[list[Any]]) -> str:
    """The text of the log events right after `row` (the next seqs of its session and source),
    newline-led and cut short; "" when none follows. `window`: kind, session, source, seq and
    text of `row` and the JOIN_EVENTS rows after it (of `n` rows in all)."""
    kinds, sessions, sources, seqs, texts = window
    parts: list[str] = []
    for i in range(1, min(1 + JOIN_EVENTS, n - row)):
        if (kinds[i] != "log" or sessions[i] != sessions[0] or sources[i] != sources[0]
                or seqs[i] != seqs[0] + i):
            break
        parts.append(texts[i])
    return ("\n" + "\n".join(parts))[:JOIN_CHARS] if parts else ""


# ---------------------------------------------------------------- stage 2: regexes on candidates


def _stage2(
    ev: pl.DataFrame, pairs: pl.DataFrame, patterns: Sequence[Pattern], timeout: float, warnings: list[str]
) -> list[_Match]:
    if pairs.is_empty():
        return []
    cand = pairs.join(ev.select("_row", "text"), on="_row")
    groups = sorted(cand.partition_by("pid", as_dict=True).items())
    # every portable pattern's query runs in one `collect_all` (in parallel, one round trip):
    # a session hits a few dozen patterns, and a query each cost a millisecond of overhead
    portable = [(int(pid), sub) for (pid,), sub in groups if patterns[int(pid)].portable]
    frames = pl.collect_all([_polars_query(sub, patterns[pid]) for pid, sub in portable])
    matched = {pid: frame for (pid, _), frame in zip(portable, frames, strict=True)}
    texts = _RowTexts(ev["text"])
    out: list[_Match] = []
    for (pid,), sub in groups:
        p = patterns[int(pid)]
        if not p.portable:
            out.extend(_match_python(sub, ev, int(pid), p, timeout, warnings))
            continue
        exploded = matched.pop(int(pid))  # each pattern's matches freed once walked
        if exploded.is_empty():
            continue
        out.extend(_match_polars(exploded, texts, int(pid), p, timeout, warnings))
    return out


def _unquoted(ev: pl.DataFrame, matches: list[_Match]) -> list[_Match]:
    """Drop matches that only quote an error (docs, code, grep hits; see quoting.py)."""
    if not matches:
        return matches
    texts = _RowTexts(ev["text"])
    return [m for m in matches if not is_quoted(texts[m.row], m.pos, m.end)]


def _polars_query(sub: pl.DataFrame, p: Pattern) -> pl.LazyFrame:
    """(_row, m[, ok, c]): every match of the pattern in its candidate rows, and its captures."""
    rx = p.regex
    q = (
        sub.lazy()
        .select("_row", m=pl.col("text").str.extract_all(rx).list.head(MAX_MATCHES_PER_EVENT))
        .explode("m")
        .filter(pl.col("m").is_not_null() & (pl.col("m") != ""))
    )
    if p.groups:
        # captures come from re-running the regex on each matched substring (all Rust)
        q = q.with_columns(ok=pl.col("m").str.contains(rx), c=pl.col("m").str.extract_groups(rx))
    return q


class _RowTexts:
    """The text of a row as a Python string, made when asked and kept only until another row is
    asked for: a pattern's matches come row by row, and holding every matched text at once would
    copy most of a transcript into Python strings."""

    def __init__(self, texts: pl.Series):
        self.texts = texts
        self.row = -1
        self.text = ""

    def __getitem__(self, row: int) -> str:
        if row != self.row:
            self.row, self.text = row, self.texts[row]
        return self.text


def _match_polars(
    exploded: pl.DataFrame, texts: _RowTexts, pid: int, p: Pattern, timeout: float, warnings: list[str]
) -> list[_Match]:
    if p.groups:
        oks, caps = exploded["ok"].to_list(), exploded["c"].to_list()
    else:
        oks, caps = [True] * exploded.height, [{}] * exploded.height
    named = set(p.groups)
    out: list[_Match] = []
    cursor: dict[int, int] = {}
    for row, m, ok, c in zip(exploded["_row"].to_list(), exploded["m"].to_list(), oks, caps, strict=True):
        text = texts[row]
        pos = text.find(m, cursor.get(row, 0))
        if pos < 0:  # cannot happen for a match of this text; keep the finding at the event start
            pos = 0
        cursor[row] = pos + len(m)
        if ok:
            captures = {k: v for k, v in (c or {}).items() if v is not None and k in named}
        else:  # the regex depends on context around the match (\B, ^ without (?m)…): ask Python
            captures = _python_captures(p, text, pos, timeout, warnings)
        out.append(_Match(row, pid, _past_break(text, pos, pos + len(m)), pos + len(m), captures))
    return out


def _past_break(text: str, pos: int, end: int) -> int:
    """Where a match really starts: after the line break its leading `(?:^|\\s)` took (a portable
    regex cannot look behind), so the finding is told on its own line, not the one above."""
    nl = text.rfind("\n", pos, end)
    lead = text[pos:nl + 1] if nl >= 0 else ""
    return nl + 1 if lead and not lead.strip() and nl + 1 < end else pos


def _python_captures(p: Pattern, text: str, pos: int, timeout: float, warnings: list[str]) -> dict[str, str]:
    try:
        m = regexes.compile_py(p.regex).search(text, pos, timeout=timeout)
    except TimeoutError:
        warnings.append(f"pattern {p.id}: regex timed out extracting captures; captures left empty")
        return {}
    return regexes.captures_of(m) if m else {}


def _match_python(
    sub: pl.DataFrame, ev: pl.DataFrame, pid: int, p: Pattern, timeout: float, warnings: list[str]
) -> list[_Match]:
    """Fallback for a regex polars rejects: Python `regex`, with a timeout per event."""
    out: list[_Match] = []
    where = ev.filter(pl.col("_row").is_in(sub["_row"].implode())).select("_row", "source", "line")
    loc = {r: (s, ln) for r, s, ln in where.iter_rows()}
    for row, text in sub.select("_row", "text").iter_rows():
        try:
            for n, m in enumerate(regexes.finditer(p.regex, text, timeout)):
                if n >= MAX_MATCHES_PER_EVENT:
                    break
                if m.end() > m.start():
                    out.append(_Match(row, pid, _past_break(text, m.start(), m.end()), m.end(), regexes.captures_of(m)))
        except regexes.RegexTimeout:
            src, line = loc[row]
            warnings.append(f"{src}:{line}: pattern {p.id}: regex timed out after {timeout}s; event skipped")
    return out


# ---------------------------------------------------------------- findings


def fingerprint(pattern_id: str, captures: Mapping[str, str], names: Iterable[str]) -> str:
    """Short stable hash of the pattern id and its normalised fingerprint captures."""
    parts = [pattern_id] + [_norm(captures.get(n, "")) for n in names]
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:12]


_WS = re.compile(r"\s+")


def _norm(value: str) -> str:
    return _WS.sub(" ", value).strip().strip("'\"`").lower()


_STATUS_LINE = re.compile(r"^\s*(?:Error: )?(?:Exit code:?|Process exited with code|exit status)\s*-?\d+\s*$", re.I)


def _snippet(text: str, pos: int, end: int) -> str:
    """The line(s) holding the match, trimmed; a long line is cut around the match. A match on a
    bare exit-status line (`Exit code 1`, which a tool puts first) is quoted by the first line
    after it that reads like an error (`Error: …`, esbuild's `✘ [ERROR] …`), when there is one:
    this is the excerpt of the failure table and of search results."""
    start = text.rfind("\n", 0, pos) + 1
    stop = text.find("\n", max(end - 1, pos))
    stop = len(text) if stop < 0 else stop
    lines = [ln.rstrip() for ln in text[start:stop].replace("\r", "").split("\n")]
    if len(lines) == 1 and stop < len(text) and _STATUS_LINE.match(lines[0]):
        told = _telling_after(text[stop + 1 :])
        if told:
            lines = [told]
            pos = start = 0
    if len(lines) == 1:
        line = lines[0].strip()
        if len(line) <= SNIPPET_CHARS:
            return line
        rel = pos - start - (len(lines[0]) - len(lines[0].lstrip()))
        lo = max(0, min(rel - SNIPPET_CHARS // 4, len(line) - SNIPPET_CHARS))
        return ("…" if lo else "") + line[lo : lo + SNIPPET_CHARS] + ("…" if lo + SNIPPET_CHARS < len(line) else "")
    if len(lines) > MAX_SNIPPET_LINES:
        lines = [*lines[:3], "…", *lines[-2:]]
    return "\n".join(ln[:SNIPPET_CHARS] for ln in lines).strip("\n")


def _telling_after(rest: str) -> str | None:
    """The first line of `rest` that reads like an error (a traceback's exception line), if any."""
    from logsleuth.telling import TELLING, telling_lines  # only for status-line matches: rare

    line = telling_lines(rest[:20_000], limit=1).strip()
    return line if line and TELLING.search(line) and not _STATUS_LINE.match(line) else None


def _render(
    renderer: Renderer, p: Pattern, captures: Mapping[str, str], warnings: list[str]
) -> tuple[str, tuple[str, ...]]:
    from jinja2 import TemplateError

    try:
        explanation = renderer.render(p.explain, captures, p.groups)
        fixes = tuple(s for s in (renderer.render(f, captures, p.groups) for f in p.fixes) if s)
    except TemplateError as exc:
        warnings.append(f"{p.path}: pattern {p.id}: explain/fixes failed to render: {exc}")
        return p.title, ()
    return explanation, fixes


def _findings(
    ev: pl.DataFrame, matches: list[_Match], patterns: Sequence[Pattern], renderer: Renderer,
    warnings: list[str],
) -> tuple[list[Finding], pl.DataFrame]:
    """One finding per (event, pattern, fingerprint), at its first match; plus matched line spans.
    `matches` is consumed (emptied)."""
    # spans as three flat int arrays (row, first and last line offset), expanded in polars: a
    # tuple per matched line was ~100 bytes each, millions of them on an error-dense log
    span_row, span_first, span_last = array("q"), array("q"), array("q")
    if not matches:
        return [], pl.DataFrame({"_row": [], "off": []}, schema={"_row": pl.UInt32, "off": pl.Int64})
    # walked in (row, pid, pos) order, last first, each match dropped once used: the matches of
    # a dense log (~80 MB of them) make way for the findings instead of being held beside them
    matches.reverse()  # so that popping gives equal keys in their first order, as a stable sort
    matches.sort(key=lambda m: (m.row, m.pid, m.pos), reverse=True)
    rows = np.unique(np.fromiter((m.row for m in matches), np.int64, len(matches)))
    meta = ev.filter(pl.col("_row").is_in(pl.Series(rows, dtype=pl.UInt32).implode())).select(
        "_row", "session", "seq", "source", "line", "ts", pl.col("kind").cast(pl.Utf8)
    )
    # the matched rows' columns, looked up by position (a dict of a tuple per row was ~40 MB)
    meta_rows = meta["_row"].to_list()
    sessions, seqs, sources, lines, stamps, kinds = (meta[c].to_list() for c in ("session", "seq", "source", "line", "ts", "kind"))
    del meta
    texts = _RowTexts(ev["text"])  # matches come row by row: one row's text at a time
    rendered: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[str, tuple[str, ...]]] = {}
    shared: dict[tuple[int, tuple[tuple[str, str], ...]], dict[str, str]] = {}
    seen: set[tuple[int, str]] = set()  # (pid, fingerprint) of the current row's findings
    # one string per distinct snippet and fingerprint: a dense log repeats them by the thousand
    # (40k findings held 41k snippet strings for 14k distinct texts, a fingerprint string each)
    same: dict[str, str] = {}
    out: list[Finding] = []
    row, at = -1, -1
    while matches:
        m = matches.pop()
        if m.row != row:  # the next matched row: the next of meta's rows (both ascend)
            row, seen = m.row, set()
            at += 1
            while meta_rows[at] != row:
                at += 1
        session, seq, source, line, ts, kind = sessions[at], seqs[at], sources[at], lines[at], stamps[at], kinds[at]
        text = texts[m.row]
        first_off = text.count("\n", 0, m.pos)
        last_off = first_off + text.count("\n", m.pos, max(m.end - 1, m.pos))
        span_row.append(m.row)
        span_first.append(first_off)
        span_last.append(last_off)
        p = patterns[m.pid]
        fp = fingerprint(p.id, m.captures, p.fingerprint)
        if (m.pid, fp) in seen:
            continue
        seen.add((m.pid, fp))
        key = (m.pid, tuple(sorted(m.captures.items())))
        if key not in rendered:
            rendered[key] = _render(renderer, p, m.captures, warnings)
            shared[key] = dict(key[1])
        explanation, fixes = rendered[key]
        out.append(Finding(
            pattern=p.id,
            category=p.category,
            severity=p.severity,
            priority=p.priority,
            session=session,
            seq=seq,
            source=source,
            line=line + (first_off if kind == "log" else 0),
            text=same.setdefault(snippet := _snippet(text, m.pos, m.end), snippet),
            captures=shared[key],  # one dict per distinct capture set: findings repeat them by the thousand
            fingerprint=same.setdefault(fp, fp),
            explanation=explanation,
            fixes=fixes,
            ts=ts,
        ))
    spans = (
        pl.DataFrame({"_row": np.frombuffer(span_row, np.int64), "first": np.frombuffer(span_first, np.int64),
                      "last": np.frombuffer(span_last, np.int64)})
        .select(pl.col("_row").cast(pl.UInt32), off=pl.int_ranges("first", pl.col("last") + 1, dtype=pl.Int64))
        .explode("off")
        .unique()
    )
    return out, spans


def _sort_key(f: Finding) -> tuple[Any, ...]:
    return (f.session, f.seq, -f.priority, f.pattern, f.line, f.fingerprint)


def _unsuppressed(findings: list[Finding], suppresses: Mapping[str, tuple[str, ...]]) -> list[Finding]:
    """Drop findings whose category another finding on the same event declares routine."""
    if not suppresses:
        return findings
    cancelled: set[tuple[str, int, str]] = set()
    for f in findings:
        for cat in suppresses.get(f.pattern, ()):
            cancelled.add((f.session, f.seq, cat))
    return [f for f in findings if (f.session, f.seq, f.category) not in cancelled]


FLOOR_CATEGORIES = frozenset({"tool_error"})  # patterns/floor: "no error line passes in silence"


def _floor_covered(findings: list[Finding]) -> list[Finding]:
    """Drop a floor finding whose line a specific failure finding of the same event already tells
    (the floor is for lines nothing else names, not a second name for them)."""
    told: dict[tuple[str, int], list[str]] = {}
    for f in findings:
        if f.severity.is_failure and f.category not in FLOOR_CATEGORIES:
            told.setdefault((f.session, f.seq), []).append(f.text)
    return [f for f in findings if f.category not in FLOOR_CATEGORIES
            or not any(f.text.strip() in t or t.strip() in f.text for t in told.get((f.session, f.seq), ()))]


def _secondary(findings: Sequence[Finding]) -> set[int]:
    """Findings outranked on their event by a higher-priority finding of the same category."""
    best: dict[tuple[str, int, str], int] = {}
    for f in findings:
        k = (f.session, f.seq, f.category)
        best[k] = max(best.get(k, f.priority), f.priority)
    return {i for i, f in enumerate(findings) if f.priority < best[(f.session, f.seq, f.category)]}


def choose_primary(findings: Sequence[Finding], secondary: Iterable[int] = ()) -> int | None:
    """Index of the root error a person would name: the highest-priority error/fatal finding,
    the earliest among equals. Wrappers (tracebacks, non-zero exits) carry low priorities and so
    lose to the specific cause beneath them; success findings are never primary."""
    skip = set(secondary)
    best: tuple[int, int] | None = None
    for i, f in enumerate(findings):
        if i in skip or not f.severity.is_failure:
            continue
        if best is None or f.priority > best[0]:
            best = (f.priority, i)
    return best[1] if best else None


def primary_of(findings: Sequence[Finding]) -> Finding | None:
    """The primary finding of a subset (one session, one record), computed as classify does."""
    ordered = sorted(findings, key=_sort_key)
    i = choose_primary(ordered, _secondary(ordered))
    return ordered[i] if i is not None else None


def _with_primary(findings: list[Finding], secondary: set[int]) -> tuple[list[Finding], Finding | None]:
    i = choose_primary(findings, secondary)
    if i is None:
        return findings, None
    findings[i] = replace(findings[i], primary=True)
    return findings, findings[i]


__all__ = ["Classification", "Unclassified", "choose_primary", "classify", "fingerprint", "primary_of", "scan_gate", "scan_terms"]
