"""The session's runs indexed for the resolution questions: the run at a seq, the goal runs after a
seq, those covering a target (by Target.cover_keys), those of the session's goal, those that
passed. Each answer is a bisection or a key lookup: asked once per failure, a scan of every later
run made long sessions quadratic."""

from __future__ import annotations

import bisect
import dataclasses
import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from logsleuth.model import NO_SEQ_LIMIT, Run, RunRole, RunStatus, Target


def in_copy(run: Run) -> bool:
    """Every target of the run ran in a throwaway folder (`cd /tmp/x && make`), not the project."""
    return bool(run.targets) and all(t.scratch.startswith("/") for t in run.targets)


def scratch_only(run: Run) -> bool:
    """Every target of the run ran in a throwaway copy (`cd /tmp/x && make`)."""
    return bool(run.targets) and all(t.scratch for t in run.targets)


@dataclass(frozen=True, slots=True)
class RunIndex:
    """The session's runs, looked up by the seq of their call or result."""

    runs: tuple[Run, ...]
    at: Mapping[int, Run]  # call seq and result seq -> run
    goals: tuple[Run, ...]
    goal_seqs: tuple[int, ...]
    outputs: Mapping[int, str] = dataclasses.field(default_factory=dict)  # passing goal run's result seq -> its text
    by_cover_key: Mapping[tuple[str, ...], tuple[int, ...]] = dataclasses.field(default_factory=dict)  # -> goal positions
    _positions: dict[tuple[str, ...], tuple[int, ...]] = dataclasses.field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, runs: Sequence[Run], outputs: Mapping[int, str] | None = None) -> RunIndex:
        at: dict[int, Run] = {}
        for r in runs:
            at[r.seq] = r
            if r.result_seq is not None:
                at[r.result_seq] = r
        goals = tuple(r for r in runs if r.role is RunRole.GOAL)
        keyed: dict[tuple[str, ...], list[int]] = {}
        for i, r in enumerate(goals):
            for key in {k for t in r.targets for k in t.cover_keys()}:
                keyed.setdefault(key, []).append(i)
        return cls(tuple(runs), at, goals, tuple(r.seq for r in goals), outputs or {},
                   {k: tuple(v) for k, v in keyed.items()})

    def goals_after(self, seq: int) -> Iterator[Run]:
        """The goal runs after `seq`, in order (no copy of the rest of the session)."""
        return (self.goals[i] for i in range(bisect.bisect_right(self.goal_seqs, seq), len(self.goals)))

    def positions(self, what: tuple[str, ...], start: int) -> Sequence[int]:
        """Positions in `goals`, from `start` on, of the runs of the session's goal (`("main",
        name…)`: a target of one of these names) or that passed outside a scratch copy
        (`("passed",)`); each list made once."""
        found = self._positions.get(what)
        if found is None:
            if what[0] == "passed":
                found = tuple(i for i, r in enumerate(self.goals) if r.status is RunStatus.PASSED and not scratch_only(r))
            else:
                names = set(what[1:])
                found = tuple(i for i, r in enumerate(self.goals) if any(t.name in names for t in r.targets))
            self._positions[what] = found
        return found[bisect.bisect_left(found, start):]

    def covering_after(self, targets: Sequence[Target], seq: int, before: int = NO_SEQ_LIMIT) -> Iterator[Run]:
        """The goal runs after `seq` and before `before`, in order, with a target that covers one
        of `targets`: looked up by Target.cover_keys, so a long session costs what its matches cost."""
        start = bisect.bisect_right(self.goal_seqs, seq)
        lists = []
        for key in {k for b in targets for k in b.coverer_keys()}:
            pos = self.by_cover_key.get(key, ())
            lists.append(pos[bisect.bisect_left(pos, start):])
        last = -1
        for i in heapq.merge(*lists):
            if i != last:
                last = i
                r = self.goals[i]
                if r.seq >= before:
                    return
                if any(a.covers(b) for a in r.targets for b in targets):
                    yield r
