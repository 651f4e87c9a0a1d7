"""How each failure of the chain ended: the state its fix changed, where it was seen gone, whether
it stayed away, and why it is open when it is."""

from __future__ import annotations

from logsleuth.model import Action, Episode, Relation, Run
from logsleuth.verdict.changes import change_of, gone_by_run, is_change
from logsleuth.verdict.context import Context
from logsleuth.verdict.model import Change, FailureVerdict


def failure_verdicts(ctx: Context, success_seq: int | None) -> tuple[FailureVerdict, ...]:
    """One FailureVerdict per episode, in the order they first occurred."""
    judge = _of_run if ctx.transcript else _of_log
    return tuple(judge(ctx, ep, success_seq) for ep in ctx.graph.episodes)


def _of_run(ctx: Context, ep: Episode, success_seq: int | None) -> FailureVerdict:
    res = ctx.graph.resolutions.get(ep.id)
    at = res.at if res is not None else None
    passed = ctx.idx.at.get(at) if at is not None else None
    fix = _changes(res.fixed_by if res is not None else (), passed, ctx)
    held = res.held if res is not None else None
    if at is None and success_seq is not None and ep.occurrences[-1] < success_seq:
        at, held = success_seq, True  # the final goal run passed after it: it is gone by then
    gone = "" if at is None else _gone_by(ctx, ep, at)
    shown = ctx.idx.at.get(at) if at is not None else None
    return FailureVerdict(ep.id, ctx.title(ep), ep.category, ep.occurrences[0], ep.occurrences[-1], at,
                          held if at is not None else None, fix, gone, "" if at is not None else _open(ctx, ep),
                          shown.result_seq if shown is not None else None)


def _of_log(ctx: Context, ep: Episode, success_seq: int | None) -> FailureVerdict:
    """A plain log: the linker's RESOLVED edges name the fix; the success after the last failure
    shows it gone."""
    acts = [ctx.graph.node_actions[e.source] for e in ctx.graph.edges
            if e.target == ep.id and e.relation is Relation.RESOLVED and e.source in ctx.graph.node_actions]
    at = success_seq if success_seq is not None and success_seq > ep.occurrences[-1] else None
    fix = _changes(acts, None, ctx) if at is not None else ()
    return FailureVerdict(ep.id, ctx.title(ep), ep.category, ep.occurrences[0], ep.occurrences[-1], at,
                          True if at is not None else None, fix, "" if fix or at is None else "later run",
                          "" if at is not None else "no success follows it in the log")


def _changes(actions: tuple[Action, ...] | list[Action], run: Run | None, ctx: Context) -> tuple[Change, ...]:
    """The state changes among a fix's actions (a backup, a probe's variable, scratch: none)."""
    out = {a.id: change_of(a, run) for a in actions if is_change(a, ctx.never_ran) and not gone_by_run(a, run)}
    return tuple(sorted(out.values(), key=lambda c: c.seq))


def _gone_by(ctx: Context, ep: Episode, at: int) -> str:
    """"re-run" only when the same command ran again; else the later run that no longer showed it."""
    failed = ctx.idx.at.get(_call_of(ctx, ep.occurrences[-1]))
    passed = ctx.idx.at.get(at)
    if failed is not None and passed is not None and (failed.command.strip() == passed.command.strip() or _same_step(failed, passed)):
        return "re-run"
    return "later run"


def _same_step(a: Run, b: Run) -> bool:
    """Both runs run one goal target (`launch sglang` with another env prefix is the same step)."""
    names = {t.name for t in a.targets}
    return bool(names) and names == {t.name for t in b.targets}


def _call_of(ctx: Context, seq: int) -> int:
    """The call whose output holds the event at `seq` (the event itself when it is a call)."""
    return next((r.seq for r in ctx.graph.runs if r.result_seq == seq), seq)


def _open(ctx: Context, ep: Episode) -> str:
    last = ep.occurrences[-1]
    last_goal = ctx.goal_runs[-1] if ctx.goal_runs else None
    if last_goal is not None and last in (last_goal.seq, last_goal.result_seq):
        return f"the last goal run [msg {last_goal.seq}] still failed with it"
    later = [r for r in ctx.goal_runs if r.seq > last]
    if not later:
        return f"no goal run came after its last occurrence [msg {last}]"
    return f"it still showed at its last occurrence [msg {last}]"
