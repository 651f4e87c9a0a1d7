"""The pattern library's types: a validated pattern, its examples and scope, problems, the library."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from logsleuth.model import Severity

if TYPE_CHECKING:
    from logsleuth.library.knowledge import Renderer

# Where a pattern applies when it declares no scope: tool output and log records, plus system and
# user text (users paste the errors they saw).
DEFAULT_KINDS = ("tool_result", "log")


@dataclass(frozen=True, slots=True)
class Example:
    """One embedded example: `match` examples carry the captures they must yield."""

    text: str
    line: int  # line of the example in the pattern file
    captures: Mapping[str, str] = field(default_factory=dict)
    # Optional event shape for the whole-library check (patterns scoped away from plain logs).
    kind: str | None = None
    is_error: bool | None = None
    command: str | None = None


@dataclass(frozen=True, slots=True)
class Scope:
    """Which events a pattern looks at. `kinds=None` means the default (see DEFAULT_KINDS)."""

    kinds: tuple[str, ...] | None = None
    is_error: bool | None = None
    command: str | None = None  # regex the paired tool_call's command must match

    @property
    def is_default(self) -> bool:
        return self.kinds is None and self.is_error is None and self.command is None


@dataclass(frozen=True, slots=True)
class Pattern:
    id: str
    title: str
    category: str
    severity: Severity
    priority: int
    regex: str
    prefilter: tuple[str, ...]
    fingerprint: tuple[str, ...]
    explain: str
    fixes: tuple[str, ...]
    related: tuple[str, ...]
    references: tuple[str, ...]
    scope: Scope
    match_examples: tuple[Example, ...]
    no_match_examples: tuple[Example, ...]
    groups: tuple[str, ...]  # named capture groups of `regex`, in order
    path: str  # display path of the file (relative, deterministic)
    line: int = 1
    portable: bool = True  # False: polars (Rust regex) rejects it; matched with Python `regex` instead
    origin: str = "builtin"  # "builtin" or the user directory as given
    key_lines: Mapping[str, int] = field(default_factory=dict)  # top-level key -> line, for lint
    # categories whose findings on the same event this pattern cancels (a routine `grep` exit 1
    # is not a failed command)
    suppresses: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "category": self.category,
            "severity": self.severity.value,
            "priority": self.priority,
            "regex": self.regex,
            "prefilter": list(self.prefilter),
            "fingerprint": list(self.fingerprint),
            "explain": self.explain,
            "fixes": list(self.fixes),
            "related": list(self.related),
            "references": list(self.references),
            "examples": {
                "match": [{"text": e.text, "captures": dict(e.captures)} for e in self.match_examples],
                "no_match": [{"text": e.text} for e in self.no_match_examples],
            },
            "path": self.path,
            "portable": self.portable,
        }
        if not self.scope.is_default:
            out["scope"] = {
                k: v
                for k, v in (
                    ("kinds", list(self.scope.kinds) if self.scope.kinds is not None else None),
                    ("is_error", self.scope.is_error),
                    ("command", self.scope.command),
                )
                if v is not None
            }
        return out


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """A located problem in a pattern file; `level` is "error" (lint fails) or "warning"."""

    path: str
    line: int
    message: str
    level: str = "error"
    pattern: str = ""

    def __str__(self) -> str:
        prefix = "" if self.level == "error" else "warning: "
        return f"{self.path}:{self.line}: {prefix}{self.message}"


# What a category's findings mean for a session's story (categories.yaml `role`): the linker
# reads it instead of hard-coding sets of category names.
ROLES = (
    "failure",  # a specific failure with a known cause
    "generic",  # says only that something failed (bare traceback, non-zero exit): the cause is elsewhere
    "wrapper",  # a build tool's summary that a step failed (make's `*** Error 2`): the lines before it say why
    "attempt_failure",  # an install/build attempt's own failure: the step failed, the goal may not have
    "not_run",  # the tool call never ran (rejected, cancelled, refused by the tool)
    "diagnostic",  # a hint or a warning about the environment, not a failure by itself
    "success",  # something finished well (tests passed, build finished, server ready)
    "progress",  # a step finished well that is not the goal (a package installed)
    "noise",  # routine output that looks like a failure and is not one (grep exit 1)
)


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    title: str = ""
    group: str = ""
    description: str = ""
    role: str = ""  # one of ROLES; "" only in a library whose categories.yaml predates roles
    cause: str = ""  # causes.yaml: the kind of underlying condition ("symptom": says only that something failed)
    condition: str = ""  # causes.yaml: the condition as a sentence, `{line}` the failure's telling line
    # causes.yaml `when`: (package, text its version holds, kind, condition): the condition a fact of
    # the session implies instead (a `+cpu` torch makes "CUDA_HOME not set" a CPU build)
    when: tuple[tuple[str, str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The `_meta` tables: plain rows, looked up by the jinja2 filters in knowledge.py."""

    ptx_isa: tuple[Mapping[str, Any], ...] = ()
    compute_capability: tuple[Mapping[str, Any], ...] = ()
    cuda_driver: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class PatternLibrary:
    """Validated patterns sorted by id, the category vocabulary and the knowledge tables.

    `problems` lists every located problem found while loading; a pattern with a fatal problem
    is left out, the rest of the library still loads.
    """

    patterns: tuple[Pattern, ...]
    categories: Mapping[str, Category]
    knowledge: Knowledge
    problems: tuple[Problem, ...] = ()
    roots: tuple[str, ...] = ()
    # The sandboxed jinja2 renderer over `knowledge`, caching compiled explain/fixes templates.
    renderer: Renderer | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.patterns)

    def get(self, pattern_id: str) -> Pattern | None:
        for p in self.patterns:
            if p.id == pattern_id:
                return p
        return None

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.level == "error")
