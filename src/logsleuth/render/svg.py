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
from dataclasses import dataclass
from html import escape

from logsleuth.clip import short
from logsleuth.model import CausalGraph
from logsleuth.render.graph import ChainView, ViewEdge, chain_view

LINE_H, PAD, GAP = 16, 9, 36
RELATIONS = ("revealed", "resolved", "did_not_fix", "recurred", "succeeded", "failed", "step")


@dataclass(frozen=True, slots=True)
class Layout:
    """Where things go: the boxes, the lanes of back edges to their right, the catch-22 lanes to
    their left. A narrow layout (a phone) wraps the boxes' text shorter and writes the lanes'
    labels along them, so the drawing fits its screen without scrolling inside its box."""

    name: str
    width: int
    x0: int
    box_w: int
    wrap: int
    max_lines: int
    lane_step: int
    lanes: int
    c22_gap: int
    c22_step: int
    c22_lanes: int
    upright_labels: bool  # lane labels written along the lane (narrow), else beside it

    @property
    def lane_x(self) -> int:
        return self.x0 + self.box_w + 12


WIDE = Layout("wide", 820, 80, 470, 64, 3, 16, 12, 22, 12, 4, False)
NARROW = Layout("narrow", 370, 46, 252, 32, 5, 14, 4, 12, 8, 3, True)


def _rel_class(rel: str) -> str:
    return rel if rel in RELATIONS else "step"


def _markers(lay: Layout) -> str:
    out = []
    for rel in RELATIONS:
        out.append(
            f'<marker id="{_marker(lay, rel)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path class="m-{rel}" d="M 0 0 L 10 5 L 0 10 z"/></marker>'
        )
    return "".join(out)


def _marker(lay: Layout, rel: str) -> str:
    """A marker's id, one set per drawing (a marker in a hidden drawing would draw nothing)."""
    return f"arr-{rel}" if lay is WIDE else f"arr-{lay.name}-{rel}"


def _boxes(view: ChainView, lay: Layout) -> tuple[list[str], dict[str, tuple[int, int]], int]:
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    y = 12
    for n in view.nodes:
        lines = textwrap.wrap(n.text, lay.wrap)
        if len(lines) > lay.max_lines:
            lines = [*lines[:lay.max_lines - 1], short(" ".join(lines[lay.max_lines - 1:]), lay.wrap)]
        lines = lines or [""]
        where = textwrap.wrap(n.where, lay.wrap + 6)[:2] or [""]
        h = PAD * 2 + LINE_H * (len(lines) + len(where))
        kind = n.type if n.type in ("failure", "success") else "action"
        cls = f"node {kind}{' pivot' if n.pivot else ''}"
        rx = 3 if kind == "failure" else 14
        parts.append(f'<g class="{cls}"><rect class="n-{kind}{" n-pivot" if n.pivot else ""}" x="{lay.x0}" y="{y}" '
                     f'width="{lay.box_w}" height="{h}" rx="{rx}"/>')
        cx = lay.x0 + lay.box_w // 2
        for i, line in enumerate(lines):
            parts.append(f'<text x="{cx}" y="{y + PAD + LINE_H * (i + 1) - 4}" text-anchor="middle">{escape(line)}</text>')
        for j, line in enumerate(where):
            parts.append(f'<text class="where" x="{cx}" y="{y + PAD + LINE_H * (len(lines) + j + 1) - 4}" '
                         f'text-anchor="middle">{escape(line)}</text>')
        parts.append("</g>")
        spans[n.id] = (y, y + h)
        y += h + GAP
    return parts, spans, y


def _edge(e: ViewEdge, spans: dict[str, tuple[int, int]], order: dict[str, int], lane: int,
          lay: Layout) -> tuple[str, bool]:
    """One edge as SVG; True when it used a lane."""
    rel = _rel_class(e.relation)
    mark = _marker(lay, rel)
    (s_top, s_bot), (t_top, t_bot) = spans[e.source], spans[e.target]
    label = escape(e.label)
    if order[e.target] == order[e.source] + 1:
        x = lay.x0 + lay.box_w // 2
        text = f'<text class="elabel" x="{x + 8}" y="{(s_bot + t_top) // 2 + 4}">{label}</text>' if label else ""
        return (f'<g class="edge e-{rel}"><line x1="{x}" y1="{s_bot}" x2="{x}" y2="{t_top - 2}" '
                f'marker-end="url(#{mark})"/>{text}</g>'), False
    x_out = lay.x0 + lay.box_w
    lx = lay.lane_x + lay.lane_step * (lane % lay.lanes)
    y1, y2 = (s_top + s_bot) // 2, (t_top + t_bot) // 2
    path = f"M {x_out} {y1} H {lx} V {y2} H {x_out + 2}"
    mid = (y1 + y2) // 2
    if not label:
        text = ""
    elif lay.upright_labels:
        text = (f'<text class="elabel" transform="translate({lx + 4} {mid}) rotate(90)" '
                f'text-anchor="middle">{label}</text>')
    else:
        text = f'<text class="elabel" x="{lx + 5}" y="{mid + 4}">{label}</text>'
    return f'<g class="edge e-{rel}"><path d="{path}" fill="none" marker-end="url(#{mark})"/>{text}</g>', True


def chain_svg(g: CausalGraph, title: Callable[[str], str]) -> str:
    """The chain twice: drawn for a wide screen and for a narrow one; the report's stylesheet
    shows the one that fits (`svg.chain.wide` / `svg.chain.narrow`)."""
    view = chain_view(g, title)
    return _drawing(view, WIDE) + _drawing(view, NARROW)


def _drawing(view: ChainView, lay: Layout) -> str:
    parts, spans, y = _boxes(view, lay)
    order = {n.id: i for i, n in enumerate(view.nodes)}
    lane = 0
    for e in view.edges:
        svg, used = _edge(e, spans, order, lane, lay)
        lane += used
        parts.append(svg)
    failed = _marker(lay, "failed")
    for k, (a, b, subject) in enumerate(view.catch22):
        (a_top, a_bot), (b_top, b_bot) = spans[a], spans[b]
        lx = lay.x0 - lay.c22_gap - lay.c22_step * (k % lay.c22_lanes)
        y1, y2 = (a_top + a_bot) // 2, (b_top + b_bot) // 2
        parts.append(
            f'<g class="edge e-catch22"><path d="M {lay.x0} {y1} H {lx} V {y2} H {lay.x0 - 2}" fill="none" '
            f'marker-start="url(#{failed})" marker-end="url(#{failed})"/>'
            f'<text class="elabel" transform="translate({lx - 5} {(y1 + y2) // 2}) rotate(-90)" '
            f'text-anchor="middle">{escape("catch-22 on " + subject)}</text></g>'
        )
    if view.hidden:
        more = f"… {view.hidden} more step{'s' if view.hidden != 1 else ''} not drawn"
        parts.append(f'<text class="elabel" x="{lay.x0}" y="{y + 4}">{more}{"" if lay is NARROW else " (see the timeline)"}</text>')
        y += 16
    height = max(y, 40)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chain {lay.name}" role="img" aria-label="causal chain" '
        f'width="{lay.width}" height="{height}" viewBox="0 0 {lay.width} {height}"><defs>{_markers(lay)}</defs>'
        f'{"".join(parts)}</svg>'
    )
