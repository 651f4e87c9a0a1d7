"""One summary row per session: of the inputs given (analysed now) or of the index (as stored).

A row: id, source, format, start, duration, events, failures, outcome, root cause. From the index,
start and duration span the session's indexed findings and the event count is not known (the index
keeps findings, not events): `events` is None there.
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
    from logsleuth.ingest import coverage

    rows: list[SessionRow] = []
    for path in paths:
        t = ingest.read(path, fmt)
        coverage.check(t, strict=strict)
        if not t.events.height:
            continue
        names = sorted(t.events["session"].unique().to_list())
        for name in names:
            an = analyze_transcript(t, library, session=name, with_reasoning=False)
            ev = an.events
            ts = ev["ts"].drop_nulls()
            start, end = (ts.min(), ts.max()) if ts.len() else (None, None)
            g = an.graph
            root = next((ep.category for ep in g.episodes if ep.id == g.root_cause), None)
            if root is None and an.primary is not None:
                root = an.primary.category
            rows.append(SessionRow(name, t.report.source, t.report.format, _iso(start), _minutes(start, end),
                                   ev.height, len(g.episodes), g.outcome.value, root))
    return rows


def from_index(db: Path) -> list[SessionRow]:
    """The sessions the index holds, from their findings."""
    import polars as pl

    from logsleuth.index import store

    frame = store.load(db, ["session", "source", "format", "ts", "severity", "episode", "primary", "category", "outcome"])
    if not frame.height:
        return []
    failing = pl.col("severity").is_in(["fatal", "error"]) & pl.col("episode").is_not_null()
    agg = (
        frame.group_by("session", "source")
        .agg(
            pl.col("format").first(),
            pl.col("ts").min().alias("start"),
            pl.col("ts").max().alias("end"),
            pl.col("episode").filter(failing).n_unique().alias("failures"),
            pl.col("outcome").drop_nulls().first(),
            pl.col("category").filter(pl.col("primary").fill_null(False)).first().alias("root_cause"),
        )
        .sort("source", "session")
    )
    return [
        SessionRow(r["session"], r["source"], r["format"] or "", _iso(r["start"]), _minutes(r["start"], r["end"]),
                   None, int(r["failures"] or 0), r["outcome"] or "", r["root_cause"])
        for r in agg.iter_rows(named=True)
    ]


def table(rows: Sequence[SessionRow], width: int = 160) -> str:
    from logsleuth.render.fasttable import render_table

    cols = [(c, "fold" if c in ("session", "root_cause", "source") else "ellipsis") for c in COLUMNS]
    cells = [
        (r.session, r.format, (r.start or "")[:16].replace("T", " "), r.duration, "" if r.events is None else str(r.events), str(r.failures),
         r.outcome, r.root_cause or "", r.source)
        for r in rows
    ]
    return render_table(f"{len(rows)} session{'s' if len(rows) != 1 else ''}", cols, cells, width)
