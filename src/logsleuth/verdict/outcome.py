"""The outcome of a session and its reason: one sentence, with the events it rests on.

Resolved: every goal target passes at its last run in the user's project and nothing was bent.
Worked around: it passes only by bending something (verdict/bends.py), by stepping round a
catch-22 or after a change of approach. Unresolved: a goal target fails at its last run, a
failure is still open, or the agent concluded it could not be done. No failure: nothing failed.
A probe, a scratch copy or a call that never ran is not a goal run, so it never decides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from logsleuth.clip import short
from logsleuth.enums import INSTALLS, Outcome
from logsleuth.link.constraints import diagnosis_only
from logsleuth.link.resolution import closing_words
from logsleuth.model import Action, ActionKind, Run, RunStatus, Target
from logsleuth.verdict.bends import VENDOR as _VENDOR
from logsleuth.verdict.changes import is_change
from logsleuth.verdict.context import Context, episodes_by_id, last_failure
from logsleuth.verdict.model import Bend, FailureVerdict, OpenItem, RootCause
from logsleuth.verdict.rootcause import telling_line

_GAVE_UP = re.compile(
    r"\b(cannot be (fixed|resolved|done)|can(no|')t (be )?(fix|resolve|get (it|this) to)|unable to (fix|resolve|get)|"
    r"still (fails|failing|broken|does not work|doesn't work)|not possible (under|with|without)|blocked (on|by)|"
    r"no way to (fix|satisfy)|impossible (to|under)|could not (fix|resolve|get (it|this) (to )?work)|"
    r"remains? (unresolved|broken)|won't work under)\b", re.I)


@dataclass(frozen=True)
class Ending:
    outcome: Outcome
    reason: str
    seqs: tuple[int, ...]
    success: int | None  # the seq of the goal run (or log success) that shows the goal reached
    still_open: tuple[OpenItem, ...]


def success_run(ctx: Context) -> Run | None:
    """The goal run that shows the goal reached: the first passing goal run after the last failure,
    when every goal target's last run passed; else the run the linker saw the goal pass in (a
    session whose goal is a sequence of targets, `git add` then `git commit`)."""
    finals = ctx.asked_runs()
    if any(ctx.status(r) is RunStatus.FAILED for r in finals.values()):
        return None
    after = ctx.passed_goal_runs(_last_failure_that_counts(ctx, finals))
    if finals and after:
        # a later pass with nothing set on its command line is the state the user is left with
        # (held-out tlsprof: `GLIBC_TUNABLES=… pytest` first, then the bare command passed)
        return next((r for r in after if not r.env), after[0])
    s = ctx.graph.first_success
    if s is None:
        return None
    run = next((r for r in ctx.graph.runs if s.seq in (r.seq, r.result_seq)), None)
    if run is None:
        run = _reported_run(ctx, s.seq)
    return run if run is not None and run.seq not in ctx.never_ran else None


def _last_failure_that_counts(ctx: Context, finals: dict[str, Run]) -> int:
    """The last failure, leaving out what a look after the goal targets' final passing runs
    showed, with nothing changed since: a run of no goal target (`python -c 'import stepprof'`
    outside pytest, on purpose) does not undo the pass (held-out tlsprof was judged on it)."""
    last = last_failure(ctx.graph.episodes)
    if not finals:
        return last
    passed = max(r.seq for r in finals.values())
    if last <= passed or any(passed < a.seq <= last and is_change(a, ctx.never_ran) for a in ctx.actions):
        return last
    late = [o for ep in ctx.graph.episodes for o in ep.occurrences if o > passed]
    if all(_of_no_goal_target(ctx, o) for o in late):
        return max((o for ep in ctx.graph.episodes for o in ep.occurrences if o <= passed), default=-1)
    return last


def _of_no_goal_target(ctx: Context, seq: int) -> bool:
    """The output at `seq` is of a call whose runs run none of the goal targets (every run of the
    call, not the first: `ls; make test` is two runs of one call)."""
    runs = [r for r in ctx.graph.runs if seq in (r.seq, r.result_seq)]
    return bool(runs) and not any(t.name in ctx.goal for r in runs for t in r.targets)


def _reported_run(ctx: Context, seq: int) -> Run | None:
    """The run a success report at `seq` speaks of, when the record holds no output of its own
    (aider's history keeps only the agent's reading of it): the last run before it, if its
    status is unknown rather than failed."""
    before = [r for r in ctx.graph.runs if r.seq < seq]
    return before[-1] if before and before[-1].status is RunStatus.UNKNOWN else None


def decide_ending(ctx: Context, failures: Sequence[FailureVerdict], bends: Sequence[Bend],
                  success: Run | None) -> Ending:
    if not ctx.graph.episodes:
        return _no_failure(ctx, success)
    return _of_runs(ctx, failures, bends, success) if ctx.transcript else _of_log(ctx, failures)


def diagnosis_ending(ctx: Context, root: RootCause) -> Ending | None:
    """A request for a diagnosis only ("find out why … don't change anything yet"): reached when
    the agent states the cause and changed nothing; not when it states none. None for any other
    request, or when the session changed something (then it is judged as any other)."""
    if not ctx.transcript or not ctx.graph.episodes or not diagnosis_only(ctx.request):
        return None
    if any(is_change(a, ctx.never_ran) and not _reproduction(ctx, a) for a in ctx.actions):
        return None
    if root.basis == "agent" and root.text:
        at = root.seqs[0] if root.seqs else _closing_seq(ctx)
        cause = short(root.text.rstrip("."), 200)
        return Ending(Outcome.RESOLVED, f"The request asks for a diagnosis, not a fix: the agent states the cause "
                      f"({cause[:1].lower() + cause[1:]}) [msg {at}] and changed nothing.", (at,), None, ())
    return Ending(Outcome.UNRESOLVED, "The request asks for a diagnosis, and the agent's words name no cause of the failure.",
                  (), None, _open_items(ctx, failure_verdicts_open(ctx)))


def _reproduction(ctx: Context, a: Action) -> bool:
    """An install that did not pass (the failing `pip install -e .` run again to see it) changed nothing."""
    run = ctx.idx.at.get(a.seq)
    return a.kind in INSTALLS and run is not None and ctx.status(run) is not RunStatus.PASSED


def failure_verdicts_open(ctx: Context) -> list[FailureVerdict]:
    """The episodes as unfixed failures (a diagnosis fixes nothing)."""
    return [FailureVerdict(ep.id, ctx.title(ep), ep.category, ep.occurrences[0], ep.occurrences[-1], None, None,
                           (), "", "a diagnosis was asked for; nothing was changed") for ep in ctx.graph.episodes]


def _no_failure(ctx: Context, success: Run | None) -> Ending:
    if success is not None:
        return Ending(Outcome.NO_FAILURE, f"Nothing failed; {_goal_words(success)} passed [msg {_at(success)}].",
                      (_at(success),), _at(success), ())
    return Ending(Outcome.NO_FAILURE, "Nothing failed: no command or log line of the session reports a failure.", (), None, ())


def _of_runs(ctx: Context, failures: Sequence[FailureVerdict], bends: Sequence[Bend], success: Run | None) -> Ending:
    open_items = _open_items(ctx, failures)
    failing = [r for r in ctx.asked_runs().values() if ctx.status(r) is RunStatus.FAILED]
    if failing:
        run = failing[-1]
        why = next((_why(ctx, f) for f in failures if not f.fixed and f.last_seq >= run.seq), "")
        text = f"{_goal_words(run)} still fails at its last run [msg {_at(run)}]" + (f": {why}" if why else "") + "."
        return Ending(Outcome.UNRESOLVED, text, (_at(run),), None, open_items)
    closing = closing_words(ctx.events, ctx.graph.runs[-1].end) if ctx.graph.runs else ""
    # what ran outweighs the words: with every goal target's last run passed, "you can't fix the .so
    # without modifying the vendor drop" explains a rule, it does not give up (held-out tlsprof)
    all_passed = set(ctx.goal) <= set(ctx.final_runs())
    gave_up = None if all_passed else _GAVE_UP.search(closing)
    if success is None or gave_up:
        return _unresolved(ctx, failures, open_items, success, bool(gave_up))
    return _passed(ctx, bends, success, open_items)


def _unresolved(ctx: Context, failures: Sequence[FailureVerdict], open_items: tuple[OpenItem, ...],
                success: Run | None, gave_up: bool) -> Ending:
    still = [f for f in failures if not f.fixed]
    if still:
        f = still[-1]
        return Ending(Outcome.UNRESOLVED, f"{f.title} [msg {f.last_seq}] is never seen fixed: {f.open or 'no later run passed'}.",
                      (f.last_seq,), None, open_items)
    if gave_up:
        seq = _closing_seq(ctx)
        return Ending(Outcome.UNRESOLVED, f"The agent concludes the goal cannot be reached as asked [msg {seq}].",
                      (seq,), None, open_items)
    names = ", ".join(f"`{g}`" for g in ctx.goal) or "the goal"
    return Ending(Outcome.UNRESOLVED, f"{names} never ran to a pass in the user's project after the last failure.",
                  (), None, open_items)


def _passed(ctx: Context, bends: Sequence[Bend], success: Run, open_items: tuple[OpenItem, ...]) -> Ending:
    at = _at(success)
    words = _goal_words(success)
    if bends:
        b = bends[0]
        more = f" (and {len(bends) - 1} more)" if len(bends) > 1 else ""
        return Ending(Outcome.WORKED_AROUND, f"{words} passes [msg {at}] only with a bend: {b.kind}, {b.text} [msg {b.seq}]{more}.",
                      (at, b.seq), at, open_items)
    if ctx.graph.catch22:
        c = ctx.graph.catch22[0]
        return Ending(Outcome.WORKED_AROUND, f"{words} passes [msg {at}] by stepping round a catch-22 over {c.subject}.",
                      (at, *c.moves[:1]), at, open_items)
    first = min(ep.occurrences[0] for ep in ctx.graph.episodes)
    pivot = next((p for p in ctx.graph.pivots if first < p.seq < at and not _own_artefact(p)), None)
    if pivot is not None and ctx.graph.outcome is Outcome.WORKED_AROUND:
        return Ending(Outcome.WORKED_AROUND, f"{words} passes [msg {at}] after a change of approach: "
                      f"`{short(pivot.command, 70)}` [msg {pivot.seq}].", (at, pivot.seq), at, open_items)
    said = _said_workaround(ctx, at)
    if said is not None:
        seq, quote = said
        return Ending(Outcome.WORKED_AROUND, f"{words} passes [msg {at}], and the agent says it got there round "
                      f"something it changed: “{quote}” [msg {seq}].", (at, seq), at, open_items)
    rules = " and no rule of the request was broken" if ctx.rules else ""
    finals = _final_passes(ctx, success)
    seqs = tuple(dict.fromkeys((at, *(s for _, s in finals))))
    if len(finals) > 1:
        named = " and ".join(f"{w} [msg {s}]" for w, s in finals)
        return Ending(Outcome.RESOLVED, f"{named} pass at their last runs in the user's project{rules}.",
                      seqs, at, open_items)
    return Ending(Outcome.RESOLVED, f"{words} passes at its last run [msg {at}] in the user's project{rules}.",
                  (at,), at, open_items)


def _final_passes(ctx: Context, success: Run) -> list[tuple[str, int]]:
    """Each goal target's last run, as the user's words and its result's seq, in the order they ran
    (a resolved reason names every target, not only the first to pass)."""
    finals = ctx.final_runs()
    runs = sorted({id(r): r for r in finals.values()}.values(), key=lambda r: r.seq) or [success]
    return [(_goal_words(r), _at(r)) for r in runs]


def _own_artefact(a: Action) -> bool:
    """A build or a file edit of the project's own tree (a PTX regenerated from its source with the
    local nvcc and put in place): a fix made in the project, not a way round it; a vendored or
    installed artefact replaced is a bend (verdict/bends.py). The held-out ptxskew's labeller and
    the issue's definition of a workaround agree."""
    return a.kind in (ActionKind.BUILD, ActionKind.FILE_EDIT) and not _VENDOR.search(a.subject) and not a.subject.startswith("/")


