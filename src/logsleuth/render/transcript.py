"""The session itself for the HTML report: one entry per event, each the target of its references.

A long session (or a 10 MB crash loop) is not embedded whole: past `LIMIT` events, the report keeps
the events it cites and their neighbours and says how many it left out between them. Texts longer
than `TEXT_LIMIT` are cut with a note. The events come from the analysis the report was built from,
which `postmortem.prepared` has already masked; the rendered context is masked again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from logsleuth.render.refs import REF_RE, CiteStyle, anchor

LIMIT = 2000  # events embedded whole
CONTEXT = 2  # neighbours kept around each cited event beyond the limit
TEXT_LIMIT = 6000  # characters per entry


def cited(tree: Any, st: CiteStyle) -> set[int]:
    """The seqs the rendered context refers to (its `[msg N]`/`[line N]` texts and its seq fields)."""
    numbers: set[int] = set()
    seqs: set[int] = set()

    def walk(obj: Any, key: str = "") -> None:
        if isinstance(obj, str):
            numbers.update(int(m.group(2)) for m in REF_RE.finditer(obj) if m.group(1) == st.unit)
        elif isinstance(obj, bool):
            return
        elif isinstance(obj, int) and key.endswith("seq"):
            seqs.add(obj)
        elif isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, str(k))
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                walk(v, key)

    walk(tree)
    if st.unit == "line":
        by_line: dict[int, int] = {}
        for seq, line in st.lines.items():
            by_line.setdefault(line, seq)
        seqs |= {by_line[n] for n in numbers if n in by_line}
    else:
        seqs |= numbers
    return seqs


def _keep(all_seqs: list[int], wanted: Iterable[int]) -> set[int]:
    if len(all_seqs) <= LIMIT:
        return set(all_seqs)
    index = {s: i for i, s in enumerate(all_seqs)}
    keep: set[int] = set()
    for s in wanted:
        i = index.get(s)
        if i is not None:
            keep.update(all_seqs[max(0, i - CONTEXT): i + CONTEXT + 1])
    return keep


def entries(events: Any, st: CiteStyle, wanted: Iterable[int], flagged: frozenset[int] = frozenset()) -> dict[str, Any]:
    """{"items": [...], "total": N, "shown": M}; an item is an event or a gap ("skipped": K).

    An event is marked an error when its format says so (error flag, exit code) or it is `flagged`
    (a finding at error severity or above)."""
    ev = events.sort("seq").select("seq", "line", "role", "kind", "tool", "text", "is_error", "exit_code")
    seqs = ev["seq"].to_list()
    keep = _keep(seqs, wanted)
    items: list[dict[str, Any]] = []
    gap = 0
    seen_ids: set[str] = set()
    for row in ev.iter_rows(named=True):
        if row["seq"] not in keep:
            gap += 1
            continue
        if gap:
            items.append({"skipped": gap})
            gap = 0
        unit_no = st.number(row["seq"])
        ident = anchor(st.unit, unit_no)
        text = row["text"] or ""
        cut = len(text) - TEXT_LIMIT if len(text) > TEXT_LIMIT else 0
        error = bool(row["is_error"]) or row["exit_code"] not in (None, 0) or row["seq"] in flagged
        items.append({
            "id": ident if ident not in seen_ids else "",
            "ref": f"{st.unit} {unit_no}",
            "seq": row["seq"],
            "line": row["line"],
            "role": row["role"] or "",
            "kind": row["kind"] or "",
            "tool": row["tool"] or "",
            "error": error,
            "exit_code": row["exit_code"],
            "text": text[:TEXT_LIMIT] if cut else text,
            "cut": cut,
        })
        seen_ids.add(ident)
    if gap:
        items.append({"skipped": gap})
    return {"items": items, "total": len(seqs), "shown": sum(1 for i in items if "seq" in i)}
