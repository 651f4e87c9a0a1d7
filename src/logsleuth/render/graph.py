"""The causal graph as mermaid and DOT text, and the folded view of the chain both drawings use.

A crash-looping session repeats one failure (and one restart) a hundred times: drawn step by step,
its chain is hundreds of boxes and more edges than mermaid accepts (500). `chain_view` folds it:
one node per graph node (a recurring failure carries its count and its first/last positions), one
edge per (source, target, relation) with the number of times the chain took it, and at most
`limit` nodes, the rest noted. Deterministic: nodes in order of first appearance, edges in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from logsleuth.model import CausalGraph, GraphNode, NodeType
from logsleuth.render.refs import cite

NODE_LIMIT = 120  # nodes drawn; with the chain's edges and catch-22 links, well under mermaid's 500 edges
LABEL_LIMIT = 90


@dataclass(frozen=True, slots=True)
class ViewNode:
    id: str
    type: str  # failure | action | success
    pivot: bool
    text: str  # the title, without its reference
    seq: int
    count: int  # how often the chain passes through it (a failure: its occurrences)
    last: int  # seq of the last occurrence (== seq when it happened once)

    @property
    def where(self) -> str:
        """`[msg 4]`, or `×3, [msg 4] … [msg 40]` for a failure that came back."""
        if self.count > 1:
            return f"×{self.count}, {cite(self.seq)} … {cite(self.last)}"
        return cite(self.seq)


@dataclass(frozen=True, slots=True)
class ViewEdge:
    source: str
    target: str
    relation: str  # a Relation value, or "" for a step the graph has no edge for
    count: int

    @property
    def label(self) -> str:
        rel = "" if self.relation in ("", "attempted") else self.relation.replace("_", " ")
        return f"{rel} ×{self.count}".strip() if self.count > 1 else rel


@dataclass(frozen=True, slots=True)
class ChainView:
    nodes: tuple[ViewNode, ...]
    edges: tuple[ViewEdge, ...]
    catch22: tuple[tuple[str, str, str], ...]  # (episode, episode, subject)
    hidden: int  # nodes of the chain not drawn (beyond the limit)


def node_text(n: GraphNode, title: Callable[[str], str]) -> str:
    if n.type == NodeType.FAILURE and n.category:
        return title(n.category)
    if n.type == NodeType.SUCCESS:
        return "success"
    return n.label


def chain_view(g: CausalGraph, title: Callable[[str], str], limit: int = NODE_LIMIT) -> ChainView:
    by_id = g.nodes_by_id()
    order = [i for i in dict.fromkeys(g.chain) if i in by_id]
    drawn = order[:limit]
    on = set(drawn)
    visits: dict[str, int] = {}
    for node_id in g.chain:
        visits[node_id] = visits.get(node_id, 0) + 1
    episodes = {ep.id: ep for ep in g.episodes}
    ids = g.action_ids()
    pivots = {ids[p.id] for p in g.pivots if p.id in ids}
    nodes = []
    for node_id in drawn:
        n = by_id[node_id]
        ep = episodes.get(node_id)
        occ = ep.occurrences if ep is not None and ep.occurrences else (n.seq,)
        count = max(len(occ), visits[node_id]) if ep is not None else visits[node_id]
        nodes.append(ViewNode(node_id, n.type, node_id in pivots, node_text(n, title), n.seq, count, occ[-1]))
    relation: dict[tuple[str, str], str] = {}
    for e in g.edges:
        relation.setdefault((e.source, e.target), e.relation.value)
    counts: dict[tuple[str, str, str], int] = {}
    for a, b in zip(g.chain, g.chain[1:], strict=False):
        if a in on and b in on and a != b:
            key = (a, b, relation.get((a, b), ""))
            counts[key] = counts.get(key, 0) + 1
    edges = tuple(ViewEdge(a, b, r, c) for (a, b, r), c in counts.items())
    c22 = tuple(
        (c.episodes[0], c.episodes[1], c.subject)
        for c in g.catch22
        if len(c.episodes) >= 2 and c.episodes[0] in on and c.episodes[1] in on
    )
    return ChainView(tuple(nodes), edges, c22, len(order) - len(drawn))


def mermaid_text(text: str) -> str:
    """Text inside a quoted mermaid label: its entity codes (`#lt;`) for what mermaid would parse."""
    out = []
    for ch in text.replace("\n", " "):
        if ch == "#":
            out.append("#35;")
        elif ch == "<":
            out.append("#lt;")
        elif ch == ">":
            out.append("#gt;")
        elif ch == '"':
            out.append("#quot;")
        elif ch == "`":  # a backtick right after the quote would open a markdown string
            out.append("#96;")
        else:
            out.append(ch)
    return "".join(out)


def _short(text: str, limit: int = LABEL_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_mermaid(g: CausalGraph, title: Callable[[str], str] = lambda c: c.replace("_", " "),
               limit: int = NODE_LIMIT) -> str:
    """The chain folded (see `chain_view`), with catch-22 links; within mermaid's limits."""
    view = chain_view(g, title, limit)
    lines = ["flowchart TD"]
    for n in view.nodes:
        text = mermaid_text(f"{_short(n.text)} {n.where}")
        shape = {"failure": f'["{text}"]', "success": f'(["{text}"])'}.get(n.type, f'("{text}")')
        lines.append(f"  {n.id}{shape}")
    if view.hidden:
        note = mermaid_text(f"… {view.hidden} more step{'s' if view.hidden != 1 else ''} not drawn (see the timeline)")
        lines.append(f'  more_steps>"{note}"]')
        lines.append(f"  {view.nodes[-1].id} -.-> more_steps")
    for e in view.edges:
        label = f'|"{mermaid_text(e.label)}"|' if e.label else ""
        lines.append(f"  {e.source} -->{label} {e.target}")
    for a, b, subject in view.catch22:
        lines.append(f'  {a} <-.->|"{mermaid_text("catch-22 on " + subject)}"| {b}')
    for cls in ("failure", "action", "success"):
        members = [n.id for n in view.nodes if (n.type if n.type in ("failure", "success") else "action") == cls]
        if members:
            lines.append(f"  class {','.join(members)} {cls}")
    pivots = [n.id for n in view.nodes if n.pivot]
    if pivots:
        lines.append(f"  class {','.join(pivots)} pivot")
    lines += [
        "  classDef failure fill:#fde2e1,stroke:#c0392b",
        "  classDef action fill:#eef2f7,stroke:#34495e",
        "  classDef pivot fill:#fff3cd,stroke:#b7950b",
        "  classDef success fill:#dff5e1,stroke:#1e8449",
    ]
    return "\n".join(lines)


def to_dot(g: CausalGraph) -> str:
    out = ["digraph causal {", "  rankdir=TB;", '  node [fontname="Helvetica"];']
    shapes = {"failure": "box", "action": "ellipse", "success": "doubleoctagon"}
    for n in g.nodes:
        label = f"{n.label} {cite(n.seq)}".replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'  {n.id} [shape={shapes.get(n.type, "ellipse")}, label="{label}"];')
    for e in g.edges:
        out.append(f'  {e.source} -> {e.target} [label="{e.relation.value}"];')
    for c in g.catch22:
        if len(c.episodes) >= 2:
            out.append(f'  {c.episodes[0]} -> {c.episodes[1]} [dir=both, style=dashed, label="catch-22"];')
    out.append("}")
    return "\n".join(out)
