"""Link findings and actions into a causal graph: episodes, attempts, the chain, catch-22s, pivots.

The rules are ARCHITECTURE.md's ("Linking"), made concrete:

* Only the strongest failure finding of each event counts (a traceback wrapper never competes
  with the cause printed beneath it), and generic agent failures (a bare traceback, a non-zero
  exit) only count when the session has nothing more specific.
* A packaging failure in the output of an install command is the failure of that attempt
  ("no such version"), not a new episode of the story.
* Fix actions between one failure occurrence and the next are the attempts against the first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from logsleuth.actions.commands import shell_variable
from logsleuth.enums import PACKAGE_CHANGES
from logsleuth.link.catch22 import find_catch22, package_value
from logsleuth.link.causes import unexplained_failures
from logsleuth.link.constraints import (
    bends,
    blocked_by_rules,
    read_constraints,
    request_text,
    rule_catch22,
    trapped_by_rules,
)
from logsleuth.link.episodes import group_episodes, incidents, named_by_causes, result_to_call, split_failures
from logsleuth.link.pivots import find_pivots
from logsleuth.link.request import goal_targets, quoted_as_found
from logsleuth.link.resolution import (
    acted_on,
    between,
    closing_words,
    goal_passed,
    is_diagnostic,
    outcome_from_goal,
    resolve,
    root_cause,
    runs_of,
    split_notes,
    split_slips,
    worded_pivots,
)
from logsleuth.link.roles import StoryRoles, builtin_roles
from logsleuth.link.runindex import RunIndex
from logsleuth.model import (
    NO_SEQ_LIMIT,
    Action,
    ActionKind,
    Catch22,
    CausalGraph,
    Episode,
    Finding,
    GraphEdge,
    GraphNode,
    NodeType,
    Outcome,
    Relation,
    Resolution,
    Run,
    RunRole,
    Severity,
)


def link(
    events: pl.DataFrame,
    findings: Sequence[Finding],
    actions: Sequence[Action],
    *,
    session: str | None = None,
    roles: StoryRoles | None = None,
) -> CausalGraph:
    """Build the causal graph of one session (the first session of `events` by default).
    `roles`: what each category means for the story (the built-in library's by default)."""
    roles = roles or builtin_roles()
    if session is None:
        session = str(events["session"][0]) if events.height else ""
    if not (events["session"] == session).all(ignore_nulls=False):  # a Series test: most callers pass one session's events
        events = events.filter(pl.col("session") == session)
    findings = [f for f in findings if f.session == session]
    actions = sorted((a for a in actions if a.session == session), key=lambda a: a.seq)

    # a plain log has no tool calls: no calls to pair with results, no runs (and ~10 polars
    # queries saved per session, which `index` of many small logs pays for every input)
    has_calls = bool(events.height) and bool((events["kind"].cast(pl.Utf8) == "tool_call").any())
    call_of = result_to_call(events) if has_calls else {}
    idx = runs_of(events, findings) if has_calls else RunIndex.of(())
    log_seqs = set(events["seq"].filter(events["role"] == "log").to_list()) if events.height else set()
    failed_attempts, main = split_failures(findings, actions, call_of, roles, events)
    main = named_by_causes(main, events, roles, log_seqs)
    if idx.goals:  # `pip install -r requirements.txt` failing is the goal failing, not a fix's attempt
        in_goal = [(a, f) for a, f in failed_attempts if (r := idx.at.get(a.seq)) is not None and r.role is RunRole.GOAL]
        if in_goal:
            moved = {f.seq for _, f in in_goal}
            failed_attempts = [(a, f) for a, f in failed_attempts if f.seq not in moved]
            main = sorted({f.seq: f for f in (*main, *(f for _, f in in_goal))}.values(), key=lambda f: f.seq)
    failed_actions = {a.id for a, _ in failed_attempts}
    never_ran = {call_of[f.seq]: f for f in findings if f.category in roles.not_run and f.seq in call_of}
    for a in actions:
        if a.seq in never_ran and a.kind.is_fix and a.id not in failed_actions:
            failed_attempts.append((a, never_ran[a.seq]))
            failed_actions.add(a.id)
    starting = _first_launch_flags(actions)
    fixes = _changes([a for a in actions if a.kind.is_fix and a.id not in failed_actions and a.id not in starting
                      and not is_diagnostic(a) and not shell_variable(a)])
    fix_seqs = [a.seq for a in fixes]  # ascending: actions are sorted by seq
    main = incidents(main, fixes, findings, log_seqs)
    written = [(a.seq, a.added) for a in fixes if a.kind is ActionKind.FILE_EDIT and a.added]
    main = quoted_as_found(main, events)
    main, notes = split_notes(main, idx, events, written)
    if idx.goals:
        promoted = {f.seq for f in acted_on(notes, fixes, idx)}  # a probe's failure then fixed in the project
        main = sorted((*main, *(f for f in notes if f.seq in promoted)), key=lambda f: f.seq)
        notes = [f for f in notes if f.seq not in promoted]
        known = {f.seq for f in (*main, *notes)} | {f.seq for _, f in failed_attempts}
        main = sorted((*main, *unexplained_failures(idx, known, events)), key=lambda f: f.seq)
        main, slips = split_slips(main, fixes, idx)
        notes = sorted((*notes, *slips), key=lambda f: f.seq)
    episodes = group_episodes(main)
    occurrences = sorted((seq, ep.id) for ep in episodes for seq in ep.occurrences)
    by_id = {ep.id: ep for ep in episodes}
    last_seen = {ep.id: max(ep.occurrences, default=-1) for ep in episodes}  # once: a scan per step was quadratic
    last_failure = occurrences[-1][0] if occurrences else -1

    by_runs = bool(idx.goals)  # a transcript whose commands we can re-run in our heads
    pivots_found = find_pivots(actions)
    if by_runs and episodes:
        first_failure = occurrences[0][0]
        texts = [f.text for ep in episodes for f in ep.findings[:2]]
        builds = [a for a in actions if a.kind is ActionKind.BUILD]
        changes = sorted((*fixes, *builds), key=lambda a: a.seq)
        worded = worded_pivots(events, changes, idx, first_failure, texts)
        pivots_found = sorted({p.id: p for p in (*pivots_found, *worded)}.values(), key=lambda a: a.seq)
    requested = goal_targets(events) if by_runs else []
    rules = read_constraints(request_text(events)) if by_runs else ()
    if rules and episodes:  # a change that breaks a rule of the request is a change of approach
        bent = bends([a for a in fixes if a.seq > occurrences[0][0]], rules, events)
        pivots_found = sorted({p.id: p for p in (*pivots_found, *bent)}.values(), key=lambda a: a.seq)
    resolutions: dict[str, Resolution] = (
        resolve(episodes, idx, fixes, pivots_found, {f.seq for f in notes}, requested) if by_runs else {}
    )
    passed = False
    if by_runs:
        passed, success_run = goal_passed(episodes, resolutions, idx, requested)
        first_success = _run_success(success_run, findings, events) if success_run is not None else None
    else:
        successes = sorted(
            (f for f in findings if f.severity is Severity.SUCCESS and f.category not in roles.progress),
            key=lambda f: f.seq,
        )
        first_success = next((f for f in successes if f.seq > last_failure), None)
    end = first_success.seq if first_success else NO_SEQ_LIMIT

    builder = _Builder()
    attempts: dict[str, list[Action]] = defaultdict(list)
    chain: list[str] = []
    seen_first: set[str] = set()
    for i, (seq, ep_id) in enumerate(occurrences):
        nxt = occurrences[i + 1] if i + 1 < len(occurrences) else None
        stop = nxt[0] if nxt else end
        window = between(fixes, fix_seqs, seq, stop)
        if _last_episode(chain, by_id) != ep_id:  # a run of did-not-fix attempts stays one step of the story
            chain.append(ep_id)
        seen_first.add(ep_id)
        for a in window:
            aid = builder.action(a)
            attempts[ep_id].append(a)
            builder.edge(ep_id, aid, Relation.ATTEMPTED)
            if aid not in chain:
                chain.append(aid)
        if nxt is None:
            continue
        nxt_id = nxt[1]
        recurs_later = last_seen[ep_id] > stop
        for a in window:
            aid = builder.action(a)
            if nxt_id == ep_id:
                builder.edge(aid, ep_id, Relation.DID_NOT_FIX)
                continue
            if not recurs_later and not by_runs:
                builder.edge(aid, ep_id, Relation.RESOLVED)
            rel = Relation.REVEALED if nxt_id not in seen_first else Relation.RECURRED
            builder.edge(aid, nxt_id, rel)
    for ep_id, res in resolutions.items():
        for a in res.fixed_by:
            aid = builder.action(a)
            if res.held:
                builder.edge(aid, ep_id, Relation.RESOLVED)
    if first_success is not None:
        tail = between(fixes, fix_seqs, last_failure, first_success.seq)
        for a in tail:
            aid = builder.action(a)
            if occurrences and not by_runs:
                builder.edge(aid, occurrences[-1][1], Relation.RESOLVED)
            builder.edge(aid, "s1", Relation.SUCCEEDED)
        chain.append("s1")

    for a, f in failed_attempts:
        builder.edge(builder.action(a), f"x:{f.seq}", Relation.FAILED)

    pivots = tuple(p for p in pivots_found if p.seq <= end and p.id not in failed_actions)
    for p in pivots:
        builder.action(p)
    catch22 = find_catch22(episodes, occurrences, fixes, attempts, builder.edges, builder.ids_to_actions, pivots)
    if by_runs:
        first_failure = occurrences[0][0] if occurrences else -1
        pivoted = bool(catch22) or any(
            first_failure < p.seq < (first_success.seq if first_success else NO_SEQ_LIMIT) for p in pivots
        )
        closing = closing_words(events, idx.runs[-1].end)
        outcome = outcome_from_goal(passed, episodes, pivoted, closing)
    else:
        outcome = _outcome(episodes, first_success, pivots, catch22)
    trap = catch22[0].episodes[1] if catch22 and len(catch22[0].episodes) > 1 else None
    cause = root_cause(episodes, resolutions, trap, outcome) if by_runs else _legacy_root(episodes, catch22, outcome, builder.edges)
    if by_runs and cause is not None and not catch22 and outcome is Outcome.UNRESOLVED and blocked_by_rules(closing):
        rule = trapped_by_rules(by_id[cause], rules)  # the failure's only ways out break a rule of the request
        if rule is not None:
            catch22 = (rule_catch22(by_id[cause], rule),)
    recipe = _recipe(actions, failed_actions, first_success)
    nodes = _nodes(episodes, builder, first_success)
    edges = tuple(e for e in builder.edges if not e.target.startswith("x:"))
    return CausalGraph(
        session=session,
        nodes=nodes,
        edges=edges,
        chain=tuple(chain),
        episodes=tuple(episodes),
        attempts={k: tuple(attempts[k]) for k in by_id if k in attempts},  # in episode order
        failed_attempts=tuple(failed_attempts),
        catch22=catch22,
        pivots=pivots,
        outcome=outcome,
        first_success=first_success,
        recipe=recipe,
        node_actions=dict(builder.ids_to_actions),
        resolutions=resolutions,
        root_cause=cause,
        runs=idx.runs,
        notes=tuple(notes),
    )


def _run_success(run: Run, findings: Sequence[Finding], events: pl.DataFrame) -> Finding:
    """The success of a goal run: its own success finding, else the run itself as one."""
    seq = run.result_seq if run.result_seq is not None else run.seq
    own = next((f for f in findings if f.seq == seq and f.severity is Severity.SUCCESS), None)
    if own is not None:
        return own
    row = events.filter(pl.col("seq") == seq).select("source", "line", "text", "ts", "session").row(0, named=True)
    names = " && ".join(t.name for t in run.targets)
    text = (row["text"] or "").strip()
    return Finding(
        pattern="goal-run-passed",
        category="goal_passed",
        severity=Severity.SUCCESS,
        priority=0,
        session=row["session"],
        seq=seq,
        source=row["source"] or "",
        line=row["line"] or 0,
        text=f"`{names}` passed" + (f"\n{text}" if text else ""),
        captures={"target": names},
        fingerprint=names,
        ts=row["ts"],
    )


def _legacy_root(
    episodes: Sequence[Episode], catch22: Sequence[Catch22], outcome: Outcome, edges: Sequence[GraphEdge]
) -> str | None:
    """Root cause where there are no runs to re-run (a plain log): the trap, else the last failure
    left unresolved by an unresolved session, else the last failure."""
    if catch22 and len(catch22[0].episodes) > 1:
        return catch22[0].episodes[1]
    if not episodes:
        return None
    resolved = {e.target for e in edges if e.relation is Relation.RESOLVED}
    open_eps = [ep for ep in episodes if ep.id not in resolved]
    if open_eps and outcome is Outcome.UNRESOLVED:
        return open_eps[-1].id
    return episodes[-1].id


_FLAG_KINDS = frozenset({ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED, ActionKind.FLAG_REMOVED})


def _first_launch_flags(actions: Sequence[Action]) -> set[str]:
    """Flags of each engine's first launch: the starting configuration, not an attempt."""
    first: dict[str, int] = {}
    for a in actions:
        if a.kind is ActionKind.LAUNCH:
            first.setdefault(a.subject, a.seq)
    seqs = set(first.values())
    return {a.id for a in actions if a.kind in _FLAG_KINDS and a.seq in seqs}


def _changes(fixes: Sequence[Action]) -> list[Action]:
    """Drop restatements. Every ssh command re-exports its variables, which changes nothing: an
    env value set before is not news. A package moved back to an earlier version is."""
    last_pkg: dict[str, str | None] = {}
    seen: set[tuple[str, str, str | None]] = set()
    out = []
    for a in fixes:
        if a.kind in PACKAGE_CHANGES:
            value = package_value(a)
            if last_pkg.get(a.subject, "\0") == value:
                continue
            last_pkg[a.subject] = value
        elif a.kind is not ActionKind.FILE_EDIT:
            key = (a.kind.value, a.subject, a.value)
            if key in seen:
                continue
            seen.add(key)
        out.append(a)
    return out


def _last_episode(chain: list[str], episodes: Mapping[str, Episode]) -> str | None:
    return next((n for n in reversed(chain) if n in episodes), None)


class _Builder:
    """Assigns action node ids in first-use order and collects unique edges."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.ids_to_actions: dict[str, Action] = {}
        self.edges: list[GraphEdge] = []
        self._edge_set: set[tuple[str, str, Relation]] = set()

    def action(self, a: Action) -> str:
        if a.id not in self.ids:
            node_id = f"a{len(self.ids) + 1}"
            self.ids[a.id] = node_id
            self.ids_to_actions[node_id] = a
        return self.ids[a.id]

    def edge(self, source: str, target: str, rel: Relation) -> None:
        key = (source, target, rel)
        if key not in self._edge_set:
            self._edge_set.add(key)
            self.edges.append(GraphEdge(source, target, rel))


def to_networkx(g: CausalGraph) -> Any:
    """The causal graph as a networkx DiGraph: node attributes as in `graph --output-format json`,
    edge attribute `relation`; catch-22 pairs are `catch22` edges both ways."""
    import networkx as nx

    d = nx.DiGraph(session=g.session, outcome=g.outcome.value)
    for n in g.nodes:
        d.add_node(n.id, **{k: v for k, v in n.to_dict().items() if k != "id"})
    for e in g.edges:
        d.add_edge(e.source, e.target, relation=e.relation.value)
    for c in g.catch22:
        for a, b in zip(c.episodes, (*c.episodes[1:], c.episodes[0]), strict=True):
            d.add_edge(a, b, relation="catch22")
    return d


def _outcome(
    episodes: Sequence[Episode], success: Finding | None, pivots: Sequence[Action], catch22: Sequence[Catch22]
) -> Outcome:
    if not episodes:
        return Outcome.RESOLVED
    if success is None:
        return Outcome.UNRESOLVED
    first_failure = min(ep.occurrences[0] for ep in episodes)
    pivoted = any(first_failure < p.seq < success.seq for p in pivots)
    return Outcome.WORKED_AROUND if pivoted or catch22 else Outcome.RESOLVED


def _recipe(actions: Sequence[Action], failed: set[str], success: Finding | None) -> tuple[str, ...]:
    if success is None:
        return ()
    from logsleuth import actions as actions_mod

    kept = [a for a in actions if a.id not in failed]
    state = actions_mod.state_at(kept, success.seq)
    return tuple(actions_mod.recipe_lines(state))


def _nodes(episodes: Sequence[Episode], builder: _Builder, success: Finding | None) -> tuple[GraphNode, ...]:
    nodes = [
        GraphNode(
            id=ep.id,
            type=NodeType.FAILURE.value,
            seq=ep.occurrences[0],
            label=_first_line(ep.first.text),
            category=ep.category,
            pattern=ep.pattern,
        )
        for ep in episodes
    ]
    for node_id, a in builder.ids_to_actions.items():
        nodes.append(
            GraphNode(
                id=node_id,
                type=NodeType.ACTION.value,
                seq=a.seq,
                label=action_label(a),
                kind=a.kind.value,
                subject=a.subject,
                value=a.value,
            )
        )
    if success is not None:
        nodes.append(
            GraphNode(id="s1", type=NodeType.SUCCESS.value, seq=success.seq, label=_first_line(success.text), category=success.category)
        )
    return tuple(nodes)


def action_label(a: Action) -> str:
    """A short human label: "install nvidia-cuda-nvcc<13.1 → 13.0.88", "set LD_LIBRARY_PATH"."""
    kind = a.kind.value.replace("_", " ")
    if a.kind in PACKAGE_CHANGES:
        spec = a.value or ""
        got = f" → {a.resolved}" if a.resolved else ""
        return f"{kind} {a.subject}{spec if spec[:1] in '<>=!~' else (' ' + spec if spec else '')}{got}"
    if a.kind in (ActionKind.ENV_SET,):
        return f"set {a.subject}"
    if a.kind in (ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED):
        return f"{a.subject}{' ' + a.value if a.value else ''}"
    return f"{kind} {a.subject}".strip()


def _first_line(text: str, limit: int = 100) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"
