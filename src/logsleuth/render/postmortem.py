"""The postmortem's three views of one report model (`render.report.Report`, built by
`compose.build_report`): markdown and HTML from one list of sections (`render.sections`), and
the JSON document."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from logsleuth.analysis import Analysis
from logsleuth.model import Severity
from logsleuth.render import refs
from logsleuth.render.compose import build_report
from logsleuth.render.describe import lower_first
from logsleuth.render.mdsafe import inert_html
from logsleuth.render.report import Report
from logsleuth.render.sections import sections_for

# the analysis a report carries for its JSON document: masked with the analysis, before the report
_ANALYSIS_FIELDS = frozenset({"session", "ingest", "primary", "findings", "actions", "graph"})


@cache
def template_env() -> Any:
    """The jinja2 environment of the reports (`cite` and `code` filters; strict undefined)."""
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
    env.filters["lower_first"] = lower_first
    return env


def inline_code(text: str) -> Any:
    """Escape, then turn `backticked` spans into <code> (for the HTML report)."""
    import re

    from markupsafe import Markup, escape

    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def redact_tree(obj: Any, redactor: Any) -> Any:
    """Redact every string in a nested structure (dicts, lists, the report's parts), in order."""
    if isinstance(obj, str):
        return redactor.redact(obj)
    if isinstance(obj, dict):
        return {k: redact_tree(v, redactor) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        out = [redact_tree(v, redactor) for v in obj]
        return tuple(out) if isinstance(obj, tuple) else out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and type(obj).__module__ in _PART_MODULES:
        skip = _ANALYSIS_FIELDS if isinstance(obj, Report) else frozenset()
        return dataclasses.replace(obj, **{f.name: redact_tree(getattr(obj, f.name), redactor)
                                           for f in dataclasses.fields(obj) if f.name not in skip})
    return obj


_PART_MODULES = frozenset({"logsleuth.render.report", "logsleuth.facts", "logsleuth.render.explain"})


def redacted(tree: Any, redact: bool, hosts: bool, redactor: Any = None) -> tuple[Any, int]:
    """The final pass over what a view shows (the Analysis itself was masked first); the count."""
    if not redact:
        return tree, 0
    from logsleuth.redact import Redactor

    r = redactor if redactor is not None else Redactor(hosts=hosts)
    before = r.count
    return redact_tree(tree, r), r.count - before


def prepared(an: Analysis, redact: bool, hosts: bool) -> tuple[Analysis, int]:
    """The analysis to render: masked unless the user asked for --no-redact."""
    if not redact:
        return an, 0
    from logsleuth.render.masking import redact_analysis

    masked, redactor = redact_analysis(an, hosts=hosts)
    return masked, int(redactor.count)


def template_vars(report: Report, medium: str) -> dict[str, Any]:
    """What a page template reads: the report's fields by name and the sections it shows."""
    out = report.to_fields()
    out["sections"] = sections_for(report, medium)
    return out


def render_markdown(an: Analysis, *, redact: bool = True, redact_hosts: bool = False) -> str:
    an, masked = prepared(an, redact, redact_hosts)
    with refs.citing(an):
        report = build_report(an)
        # the report holds no events: a caller that handed the analysis over (the CLI) has its
        # events table freed before the report is redacted and the template runs
        del an
        report, n = redacted(report, redact, redact_hosts)
        text = str(template_env().get_template("postmortem.md.j2").render(**template_vars(report, "md"),
                                                                         redactions=masked + n))
        # the report (and the analysis' findings it carries) freed before the document is read
        del report
        # transcript text never writes live HTML into the markdown (render/mdsafe.py)
        return inert_html(text)


def render_html(an: Analysis, *, redact: bool = True, redact_hosts: bool = False) -> str:
    from markupsafe import Markup

    from logsleuth.redact import Redactor
    from logsleuth.render import transcript
    from logsleuth.render.svg import chain_svg

    an, masked = prepared(an, redact, redact_hosts)
    with refs.citing(an) as st:
        report = build_report(an)
        # built from the (already masked) graph, with every label escaped in svg.py
        svg = chain_svg(an.graph, an.category_title)
        flagged = frozenset(f.seq for f in an.findings if f.severity.rank >= Severity.ERROR.rank)
        events = transcript.entries(an.events, st, transcript.cited(report.cited_tree(), st), flagged)
        del an  # as in render_markdown
        r = Redactor(hosts=redact_hosts)
        report, n = redacted(report, redact, redact_hosts, r)
        events, m = redacted(events, redact, redact_hosts, r)
        html = str(template_env().get_template("postmortem.html.j2").render(
            **template_vars(report, "html"), transcript=events, svg=Markup(svg), redactions=masked + n + m))
    return link_refs(html, {i["id"] for i in events["items"] if i.get("id")})


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
        report = build_report(an)
    doc, n = redacted(jsonout.plain(report.document()), redact, redact_hosts)
    doc["redactions"] = masked + n
    return dict(doc)
