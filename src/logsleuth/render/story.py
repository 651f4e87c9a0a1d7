"""Turn an Analysis into the typed parts of the report model (`render/report.py`), one section each.

The prose is composed here, from the data: phrasings depend on what happened (a fix that
revealed the next failure reads differently from one that changed nothing), and rotate so
that a long chain does not repeat one sentence shape. Every statement carries the seq of the
event that supports it; templates print it as `[msg N]`.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import polars as pl

from logsleuth.analysis import Analysis
from logsleuth.clip import first_lines
from logsleuth.facts import SessionFacts, session_facts
from logsleuth.ingest.coverage import intro_notes
from logsleuth.link import action_label
from logsleuth.link.constraints import blocked_by_rules
from logsleuth.link.roles import builtin_roles
from logsleuth.model import (
    NO_SEQ_LIMIT,
    Action,
    ActionKind,
    Catch22,
    Episode,
    Finding,
    Outcome,
    Relation,
    Sentence,
)
from logsleuth.reasoning import DIAGNOSIS, catch22_statements, is_plan, key_quotes
from logsleuth.render import refs
from logsleuth.render.describe import describe, edit_diff, lower_first
from logsleuth.render.refs import cite
from logsleuth.render.report import (
    Assumption,
    Attempt,
    Change,
    Check,
    Cited,
    Command,
    Diagnosis,
    FindingRow,
    Fix,
    Intro,
    Knowledge,
    Pivot,
    Quote,
    Required,
    RootCause,
    Step,
    Success,
    Trap,
    TrapPath,
    Unresolved,
)
from logsleuth.render.rows import EventRow, event_rows
from logsleuth.render.verdicts import UNTESTED, Judge

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
RUN_LIMIT = 4  # more attempts than this against one failure are summarised, not listed

_LEADS_REVEALED = (
    "That cleared the way, and the next run stopped somewhere new {cite}:",
    "One layer down, a different error {cite}:",
    "The relaunch got further before failing again {cite}:",
    "With that fixed, the next failure surfaced {cite}:",
)
_LEADS_PLAIN = (
    "Right after that, a second problem showed up {cite}:",
    "Then, without any change in between, {cite}:",
)
_AGAIN = (
    "; the same error came back {cite}",
    ", and nothing changed: {cite}",
    "; still the same failure {cite}",
)
_CONCLUSIONS = (
    "The agent's reading of it {cite}: “{text}”",
    "Its diagnosis {cite}: “{text}”",
    "The reasoning that followed {cite} put it this way: “{text}”",
)


class Story:
    """Indexes an Analysis once, then builds each section of the postmortem (typed parts of
    `render.report`). `facts`: the session's facts, computed here unless given."""

    def __init__(self, an: Analysis, facts: SessionFacts | None = None):
        self.an = an
        self.facts = facts if facts is not None else session_facts(an)
        self.g = an.graph
        self.events = an.events  # `Analysis.events` filters the transcript on every access
        self._rows: list[EventRow] | None = None
        # calls and their results from those events only: a row per event (and a dict by seq) of
        # a million-line log was ~190 MB, for a report that reads a few hundred of them
        kind = pl.col("kind").cast(pl.Utf8)
        rows = event_rows(self.events.filter(kind.is_in(["tool_call", "tool_result"])))
        calls = {r["call_id"]: r["seq"] for r in rows if r["kind"] == "tool_call" and r["call_id"]}
        self.result_of: dict[int, EventRow] = {}
        for r in rows:
            if r["kind"] == "tool_result" and r["call_id"] in calls:
                self.result_of.setdefault(calls[r["call_id"]], r)
        self.sentences = sorted(an.sentences, key=lambda s: s.seq)
        self.episodes = {ep.id: ep for ep in self.g.episodes}
        # indexes for the per-step look-ups below (a long session has tens of thousands of
        # events, sentences and actions: a scan per step would make the report quadratic)
        self._sentence_seqs = [s.seq for s in self.sentences]
        # episode id -> the seqs of its attempts (sorted, as the graph lists them): a step takes
        # its attempts by bisection, not by a scan of all of them per step
        self._attempts_by_seq = {k: sorted(v, key=lambda a: a.seq) for k, v in self.g.attempts.items()}  # stable: as listed
        self._attempt_seqs = {k: [a.seq for a in v] for k, v in self._attempts_by_seq.items()}
        # per label: the sentences in seq order and their rank key (fewest entities last)
        self._by_label: dict[str, tuple[list[int], np.ndarray, list[Sentence]]] = {}
        for label in sorted({s.label for s in self.sentences}):
            chosen = [s for s in self.sentences if s.label == label]
            keys = np.array([-len(s.entities) for s in chosen], dtype=np.int64)
            self._by_label[label] = ([s.seq for s in chosen], keys, chosen)
        # failed attempts by action seq (their listing order kept)
        order = sorted(range(len(self.g.failed_attempts)), key=lambda i: self.g.failed_attempts[i][0].seq)
        self._failed_order = order
        self._failed_seqs = [self.g.failed_attempts[i][0].seq for i in order]
        self._launches = {a.seq for a in an.actions if a.kind is ActionKind.LAUNCH}
        self._call_of: dict[int, int] = {}
        for call_seq, res in self.result_of.items():
            self._call_of.setdefault(res["seq"], call_seq)
        self._stuck: list[Sentence] | None = None
        self.judge = Judge(self)  # checks claims against what followed (render/verdicts.py)

    @property
    def rows(self) -> list[EventRow]:
        """Every event as a row, in seq order (made when first asked: `explain` reads them)."""
        if self._rows is None:
            self._rows = event_rows(self.events)
        return self._rows

    @functools.cached_property
    def by_seq(self) -> dict[int, EventRow]:
        return {r["seq"]: r for r in self.rows}

    # -- helpers ---------------------------------------------------------------------------

    def title_of(self, ep: Episode) -> str:
        target = ep.first.captures.get("target") if ep.category == "goal_failed" else None
        if target:  # a failure no pattern names is named by what failed: "`mix credo` failed"
            return f"`{target}` failed"
        return self.an.category_title(ep.category)

    def reasoning_between(self, start: int, stop: int, labels: Sequence[str]) -> Sentence | None:
        """The most telling sentence of the agent's reasoning in (start, stop): diagnoses first."""
        # the first label (in `labels` order) with a sentence in range wins; within it the most
        # entities, then the earliest (argmin takes the first of equal keys, as min() did)
        for label in dict.fromkeys(labels):
            if label not in self._by_label:
                continue
            seqs, keys, chosen = self._by_label[label]
            lo = bisect.bisect_right(seqs, start)
            hi = bisect.bisect_left(seqs, stop, lo)
            if hi > lo:
                return chosen[lo + int(np.argmin(keys[lo:hi]))]
        return None

    def was_launch(self, seq: int) -> bool:
        return seq in self._launches

    def call_before(self, result_seq: int) -> int | None:
        return self._call_of.get(result_seq)

    # -- sections --------------------------------------------------------------------------

    def intro(self) -> Intro:
        span = self.facts.span
        messages = self.events.filter(
            pl.col("kind").cast(pl.Utf8).is_in(["text", "tool_call"]) & pl.col("role").cast(pl.Utf8).is_in(["user", "assistant"])
        ).height
        return Intro(
            goal=self.facts.goal,
            machine=self.facts.machine,
            stack=self.facts.stack,
            events=self.events.height,
            messages=messages,
            minutes=span.minutes,
            duration=span.words,
            start=span.start,
            format=self.an.transcript.report.format,
            source=self.an.transcript.report.source,
            session=self.an.session,
            failures=len(self.g.episodes),
            chained=self._chained(),
            outcome=self.g.outcome.value,
            # what the reader could not use and the file's other sessions (ingest/coverage.py)
            coverage=tuple(intro_notes(self.an.transcript, self.an.session)),
        )

    def _chained(self) -> bool:
        """"Each fix exposing the next": every later failure first appeared after a fix of the one
        before it (the re-runs say so where there are runs; else a change revealed it)."""
        eps = self.g.episodes
        if len(eps) < 2:
            return False
        if self.g.resolutions:
            for prev, ep in itertools.pairwise(eps):
                res = self.g.resolutions.get(prev.id)
                fixes = [a.seq for a in res.fixed_by] if res is not None else []
                if not fixes or min(fixes) > ep.occurrences[0]:
                    return False
            return True
        return all(any(e.relation is Relation.REVEALED and e.target == ep.id for e in self.g.edges) for ep in eps[1:])

    def title(self) -> str:
        """A headline from the shape of the story: the trap, the length of the chain, the ending."""
        g = self.g
        n = len(g.episodes)
        count = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
        ending = {Outcome.RESOLVED: "and a fix", Outcome.WORKED_AROUND: "and a workaround",
                  Outcome.UNRESOLVED: "and no way out", Outcome.NO_FAILURE: "and nothing to fix"}[g.outcome]
        if g.catch22:
            c = g.catch22[0]
            pivot = ", a catch-22 and a pivot" if g.pivots else " and a catch-22"
            return f"The {c.subject} trap: {count} failure{'s' if n != 1 else ''}{pivot}"
        if not g.episodes:
            return "A session without a failure chain"
        first = self.title_of(g.episodes[0])
        if n == 1:
            return f"{first}, {g.outcome.value}"
        return f"{count.capitalize()} failures, from {lower_first(first)} to {ending.removeprefix('and ')}"

    def road(self) -> tuple[Step, ...]:
        """The chain as a story: one step per failure, with what the agent made of it and did."""
        steps: list[Step] = []
        seen: set[str] = set()
        failure_ids = self.g.failure_ids()
        failures = [n for n in self.g.chain if n in failure_ids]
        for i, ep_id in enumerate(failures):
            ep = self.episodes[ep_id]
            recurring = ep_id in seen
            seen.add(ep_id)
            occ = ep.occurrences[0] if not recurring else self._recurrence_seq(ep, steps)
            finding = next((f for f in ep.findings if f.seq == occ), ep.first)
            nxt_seq = self._next_failure_seq(failures, i, occ)
            tried, seqs = self._attempts_by_seq.get(ep_id, []), self._attempt_seqs.get(ep_id, [])
            attempts = tried[bisect.bisect_right(seqs, occ) : bisect.bisect_left(seqs, nxt_seq)]
            title = self.title_of(ep)
            if any(o.category == ep.category and o.id != ep_id for o in self.g.episodes):
                pat = self.an.library.get(ep.pattern)  # a second step of one category: name the variant
                title = pat.title if pat is not None else title
            steps.append(
                Step(
                    id=ep_id,
                    title=title,
                    category=ep.category,
                    seq=occ,
                    lead=self._lead(i, ep, occ, recurring, steps),
                    quote=tuple(first_lines(finding.text, 4, 320)),
                    explanation=finding.explanation,
                    conclusion=self._conclusion(i, occ, attempts[0].seq if attempts else nxt_seq),
                    attempts=self._attempts(attempts, ep),
                    failed=self._failed_between(occ, nxt_seq),
                    command=self._decisive_command(attempts),
                    repeats=len([s for s in ep.occurrences if occ <= s < (attempts[0].seq if attempts else nxt_seq)]),
                    fix=self._fix(ep_id),
                )
            )
        return tuple(steps)

    def _fix(self, ep_id: str) -> Fix | None:
        """What fixed the episode (the graph's re-run resolution): the changes, where it was seen
        gone, and whether that held."""
        f = self.an.verdict.failure(ep_id)
        if f is None or f.fixed_at is None:
            return None
        rerun = f.gone_by == "re-run"
        if not f.fix:
            return Fix(None, None, f.gone_seq, f.held, rerun)
        return Fix(refs.recite(f.fix_text()), f.fix[0].seq, f.gone_seq, f.held, rerun, f.fixed_at == f.fix[0].seq)

    def _recurrence_seq(self, ep: Episode, steps: list[Step]) -> int:
        last = steps[-1].seq if steps else -1
        return next((s for s in ep.occurrences if s > last), ep.occurrences[-1])

    def _next_failure_seq(self, failures: list[str], i: int, occ: int) -> int:
        if i + 1 < len(failures):
            nxt = self.episodes[failures[i + 1]]
            return next((s for s in nxt.occurrences if s > occ), nxt.occurrences[-1])
        return self.g.first_success.seq if self.g.first_success else NO_SEQ_LIMIT

    def _lead(self, i: int, ep: Episode, seq: int, recurring: bool, steps: list[Step]) -> str:
        call = self.call_before(seq)
        where = "when the server was launched" if call is not None and self.was_launch(call) else "in the output"
        if i == 0:
            return f"The first failure came {where} {cite(seq)}:"
        if recurring:
            return f"And the earlier {lower_first(self.title_of(ep))} was back {cite(seq)}:"
        prev_fix = steps[-1].fix if steps else None
        fixed_before = bool(prev_fix and prev_fix.text and prev_fix.seq is not None and prev_fix.seq < seq)
        if steps and (fixed_before if prev_fix else steps[-1].attempts and not self.g.resolutions):
            return _LEADS_REVEALED[(i - 1) % len(_LEADS_REVEALED)].format(cite=cite(seq))
        return _LEADS_PLAIN[i % len(_LEADS_PLAIN)].format(cite=cite(seq))

    def _conclusion(self, i: int, start: int, stop: int) -> Cited | None:
        s = self.reasoning_between(start, stop, ("diagnosis", "hypothesis", "decision"))
        if s is None:
            return None
        text = s.text if len(s.text) <= 400 else s.text[:399] + "…"
        return Cited(_CONCLUSIONS[i % len(_CONCLUSIONS)].format(cite=cite(s.seq), text=text), s.seq)

    def _attempts(self, attempts: Sequence[Action], ep: Episode) -> tuple[Attempt, ...]:
        if len({a.seq for a in attempts}) > RUN_LIMIT:  # count tool calls, not the packages of one
            kinds = Counter(a.kind.value.replace("_", " ") for a in attempts)
            subjects = sorted({a.subject for a in attempts})
            summary = (
                f"Over {len(attempts)} attempts between {cite(attempts[0].seq)} and {cite(attempts[-1].seq)} the "
                f"agent tried {', '.join(f'{n}× {k}' for k, n in sorted(kinds.items()))}, touching "
                f"{', '.join(f'`{s}`' for s in subjects[:8])}{'…' if len(subjects) > 8 else ''}."
            )
            return (Attempt(summary, attempts[0].seq),)
        grouped: dict[int, list[Action]] = {}
        for a in attempts:
            grouped.setdefault(a.seq, []).append(a)
        out = []
        seqs = list(grouped)
        for i, seq in enumerate(seqs):
            parts = [describe(a) for a in grouped[seq]]
            res = self.result_of.get(seq)
            stop = seqs[i + 1] if i + 1 < len(seqs) else NO_SEQ_LIMIT
            again = next((o for o in ep.occurrences if seq < o < stop), None)
            tail = "" if again is None else _AGAIN[i % len(_AGAIN)].format(cite=cite(again))
            out.append(Attempt(f"At {cite(seq)} it {_join(parts)}{tail}.", seq, res["seq"] if res else None))
        return tuple(out)

    def _failed_between(self, start: int, stop: int) -> tuple[Cited, ...]:
        out = []
        lo = bisect.bisect_right(self._failed_seqs, start)
        hi = bisect.bisect_left(self._failed_seqs, stop, lo)
        for i in sorted(self._failed_order[lo:hi]):
            a, f = self.g.failed_attempts[i]
            if f.category in builtin_roles().not_run:  # declined or refused: it changed nothing, it did not fail
                out.append(Cited(f"Attempt that never ran: `{a.command}` {cite(f.seq)}: {first_lines(f.text, 1)[0]}", f.seq))
            else:
                out.append(Cited(f"Attempt that failed outright: `{a.command}` failed {cite(f.seq)}: "
                                 f"{first_lines(f.text, 1)[0]}", f.seq))
        return tuple(out)

    def _decisive_command(self, attempts: Sequence[Action]) -> Command | None:
        if not attempts:
            return None
        a = attempts[-1]
        if a.kind is ActionKind.FILE_EDIT:
            diff = edit_diff(a.raw)
            if diff:
                return Command(diff, a.seq, "diff")
        return Command(a.raw or a.command, a.seq, "bash")

    def success(self) -> Success | None:
        s = self.g.first_success
        if s is None:
            return None
        return Success(s.seq, tuple(first_lines(s.text, 2, 200)), self.an.category_title(s.category))

    def catch22(self) -> tuple[Trap, ...]:
        out = []
        for c in self.g.catch22:
            if len(c.episodes) == 1:  # a failure against a rule of the request
                out.append(self._rule_catch22(c))
                continue
            a, b = (self.episodes[e] for e in c.episodes[:2])
            quotes = self._catch22_quotes(a.occurrences[0])
            va, vb = ((*c.values, "?", "?"))[:2]
            out.append(Trap(c.subject, c.alternated, "", (self._path(va, a), self._path(vb, b)), quotes, tuple(c.moves)))
        return tuple(out)

    def _path(self, value: str, ep: Episode) -> TrapPath:
        return TrapPath(value, self.title_of(ep), ep.occurrences[0], tuple(first_lines(ep.first.text, 1, 200)),
                        ep.first.explanation)

    def _rule_catch22(self, c: Catch22) -> Trap:
        a = self.episodes[c.episodes[0]]
        quotes = tuple(Cited(q.text, q.seq) for q in self.sentences
                       if q.seq > a.occurrences[0] and blocked_by_rules(q.text))[:2]
        return Trap(c.subject, False, c.values[0] if c.values else "", (self._path("", a),),
                    quotes or self._catch22_quotes(a.occurrences[0]), ())

    def _catch22_quotes(self, after: int) -> tuple[Cited, ...]:
        if self._stuck is None:  # the sentences that speak of being stuck, found once
            self._stuck = catch22_statements(self.sentences)
        hits = [s for s in self._stuck if s.seq > after][:3]
        return tuple(Cited(s.text, s.seq) for s in hits)

    def diagnosis(self) -> Diagnosis:
        """The key reasoning, what was checked, and each strategy change with why."""
        first = self.g.episodes[0].occurrences[0] if self.g.episodes else -1
        key = key_quotes([s for s in self.sentences if s.seq > first and s.label == DIAGNOSIS], 5)
        last_fail = max((ep.occurrences[-1] for ep in self.g.episodes), default=-1)
        stop = self.g.first_success.seq if self.g.first_success else NO_SEQ_LIMIT
        checks: list[Check] = []
        for a in self.an.actions:
            if a.kind is ActionKind.INVESTIGATE and last_fail < a.seq < stop and a.subject not in ("sleep", "tail", "echo"):
                if checks and checks[-1].seq == a.seq:  # one tool call, several commands, one output
                    checks[-1] = replace(checks[-1], command=f"{checks[-1].command}; {a.command}")
                    continue
                res = self.result_of.get(a.seq)
                lines = tuple(first_lines(res["text"], 3, 160)) if res else ()
                checks.append(Check(a.command, a.seq, lines, res["seq"] if res else None))
        pivots: list[Pivot] = []
        for p in self.g.pivots:  # several flags of one launch are one change of course
            if pivots and pivots[-1].seq == p.seq:
                parts = (*pivots[-1].parts, describe(p))
                pivots[-1] = replace(pivots[-1], text=_join(parts), parts=parts)
                continue
            why = self.reasoning_between(last_fail if last_fail < p.seq else first, p.seq + 1, ("decision", "hypothesis", "diagnosis"))
            pivots.append(Pivot(describe(p), (describe(p),), p.seq, Cited(why.text, why.seq) if why else None,
                                action_label(p)))
        return Diagnosis(tuple(Quote(s.text, s.seq, s.label) for s in key), tuple(checks[:8]), tuple(pivots))

    def assumptions(self, limit: int = 6) -> tuple[Assumption, ...]:
        """The hedged claims that name the most, each checked against what happened after it."""
        hedged = [s for s in self.sentences if s.hedged and s.label == "hypothesis" and not is_plan(s.text)]
        judged = [(s, self.judge.verdict(s)) for s in hedged]
        kept = [(s, v) for s, v in judged if v.verdict != UNTESTED]  # a claim nothing tested is left out
        kept.sort(key=lambda sv: (-len(sv[0].entities), sv[0].seq))
        picked = sorted(kept[:limit], key=lambda sv: sv[0].seq)
        return tuple(Assumption.judged(s.text, s.seq, v) for s, v in picked)

    def knowledge(self) -> Knowledge:
        """Concepts a reader needs (per kind of failure, plus the version tables the captures touch)
        and the facts the session established."""
        required = []
        seen: set[str] = set()
        for ep in self.g.episodes:
            if ep.category in seen:
                continue
            seen.add(ep.category)
            text = self.an.category_description(ep.category) or ep.first.explanation
            if text:
                required.append(Required(self.title_of(ep), text, ep.occurrences[0]))
        return Knowledge(tuple(required), self.facts.tables, tuple(self.facts.established()))

    def root_cause(self) -> RootCause:
        """The verdict's root cause (decided once, in logsleuth.verdict)."""
        rc = self.an.verdict.root_cause
        ep = self.episodes.get(rc.episode or "")
        if ep is None:
            return RootCause(None, None, None, False)
        trap = any(c.episodes[min(1, len(c.episodes) - 1)] == ep.id for c in self.g.catch22)
        said = rc.seqs[0] if rc.basis == "agent" and rc.seqs else None
        known = ep.first.explanation if rc.basis == "knowledge" else ""
        return RootCause(self.title_of(ep), ep.occurrences[0], refs.recite(rc.text).rstrip('.') if rc.text else None, trap,
                         rc.kind, rc.basis, said, known)

    def _resolved(self, ep_id: str) -> bool:
        f = self.an.verdict.failure(ep_id)
        return f is not None and f.fixed

    def unresolved(self) -> tuple[Unresolved, ...]:
        """What the verdict leaves open, and a catch-22 stepped round rather than solved."""
        out = []
        for ep in self.g.episodes:
            if not self._resolved(ep.id):
                out.append(Unresolved(self.title_of(ep), ep.occurrences[-1], len(ep.occurrences)))
        if self.g.catch22 and self.an.verdict.outcome is Outcome.WORKED_AROUND:
            for c in (c for c in self.g.catch22 if len(c.episodes) > 1):
                a, b = (self.episodes[e] for e in c.episodes[:2])
                out.append(Unresolved(f"the {c.subject} catch-22 ({lower_first(self.title_of(a))} vs "
                                      f"{lower_first(self.title_of(b))}) was worked around, not solved",
                                      b.occurrences[0], 0))
        return tuple(out)

    def resolution_actions(self) -> tuple[Change, ...]:
        """Each fixed failure's fix as the state it changed (the verdict's), in the order they were made."""
        acts = {a.seq: a for a in self.an.actions}
        out = []
        for f in self.an.verdict.failures:
            if not f.fix:
                continue
            first = f.fix[0]
            a = acts.get(first.seq)
            same = " the re-run in the same command" if f.fixed_at == first.seq else ""
            gone = f" ({lower_first(f.title)} gone by{same} {refs.cite(f.gone_seq)}" if f.gone_seq is not None else ""
            gone += ", but it came back)" if gone and f.held is False else ")" if gone else ""
            out.append(Change(f"{f.fix_text()}{gone}", first.seq, (a.raw or a.command) if a else ""))
        return tuple(out)


def _join(parts: Sequence[str]) -> str:
    parts = list(dict.fromkeys(parts))
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def finding_rows(findings: Sequence[Finding]) -> tuple[FindingRow, ...]:
    """The appendix: every finding with source:line, sorted by seq."""
    return tuple(
        FindingRow(f.seq, f.source, f.line, f.pattern, f.category, f.severity.value,
                   first_lines(f.text, 1, 140)[0] if f.text.strip() else "")
        for f in sorted(findings, key=lambda f: (f.seq, -f.priority, f.pattern))
    )
