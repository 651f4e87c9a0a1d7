"""Build the report model (`render.report.Report`) from an analysis, once, for every view."""

from __future__ import annotations

from collections.abc import Sequence

from logsleuth.actions.packages import spec_code
from logsleuth.analysis import Analysis
from logsleuth.facts import SessionFacts
from logsleuth.link import action_label
from logsleuth.link.roles import builtin_roles
from logsleuth.render import graph as graph_render
from logsleuth.render import refs
from logsleuth.render.report import Report, RoadGroup, Step, TimelineRow, Unclassified
from logsleuth.render.story import Story, finding_rows

TIMELINE_LIMIT = 80
ROAD_LIMIT = 60  # steps of the road shown (a crash loop has hundreds); the timeline keeps the ends
_ORDER = {"failure": 0, "attempt failed": 1, "never ran": 1, "fix": 2, "pivot": 3, "success": 4}


def build_report(an: Analysis, facts: SessionFacts | None = None) -> Report:
    """The postmortem of `an` (cite in its style: call inside `refs.citing(an)`)."""
    st = Story(an, facts)
    g = an.graph
    road = st.road()
    groups, hidden = fold_road(road)
    return Report(
        title=st.title(),
        intro=st.intro(),
        road=road,
        success=st.success(),
        catch22=st.catch22(),
        diagnosis=st.diagnosis(),
        assumptions=st.assumptions(),
        knowledge=st.knowledge(),
        root_cause=st.root_cause(),
        resolution=st.resolution_actions(),
        unresolved=st.unresolved(),
        recipe=tuple(g.recipe),
        outcome=an.verdict.outcome.value,
        reason=refs.recite(an.verdict.reason),
        bends=tuple(refs.recite(f"{b.kind}: {b.text} [msg {b.seq}]") for b in an.verdict.bends),
        verdict=refs.recite(an.verdict.to_dict()),
        mermaid=graph_render.to_mermaid(g, an.category_title),
        timeline=timeline(an),
        appendix=finding_rows(an.findings),
        unclassified=tuple(Unclassified(u.template, u.count, u.first_line) for u in an.unclassified),
        # a plain log is told in lines: "line 49", "the log", not messages and a transcript
        record="log" if refs.style().unit == "line" else "transcript",
        road_groups=groups,
        road_hidden=hidden,
        session=an.session,
        ingest=an.transcript.report,
        primary=an.primary,
        findings=an.findings,
        actions=an.actions,
        graph=g,
    )


def timeline(an: Analysis) -> tuple[TimelineRow, ...]:
    """Failures, attempts, fixes, pivots and the success in event order; the ends of a long one."""
    import polars as pl

    g = an.graph
    rows: list[tuple[int, str, str]] = []
    for ep in g.episodes:
        for i, seq in enumerate(ep.occurrences):
            rows.append((seq, "failure", an.category_title(ep.category) + (" (again)" if i else "")))
    pivots = {p.id for p in g.pivots}
    for a in g.node_actions.values():
        rows.append((a.seq, "pivot" if a.id in pivots else "fix", action_label(a)))
    for a, f in g.failed_attempts:
        what = "never ran" if f.category in builtin_roles().not_run else "attempt failed"
        rows.append((f.seq, what, spec_code(a.subject, a.value).replace("`", "")))
    if g.first_success is not None:
        rows.append((g.first_success.seq, "success", an.category_title(g.first_success.category)))
    rows.sort(key=lambda r: (r[0], _ORDER[r[1]], r[2]))
    more = None
    if len(rows) > TIMELINE_LIMIT:
        half = TIMELINE_LIMIT // 2
        more = TimelineRow(None, "…", f"{len(rows) - 2 * half} more", "")
        rows = [*rows[:half], *rows[-half:]]
    # the times of the rows shown only (a dict per event was 12 MB at the report's peak)
    ev = an.events.filter(pl.col("seq").is_in(sorted({r[0] for r in rows}))).select("seq", "ts")
    ts = dict(zip(ev["seq"].to_list(), ev["ts"].to_list(), strict=True))
    out = []
    for seq, what, text in rows:
        t = ts.get(seq)
        out.append(TimelineRow(seq, what, text, t.strftime("%H:%M") if t is not None else ""))
    if more is not None:
        out.insert(TIMELINE_LIMIT // 2, more)
    return tuple(out)


def fold_road(road: Sequence[Step], limit: int = ROAD_LIMIT) -> tuple[tuple[RoadGroup, ...], int]:
    """The road's steps with a failure that came back while nothing changed (straight back, or a
    crash loop cycling through the same failures) folded into its first step (`again`: the later
    steps), at most `limit` groups; and the number of groups left out."""
    groups: list[tuple[Step, list[Step]]] = []
    first: dict[str, int] = {}  # step id -> its group
    for step in road:
        at = first.get(step.id)
        unchanged = not step.attempts and not step.fix and not step.failed
        straight_back = bool(groups) and groups[-1][0].id == step.id and not groups[-1][0].fix
        if at is not None and (straight_back or (unchanged and not groups[at][0].fix)):
            groups[at][1].append(step)
            continue
        groups.append((step, []))
        first.setdefault(step.id, len(groups) - 1)
    folded = tuple(RoadGroup(i + 1, step, tuple(again)) for i, (step, again) in enumerate(groups))
    return folded[:limit], max(0, len(folded) - limit)
