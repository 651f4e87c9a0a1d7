"""The shared vocabulary: enums, frozen dataclasses and the polars schemas of every table.

Every stage imports this module and nothing to its right in the pipeline
(ingest -> classify -> actions -> link -> reasoning -> render -> index/search).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

# Severity, ActionKind and Outcome live in enums.py (a stored index row carries them: the lean
# command-line search reads them without this module's polars); they are this module's names too.
from logsleuth.enums import ActionKind as ActionKind
from logsleuth.enums import Outcome as Outcome
from logsleuth.enums import Severity as Severity


class Role(enum.StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"
    LOG = "log"


class Kind(enum.StrEnum):
    TEXT = "text"
    REASONING = "reasoning"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    LOG = "log"


class ToolKind(enum.StrEnum):
    """What a tool call does, whatever the agent called the tool (ingest/tools.py decides)."""

    SHELL = "shell"
    EDIT = "edit"
    READ = "read"
    SEARCH = "search"
    WEB = "web"
    OTHER = "other"


ROLES = [r.value for r in Role]
KINDS = [k.value for k in Kind]
TOOL_KINDS = [k.value for k in ToolKind]

# A tool call, normalised at ingest (ingest/tools.py; null on every other event): later stages
# read these, never an agent's tool names or input JSON. String columns, so that masking covers them.
CALL_SCHEMA: dict[str, pl.DataType] = {
    "tool_kind": pl.Enum(TOOL_KINDS),  # shell | edit | read | search | web | other
    "command": pl.Utf8(),  # shell: the command line
    "paths": pl.Utf8(),  # edit: the files changed, a line each; read/search/web: the path, pattern, query or URL
    "changes": pl.Utf8(),  # edit: what it did to each path ("update +3 -1 lines"), a line each, as paths
    "added": pl.Utf8(),  # edit: the text added
    "removed": pl.Utf8(),  # edit: the text removed
    "background": pl.Boolean(),  # shell: run in the background; read/other: reads a background job's output
}

# The event table, exactly as ARCHITECTURE.md describes it. Readers build it through
# ingest.base.EventSink; nothing else constructs event frames by hand.
EVENT_SCHEMA: dict[str, pl.DataType] = {
    "session": pl.Utf8(),
    "source": pl.Utf8(),
    "line": pl.Int64(),
    "seq": pl.Int64(),
    "ts": pl.Datetime("us", "UTC"),
    "role": pl.Enum(ROLES),
    "kind": pl.Enum(KINDS),
    "tool": pl.Utf8(),
    "call_id": pl.Utf8(),
    "text": pl.Utf8(),
    "is_error": pl.Boolean(),
    "exit_code": pl.Int64(),
    **CALL_SCHEMA,
}
EVENT_COLUMNS = list(EVENT_SCHEMA)


def empty_events() -> pl.DataFrame:
    return pl.DataFrame(schema=EVENT_SCHEMA)


@dataclass(frozen=True, slots=True)
class Skipped:
    """An input line a reader could not use, and why."""

    line: int
    reason: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What a reader did with its input: `lines == used + ignored + len(skipped)` always.

    `used` counts source lines that went into events (a multi-line traceback uses several
    lines for one event); `ignored` counts lines that are valid but carry no conversation
    (progress records, snapshots, duplicates).
    """

    source: str
    format: str
    lines: int
    events: int
    used: int
    ignored: int
    skipped: tuple[Skipped, ...] = ()
    parts: tuple[IngestReport, ...] = ()
    notes: tuple[str, ...] = ()  # what was passed over that is not a line (NUL bytes at the head)

    @property
    def balanced(self) -> bool:
        return self.lines == self.used + self.ignored + len(self.skipped)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "format": self.format,
            "lines": self.lines,
            "events": self.events,
            "used": self.used,
            "ignored": self.ignored,
            "skipped": [
                {"line": s.line, "reason": s.reason, **({"source": s.source} if s.source else {})}
                for s in self.skipped
            ],
        }
        if self.parts:
            out["parts"] = [p.to_dict() for p in self.parts]
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True, slots=True)
class Transcript:
    """One input after ingest: the event table plus the report of how it was read."""

    events: pl.DataFrame
    report: IngestReport


