"""`logsleuth explain --message N`: the story of one message, as the seeds tell it."""

from __future__ import annotations

from typing import Any

from logsleuth.analysis import Analysis
from logsleuth.errors import UsageError
from logsleuth.model import ActionKind, Relation
from logsleuth.render import facts
from logsleuth.render.describe import describe
from logsleuth.render.mdsafe import inert_html
from logsleuth.render.postmortem import _env, _redacted, prepared
from logsleuth.render.story import Story


def explain_context(an: Analysis, seq: int) -> dict[str, Any]:
    st = Story(an)
    if seq not in st.by_seq:
        last = max(st.by_seq) if st.by_seq else -1
        raise UsageError(f"no message {seq} in this session", hint=f"messages are numbered 0..{last}")
    row = st.by_seq[seq]
    g = an.graph
    result = st.result_of.get(seq) if row["kind"] == "tool_call" else None
    # the turn this message belongs to: back to the previous tool result or user message
    start = max((r["seq"] for r in st.rows if r["seq"] < seq and r["role"] in ("user", "tool")), default=-1)
    turn = [s for s in st.sentences if start < s.seq <= seq]
    road = []
    for step in st.road():
        if step["seq"] >= seq:
            break
        road.append({"title": step["title"], "seq": step["seq"],
                     "fix": step["attempts"][-1]["text"] if step["attempts"] else None})
    actions = [a for a in an.actions if a.seq == seq]
    node_edges = []
    failure_ids = g.failure_ids()
    for node_id, a in g.node_actions.items():
        if a.seq == seq:
            for e in g.edges:
                if e.source == node_id and e.target in failure_ids:
                    ep = st.episodes[e.target]
                    node_edges.append({"relation": e.relation.value.replace("_", " "), "title": st.title_of(ep),
                                       "seq": ep.occurrences[0]})
    active = [ep for ep in g.episodes if ep.occurrences[0] <= seq]
    current = active[-1] if active else None
    after = st._next_outcome(seq)
    return {
        "seq": seq,
        "role": row["role"],
        "kind": row["kind"],
        "tool": row["tool"],
        "ts": row["ts"],
        "text": row["text"],
        "result": {"seq": result["seq"], "lines": facts.first_lines(result["text"], 12, 240),
                   "is_error": result["is_error"]} if result else None,
        "actions": [describe(a) for a in actions if a.kind is not ActionKind.INVESTIGATE],
        "investigates": any(a.kind is ActionKind.INVESTIGATE for a in actions),
        "road": road,
        "reasoning": [{"text": s.text, "seq": s.seq, "label": s.label} for s in turn if s.label != "observation"][:8],
        "assumed": [{"text": s.text, "seq": s.seq, **st._verdict(s)} for s in turn if s.hedged][:5],
        "edges": [e for e in node_edges if e["relation"] != Relation.ATTEMPTED.value],
        "after": {"kind": after[0], "text": after[1], "seq": after[2]} if after else None,
        "knowledge": {"title": st.title_of(current), "text": current.first.explanation,
                      "seq": current.occurrences[0]} if current and current.first.explanation else None,
        "created": [c.to_dict() for c in facts.established(st.result_of, actions, [])],
        "title": st.title(),
    }


def render_explain(an: Analysis, seq: int, *, redact: bool = True) -> str:
    an, masked = prepared(an, redact, False)
    ctx, n = _redacted(explain_context(an, seq), redact, False)
    ctx["redactions"] = masked + n
    return inert_html(str(_env().get_template("explain.md.j2").render(**ctx)))  # no live HTML (mdsafe.py)
