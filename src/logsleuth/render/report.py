"""The postmortem as one typed model: built once from the analysis (`compose.build_report`), then
shown three ways (`postmortem`: markdown and HTML from one list of sections, and the JSON document).

Every part is a frozen dataclass whose `to_dict()` is the part's JSON (field order = key order).
A statement carries the seq of the event that supports it; the views print it as `[msg N]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from logsleuth.facts import Cited, Established, Machine, PackageVersion
from logsleuth.model import Action, CausalGraph, Finding, IngestReport

__all__ = [
    "After", "Assumption", "Attempt", "Change", "Check", "Cited", "Command", "Diagnosis", "Established", "FindingRow", "Fix",
    "Intro", "Knowledge", "Machine", "PackageVersion", "Part", "Pivot", "Quote", "Report", "Required",
    "RoadGroup", "RootCause", "Step", "Success", "TimelineRow", "Trap", "TrapPath", "Unclassified", "Unresolved", "Verdict",
]

_OMIT_NONE = {"omit_none": True}  # a key the JSON leaves out when empty (it never had one there)


def plain(value: Any) -> Any:
    """A part (or a tuple of them) as JSON-ready data."""
    if isinstance(value, Part):
        return value.to_dict()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class Part:
    """A part of the report: `to_dict()` in field order."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.name] = plain(value)
        return out

    def to_fields(self) -> dict[str, Any]:
        """The fields by name, as they are (what a template reads)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Intro(Part):
    goal: tuple[Cited, ...]
    machine: Machine
    stack: tuple[PackageVersion, ...]
    events: int
    messages: int
    minutes: int | None
    duration: str
    start: datetime | None
    format: str
    source: str
    session: str
    failures: int
    chained: bool  # each fix exposed the next failure
    outcome: str
    coverage: tuple[str, ...] = ()  # what the reader could not use, the file's other sessions


@dataclass(frozen=True, slots=True)
class Attempt(Part):
    text: str
    seq: int
    result_seq: int | None = field(default=None, metadata=_OMIT_NONE)  # none for a summary of many


@dataclass(frozen=True, slots=True)
class Command(Part):
    text: str
    seq: int
    lang: str  # "bash" or "diff"


@dataclass(frozen=True, slots=True)
class Fix(Part):
    """What fixed a failure: the changes (text, seq), where it was seen gone (at), whether it held."""

    text: str | None
    seq: int | None
    at: int | None
    held: bool | None
    rerun: bool = True  # seen gone when the same step ran again (else at a later, different step)
    same: bool = False  # the fix and the run that showed it gone were one command


@dataclass(frozen=True, slots=True)
class Step(Part):
    """One failure of the road, with what the agent made of it and did."""

    id: str
    title: str
    category: str
    seq: int
    lead: str
    quote: tuple[str, ...]
    explanation: str
    conclusion: Cited | None
    attempts: tuple[Attempt, ...]
    failed: tuple[Cited, ...]
    command: Command | None
    repeats: int
    fix: Fix | None


@dataclass(frozen=True, slots=True)
class RoadGroup(Part):
    """A step with the steps folded into it (`again`: the failure back while nothing changed)."""

    number: int
    step: Step
    again: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Success(Part):
    seq: int
    quote: tuple[str, ...]
    title: str


@dataclass(frozen=True, slots=True)
class TrapPath(Part):
    value: str
    title: str
    seq: int
    quote: tuple[str, ...]
    explanation: str


@dataclass(frozen=True, slots=True)
class Trap(Part):
    """A catch-22: two paths around `subject`, or one failure against a rule of the request."""

    subject: str
    alternated: bool
    rule: str
    paths: tuple[TrapPath, ...]
    quotes: tuple[Cited, ...]
    moves: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Quote(Part):
    text: str
    seq: int
    label: str


@dataclass(frozen=True, slots=True)
class Check(Part):
    command: str
    seq: int
    result: tuple[str, ...]
    result_seq: int | None


@dataclass(frozen=True, slots=True)
class Pivot(Part):
    text: str
    parts: tuple[str, ...]
    seq: int
    why: Cited | None
    label: str


@dataclass(frozen=True, slots=True)
class Diagnosis(Part):
    key: tuple[Quote, ...] = ()
    checks: tuple[Check, ...] = ()
    pivots: tuple[Pivot, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict(Part):
    verdict: str
    evidence: str | None
    evidence_seq: int | None


@dataclass(frozen=True, slots=True)
class After(Part):
    """What came next after an event: the first recognised success or failure."""

    kind: str  # "success" or "failure"
    text: str
    seq: int


@dataclass(frozen=True, slots=True)
class Assumption(Part):
    text: str
    seq: int
    verdict: str
    evidence: str | None
    evidence_seq: int | None

    @classmethod
    def judged(cls, text: str, seq: int, v: Verdict) -> Assumption:
        return cls(text, seq, v.verdict, v.evidence, v.evidence_seq)


@dataclass(frozen=True, slots=True)
class Required(Part):
    title: str
    text: str
    seq: int


@dataclass(frozen=True, slots=True)
class Knowledge(Part):
    required: tuple[Required, ...] = ()
    tables: tuple[Cited, ...] = ()
    created: tuple[Established, ...] = ()


@dataclass(frozen=True, slots=True)
class RootCause(Part):
    title: str | None  # the failure that shows it
    seq: int | None
    text: str | None  # the underlying condition (None: the session does not establish one)
    catch22: bool  # the trap of a catch-22
    kind: str = "unknown"  # the kind of condition (verdict.RootCause.kind)
    basis: str = "none"  # where the sentence comes from: agent | knowledge | fix | none
    said_seq: int | None = None  # where the agent said it (basis "agent")
    explanation: str = ""  # what the failure's category knows of the condition (basis "knowledge")


@dataclass(frozen=True, slots=True)
class Change(Part):
    text: str
    seq: int
    command: str


@dataclass(frozen=True, slots=True)
class Unresolved(Part):
    title: str
    seq: int
    count: int


@dataclass(frozen=True, slots=True)
class TimelineRow(Part):
    seq: int | None  # None: the row that stands for the rows left out
    what: str
    text: str
    time: str


@dataclass(frozen=True, slots=True)
class FindingRow(Part):
    seq: int
    source: str
    line: int
    pattern: str
    category: str
    severity: str
    text: str


@dataclass(frozen=True, slots=True)
class Unclassified(Part):
    template: str
    count: int
    first_line: int


# the story's sections, in the order the JSON document's "story" lists them
STORY = ("road", "success", "catch22", "diagnosis", "assumptions", "knowledge", "root_cause", "resolution",
         "unresolved", "timeline")


@dataclass(frozen=True, slots=True)
class Report(Part):
    """The whole postmortem. The markdown and HTML templates read these fields by name."""

    title: str
    intro: Intro
    road: tuple[Step, ...]
    success: Success | None
    catch22: tuple[Trap, ...]
    diagnosis: Diagnosis
    assumptions: tuple[Assumption, ...]
    knowledge: Knowledge
    root_cause: RootCause
    resolution: tuple[Change, ...]
    unresolved: tuple[Unresolved, ...]
    recipe: tuple[str, ...]
    outcome: str
    reason: str  # the verdict's one sentence on why the session ended as it did
    bends: tuple[str, ...]  # what was bent to pass (a workaround's why), a line each
    verdict: dict[str, Any]  # the verdict as data (the JSON document's "verdict")
    mermaid: str
    timeline: tuple[TimelineRow, ...]
    appendix: tuple[FindingRow, ...]
    unclassified: tuple[Unclassified, ...]
    record: str  # "log" (told in lines) or "transcript" (told in messages)
    road_groups: tuple[RoadGroup, ...]  # the road as both pages fold it
    road_hidden: int  # groups past the limit
    # the analysis the report was built from, as the JSON document shows it
    session: str
    ingest: IngestReport
    primary: Finding | None
    findings: tuple[Finding, ...]
    actions: tuple[Action, ...]
    graph: CausalGraph

    def story(self) -> dict[str, Any]:
        """The story's sections as data (the JSON document's "story")."""
        return {k: plain(getattr(self, k)) for k in STORY}

    def document(self) -> dict[str, Any]:
        """The JSON document (`analyze --output-format json`; schema in README), before redaction."""
        return {
            "report": self.ingest.to_dict(),
            "session": self.session,
            "title": self.title,
            "intro": self.intro.to_dict(),
            "outcome": self.outcome,
            "verdict": self.verdict,
            "primary": self.primary.to_dict() if self.primary else None,
            "findings": [f.to_dict() | {"session": f.session} for f in self.findings],
            "actions": [a.to_dict() for a in self.actions],
            "graph": self.graph.to_dict(),
            "story": self.story(),
            "recipe": list(self.recipe),
            "unclassified": plain(self.unclassified),
        }

    def cited_tree(self) -> dict[str, Any]:
        """Everything the pages show, as data: what `transcript.cited` reads the references from."""
        return {"title": self.title, "intro": self.intro.to_dict(), **self.story(), "recipe": list(self.recipe),
                "reason": self.reason, "bends": list(self.bends), "mermaid": self.mermaid, "findings": plain(self.appendix),
                "primary": self.primary.to_dict() if self.primary else None, "graph": self.graph.to_dict(),
                "unclassified": plain(self.unclassified)}

    def to_dict(self) -> dict[str, Any]:
        return self.document()