@dataclass(frozen=True, slots=True)
class Finding:
    """One pattern match on one event."""

    pattern: str
    category: str
    severity: Severity
    priority: int
    session: str
    seq: int
    source: str
    line: int
    text: str
    captures: Mapping[str, str]
    fingerprint: str
    explanation: str = ""
    fixes: tuple[str, ...] = ()
    ts: datetime | None = None
    primary: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "category": self.category,
            "severity": self.severity.value,
            "seq": self.seq,
            "source": self.source,
            "line": self.line,
            "text": self.text,
            "captures": dict(sorted(self.captures.items())),
            "fingerprint": self.fingerprint,
            "explanation": self.explanation,
            "fixes": list(self.fixes),
        }


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the session changed (or looked at), parsed from a tool call."""

    kind: ActionKind
    subject: str  # package, env var, flag, file path, service, command name
    value: str | None  # version specifier, env value, flag value, …
    session: str
    seq: int
    source: str
    line: int
    command: str  # the unwrapped command (or edit summary) this action came from
    raw: str = ""  # the whole tool call as issued (ssh … pct exec … included)
    resolved: str | None = None  # the version actually installed, from the tool output
    previous: str | None = None  # the version replaced, when the output says so
    ts: datetime | None = None
    # what the action is: the same change of the same call is the same action, whatever copy of
    # it (a masked one) a stage holds; stages compare ids, never object identity
    id: str = ""
    # a file edit's text added and removed (ingest/tools.py: an edit tool's as ingest normalised
    # the call, a shell edit's `sed -i s/old/new/` or heredoc as the actions stage reads it)
    added: str = ""
    removed: str = ""
    scoped: bool = False  # an env assignment before a command (`X=1 make`): set for that command only

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", f"{self.session}#{self.seq}:{self.kind.value}:{self.subject}:"
                                           f"{self.value}:{self.command}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "subject": self.subject,
            "value": self.value,
            "seq": self.seq,
            "source": self.source,
            "line": self.line,
            "command": self.command,
            "resolved": self.resolved,
            "previous": self.previous,
        }


class RunRole(enum.StrEnum):
    GOAL = "goal"
    FIX = "fix"
    INVESTIGATION = "investigation"


class RunStatus(enum.StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Target:
    """What a goal run ran: `name` is the identity (`make check`), `host` the machine it ran on."""

    prog: str  # the tool family: make, pytest, python, cargo, npm, git, nvcc, pip, launch, exec
    name: str
    args: tuple[str, ...]  # the operands that make it this target (goals, test paths, script)
    host: str = ""
    argv: tuple[str, ...] = field(default=(), compare=False)  # the command as run (flags and all)
    scratch: str = ""  # a throwaway copy it ran in (`cd /tmp/x && make`): not the user's project

    def covers(self, other: Target) -> bool:
        """Does a passing run of self show that `other` passes too? (`make check` runs `make`'s
        build; the whole suite runs one test file; `pytest tests/` runs `pytest tests/x.py`.)"""
        if self.host != other.host or self.scratch != other.scratch or self.prog != other.prog:
            return False
        if self.name == other.name:
            return True
        if not other.args and self.args and self.args[0] in _COVERING_GOALS:
            return True
        if not self.args and other.args and self.prog in _SUITES:
            return True
        return bool(self.args and other.args) and all(
            o.startswith(s.rstrip("/") + "/") or o.startswith(s + "::") for s, o in zip(self.args, other.args, strict=False)
        ) and len(self.args) <= len(other.args)

    def cover_keys(self) -> tuple[tuple[str, ...], ...]:
        """Keys under which a run of self is looked up by the targets it may cover: whenever
        `self.covers(b)`, one of these is in `b.coverer_keys()` (an index instead of a scan of
        every later run: a scan per failure was quadratic in a long session)."""
        base = (self.host, self.scratch, self.prog)
        keys: list[tuple[str, ...]] = [(*base, "name", self.name)]
        if not self.args:
            keys.append((*base, "bare"))
        else:
            if self.args[0] in _COVERING_GOALS:
                keys.append((*base, "goal"))
            keys.append((*base, "arg", self.args[0].rstrip("/")))
        return tuple(keys)

    def coverer_keys(self) -> tuple[tuple[str, ...], ...]:
        """The keys a target that covers self has one of (see cover_keys): its name; a covering
        goal when self has no operand; a bare suite; the first operand's `/` and `::` prefixes."""
        base = (self.host, self.scratch, self.prog)
        keys: list[tuple[str, ...]] = [(*base, "name", self.name)]
        if not self.args:
            keys.append((*base, "goal"))
            return tuple(keys)
        if self.prog in _SUITES:
            keys.append((*base, "bare"))
        first = self.args[0]
        cuts = {i for i, ch in enumerate(first) if ch == "/"} | {i for i in range(len(first) - 1) if first.startswith("::", i)}
        keys.extend((*base, "arg", first[:i]) for i in sorted(cuts))
        return tuple(keys)


