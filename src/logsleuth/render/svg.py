"""The chain drawn as inline SVG (the HTML report fetches nothing, so no mermaid.js)."""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Callable
from html import escape

from logsleuth.model import CausalGraph

_FILL = {"failure": ("#fde2e1", "#c0392b"), "action": ("#eef2f7", "#34495e"), "success": ("#dff5e1", "#1e8449")}
_PIVOT = ("#fff3cd", "#b7950b")
WIDTH, LINE_H, PAD, GAP = 720, 16, 10, 26


def chain_svg(g: CausalGraph, title: Callable[[str], str]) -> str:
    shown: list[str] = list(dict.fromkeys(g.chain))
    ids = g.action_ids()
    pivots = {ids[id(p)] for p in g.pivots}
    by_id = g.nodes_by_id()
    parts: list[str] = []
    y = 10
    centers: list[tuple[int, int]] = []
    for node_id in shown:
        n = by_id[node_id]
        text = (f"{title(n.category)}" if n.type == "failure" and n.category else n.label) + f"  [msg {n.seq}]"
        lines = textwrap.wrap(text, 80)[:3] or [""]
        h = PAD * 2 + LINE_H * len(lines)
        fill, stroke = _PIVOT if node_id in pivots else _FILL.get(n.type, _FILL["action"])
        rx = 4 if n.type == "failure" else 14
        parts.append(
            f'<g class="node {escape(n.type)}"><rect x="40" y="{y}" width="{WIDTH - 80}" height="{h}" rx="{rx}" '
            f'fill="{fill}" stroke="{stroke}"/>'
        )
        for i, line in enumerate(lines):
            parts.append(
                f'<text x="{WIDTH // 2}" y="{y + PAD + LINE_H * (i + 1) - 4}" text-anchor="middle" '
                f'font-family="sans-serif" font-size="13">{escape(line)}</text>'
            )
        parts.append("</g>")
        centers.append((y, y + h))
        y += h + GAP
    for (_, bottom), (top, _) in itertools.pairwise(centers):
        x = WIDTH // 2
        parts.append(f'<line x1="{x}" y1="{bottom}" x2="{x}" y2="{top - 4}" stroke="#555" marker-end="url(#arrow)"/>')
    height = max(y, 40)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="causal chain" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="5" '
        f'refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
        f'fill="#555"/></marker></defs>{"".join(parts)}</svg>'
    )
