"""Assemble the postmortem context (plain, sorted data) and render it as markdown, HTML or JSON."""

from __future__ import annotations

from functools import cache
from typing import Any

from logsleuth.analysis import Analysis
from logsleuth.ingest.coverage import intro_notes
from logsleuth.link import action_label
from logsleuth.model import Severity
from logsleuth.render import graph as graph_render
from logsleuth.render import refs
from logsleuth.render.mdsafe import inert_html
from logsleuth.render.story import Story, finding_rows

TIMELINE_LIMIT = 80
ROAD_LIMIT = 60  # steps of the HTML road (a crash loop has hundreds); the timeline keeps the ends


def build_context(an: Analysis) -> dict[str, Any]:
    st = Story(an)
    g = an.graph
    return {
        "title": st.title(),
        # what the reader could not use and the file's other sessions (ingest/coverage.py)
        "intro": {**st.intro(), "coverage": intro_notes(an.transcript, an.session)},
        "road": st.road(),
        "success": st.success(),
        "catch22": st.catch22(),
        "diagnosis": st.diagnosis(),
        "assumptions": st.assumptions(),
        "knowledge": st.knowledge(),
        "root_cause": st.root_cause(),
        "resolution": st.resolution_actions(),
        "unresolved": st.unresolved(),
        "recipe": list(g.recipe),
        "outcome": g.outcome.value,
        "mermaid": graph_render.to_mermaid(g, an.category_title),
        "timeline": timeline(an),
        "findings": finding_rows(an.findings),
        "primary": an.primary.to_dict() if an.primary else None,
        "graph": g.to_dict(),
        "unclassified": [_unclassified(u) for u in an.unclassified],
        # a plain log is told in lines: "line 49", "the log", not messages and a transcript
        "record": "log" if refs.style().unit == "line" else "transcript",
    }


def _unclassified(u: Any) -> dict[str, Any]:
    return {"template": u.template, "count": u.count, "first_line": u.first_line}


