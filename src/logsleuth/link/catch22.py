"""Catch-22s: the session went round between failures, each fix of one bringing back another.

Two ways to see one (link.chain calls `find_catch22`):
(i) a cycle in the graph of which failure followed which (A -> B -> A, up to three long), with the
    attempts against every episode on it moving one same subject (a package, a variable);
(ii) a "trap": moving a package cured A and revealed B, the way back is known to bring A back, and
    nothing but a pivot got past B.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence

from logsleuth.enums import PACKAGE_CHANGES
from logsleuth.model import Action, ActionKind, Catch22, Episode, GraphEdge, Relation


def package_value(a: Action) -> str | None:
    return a.resolved or a.value


def find_catch22(
    episodes: Sequence[Episode],
    occurrences: Sequence[tuple[int, str]],
    fixes: Sequence[Action],
    attempts: Mapping[str, list[Action]],
    edges: Sequence[GraphEdge],
    ids_to_actions: Mapping[str, Action],
    pivots: Sequence[Action],
) -> tuple[Catch22, ...]:
    """The traps of a session (see the module docstring); `edges`/`ids_to_actions` are the graph's so far."""
    if not any(attempts.values()):  # both kinds of trap are made of attempts (a plain log has none)
        return ()
    found: list[Catch22] = []
    order = [ep for _, ep in occurrences]
    compressed = [e for i, e in enumerate(order) if i == 0 or order[i - 1] != e]
    by_id = {ep.id: ep for ep in episodes}
    done: set[frozenset[str]] = set()
    # (i) the session really went round: a cycle in the graph of which failure followed which
    # (A -> B -> A, or longer), with the attempts of every episode on it moving one same subject
    moved = PACKAGE_CHANGES | {ActionKind.ENV_SET}
    of_subject: dict[str, list[Action]] = {}  # fixes per subject, in order (one scan, not one per cycle)
    for x in fixes:
        of_subject.setdefault(x.subject, []).append(x)
    resolved_by: dict[str, list[Action]] = {}  # episode id -> actions with a RESOLVED edge to it, in edge order
    for e in edges:
        if e.relation is Relation.RESOLVED and e.source in ids_to_actions:
            resolved_by.setdefault(e.target, []).append(ids_to_actions[e.source])
    suffixes: dict[tuple[str, int], tuple[tuple[str, ...], tuple[int, ...]]] = {}
    for cycle in _transition_cycles(compressed):
        subjects = [{x.subject for x in attempts.get(e, []) if x.kind in moved} for e in cycle]
        common = sorted(set.intersection(*subjects))
        if not common or frozenset(cycle) in done:
            continue
        first = min(by_id[e].occurrences[0] for e in cycle)
        key = (common[0], first)
        if key not in suffixes:  # many cycles share a subject and a start: their moves are one suffix
            moves = of_subject.get(common[0], [])
            moves = moves[bisect.bisect_right([m.seq for m in moves], first):]  # fixes ascend by seq
            values = tuple(dict.fromkeys(v for v in (package_value(m) for m in moves) if v))
            suffixes[key] = (values, tuple(m.seq for m in moves))
        values, move_seqs = suffixes[key]
        found.append(
            Catch22(episodes=tuple(cycle), subject=common[0], values=values, alternated=True, moves=move_seqs)
        )
        done.add(frozenset(cycle))
    # (ii) a move of a package cured A and revealed B, the way back is known to bring A back, and
    # nothing but a pivot gets past B: each known move of the subject leads to a known failure
    pivot_ids = {p.id for p in pivots}
    for i in range(len(compressed) - 1):
        a_id, b_id = compressed[i], compressed[i + 1]
        if frozenset((a_id, b_id)) in done or by_id[b_id].occurrences[0] < by_id[a_id].occurrences[0]:
            continue
        movers = [x for x in attempts.get(a_id, []) if x.kind in PACKAGE_CHANGES and package_value(x)]
        if not movers:
            continue
        mover = movers[-1]
        before = [
            x
            for x in of_subject.get(mover.subject, [])
            if x.seq < by_id[a_id].occurrences[-1] and x.kind in PACKAGE_CHANGES
        ]
        if not before or package_value(before[-1]) == package_value(mover):
            continue
        resolvers = resolved_by.get(b_id, [])
        if resolvers and not any(r.id in pivot_ids for r in resolvers):
            continue  # B was fixed the ordinary way: no trap
        found.append(
            Catch22(
                episodes=(a_id, b_id),
                subject=mover.subject,
                values=(str(package_value(before[-1])), str(package_value(mover))),
                alternated=False,
                moves=(before[-1].seq, mover.seq),
            )
        )
        done.add(frozenset((a_id, b_id)))
    return tuple(found)


def _transition_cycles(compressed: Sequence[str]) -> list[list[str]]:
    """Cycles of two or three episodes in the transition graph, each starting at its earliest
    episode, in order. Enumerated from the edges (each edge, each step on from it): networkx's
    bounded simple_cycles ran a component search per node, quadratic in a long session."""
    succ: dict[str, set[str]] = {}
    for a, b in itertools.pairwise(compressed):
        if a != b:
            succ.setdefault(a, set()).add(b)
    rank = {e: i for i, e in reversed(list(enumerate(compressed)))}

    def rotated(cycle: list[str]) -> tuple[str, ...]:
        start = min(range(len(cycle)), key=lambda i: rank[cycle[i]])
        return tuple(cycle[start:] + cycle[:start])

    found: set[tuple[str, ...]] = set()
    for a, outs in succ.items():
        for b in outs:
            if a in succ.get(b, ()):
                found.add(rotated([a, b]))
            for c in succ.get(b, ()):
                if c != a and a in succ.get(c, ()):
                    found.add(rotated([a, b, c]))
    cycles = [list(c) for c in found]
    return sorted(cycles, key=lambda c: (len(c), [rank[e] for e in c]))
