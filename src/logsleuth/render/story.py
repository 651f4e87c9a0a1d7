"""Turn an Analysis into the plain, sorted data a postmortem template renders.

The prose is composed here, from the data: phrasings depend on what happened (a fix that
revealed the next failure reads differently from one that changed nothing), and rotate so
that a long chain does not repeat one sentence shape. Every statement carries the seq of the
event that supports it; templates print it as `[msg N]`.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from logsleuth.analysis import Analysis
from logsleuth.link import action_label
from logsleuth.link.constraints import blocked_by_rules
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
from logsleuth.reasoning import DIAGNOSIS, catch22_statements, key_quotes
from logsleuth.render import facts
from logsleuth.render.describe import describe, edit_diff, mentions
from logsleuth.render.refs import cite
from logsleuth.render.rows import EventRow, event_rows

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
    """Indexes an Analysis once, then builds each section of the postmortem."""

    def __init__(self, an: Analysis):
        self.an = an
        self.g = an.graph
        self.events = an.events  # `Analysis.events` filters the transcript on every access
        rows = event_rows(self.events)
        self.rows = rows
        self.by_seq = {r["seq"]: r for r in rows}
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
        self._established: list[facts.Cited] | None = None
        self._testable: list[Action] | None = None
        self._search_facts: list[facts.Cited] | None = None

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

    def _rows_with(self, needles: Sequence[str]) -> list[EventRow]:
        """The rows (in seq order) whose text holds one of `needles`: one vectorised scan instead
        of a Python substring test per row of a long session."""
        import polars as pl

        seqs = self.events.filter(pl.col("text").str.contains_any(list(needles)).fill_null(False))["seq"]
        return [self.by_seq[s] for s in sorted(set(seqs.to_list())) if s in self.by_seq]

    def _searches(self) -> list[facts.Cited]:
        if self._search_facts is None:  # read from every find/ls output: computed once
            self._search_facts = facts.search_facts(self.result_of, self.an.actions)
        return self._search_facts

    def was_launch(self, seq: int) -> bool:
        return seq in self._launches

    def call_before(self, result_seq: int) -> int | None:
        return self._call_of.get(result_seq)

    # -- sections --------------------------------------------------------------------------

    def intro(self) -> dict[str, Any]:
        rows = self.rows
        dur = facts.duration(rows)
        machine = facts.machine(self._rows_with(facts.MACHINE_GATES), self.an.actions)
        messages = sum(1 for r in rows if r["kind"] in ("text", "tool_call") and r["role"] in ("user", "assistant"))
        return {
            "goal": [c.to_dict() for c in facts.goal(rows)],
            "machine": machine,
            "stack": facts.stack(self._rows_with(facts.STACK_GATES), self.an.actions),
            "events": len(rows),
            "messages": messages,
            "minutes": dur["minutes"],
            "duration": facts.human_minutes(dur["minutes"], dur["stamps"]),
            "start": dur["start"],
            "format": self.an.transcript.report.format,
            "source": self.an.transcript.report.source,
            "session": self.an.session,
            "failures": len(self.g.episodes),
            "chained": self._chained(),
            "outcome": self.g.outcome.value,
        }

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
                  Outcome.UNRESOLVED: "and no way out"}[g.outcome]
        if g.catch22:
            c = g.catch22[0]
            pivot = ", a catch-22 and a pivot" if g.pivots else " and a catch-22"
            return f"The {c.subject} trap: {count} failure{'s' if n != 1 else ''}{pivot}"
        if not g.episodes:
            return "A session without a failure chain"
        first = self.title_of(g.episodes[0])
        if n == 1:
            return f"{first}, {g.outcome.value}"
        return f"{count.capitalize()} failures, from {_lower_first(first)} to {ending.removeprefix('and ')}"

    def road(self) -> list[dict[str, Any]]:
        """The chain as a story: one step per failure, with what the agent made of it and did."""
        steps: list[dict[str, Any]] = []
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
            attempts = [a for a in self.g.attempts.get(ep_id, ()) if occ < a.seq < nxt_seq]
            title = self.title_of(ep)
            if any(o.category == ep.category and o.id != ep_id for o in self.g.episodes):
                pat = self.an.library.get(ep.pattern)  # a second step of one category: name the variant
                title = pat.title if pat is not None else title
            steps.append(
                {
                    "id": ep_id,
                    "title": title,
                    "category": ep.category,
                    "seq": occ,
                    "lead": self._lead(i, ep, occ, recurring, steps),
                    "quote": facts.first_lines(finding.text, 4, 320),
                    "explanation": finding.explanation,
                    "conclusion": self._conclusion(i, occ, attempts[0].seq if attempts else nxt_seq),
                    "attempts": self._attempts(attempts, ep),
                    "failed": self._failed_between(occ, nxt_seq),
                    "command": self._decisive_command(attempts),
                    "repeats": len([s for s in ep.occurrences if occ <= s < (attempts[0].seq if attempts else nxt_seq)]),
                    "fix": self._fix(ep_id),
                }
            )
        return steps

    def _fix(self, ep_id: str) -> dict[str, Any] | None:
        """What fixed the episode (the graph's re-run resolution): the changes, where it was seen
        gone, and whether that held."""
        res = self.g.resolutions.get(ep_id)
        if res is None or (res.at is None and res.held is None):
            return None
        if not res.fixed_by:
            return {"text": None, "seq": None, "at": res.at, "held": res.held}
        seq = res.fixed_by[0].seq
        return {"text": _join([describe(a) for a in res.fixed_by]), "seq": seq, "at": res.at, "held": res.held}

    def _recurrence_seq(self, ep: Episode, steps: list[dict[str, Any]]) -> int:
        last = steps[-1]["seq"] if steps else -1
        return next((s for s in ep.occurrences if s > last), ep.occurrences[-1])

    def _next_failure_seq(self, failures: list[str], i: int, occ: int) -> int:
        if i + 1 < len(failures):
            nxt = self.episodes[failures[i + 1]]
            return next((s for s in nxt.occurrences if s > occ), nxt.occurrences[-1])
        return self.g.first_success.seq if self.g.first_success else NO_SEQ_LIMIT

    def _lead(self, i: int, ep: Episode, seq: int, recurring: bool, steps: list[dict[str, Any]]) -> str:
        call = self.call_before(seq)
        where = "when the server was launched" if call is not None and self.was_launch(call) else "in the output"
        if i == 0:
            return f"The first failure came {where} {cite(seq)}:"
        if recurring:
            return f"And the earlier {_lower_first(self.title_of(ep))} was back {cite(seq)}:"
        prev_fix = steps[-1].get("fix") if steps else None
        fixed_before = bool(prev_fix and prev_fix["text"] and prev_fix["seq"] is not None and prev_fix["seq"] < seq)
        if steps and (fixed_before if prev_fix else steps[-1]["attempts"] and not self.g.resolutions):
            return _LEADS_REVEALED[(i - 1) % len(_LEADS_REVEALED)].format(cite=cite(seq))
        return _LEADS_PLAIN[i % len(_LEADS_PLAIN)].format(cite=cite(seq))

    def _conclusion(self, i: int, start: int, stop: int) -> dict[str, Any] | None:
        s = self.reasoning_between(start, stop, ("diagnosis", "hypothesis", "decision"))
        if s is None:
            return None
        text = s.text if len(s.text) <= 400 else s.text[:399] + "…"
        return {"text": _CONCLUSIONS[i % len(_CONCLUSIONS)].format(cite=cite(s.seq), text=text), "seq": s.seq}

    def _attempts(self, attempts: Sequence[Action], ep: Episode) -> list[dict[str, Any]]:
        if len({a.seq for a in attempts}) > RUN_LIMIT:  # count tool calls, not the packages of one
            kinds = Counter(a.kind.value.replace("_", " ") for a in attempts)
            subjects = sorted({a.subject for a in attempts})
            summary = (
                f"Over {len(attempts)} attempts between {cite(attempts[0].seq)} and {cite(attempts[-1].seq)} the "
                f"agent tried {', '.join(f'{n}× {k}' for k, n in sorted(kinds.items()))}, touching "
                f"{', '.join(f'`{s}`' for s in subjects[:8])}{'…' if len(subjects) > 8 else ''}."
            )
            return [{"text": summary, "seq": attempts[0].seq}]
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
            out.append({"text": f"At {cite(seq)} it {_join(parts)}{tail}.", "seq": seq,
                        "result_seq": res["seq"] if res else None})
        return out

    def _failed_between(self, start: int, stop: int) -> list[dict[str, Any]]:
        out = []
        lo = bisect.bisect_right(self._failed_seqs, start)
        hi = bisect.bisect_left(self._failed_seqs, stop, lo)
        for i in sorted(self._failed_order[lo:hi]):
            a, f = self.g.failed_attempts[i]
            out.append({"text": f"`{a.command}` failed {cite(f.seq)}: {facts.first_lines(f.text, 1)[0]}", "seq": f.seq})
        return out

    def _decisive_command(self, attempts: Sequence[Action]) -> dict[str, Any] | None:
        if not attempts:
            return None
        a = attempts[-1]
        if a.kind is ActionKind.FILE_EDIT:
            diff = edit_diff(a.raw)
            if diff:
                return {"text": diff, "seq": a.seq, "lang": "diff"}
        return {"text": a.raw or a.command, "seq": a.seq, "lang": "bash"}

    def success(self) -> dict[str, Any] | None:
        s = self.g.first_success
        if s is None:
            return None
        return {"seq": s.seq, "quote": facts.first_lines(s.text, 2, 200), "title": self.an.category_title(s.category)}

    def catch22(self) -> list[dict[str, Any]]:
        out = []
        for c in self.g.catch22:
            if len(c.episodes) == 1:  # a failure against a rule of the request
                out.append(self._rule_catch22(c))
                continue
            a, b = (self.episodes[e] for e in c.episodes[:2])
            quotes = self._catch22_quotes(a.occurrences[0])
            va, vb = ((*c.values, "?", "?"))[:2]
            out.append(
                {
                    "subject": c.subject,
                    "alternated": c.alternated,
                    "rule": "",
                    "paths": [
                        {"value": va, "title": self.title_of(a), "seq": a.occurrences[0],
                         "quote": facts.first_lines(a.first.text, 1, 200), "explanation": a.first.explanation},
                        {"value": vb, "title": self.title_of(b), "seq": b.occurrences[0],
                         "quote": facts.first_lines(b.first.text, 1, 200), "explanation": b.first.explanation},
                    ],
                    "quotes": quotes,
                    "moves": list(c.moves),
                }
            )
        return out

    def _rule_catch22(self, c: Catch22) -> dict[str, Any]:
        a = self.episodes[c.episodes[0]]
        return {
            "subject": c.subject,
            "alternated": False,
            "rule": c.values[0] if c.values else "",
            "paths": [{"value": "", "title": self.title_of(a), "seq": a.occurrences[0],
                       "quote": facts.first_lines(a.first.text, 1, 200), "explanation": a.first.explanation}],
            "quotes": [{"text": q.text, "seq": q.seq} for q in self.sentences
                       if q.seq > a.occurrences[0] and blocked_by_rules(q.text)][:2]
            or self._catch22_quotes(a.occurrences[0]),
            "moves": [],
        }

    def _catch22_quotes(self, after: int) -> list[dict[str, Any]]:
        if self._stuck is None:  # the sentences that speak of being stuck, found once
            self._stuck = catch22_statements(self.sentences)
        hits = [s for s in self._stuck if s.seq > after][:3]
        return [{"text": s.text, "seq": s.seq} for s in hits]

    def diagnosis(self) -> dict[str, Any]:
        """The key reasoning, what was checked, and each strategy change with why."""
        first = self.g.episodes[0].occurrences[0] if self.g.episodes else -1
        key = key_quotes([s for s in self.sentences if s.seq > first and s.label == DIAGNOSIS], 5)
        last_fail = max((ep.occurrences[-1] for ep in self.g.episodes), default=-1)
        stop = self.g.first_success.seq if self.g.first_success else NO_SEQ_LIMIT
        checks: list[dict[str, Any]] = []
        for a in self.an.actions:
            if a.kind is ActionKind.INVESTIGATE and last_fail < a.seq < stop and a.subject not in ("sleep", "tail", "echo"):
                if checks and checks[-1]["seq"] == a.seq:  # one tool call, several commands, one output
                    checks[-1]["command"] += f"; {a.command}"
                    continue
                res = self.result_of.get(a.seq)
                lines = facts.first_lines(res["text"], 3, 160) if res else []
                checks.append({"command": a.command, "seq": a.seq, "result": lines, "result_seq": res["seq"] if res else None})
        pivots: list[dict[str, Any]] = []
        for p in self.g.pivots:  # several flags of one launch are one change of course
            if pivots and pivots[-1]["seq"] == p.seq:
                pivots[-1]["parts"].append(describe(p))
                pivots[-1]["text"] = _join(pivots[-1]["parts"])
                continue
            why = self.reasoning_between(last_fail if last_fail < p.seq else first, p.seq + 1, ("decision", "hypothesis", "diagnosis"))
            pivots.append(
                {"text": describe(p), "parts": [describe(p)], "seq": p.seq,
                 "why": {"text": why.text, "seq": why.seq} if why else None, "label": action_label(p)}
            )
        return {
            "key": [{"text": s.text, "seq": s.seq, "label": s.label} for s in key],
            "checks": checks[:8],
            "pivots": pivots,
        }

    def assumptions(self, limit: int = 6) -> list[dict[str, Any]]:
        hedged = [s for s in self.sentences if s.hedged]
        hedged.sort(key=lambda s: (-len(s.entities), s.seq))
        picked = sorted(hedged[:limit], key=lambda s: s.seq)
        return [{"text": s.text, "seq": s.seq, **self._verdict(s)} for s in picked]

    def _verdict(self, s: Sentence) -> dict[str, Any]:
        """Check a hedged claim against what happened after it, by what it names."""
        if self._testable is None:  # the launches and flag/env changes, once for every claim
            self._testable = [a for a in self.an.actions if a.kind in _TESTABLE]
        for a in self._testable:
            if a.seq > s.seq and mentions(s.text, a):
                tested = self._resolution_of(a)  # the re-run that tested the change it made
                if tested is not None:
                    return tested
                after = self._next_outcome(a.seq)
                if after is not None:
                    held = after[0] == "success"
                    return _v("held" if held else "did not hold", f"after `{action_label(a)}`: {after[1]}", after[2])
        names = sorted({t for _, t in s.entities if len(t) >= 4}, key=lambda t: (-len(t), t))
        # a failed install refutes a claim that named exactly that version (x.y.z) or package
        specific = [n for n in names if n.count(".") >= 2 or any(n == a.subject for a, _ in self.g.failed_attempts)]
        for a, f in self.g.failed_attempts:
            if f.seq > s.seq and any(n == a.subject or n in (a.value or "") for n in specific):
                return _v("did not hold", facts.first_lines(f.text, 1)[0], f.seq)
        things = [t for label, t in s.entities if label in ("CUDA_LIB", "GPU_ARCH", "FEATURE") and len(t) >= 4]
        if self._established is None:  # the same for every claim: computed once
            self._established = facts.established(self.result_of, self.an.actions, (), self._searches())
        for fact in self._established:
            low = fact.text.lower()
            if fact.seq > s.seq and any(n.lower().rstrip("s") in low for n in things):
                return _v("tested", fact.text, fact.seq)
        values = {t for label, t in s.entities if label in ("VERSION", "GPU_ARCH")}
        for f in self.an.findings:
            if f.seq > s.seq and f.severity.is_failure and values & set(f.captures.values()):
                return _v("consistent with what followed", facts.first_lines(f.text, 1)[0], f.seq)
        return _v("not tested in the session", None, None)

    def _resolution_of(self, a: Action) -> dict[str, Any] | None:
        """A change the graph judged: it fixed a failure (gone at the re-run, held) or was tried
        against one that stayed. The verdict comes from that re-run, not from whatever failed next."""
        for ep_id, res in self.g.resolutions.items():
            title = _lower_first(self.title_of(self.episodes[ep_id]))
            if any(b.id == a.id for b in res.fixed_by) and res.at is not None:
                held = "held" if res.held is not False else "did not hold"
                return _v(held, f"after `{action_label(a)}` the {title} was gone at the re-run", res.at)
            if any(b.id == a.id for b in res.attempts):
                later = [s for s in self.episodes[ep_id].occurrences if s > a.seq]
                if later:
                    return _v("did not hold", f"after `{action_label(a)}` the {title} came back", later[0])
        return None

    def _next_outcome(self, seq: int) -> tuple[str, str, int] | None:
        fails = [f for ep in self.g.episodes for f in ep.findings if f.seq > seq]
        nxt_fail = min(fails, key=lambda f: f.seq) if fails else None
        succ = self.g.first_success if self.g.first_success and self.g.first_success.seq > seq else None
        if succ and (nxt_fail is None or succ.seq < nxt_fail.seq):
            return "success", facts.first_lines(succ.text, 1)[0], succ.seq
        if nxt_fail is not None:
            return "failure", facts.first_lines(nxt_fail.text, 1)[0], nxt_fail.seq
        return None

    def knowledge(self) -> dict[str, Any]:
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
                required.append({"title": self.title_of(ep), "text": text, "seq": ep.occurrences[0]})
        tables = facts.table_facts([f for ep in self.g.episodes for f in ep.findings], self.an.library.knowledge)
        created = facts.established(self.result_of, self.an.actions, self.g.failed_attempts, self._searches())
        return {"required": required, "tables": tables, "created": [c.to_dict() for c in created]}

    def root_cause(self) -> dict[str, Any]:
        g = self.g
        if g.root_cause is not None and g.root_cause in self.episodes:  # the linker's, as classify and the index
            ep = self.episodes[g.root_cause]
            trap = any(c.episodes[min(1, len(c.episodes) - 1)] == ep.id for c in g.catch22)
            return {"title": self.title_of(ep), "seq": ep.occurrences[0], "text": ep.first.explanation, "catch22": trap}
        if g.catch22:
            c = g.catch22[0]
            b = self.episodes[c.episodes[min(1, len(c.episodes) - 1)]]
            return {"title": self.title_of(b), "seq": b.occurrences[0], "text": b.first.explanation, "catch22": True}
        if not g.episodes:
            return {"title": None, "seq": None, "text": None, "catch22": False}
        unresolved = [ep for ep in g.episodes if not self._resolved(ep.id)]
        ep = unresolved[-1] if unresolved and g.outcome is Outcome.UNRESOLVED else g.episodes[-1]
        return {"title": self.title_of(ep), "seq": ep.occurrences[0], "text": ep.first.explanation, "catch22": False}

    def _resolved(self, ep_id: str) -> bool:
        if self.g.resolutions:
            res = self.g.resolutions.get(ep_id)
            return res is not None and res.at is not None
        return any(e.target == ep_id and e.relation is Relation.RESOLVED for e in self.g.edges)

    def unresolved(self) -> list[dict[str, Any]]:
        out = []
        for ep in self.g.episodes:
            if not self._resolved(ep.id):
                out.append({"title": self.title_of(ep), "seq": ep.occurrences[-1], "count": len(ep.occurrences)})
        if self.g.catch22 and self.g.outcome is Outcome.WORKED_AROUND:
            for c in (c for c in self.g.catch22 if len(c.episodes) > 1):
                a, b = (self.episodes[e] for e in c.episodes[:2])
                out.append({"title": f"the {c.subject} catch-22 ({_lower_first(self.title_of(a))} vs "
                            f"{_lower_first(self.title_of(b))}) was worked around, not solved", "seq": b.occurrences[0],
                            "count": 0})
        return out

    def resolution_actions(self) -> list[dict[str, Any]]:
        """The changes (not restatements, not failed attempts) between the last failure and success."""
        s = self.g.first_success
        if s is None:
            return []
        last_fail = max((ep.occurrences[-1] for ep in self.g.episodes), default=-1)
        changes = {a.id for a in self.g.node_actions.values()}
        failed = {a.id for a, _ in self.g.failed_attempts}
        acts = [
            a
            for a in self.an.actions
            if last_fail < a.seq <= s.seq and a.id not in failed
            and (a.id in changes or a.kind is ActionKind.LAUNCH)
        ]
        grouped: dict[int, list[Action]] = {}
        for a in acts:
            grouped.setdefault(a.seq, []).append(a)
        return [{"text": _join([describe(a) for a in grp]), "seq": seq, "command": grp[0].raw or grp[0].command}
                for seq, grp in grouped.items()]


_TESTABLE = frozenset(
    {ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED, ActionKind.FLAG_REMOVED, ActionKind.ENV_SET, ActionKind.LAUNCH}
)


def _v(verdict: str, evidence: str | None, seq: int | None) -> dict[str, Any]:
    return {"verdict": verdict, "evidence": evidence, "evidence_seq": seq}


def _lower_first(title: str) -> str:
    """"Shared library not found" -> "shared library …", but "NCCL …" stays."""
    return title[:1].lower() + title[1:] if title[1:2].islower() else title


def _join(parts: Sequence[str]) -> str:
    parts = list(dict.fromkeys(parts))
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def finding_rows(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The appendix: every finding with source:line, sorted by seq."""
    return [
        {"seq": f.seq, "source": f.source, "line": f.line, "pattern": f.pattern, "category": f.category,
         "severity": f.severity.value, "text": facts.first_lines(f.text, 1, 140)[0] if f.text.strip() else ""}
        for f in sorted(findings, key=lambda f: (f.seq, -f.priority, f.pattern))
    ]