def timeline(an: Analysis) -> list[dict[str, Any]]:
    import polars as pl

    g = an.graph
    rows: list[dict[str, Any]] = []
    for ep in g.episodes:
        for i, seq in enumerate(ep.occurrences):
            rows.append({"seq": seq, "what": "failure", "text": an.category_title(ep.category) + (" (again)" if i else "")})
    pivots = {p.id for p in g.pivots}
    for _node_id, a in g.node_actions.items():
        rows.append({"seq": a.seq, "what": "pivot" if a.id in pivots else "fix", "text": action_label(a)})
    for a, f in g.failed_attempts:
        rows.append({"seq": f.seq, "what": "attempt failed", "text": f"{a.subject}{a.value or ''}"})
    if g.first_success is not None:
        rows.append({"seq": g.first_success.seq, "what": "success", "text": an.category_title(g.first_success.category)})
    order = {"failure": 0, "attempt failed": 1, "fix": 2, "pivot": 3, "success": 4}
    rows.sort(key=lambda r: (r["seq"], order[r["what"]], r["text"]))
    more = None
    if len(rows) > TIMELINE_LIMIT:
        half = TIMELINE_LIMIT // 2
        more = {"seq": None, "time": "", "what": "…", "text": f"{len(rows) - 2 * half} more"}
        rows = [*rows[:half], *rows[-half:]]
    # the times of the rows shown only (a dict per event was 12 MB at the report's peak)
    ev = an.events.filter(pl.col("seq").is_in(sorted({r["seq"] for r in rows}))).select("seq", "ts")
    ts = dict(zip(ev["seq"].to_list(), ev["ts"].to_list(), strict=True))
    for r in rows:
        t = ts.get(r["seq"])
        r["time"] = t.strftime("%H:%M") if t is not None else ""
    if more is not None:
        rows.insert(TIMELINE_LIMIT // 2, more)
    return rows


@cache
def _env() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("logsleuth", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["cite"] = refs.cite
    env.filters["code"] = inline_code
    return env


def inline_code(text: str) -> Any:
    """Escape, then turn `backticked` spans into <code> (for the HTML report)."""
    import re

    from markupsafe import Markup, escape

    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def redact_tree(obj: Any, redactor: Any) -> Any:
    """Redact every string in a nested structure (context dicts, JSON documents)."""
    if isinstance(obj, str):
        return redactor.redact(obj)
    if isinstance(obj, dict):
        return {k: redact_tree(v, redactor) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_tree(v, redactor) for v in obj]
    return obj


def _redacted(ctx: dict[str, Any], redact: bool, hosts: bool) -> tuple[dict[str, Any], int]:
    """The final pass over the rendered context (the Analysis itself was masked first)."""
    if not redact:
        return ctx, 0
    from logsleuth.redact import Redactor

    r = Redactor(hosts=hosts)
    out = redact_tree(ctx, r)
    return out, r.count


def prepared(an: Analysis, redact: bool, hosts: bool) -> tuple[Analysis, int]:
    """The analysis to render: masked unless the user asked for --no-redact."""
    if not redact:
        return an, 0
    from logsleuth.render.masking import redact_analysis

    masked, redactor = redact_analysis(an, hosts=hosts)
    return masked, int(redactor.count)


def render_markdown(an: Analysis, *, redact: bool = True, redact_hosts: bool = False) -> str:
    an, masked = prepared(an, redact, redact_hosts)
    with refs.citing(an):
        ctx = build_context(an)
        # the context is plain data: a caller that handed the analysis over (the CLI) has its events
        # table and objects freed before the context is redacted and the template runs
        del an
        ctx["road_groups"], ctx["road_hidden"] = fold_road(ctx["road"])  # as the HTML folds it
        ctx, n = _redacted(ctx, redact, redact_hosts)
        ctx["redactions"] = masked + n
        # transcript text never writes live HTML into the markdown (render/mdsafe.py)
        return inert_html(str(_env().get_template("postmortem.md.j2").render(**ctx)))


def render_html(an: Analysis, *, redact: bool = True, redact_hosts: bool = False) -> str:
    from markupsafe import Markup

    from logsleuth.render import transcript
    from logsleuth.render.svg import chain_svg

    an, masked = prepared(an, redact, redact_hosts)
    with refs.citing(an) as st:
        ctx = build_context(an)
        # built from the (already masked) graph, with every label escaped in svg.py
        svg = chain_svg(an.graph, an.category_title)
        flagged = frozenset(f.seq for f in an.findings if f.severity.rank >= Severity.ERROR.rank)
        ctx["transcript"] = transcript.entries(an.events, st, transcript.cited(ctx, st), flagged)
        ctx["road_groups"], ctx["road_hidden"] = fold_road(ctx["road"])
        del an  # as in render_markdown
        ctx, n = _redacted(ctx, redact, redact_hosts)
        ctx["redactions"] = masked + n
        ctx["svg"] = Markup(svg)
        html = str(_env().get_template("postmortem.html.j2").render(**ctx))
    return link_refs(html, {i["id"] for i in ctx["transcript"]["items"] if i.get("id")})


def fold_road(road: list[dict[str, Any]], limit: int = ROAD_LIMIT) -> tuple[list[dict[str, Any]], int]:
    """The road's steps with a failure that came back while nothing changed (straight back, or a
    crash loop cycling through the same failures) folded into its first step (`again`: the later
    steps), at most `limit` groups; and the number of groups left out."""
    groups: list[dict[str, Any]] = []
    first: dict[Any, dict[str, Any]] = {}
    for step in road:
        prev = first.get(step.get("id"))
        unchanged = not step.get("attempts") and not step.get("fix") and not step.get("failed")
        straight_back = bool(groups) and groups[-1]["step"].get("id") == step.get("id") and not groups[-1]["step"].get("fix")
        if prev is not None and (straight_back or (unchanged and not prev["step"].get("fix"))):
            prev["again"].append(step)
            continue
        group = {"number": len(groups) + 1, "step": step, "again": []}
        groups.append(group)
        first.setdefault(step.get("id"), group)
    return groups[:limit], max(0, len(groups) - limit)


def link_refs(html: str, anchors: set[str]) -> str:
    """Every `[msg N]`/`[line N]` of the page body a link to its transcript entry (when embedded).

    Only text outside the chain drawing and the transcript itself is linked; user text cannot put
    a reference inside an attribute (the template writes none from it)."""
    import re

    def link(m: re.Match[str]) -> str:
        ident = refs.anchor(m.group(1), int(m.group(2)))
        return f'<a class="ref" href="#{ident}">{m.group(0)}</a>' if ident in anchors else m.group(0)

    pieces = re.split(r"(<svg.*?</svg>|<section id=\"transcript\">.*?</section>|<title>.*?</title>)", html, flags=re.S)
    return "".join(p if i % 2 else refs.REF_RE.sub(link, p) for i, p in enumerate(pieces))


def analysis_document(an: Analysis, *, redact: bool = True, redact_hosts: bool = False) -> dict[str, Any]:
    """The analysis as data (`analyze --output-format json`); schema in README."""
    from logsleuth import jsonout

    an, masked = prepared(an, redact, redact_hosts)
    with refs.citing(an):
        ctx = build_context(an)
    doc = {
        "report": an.transcript.report.to_dict(),
        "session": an.session,
        "title": ctx["title"],
        "intro": ctx["intro"],
        "outcome": ctx["outcome"],
        "primary": ctx["primary"],
        "findings": [f.to_dict() | {"session": f.session} for f in an.findings],
        "actions": [a.to_dict() for a in an.actions],
        "graph": ctx["graph"],
        "story": {k: ctx[k] for k in ("road", "success", "catch22", "diagnosis", "assumptions", "knowledge",
                                       "root_cause", "resolution", "unresolved", "timeline")},
        "recipe": ctx["recipe"],
        "unclassified": ctx["unclassified"],
    }
    doc = jsonout.plain(doc)
    doc, n = _redacted(doc, redact, redact_hosts)
    doc["redactions"] = masked + n
    return doc
