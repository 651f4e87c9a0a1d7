"""The causal graph as mermaid and DOT text (deterministic: nodes and edges in graph order)."""

from __future__ import annotations

from collections.abc import Callable

from logsleuth.model import CausalGraph, GraphNode


def _label(n: GraphNode, title: Callable[[str], str]) -> str:
    if n.type == "failure" and n.category:
        text = f"{title(n.category)} [msg {n.seq}]"
    elif n.type == "success":
        text = f"success [msg {n.seq}]"
    else:
        text = f"{n.label} [msg {n.seq}]"
    return text.replace('"', "'").replace("<", "‹").replace(">", "›").replace("\n", " ")[:90]


def to_mermaid(g: CausalGraph, title: Callable[[str], str] = lambda c: c.replace("_", " ")) -> str:
    """The chain in story order, plus catch-22 links and the attempts that failed outright."""
    lines = ["flowchart TD"]
    shown: list[str] = []
    by_id = g.nodes_by_id()
    for node_id in g.chain:
        if node_id in shown:
            continue
        shown.append(node_id)
        n = by_id[node_id]
        text = _label(n, title)
        shape = {"failure": f'{node_id}["{text}"]', "success": f'{node_id}(["{text}"])'}.get(n.type, f'{node_id}("{text}")')
        lines.append(f"  {shape}")
    relation: dict[tuple[str, str], str] = {}
    for e in g.edges:
        relation.setdefault((e.source, e.target), e.relation.value)
    for a, b in zip(g.chain, g.chain[1:], strict=False):
        rel = relation.get((a, b), "")
        arrow = f" -->|{rel.replace('_', ' ')}| " if rel and rel != "attempted" else " --> "
        lines.append(f"  {a}{arrow}{b}")
    for c in g.catch22:
        if len(c.episodes) >= 2:
            lines.append(f"  {c.episodes[0]} <-.->|catch-22 on {c.subject}| {c.episodes[1]}")
    for node_id in shown:
        n = by_id[node_id]
        cls = {"failure": "failure", "success": "success"}.get(n.type, "action")
        lines.append(f"  class {node_id} {cls}")
    ids = g.action_ids()
    on_show = set(shown)
    pivots = [ids[id(p)] for p in g.pivots if ids[id(p)] in on_show]
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
        label = f"{n.label} [msg {n.seq}]".replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'  {n.id} [shape={shapes.get(n.type, "ellipse")}, label="{label}"];')
    for e in g.edges:
        out.append(f'  {e.source} -> {e.target} [label="{e.relation.value}"];')
    for c in g.catch22:
        if len(c.episodes) >= 2:
            out.append(f'  {c.episodes[0]} -> {c.episodes[1]} [dir=both, style=dashed, label="catch-22"];')
    out.append("}")
    return "\n".join(out)
