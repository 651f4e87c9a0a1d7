"""Plain-text tables for terminals (rich)."""

from __future__ import annotations

from logsleuth.model import Transcript


def events_table(t: Transcript, width: int = 160) -> str:
    from logsleuth.render.fasttable import render_table

    cols = [(c, "fold" if c == "text" else "ellipsis") for c in ("seq", "line", "role", "kind", "tool", "err", "text")]
    rows = []
    for r in t.events.iter_rows(named=True):
        text = (r["text"] or "").replace("\n", " ⏎ ")
        err = "" if r["is_error"] is None else ("yes" if r["is_error"] else "no")
        rows.append((str(r["seq"]), str(r["line"]), r["role"], r["kind"], r["tool"] or "", err, text[:200]))
    s = render_table(f"{t.report.source} ({t.report.format}): {t.report.events} events", cols, rows, width)
    if t.report.skipped:
        s += f"skipped {len(t.report.skipped)} line(s): " + "; ".join(
            f"{x.source or t.report.source}:{x.line} {x.reason}" for x in t.report.skipped[:10]
        ) + "\n"
    return s