_COVERING_GOALS = frozenset({"check", "test", "tests", "all", "install", "run"})
_SUITES = frozenset({"pytest", "unittest", "cargo-test", "go-test", "mix-test", "npm-test", "jest", "vitest", "ctest",
                     "make"})


@dataclass(frozen=True, slots=True)
class Run:
    """One executed command: the tool call's seq, its result's seq, and what it was."""

    seq: int
    result_seq: int | None
    role: RunRole
    status: RunStatus
    targets: tuple[Target, ...]  # goal targets, in the order the command runs them
    env: tuple[tuple[str, str], ...]  # inline environment (`LD_LIBRARY_PATH=… make check`)
    cwd: str | None
    probe: bool  # a throwaway one-liner (`python -c …`, `node -e …`)
    command: str

    @property
    def end(self) -> int:
        return self.result_seq if self.result_seq is not None else self.seq


@dataclass(frozen=True, slots=True)
class Sentence:
    """One classified sentence of assistant text or reasoning (see reasoning.py)."""

    seq: int
    text: str
    label: str  # diagnosis | hypothesis | decision | observation
    hedged: bool = False
    entities: tuple[tuple[str, str], ...] = field(default=())  # (label, text)


# A seq later than any event's: the open end of a window of seqs ("until the session ends").
NO_SEQ_LIMIT = 1 << 62


class Relation(enum.StrEnum):
    """Edge labels of the causal graph (see ARCHITECTURE.md, "Linking")."""

    ATTEMPTED = "attempted"  # episode -> action tried against it
    RESOLVED = "resolved"  # action -> episode that never recurs after it
    REVEALED = "revealed"  # action -> episode first seen right after it
    DID_NOT_FIX = "did_not_fix"  # action -> episode that is still there right after it
    RECURRED = "recurred"  # action -> episode it brought back
    FAILED = "failed"  # action -> failure of the attempt itself (e.g. no such version)
    SUCCEEDED = "succeeded"  # action -> success event it led to


@dataclass(frozen=True, slots=True)
class Episode:
    """A run of findings with the same pattern and fingerprint in one session."""

    id: str  # graph node id, "f1", "f2", … in order of first occurrence
    pattern: str
    category: str
    fingerprint: str
    severity: Severity
    occurrences: tuple[int, ...]  # event seqs, ascending
    findings: tuple[Finding, ...]

    @property
    def first(self) -> Finding:
        return self.findings[0]


@dataclass(frozen=True, slots=True)
class Catch22:
    """Episodes that trap the session: each known move on `subject` brings back one of them."""

    episodes: tuple[str, ...]  # episode node ids
    subject: str
    values: tuple[str, ...]  # the values of subject tried, in the order the episodes go with
    alternated: bool  # True when the session actually went back and forth
    moves: tuple[int, ...] = ()  # seqs of the actions that moved the subject


