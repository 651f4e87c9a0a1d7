"""Whether what the agent assumed held: each hedged claim checked against what happened after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from logsleuth.clip import first_lines
from logsleuth.link import action_label
from logsleuth.model import Action, ActionKind, Sentence
from logsleuth.render.describe import lower_first, mentions
from logsleuth.render.report import After, Verdict

if TYPE_CHECKING:
    from logsleuth.render.story import Story

_TESTABLE = frozenset(
    {ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED, ActionKind.FLAG_REMOVED, ActionKind.ENV_SET, ActionKind.LAUNCH}
)


class Judge:
    """Judges claims against the story's analysis: the re-run that tested a change, a failed
    install, what the session established, the failures that followed."""

    def __init__(self, st: Story):
        self.st = st
        self._testable: list[Action] | None = None

    def verdict(self, s: Sentence) -> Verdict:
        """Check a hedged claim against what happened after it, by what it names."""
        if self._testable is None:  # the launches and flag/env changes, once for every claim
            self._testable = [a for a in self.st.an.actions if a.kind in _TESTABLE]
        for a in self._testable:
            if a.seq > s.seq and mentions(s.text, a):
                tested = self._resolution_of(a)  # the re-run that tested the change it made
                if tested is not None:
                    return tested
                after = self.next_outcome(a.seq)
                if after is not None:
                    held = after.kind == "success"
                    return Verdict("held" if held else "did not hold", f"after `{action_label(a)}`: {after.text}", after.seq)
        names = sorted({t for _, t in s.entities if len(t) >= 4}, key=lambda t: (-len(t), t))
        # a failed install refutes a claim that named exactly that version (x.y.z) or package
        specific = [n for n in names if n.count(".") >= 2 or any(n == a.subject for a, _ in self.st.g.failed_attempts)]
        for a, f in self.st.g.failed_attempts:
            if f.seq > s.seq and any(n == a.subject or n in (a.value or "") for n in specific):
                return Verdict("did not hold", first_lines(f.text, 1)[0], f.seq)
        things = [t for label, t in s.entities if label in ("CUDA_LIB", "GPU_ARCH", "FEATURE") and len(t) >= 4]
        for fact in self.st.facts.established(failed=False):
            low = fact.text.lower()
            if fact.seq > s.seq and any(n.lower().rstrip("s") in low for n in things):
                return Verdict("tested", fact.text, fact.seq)
        values = {t for label, t in s.entities if label in ("VERSION", "GPU_ARCH")}
        for f in self.st.an.findings:
            if f.seq > s.seq and f.severity.is_failure and values & set(f.captures.values()):
                return Verdict("consistent with what followed", first_lines(f.text, 1)[0], f.seq)
        return Verdict("not tested in the session", None, None)

    def _resolution_of(self, a: Action) -> Verdict | None:
        """A change the graph judged: it fixed a failure (gone at the re-run, held) or was tried
        against one that stayed. The verdict comes from that re-run, not from whatever failed next."""
        for ep_id, res in self.st.g.resolutions.items():
            title = lower_first(self.st.title_of(self.st.episodes[ep_id]))
            if any(b.id == a.id for b in res.fixed_by) and res.at is not None:
                held = "held" if res.held is not False else "did not hold"
                return Verdict(held, f"after `{action_label(a)}` the {title} was gone at the re-run", res.at)
            if any(b.id == a.id for b in res.attempts):
                later = [s for s in self.st.episodes[ep_id].occurrences if s > a.seq]
                if later:
                    return Verdict("did not hold", f"after `{action_label(a)}` the {title} came back", later[0])
        return None

    def next_outcome(self, seq: int) -> After | None:
        """What came next after `seq`: the first success or failure the patterns recognised."""
        fails = [f for ep in self.st.g.episodes for f in ep.findings if f.seq > seq]
        nxt_fail = min(fails, key=lambda f: f.seq) if fails else None
        succ = self.st.g.first_success if self.st.g.first_success and self.st.g.first_success.seq > seq else None
        if succ and (nxt_fail is None or succ.seq < nxt_fail.seq):
            return After("success", first_lines(succ.text, 1)[0], succ.seq)
        if nxt_fail is not None:
            return After("failure", first_lines(nxt_fail.text, 1)[0], nxt_fail.seq)
        return None

