"""The verdict of one session, decided once after linking: outcome and its reason, root cause,
each failure's fix, what is still open, what was bent and the recipe. Every surface reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from logsleuth.model import Action, CausalGraph, Finding, Run
from logsleuth.verdict.bends import find_bends
from logsleuth.verdict.context import Context, category_maps, cause_rules
from logsleuth.verdict.failures import failure_verdicts
from logsleuth.verdict.model import Verdict
from logsleuth.verdict.outcome import decide_ending, diagnosis_ending, success_run
from logsleuth.verdict.recipe import recipe
from logsleuth.verdict.rootcause import decide_root_cause


def decide(events: pl.DataFrame, findings: Sequence[Finding], actions: Sequence[Action], graph: CausalGraph,
           categories: Mapping[str, object]) -> Verdict:
    """The one judgement of the session `graph` is about (`events` are that session's)."""
    titles, causes, conditions, not_run = category_maps(categories)
    ctx = Context(events, tuple(findings), tuple(a for a in actions if a.session == graph.session), graph,
                  titles, causes, conditions, not_run, cause_rules(categories))
    success = success_run(ctx) if ctx.transcript else None
    pre = failure_verdicts(ctx, _seq(success))
    bends = find_bends(ctx, pre, success)
    ending = decide_ending(ctx, pre, bends, success)
    failures = pre if ending.success == _seq(success) else failure_verdicts(ctx, ending.success)
    root = decide_root_cause(ctx, failures)
    ending = diagnosis_ending(ctx, root) or ending
    return Verdict(
        session=graph.session,
        outcome=ending.outcome,
        reason=ending.reason,
        reason_seqs=ending.seqs,
        root_cause=root,
        failures=failures,
        still_open=ending.still_open,
        bends=tuple(bends) if ending.success is not None else (),
        recipe=recipe(ctx, success, ending.success),
        goal=ctx.goal,
        constraints=tuple(c.clause for c in ctx.rules),
        success_seq=ending.success,
    )


def _seq(run: Run | None) -> int | None:
    """Where a run's result shows (its output event, else the call)."""
    if run is None:
        return None
    return run.result_seq if run.result_seq is not None else run.seq