_WORKAROUND_SAID = re.compile(r"\b(?:the|this|my|our|a|as a|[\w-]+) work-?arounds?\b|\bworked around\b|\bstop-?gap\b|"
                             r"\btemporary (?:fix|workaround|hack)\b|"
                             # "The rule I bent is …", "I bent one rule", "I'm bending (d)" (heldout7 rdclink-bend)
                             r"\b(?:the )?(?:rule|constraint)s? I (?:bent|broke|relaxed)\b|\bI(?:'ve| have|'m| am)? "
                             r"(?:bent|bending|broke|relaxed) (?:one|a|the|your|that|this|\(\w\))", re.I)
_NOT_A_WORKAROUND = re.compile(r"\b(?:no|without|not|never|instead of|rather than|didn'?t|did not)\s+(?:\w+\s+){0,2}"
                               r"(?:work-?around|stop-?gap|bend|bent|break|broke)", re.I)


def _said_workaround(ctx: Context, at: int) -> tuple[int, str] | None:
    """(seq, its sentence) where the agent says it worked round something ("workaround", "the rule I
    bent"), weighed: only in its conclusion (after the passing run), in a sentence near something the
    session changed."""
    subjects = {a.subject.rsplit("/", 1)[-1].lower() for a in ctx.actions if a.kind.is_fix and a.seq < at and len(a.subject) > 2}
    for seq, text in ctx.prose(after=at):
        for m in _WORKAROUND_SAID.finditer(text):
            if _NOT_A_WORKAROUND.search(text[max(0, m.start() - 40): m.end()]):
                continue
            window = text[max(0, m.start() - 200): m.end() + 200].lower()
            if any(s in window for s in subjects):
                return seq, _sentence_at(text, m.start())
    return None


