"""The chain drawn as inline SVG for the HTML report (which fetches nothing, so no mermaid.js).

Nodes are the folded chain (`graph.chain_view`) top to bottom in order of first appearance. A step
to the next node is a straight arrow; a step that goes back (a failure that returned) or skips ahead
is drawn in a lane on the right; catch-22 links are dashed lanes on the left. Every edge carries its
relation (revealed / resolved / did not fix / …). Colours come from the report's stylesheet
(classes `n-*` and `e-*`), so dark mode and print restyle the drawing. Every label is escaped.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from html import escape

from logsleuth.model import CausalGraph
from logsleuth.render.graph import ChainView, ViewEdge, chain_view

WIDTH, LINE_H, PAD, GAP = 820, 16, 9, 36
X0, BOX_W = 80, 470  # the boxes; lanes for back edges to their right, catch-22 lanes to their left
LANE_X, LANE_STEP, LANES = X0 + BOX_W + 18, 16, 12
WRAP = 64
RELATIONS = ("revealed", "resolved", "did_not_fix", "recurred", "succeeded", "failed", "step")


def _rel_class(rel: str) -> str:
    return rel if rel in RELATIONS else "step"


def _markers() -> str:
    out = []
    for rel in RELATIONS:
        out.append(
            f'<marker id="arr-{rel}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path class="m-{rel}" d="M 0 0 L 10 5 L 0 10 z"/></marker>'
        )
    return "".join(out)


def _boxes(view: ChainView) -> tuple[list[str], dict[str, tuple[int, int]], int]:
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    y = 12
    for n in view.nodes:
        lines = textwrap.wrap(n.text, WRAP)[:3] or [""]
        h = PAD * 2 + LINE_H * (len(lines) + 1)
        kind = n.type if n.type in ("failure", "success") else "action"
        cls = f"node {kind}{' pivot' if n.pivot else ''}"
        rx = 3 if kind == "failure" else 14
        parts.append(f'<g class="{cls}"><rect class="n-{kind}{" n-pivot" if n.pivot else ""}" x="{X0}" y="{y}" '
                     f'width="{BOX_W}" height="{h}" rx="{rx}"/>')
        cx = X0 + BOX_W // 2
        for i, line in enumerate(lines):
            parts.append(f'<text x="{cx}" y="{y + PAD + LINE_H * (i + 1) - 4}" text-anchor="middle">{escape(line)}</text>')
        parts.append(f'<text class="where" x="{cx}" y="{y + PAD + LINE_H * (len(lines) + 1) - 4}" '
                     f'text-anchor="middle">{escape(n.where)}</text></g>')
        spans[n.id] = (y, y + h)
        y += h + GAP
    return parts, spans, y


def _edge(e: ViewEdge, spans: dict[str, tuple[int, int]], order: dict[str, int], lane: int) -> tuple[str, bool]:
    """One edge as SVG; True when it used a lane."""
    rel = _rel_class(e.relation)
    (s_top, s_bot), (t_top, t_bot) = spans[e.source], spans[e.target]
    label = escape(e.label)
    if order[e.target] == order[e.source] + 1:
        x = X0 + BOX_W // 2
        text = f'<text class="elabel" x="{x + 8}" y="{(s_bot + t_top) // 2 + 4}">{label}</text>' if label else ""
        return (f'<g class="edge e-{rel}"><line x1="{x}" y1="{s_bot}" x2="{x}" y2="{t_top - 2}" '
                f'marker-end="url(#arr-{rel})"/>{text}</g>'), False
    x_out = X0 + BOX_W
    lx = LANE_X + LANE_STEP * (lane % LANES)
    y1, y2 = (s_top + s_bot) // 2, (t_top + t_bot) // 2
    path = f"M {x_out} {y1} H {lx} V {y2} H {x_out + 2}"
    mid = (y1 + y2) // 2
    text = f'<text class="elabel" x="{lx + 5}" y="{mid + 4}">{label}</text>' if label else ""
    return f'<g class="edge e-{rel}"><path d="{path}" fill="none" marker-end="url(#arr-{rel})"/>{text}</g>', True


def chain_svg(g: CausalGraph, title: Callable[[str], str]) -> str:
    view = chain_view(g, title)
    parts, spans, y = _boxes(view)
    order = {n.id: i for i, n in enumerate(view.nodes)}
    lane = 0
    for e in view.edges:
        svg, used = _edge(e, spans, order, lane)
        lane += used
        parts.append(svg)
    for k, (a, b, subject) in enumerate(view.catch22):
        (a_top, a_bot), (b_top, b_bot) = spans[a], spans[b]
        lx = X0 - 22 - 12 * (k % 4)
        y1, y2 = (a_top + a_bot) // 2, (b_top + b_bot) // 2
        parts.append(
            f'<g class="edge e-catch22"><path d="M {X0} {y1} H {lx} V {y2} H {X0 - 2}" fill="none" '
            f'marker-start="url(#arr-failed)" marker-end="url(#arr-failed)"/>'
            f'<text class="elabel" transform="translate({lx - 5} {(y1 + y2) // 2}) rotate(-90)" '
            f'text-anchor="middle">{escape("catch-22 on " + subject)}</text></g>'
        )
    if view.hidden:
        parts.append(f'<text class="elabel" x="{X0}" y="{y + 4}">… {view.hidden} more step'
                     f'{"s" if view.hidden != 1 else ""} not drawn (see the timeline)</text>')
        y += 16
    height = max(y, 40)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chain" role="img" aria-label="causal chain" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}"><defs>{_markers()}</defs>{"".join(parts)}</svg>'
    )
