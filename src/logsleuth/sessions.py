"""One summary row per session: of the inputs given (analysed now) or of the index (as stored).

A row: id, source, format, start, duration, events, failures, outcome, root cause, title (the first
request) and summary (the verdict's reason). Outcome, root cause and summary are the verdict's
(`Analysis.verdict`), read, never recomputed; the index stores them on its rows (index/sessionrows.py)
with the span and event count of the whole session, so both ways give the same row. Newest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary

COLUMNS = ("session", "format", "start", "duration", "events", "failures", "outcome", "root_cause", "source")


@dataclass(frozen=True, slots=True)
class SessionRow:
    session: str
    source: str
    format: str
    start: str | None  # ISO 8601, UTC
    minutes: int | None
    events: int | None
    failures: int
    outcome: str
    root_cause: str | None  # the root cause's category
    title: str | None = None  # the first request, one line
    summary: str | None = None  # the verdict's reason

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def duration(self) -> str:
        if self.minutes is None:
            return "unknown"  # no timestamps, or one: when, not how long
        if self.minutes == 0:
            return "<1 min"
        hours, rest = divmod(self.minutes, 60)
        return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


def _iso(ts: Any) -> str | None:
    return ts.isoformat().replace("+00:00", "Z") if ts is not None else None


def _minutes(start: Any, end: Any) -> int | None:
    from logsleuth.facts import span_minutes  # the postmortem's rule: one timestamp is no span

    return span_minutes(start, end)


def from_inputs(paths: Sequence[str], fmt: str | None, library: PatternLibrary, *, strict: bool = False) -> list[SessionRow]:
    """Read each input, analyse each of its sessions (without the reasoning pass), one row each;
    an input read only in part is said on stderr (with `strict`, an InputError: exit 3)."""
    from logsleuth import ingest
    from logsleuth.analysis import analyze_transcript
    from logsleuth.index.sessionrows import session_columns
    from logsleuth.ingest import coverage

    rows: list[SessionRow] = []
    for path in _inputs(paths, fmt):
        t = ingest.read(path, fmt)
        coverage.check(t, strict=strict)
        if not t.events.height:
            continue
        names = sorted(t.events["session"].unique().to_list())
        for name in names:
            an = analyze_transcript(t, library, session=name, with_reasoning=False)
            c = session_columns(an)
            start, end = c["session_start"], c["session_end"]
            rows.append(SessionRow(name, t.report.source, t.report.format, _iso(start), _minutes(start, end),
                                   c["events"], c["failures"], c["outcome"], c["root_category"],
                                   c["title"], c["summary"]))
    return newest_first(rows)


def _inputs(paths: Sequence[str], fmt: str | None) -> list[str]:
    """Each folder as the inputs `index` finds under it (one row per file, with the file's own
    path and reader, as `sessions --db` lists them), unless --format reads it whole."""
    import os

    from logsleuth import ingest

    out: list[str] = []
    for path in paths:
        out += ingest.discover(path) if fmt is None and path != "-" and os.path.isdir(path) else [path]
    return out


def newest_first(rows: Sequence[SessionRow]) -> list[SessionRow]:
    """Newest first; sessions without a date last, by id."""
    dated = sorted((r for r in rows if r.start), key=lambda r: (r.start or "", r.session), reverse=True)
    return dated + sorted((r for r in rows if not r.start), key=lambda r: (r.session, r.source))


def from_index(db: Path) -> list[SessionRow]:
    """The sessions the index holds, from their findings."""
    import polars as pl

    from logsleuth.index import store

    columns = ["session", "source", "format", "severity", "episode", "outcome", "file_sha256", "origin",
               "title", "events", "session_start", "session_end", "root_category", "summary", "failures"]
    frame = store.load(db, columns, sessions=True)
    if not frame.height:
        return []
    failing = pl.col("severity").is_in(["fatal", "error"]) & pl.col("episode").is_not_null()
    agg = (
        frame.group_by("session", "source")
        .agg(
            pl.col("format", "file_sha256", "origin", "title", "events", "session_start", "session_end",
                   "root_category", "summary").drop_nulls().first(),
            pl.col("failures").drop_nulls().first(),  # the verdict's count (its session row carries it)
            pl.col("episode").filter(failing).n_unique().alias("episodes"),
            pl.col("outcome").drop_nulls().first(),
        )
        .sort("source", "session")
    )
    seen: set[tuple[str, str, str]] = set()  # one session reached through a folder and as a file: once
    rows = []
    for r in agg.iter_rows(named=True):
        key = (r["origin"] or "", r["file_sha256"] or r["source"], r["session"])
        if key in seen:
            continue
        seen.add(key)
        start, end = r["session_start"], r["session_end"]
        rows.append(SessionRow(r["session"], r["source"], r["format"] or "", _iso(start), _minutes(start, end),
                               r["events"], int(r["failures"] if r["failures"] is not None else r["episodes"] or 0),
                               r["outcome"] or "", r["root_category"],
                               r["title"], r["summary"]))
    return newest_first(rows)


def table(rows: Sequence[SessionRow], width: int = 160) -> str:
    from logsleuth.render.fasttable import render_table

    cols = [(c, "fold" if c in ("session", "root_cause", "source") else "ellipsis") for c in COLUMNS]
    cells = [
        (r.session, r.format, (r.start or "")[:16].replace("T", " "), r.duration, "" if r.events is None else str(r.events), str(r.failures),
         r.outcome, r.root_cause or "", r.source)
        for r in rows
    ]
    return render_table(f"{len(rows)} session{'s' if len(rows) != 1 else ''}", cols, cells, width)