def _sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` around `pos`, on one line, at most 160 characters."""
    start = max(text.rfind(". ", 0, pos), text.rfind("\n", 0, pos)) + 1
    ends = [e for e in (text.find(". ", pos), text.find("\n", pos)) if e >= 0]
    end = min(ends) + 1 if ends else len(text)
    return short(" ".join(text[start:end].replace("**", "").split()).lstrip("-*• "), 160)


def _of_log(ctx: Context, failures: Sequence[FailureVerdict]) -> Ending:
    """A plain log: resolved when a success follows the last failure, else unresolved."""
    s = ctx.graph.first_success
    last = failures[-1]
    if s is not None and s.seq > last.last_seq and ctx.graph.outcome is not Outcome.UNRESOLVED:
        outcome = ctx.graph.outcome
        return Ending(outcome, f"The log reaches {ctx.titles.get(s.category, s.category).lower()} [msg {s.seq}] "
                      f"after its last failure [msg {last.last_seq}].", (s.seq, last.last_seq), s.seq, ())
    return Ending(Outcome.UNRESOLVED, f"The log ends after {last.title} [msg {last.last_seq}] with no success after it.",
                  (last.last_seq,), None, _open_items(ctx, failures))


def _why(ctx: Context, f: FailureVerdict) -> str:
    """A failure as the reason names it: its title, or its telling line when the title only says
    that the command failed."""
    if not (f.title.startswith("`") and f.title.endswith(" failed")):
        return f.title
    ep = episodes_by_id(ctx.graph).get(f.id)
    return f"`{telling_line(ep)}`" if ep is not None else f.title


def _open_items(ctx: Context, failures: Sequence[FailureVerdict]) -> tuple[OpenItem, ...]:
    return tuple(OpenItem(f"{f.title}: {f.open}", f.last_seq, f.id) for f in failures if not f.fixed)


def _goal_words(run: Run) -> str:
    names = " && ".join(dict.fromkeys(_as_run(t) for t in run.targets)) or short(run.command, 60)
    return f"`{names}`"


def _as_run(t: Target) -> str:
    """A target as the user would type it: the command as run, its program without the folder it
    was run from (`.venv/bin/pip install -e .` is `pip install -e .`; the target's name drops `-e`)."""
    if not t.argv:
        return t.name
    words = (t.argv[0].rsplit("/", 1)[-1], *t.argv[1:])
    text = " ".join(words)
    return text if len(text) <= 60 else t.name


def _at(run: Run) -> int:
    return run.result_seq if run.result_seq is not None else run.seq


def _closing_seq(ctx: Context) -> int:
    after = ctx.graph.runs[-1].end if ctx.graph.runs else -1
    prose = ctx.prose(after)
    return prose[-1][0] if prose else after
