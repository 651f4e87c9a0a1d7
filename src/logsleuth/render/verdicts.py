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


UNTESTED = "untested"  # no later call touched what the claim names: the report leaves the claim out
_PROBE_WINDOW = 8  # the calls after a claim that can test it (later ones chase other leads)


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
        return self._probed(s, names)

    def _probed(self, s: Sentence, names: list[str]) -> Verdict:
        """The first of the next calls that touches the claim's own names (a path, package, file):
        it tested the claim, and what it printed is the evidence. None found: "untested", which
        the report leaves out (the audit found "not tested" wrong where the next call tested it)."""
        ev = self.st.an.events
        low = [n.lower() for n in names]
        calls = [(int(q), str(t or "")) for q, k, t in zip(ev["seq"].to_list(), ev["kind"].to_list(), ev["text"].to_list(), strict=True)
                 if q > s.seq and str(k) == "tool_call"][:_PROBE_WINDOW]
        hits = [(sum(n in cmd.lower() for n in low), -seq, cmd) for seq, cmd in calls]
        best = max(hits, default=(0, 0, ""))
        if not best[0]:
            return Verdict(UNTESTED, None, None)
        seq, cmd = -best[1], best[2]  # the call that touches most of what it names, the first of equals
        out = self._output_of(seq)
        return Verdict("tested", f"`{first_lines(cmd, 1)[0][:100]}`" + (f" → `{out}`" if out else ""), seq)

    def _output_of(self, seq: int) -> str:
        run = next((r for r in self.st.g.runs if r.seq == seq and r.result_seq is not None), None)
        if run is None:
            return ""
        ev = self.st.an.events
        text = next((str(t or "") for q, t in zip(ev["seq"].to_list(), ev["text"].to_list(), strict=True) if q == run.result_seq), "")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return lines[0][:100] if lines else ""

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

