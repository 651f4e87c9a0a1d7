"""What the verdict is judged from, gathered once: the goal and the rules of the request, the runs,
the calls that never ran, the agent's prose, the findings' categories and what they mean."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from logsleuth.link.constraints import Constraint, read_constraints, request_text
from logsleuth.link.request import goal_targets, kept_targets
from logsleuth.link.resolution import main_targets
from logsleuth.link.runindex import RunIndex, scratch_only
from logsleuth.link.runs import probe_tool_missing
from logsleuth.model import Action, CausalGraph, Episode, Finding, Run, RunRole, RunStatus


@dataclass(frozen=True)
class Context:
    events: pl.DataFrame
    findings: tuple[Finding, ...]
    actions: tuple[Action, ...]
    graph: CausalGraph
    titles: Mapping[str, str]  # category -> title
    causes: Mapping[str, str]  # category -> cause kind ("symptom" for a symptom's category)
    conditions: Mapping[str, str]  # category -> the condition as a sentence ({line}: the telling line)
    not_run: frozenset[str]  # categories of a call that never ran
    when: Mapping[str, tuple[tuple[str, str, str, str], ...]] = dataclasses.field(default_factory=dict)  # causes.yaml `when`

    @functools.cached_property
    def facts(self) -> dict[str, str]:
        """What the session establishes about its machine and stack, by name: `nvcc`, `cuda` (the
        driver's), and each package's version as last seen (`torch`: `2.13.0+cpu`)."""
        from logsleuth.facts import output_rows, read_machine, read_stack
        from logsleuth.library.fact_patterns import builtin_facts

        lib = builtin_facts()
        rows = output_rows(self.events, lib) if self.events.height else []
        m = read_machine(rows, self.actions, lib)
        out = {v.package: v.version for v in read_stack(rows, self.actions, lib)}
        out.update({k: c.text for k, c in (("nvcc", m.nvcc), ("cuda", m.cuda)) if c is not None})
        return out

    @functools.cached_property
    def idx(self) -> RunIndex:
        return RunIndex.of(self.graph.runs)

    @functools.cached_property
    def request(self) -> str:
        return request_text(self.events) if self.events.height else ""

    @functools.cached_property
    def rules(self) -> tuple[Constraint, ...]:
        return read_constraints(self.request) if self.request else ()

    @functools.cached_property
    def goal(self) -> tuple[str, ...]:
        """The goal targets: those the request names that ran, else the session's main goal target."""
        asked = goal_targets(self.events) if self.graph.runs else []
        ran = {t.name for r in self.idx.goals for t in r.targets}
        named = [n for n in asked if n in ran]
        return tuple(named) if named else tuple(sorted(main_targets(self.idx, [])))

    @functools.cached_property
    def never_ran(self) -> frozenset[int]:
        """Seqs of tool calls that never ran (rejected by the user, refused by the tool, cancelled)."""
        results = {f.seq for f in self.findings if f.category in self.not_run}
        calls = {r.seq for r in self.graph.runs if r.result_seq in results}
        return frozenset(calls | results)

    @functools.cached_property
    def goal_runs(self) -> tuple[Run, ...]:
        """The runs of the goal targets that ran in the user's project (not a scratch copy, not a
        call that never ran)."""
        names = set(self.goal)
        return tuple(r for r in self.idx.goals if not scratch_only(r) and r.seq not in self.never_ran
                     and any(t.name in names and not t.scratch for t in r.targets))

    @functools.cached_property
    def exit_codes_kept(self) -> bool:
        """Whether the record keeps exit codes (aider's history and some exports keep none)."""
        if "exit_code" not in self.events.columns:
            return False
        results = self.events.filter(pl.col("kind").cast(pl.Utf8) == "tool_result")
        return bool(results.height) and results["exit_code"].is_not_null().any()

    @functools.cached_property
    def _failed_at(self) -> dict[int, list[Finding]]:
        out: dict[int, list[Finding]] = {}
        for f in self.findings:
            if f.severity.is_failure:
                out.setdefault(f.seq, []).append(f)
        return out

    def status(self, r: Run) -> RunStatus:
        """A run's status; where the record keeps no exit codes, a run whose output raised no
        failure finding passed (its output is all there is to go by; a look's missing tool is not one)."""
        if r.status is not RunStatus.UNKNOWN or self.exit_codes_kept or r.result_seq is None:
            return r.status
        own = [f for f in self._failed_at.get(r.result_seq, ()) if not probe_tool_missing(f, r.targets, r.command)]
        return RunStatus.FAILED if own else RunStatus.PASSED

    def final_runs(self) -> dict[str, Run]:
        """Each goal target's last run that said how it went (passed or failed)."""
        out: dict[str, Run] = {}
        for r in self.goal_runs:
            if self.status(r) is RunStatus.UNKNOWN:
                continue
            for t in r.targets:
                if t.name in self.goal and not t.scratch:
                    out[t.name] = r
        return out

    @functools.cached_property
    def kept(self) -> frozenset[str]:
        """Goal targets the request keeps as checks ("`make hardening` has to keep passing"): one
        failing at the end, while the rest passes, is a rule bent, not the goal missed (heldout7
        waypoint: the PIE rule bent to get `make test` passing was told "unresolved")."""
        return frozenset(kept_targets(self.events)) & frozenset(self.goal) if self.graph.runs else frozenset()

    def asked_runs(self) -> dict[str, Run]:
        """`final_runs` of the targets the request asks to get passing (every goal target when the
        request keeps them all)."""
        finals = self.final_runs()
        return {n: r for n, r in finals.items() if n not in self.kept} or finals

    def title(self, ep: Episode) -> str:
        target = ep.first.captures.get("target") if ep.category == "goal_failed" else None
        if target:
            return f"`{target}` failed"
        return self.titles.get(ep.category, ep.category.replace("_", " "))

    def prose(self, after: int = -1, before: int = 1 << 62) -> list[tuple[int, str]]:
        """The agent's prose (text, not reasoning) with after < seq < before, in order."""
        ev = self.events.filter(
            (pl.col("role").cast(pl.Utf8) == "assistant") & (pl.col("kind").cast(pl.Utf8) == "text")
            & (pl.col("seq") > after) & (pl.col("seq") < before)
        )
        return [(int(s), str(t or "")) for s, t in ev.select("seq", "text").iter_rows()]

    def output(self, seq: int | None) -> str:
        """The text of the event at `seq` ("" when none)."""
        if seq is None:
            return ""
        hit = self.events.filter(pl.col("seq") == seq)
        return str(hit["text"][0] or "") if hit.height else ""

    @property
    def transcript(self) -> bool:
        """A record of tool calls (runs can be re-run in our heads), not a plain log."""
        return bool(self.graph.runs)

    def passed_goal_runs(self, after: int) -> list[Run]:
        return [r for r in self.goal_runs if r.seq > after and self.status(r) is RunStatus.PASSED]

    def goal_role(self, seq: int) -> bool:
        run = self.idx.at.get(seq)
        return run is not None and run.role is RunRole.GOAL


_LINKER_TITLES = {"goal_passed": "The goal ran and passed", "goal_failed": "A goal command failed"}


def category_maps(categories: Mapping[str, object]) -> tuple[dict[str, str], dict[str, str], dict[str, str], frozenset[str]]:
    """(titles, cause kinds, conditions, not-run categories) from the library's categories."""
    titles = {**_LINKER_TITLES, **{n: str(getattr(c, "title", "") or n.replace("_", " ")) for n, c in categories.items()}}
    causes = {"goal_failed": "symptom", **{n: str(getattr(c, "cause", "") or "") for n, c in categories.items()}}
    conditions = {n: str(getattr(c, "condition", "") or "") for n, c in categories.items()}
    not_run = frozenset(n for n, c in categories.items() if getattr(c, "role", "") == "not_run")
    return titles, causes, conditions, not_run


def cause_rules(categories: Mapping[str, object]) -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    """category -> its causes.yaml `when` rows (the conditions a session's facts imply)."""
    return {n: tuple(getattr(c, "when", ())) for n, c in categories.items() if getattr(c, "when", ())}


def episodes_by_id(graph: CausalGraph) -> dict[str, Episode]:
    return {ep.id: ep for ep in graph.episodes}


def last_failure(episodes: Sequence[Episode]) -> int:
    return max((ep.occurrences[-1] for ep in episodes), default=-1)