class NodeType(enum.StrEnum):
    """What a node of the causal graph stands for (`GraphNode.type`)."""

    FAILURE = "failure"  # an episode
    ACTION = "action"  # a change tried
    SUCCESS = "success"  # the first success


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    type: str  # a NodeType value
    seq: int
    label: str
    category: str | None = None
    pattern: str | None = None
    kind: str | None = None
    subject: str | None = None
    value: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type, "seq": self.seq}
        for key in ("category", "pattern", "kind", "subject", "value"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v
        out["label"] = self.label
        return out


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    relation: Relation

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "relation": self.relation.value}


@dataclass(frozen=True, slots=True)
class Resolution:
    """What ended one failure episode: the first later run of its target (or of a covering one) that
    passed or no longer showed it, and the change in effect between the failing run and that one."""

    episode: str
    at: int | None  # seq of the run that showed it gone (None: never resolved)
    fixed_by: tuple[Action, ...]  # the changes that bear on the failure
    held: bool | None  # True: it never came back; False: it came back later; None: never fixed
    attempts: tuple[Action, ...]  # the changes tried against it that did not fix it


@dataclass(frozen=True, slots=True)
class CausalGraph:
    """What the link stage derives: the graph, the chain, catch-22s, pivots, the outcome and the recipe."""

    session: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    chain: tuple[str, ...]  # node ids in story order (a recurring episode appears again)
    episodes: tuple[Episode, ...]
    attempts: Mapping[str, tuple[Action, ...]]  # episode id -> fix actions tried against it (in order)
    failed_attempts: tuple[tuple[Action, Finding], ...]  # actions whose own output failed
    catch22: tuple[Catch22, ...]
    pivots: tuple[Action, ...]
    outcome: Outcome
    first_success: Finding | None
    recipe: tuple[str, ...]
    node_actions: Mapping[str, Action]  # action node id -> the action it stands for
    resolutions: Mapping[str, Resolution] = field(default_factory=dict)  # episode id -> how it ended
    root_cause: str | None = None  # the episode the outcome hinges on
    runs: tuple[Run, ...] = ()
    notes: tuple[Finding, ...] = ()  # failures that are not chain steps (probes, expected, quotes)

    def action_id(self, action: Action) -> str:
        for node_id, a in self.node_actions.items():
            if a.id == action.id:
                return node_id
        raise KeyError(action.command)

    def action_ids(self) -> dict[str, str]:
        """action id -> its node id (as `action_id`), for callers that look up many actions."""
        out: dict[str, str] = {}
        for node_id, a in self.node_actions.items():
            out.setdefault(a.id, node_id)
        return out

    def nodes_by_id(self) -> dict[str, GraphNode]:
        """node id -> node (as `node`), for callers that look up many nodes."""
        out: dict[str, GraphNode] = {}
        for n in self.nodes:
            out.setdefault(n.id, n)
        return out

    def failure_ids(self) -> frozenset[str]:
        """The ids of the failure (episode) nodes, for callers that test many ids."""
        return frozenset(n.id for n in self.nodes if n.type == NodeType.FAILURE)

    def node(self, node_id: str) -> GraphNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [e.to_dict() for e in self.edges],
            "chain": list(self.chain),
            "catch22": [list(c.episodes) for c in self.catch22],
            "pivots": [ids[a.id] for ids in [self.action_ids()] for a in self.pivots],
            "outcome": self.outcome.value,
            "recipe": list(self.recipe),
            "root_cause": self.root_cause,
            "resolutions": {
                ep: {
                    "at": r.at,
                    "fixed_by": [ids[a.id] for a in r.fixed_by if a.id in ids],
                    "held": r.held,
                    "attempts": [ids[a.id] for a in r.attempts if a.id in ids],
                }
                for ids in [self.action_ids()]
                for order in [{e.id: i for i, e in enumerate(self.episodes)}]
                for ep, r in sorted(self.resolutions.items(), key=lambda kv: order.get(kv[0], -1))
            },
            "notes": [{"seq": f.seq, "category": f.category, "pattern": f.pattern} for f in self.notes],
        }
