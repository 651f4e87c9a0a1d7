"""Plain-text tables for terminals (rich)."""

from __future__ import annotations

import io

from logsleuth.model import Transcript


def events_table(t: Transcript, width: int = 160) -> str:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{t.report.source} ({t.report.format}): {t.report.events} events", show_lines=False)
    for col in ("seq", "line", "role", "kind", "tool", "err", "text"):
        table.add_column(col, overflow="fold" if col == "text" else "ellipsis")
    for r in t.events.iter_rows(named=True):
        text = (r["text"] or "").replace("\n", " ⏎ ")
        err = "" if r["is_error"] is None else ("yes" if r["is_error"] else "no")
        table.add_row(str(r["seq"]), str(r["line"]), r["role"], r["kind"], r["tool"] or "", err, text[:200])
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(table)
    s = buf.getvalue()
    if t.report.skipped:
        s += f"skipped {len(t.report.skipped)} line(s): " + "; ".join(
            f"{x.source or t.report.source}:{x.line} {x.reason}" for x in t.report.skipped[:10]
        ) + "\n"
    return s
