"""Terminal tables (rich) for `logsleuth classify` and `logsleuth patterns list`."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logsleuth.classify import Classification
    from logsleuth.library import Pattern
    from logsleuth.model import IngestReport


def _print(renderable: Any, width: int) -> str:
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(renderable)
    return buf.getvalue()


def classification_table(report: IngestReport, result: Classification, width: int = 160) -> str:
    from logsleuth.render.fasttable import render_table

    out = []
    if result.primary is not None:
        p = result.primary
        out.append(f"primary: {p.pattern} ({p.category}) at {p.source}:{p.line} [msg {p.seq}]\n"
                   f"  {p.text.splitlines()[0] if p.text else ''}\n  {p.explanation}\n")
        out.extend(f"  fix: {fix}\n" for fix in p.fixes)
    else:
        out.append("primary: none (no error found)\n")
    # plain-text cells laid out as rich does, but fast for thousands of rows (render/fasttable.py)
    rows = []
    for i, f in enumerate(result.findings):
        mark = "*" if f.primary else ("-" if result.is_secondary(i) else "")
        rows.append((str(f.seq), str(f.line), f.severity.value, mark + f.pattern, f.category,
                     f.text.replace("\n", " ⏎ ")[:200]))
    cols = [(c, "fold" if c == "text" else "ellipsis") for c in ("seq", "line", "severity", "pattern", "category", "text")]
    out.append(render_table(f"{report.source} ({report.format}): {len(result.findings)} findings", cols, rows, width))
    if result.unclassified:
        un_rows = [(str(u.count), f"{u.source}:{u.first_line}", u.template) for u in result.unclassified[:50]]
        un_cols = [(c, "fold" if c == "template" else "ellipsis") for c in ("count", "first line", "template")]
        out.append(render_table(f"unclassified: {len(result.unclassified)} templates", un_cols, un_rows, width))
    return "".join(out)


def patterns_table(patterns: Sequence[Pattern], width: int = 160) -> str:
    from rich.table import Table

    table = Table(title=f"{len(patterns)} patterns")
    for col in ("id", "category", "severity", "priority", "title"):
        table.add_column(col, overflow="fold" if col == "title" else "ellipsis")
    for p in patterns:
        table.add_row(p.id, p.category, p.severity.value, str(p.priority), p.title)
    return _print(table, width)


def pattern_text(p: Pattern) -> str:
    lines = [
        f"{p.id}: {p.title}",
        f"  file:        {p.path}:{p.line}",
        f"  category:    {p.category}",
        f"  severity:    {p.severity.value} (priority {p.priority})",
        f"  regex:       {p.regex}" + ("" if p.portable else "   [not portable: Python fallback]"),
        f"  prefilter:   {', '.join(p.prefilter)}",
        f"  fingerprint: {', '.join(p.fingerprint) or '-'}",
    ]
    if not p.scope.is_default:
        lines.append(f"  scope:       kinds={list(p.scope.kinds or [])} is_error={p.scope.is_error} "
                     f"command={p.scope.command!r}")
    lines.append(f"  explain:     {' '.join(p.explain.split())}")
    lines.extend(f"  fix:         {' '.join(f.split())}" for f in p.fixes)
    lines.extend(f"  related:     {r}" for r in p.related)
    lines.extend(f"  reference:   {r}" for r in p.references)
    lines.extend(f"  match:       {e.text!r}" for e in p.match_examples)
    lines.extend(f"  no_match:    {e.text!r}" for e in p.no_match_examples)
    return "\n".join(lines)
