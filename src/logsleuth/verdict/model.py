"""The verdict's vocabulary: one frozen judgement of a session, each field with its evidence.

`Verdict` is decided once (verdict/decide.py) after linking; every surface reads it and none
recomputes any part of it. A `seqs` tuple is the evidence: the events a field rests on, cited
as `[msg N]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logsleuth.enums import Outcome


@dataclass(frozen=True, slots=True)
class Change:
    """One piece of state a fix changed: a file's content, a package version, an env variable."""

    kind: str  # file | package | env | flag | build | other
    subject: str  # the path, package, variable or flag
    text: str  # the change as a fact: "edited `a.pyx`: +1 -1 lines", "Cython 3.3.1 installed"
    seq: int
    lasting: bool = True  # False: it lives only in one command's environment

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "text": self.text, "seq": self.seq, "lasting": self.lasting}


@dataclass(frozen=True, slots=True)
class FailureVerdict:
    """How one failure of the chain ended: the state that changed between it and the first run
    that passed without it, where that was seen, and whether it stayed away."""

    id: str  # the episode id ("f1")
    title: str
    category: str
    seq: int  # first occurrence
    last_seq: int
    fixed_at: int | None  # the run that showed it gone; None: never
    held: bool | None  # True: never came back; False: came back; None: never fixed
    fix: tuple[Change, ...] = ()
    gone_by: str = ""  # where it was seen gone: "re-run" (the same step again), "later run" (another step)
    open: str = ""  # why it is still open (empty when fixed)
    seen_gone: int | None = None  # the output of the fixed_at run: where a reader sees it gone

    @property
    def gone_seq(self) -> int | None:
        """Where to cite it gone: the passing run's output, else the run."""
        return self.seen_gone if self.seen_gone is not None else self.fixed_at

    @property
    def fixed(self) -> bool:
        return self.fixed_at is not None

    def fix_text(self) -> str:
        """The fix in one line ("" when none is known)."""
        parts: list[str] = []
        for prev, c in zip((None, *self.fix), self.fix, strict=False):
            same = prev is not None and prev.kind == c.kind == "file" and prev.subject == c.subject
            head = f"edited `{c.subject}`: "
            parts.append(c.text[len(head):] if same and c.text.startswith(head) else c.text)
        return "; ".join(dict.fromkeys(parts))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "category": self.category, "seq": self.seq,
                "last_seq": self.last_seq, "fixed_at": self.fixed_at, "held": self.held,
                "fix": [c.to_dict() for c in self.fix], "fix_text": self.fix_text(), "gone_by": self.gone_by,
                "open": self.open, "seen_gone": self.gone_seq}


@dataclass(frozen=True, slots=True)
class Bend:
    """Something bent to get the goal to pass (what makes a pass a workaround)."""

    kind: str  # constraint broken | check skipped | one-command environment | vendor artefact replaced | feature disabled
    text: str
    seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class RootCause:
    """The underlying condition that explains the chain, or none named (`text` None)."""

    text: str | None
    kind: str  # version skew | cpu build | … | unknown
    episode: str | None  # the failure that shows it
    seqs: tuple[int, ...] = ()
    basis: str = "none"  # knowledge | agent | fix | failure | none: where the sentence comes from
    title: str | None = None  # the failure's title (what the symptom was)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "kind": self.kind, "episode": self.episode, "seqs": list(self.seqs),
                "basis": self.basis, "title": self.title}


@dataclass(frozen=True, slots=True)
class OpenItem:
    """What did not pass at the end, and why."""

    text: str
    seq: int
    episode: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq, "episode": self.episode}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The one judgement of a session."""

    session: str
    outcome: Outcome
    reason: str  # one sentence, with its evidence in `reason_seqs`
    reason_seqs: tuple[int, ...]
    root_cause: RootCause
    failures: tuple[FailureVerdict, ...]
    still_open: tuple[OpenItem, ...]
    bends: tuple[Bend, ...]
    recipe: tuple[str, ...]
    goal: tuple[str, ...] = ()  # the goal targets the outcome was judged on
    constraints: tuple[str, ...] = ()  # the request's rules, as written
    success_seq: int | None = None  # the goal run that passed (the first after the last failure)
    notes: tuple[str, ...] = field(default=())  # what the verdict could not judge, a line each

    def failure(self, episode: str) -> FailureVerdict | None:
        return next((f for f in self.failures if f.id == episode), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.value,
            "reason": self.reason,
            "reason_seqs": list(self.reason_seqs),
            "root_cause": self.root_cause.to_dict(),
            "failures": [f.to_dict() for f in self.failures],
            "still_open": [o.to_dict() for o in self.still_open],
            "bends": [b.to_dict() for b in self.bends],
            "recipe": list(self.recipe),
            "goal": list(self.goal),
            "constraints": list(self.constraints),
            "success_seq": self.success_seq,
            "notes": list(self.notes),
        }
