"""The import graph of src/logsleuth: every import, module-level or inside a function, and the
pipeline's layers. Fails (exit 1) on an import cycle or an import of a later layer.

    python tools/importgraph.py [--dot] [--list]

A module belongs to the first layer whose prefix it starts with; a module may import its own
layer or an earlier one. Stages run one way: reading, then patterns, classification, actions,
linking, prose, the analysis and its renderers, the index and search, the CLI.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "logsleuth"

# (layer, module prefixes): earlier layers never import later ones
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vocabulary", ("logsleuth.enums", "logsleuth.model", "logsleuth.errors", "logsleuth.jsonout", "logsleuth.termsafe",
                    "logsleuth.telling", "logsleuth.clip", "logsleuth.progress", "logsleuth.cachedir")),
    ("ingest", ("logsleuth.ingest",)),
    ("library", ("logsleuth.library", "logsleuth.quoting")),
    ("redact", ("logsleuth.redact_scan", "logsleuth.redact")),
    ("classify", ("logsleuth.classify", "logsleuth.residue", "logsleuth.pattern_tests", "logsleuth.evaluate")),
    ("actions", ("logsleuth.actions",)),
    ("link", ("logsleuth.link",)),
    ("reasoning", ("logsleuth.reasoning", "logsleuth.sentences")),
    ("facts", ("logsleuth.facts",)),  # what a session states about itself (versions, machine): the verdict reads them
    ("verdict", ("logsleuth.verdict",)),  # the one judgement of a session, decided after linking
    ("analysis", ("logsleuth.analysis",)),
    ("render", ("logsleuth.render",)),
    ("index", ("logsleuth.index",)),  # writes the search sidecar: search reads it
    ("search", ("logsleuth.search",)),
    ("sessions", ("logsleuth.sessions",)),  # sessions of files and of the index: after both
    ("serve", ("logsleuth.serve",)),
    # search.cli is the lean console script: it falls back to the full application
    ("cli", ("logsleuth.cli", "logsleuth.search.cli", "logsleuth.__main__", "logsleuth")),
)
# Known debts, each to be removed, never added to: the test fails on anything not listed here and
# on a listed item that no longer exists (so the list only shrinks). `upward` lines are
# "importer -> imported"; cycles are the sorted module names of one strongly connected component.
KNOWN_UPWARD: frozenset[str] = frozenset()
KNOWN_CYCLES: frozenset[tuple[str, ...]] = frozenset()


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import of a logsleuth module in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    typing_only = {id(n) for b in ast.walk(tree) if isinstance(b, ast.If) and _is_type_checking(b.test)
                   for stmt in b.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:  # `if TYPE_CHECKING:` imports never run
            continue
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join([*pkg, base] if base else pkg)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name and t.startswith(PACKAGE):
                yield t, node.lineno


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def layer(name: str) -> int:
    """The layer of the longest prefix that names the module (`logsleuth.search.cli` is the CLI's,
    not search's; `logsleuth.index.rows` is the index's)."""
    best, at = -1, len(LAYERS) - 1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if p != PACKAGE and name.startswith(p) and len(p) > best:
                best, at = len(p), i
    return at


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def check(mods: dict[str, Path]) -> tuple[dict[str, set[str]], list[str], list[list[str]]]:
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    upward = []
    for name, path in mods.items():
        for target, line in imports(name, path, known):
            if target == PACKAGE:  # the package's own __init__ (version only)
                continue
            graph[name].add(target)
            if layer(target) > layer(name) and f"{name} -> {target}" not in KNOWN_UPWARD:
                upward.append(f"{path.relative_to(ROOT.parent)}:{line}: {name} ({LAYERS[layer(name)][0]}) imports "
                              f"{target} ({LAYERS[layer(target)][0]}), a later stage")
    found = cycles(graph)
    new = [c for c in found if tuple(c) not in KNOWN_CYCLES]
    stale = [f"known cycle is gone, remove it from KNOWN_CYCLES: {' -> '.join(c)}"
             for c in sorted(KNOWN_CYCLES) if list(c) not in found]
    edges = {f"{a} -> {b}" for a, bs in graph.items() for b in bs}
    stale += [f"known upward import is gone, remove it from KNOWN_UPWARD: {u}" for u in sorted(KNOWN_UPWARD - edges)]
    return graph, sorted(upward) + stale, new


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print every module's layer and imports")
    args = ap.parse_args(argv)
    mods = modules()
    graph, upward, cyc = check(mods)
    if args.list:
        for m in sorted(graph):
            print(f"{m} [{LAYERS[layer(m)][0]}] -> {', '.join(sorted(graph[m])) or '-'}")
    for u in upward:
        print(u)
    for c in cyc:
        print("cycle: " + " -> ".join(c))
    print(f"{len(mods)} modules, {sum(len(v) for v in graph.values())} imports; new: {len(upward)} upward, "
          f"{len(cyc)} cycles; known debts: {len(KNOWN_UPWARD)} upward, {len(KNOWN_CYCLES)} cycles", file=sys.stderr)
    return 1 if upward or cyc else 0


if __name__ == "__main__":
    sys.exit(main())
