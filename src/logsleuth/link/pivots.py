"""Changes of approach found from what was done: another engine, a feature or backend switched off,
a check bypassed instead of passed (hooks skipped, an ignore file or an inline suppression written).
Pivots the agent announced in words are found by link/resolution.py (`worded_pivots`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from logsleuth.model import Action, ActionKind

_PIVOT_FLAG = re.compile(r"^--(disable|no|enforce-eager|skip)|backend$|^--(engine|load-format|quantization)$")
_PIVOT_ENV = re.compile(r"(ATTENTION_BACKEND|_BACKEND|^SGLANG_DISABLE|^VLLM_USE_|_DISABLE_)")
# Getting past a check instead of passing it: skipping git's hooks, or an ignore file written for a
# checker (not .gitignore/.dockerignore, which say what a repository or an image holds)
_CHECKER_IGNORE = re.compile(
    r"(?:^|/)\.(?:dialyzer|eslint|prettier|stylelint|markdownlint|semgrep|trivy|snyk|credo|rubocop_todo)"
    r"(?:ignore|_ignore\.exs|\.yml)?$"
)

# An inline suppression added by an edit: the checker (linter, type checker, test runner) is told
# to look away from one place instead of the code passing it.
_SUPPRESSION = re.compile(
    r"credo:disable|#\s*noqa\b|#\s*type:\s*ignore|#\s*pylint:\s*disable|#\s*mypy:\s*ignore-errors|#\s*nosec\b|"
    r"eslint-disable|@ts-(?:ignore|nocheck|expect-error)|//\s*nolint|#!?\[allow\(|@SuppressWarnings|rubocop:disable|"
    r"@pytest\.mark\.(?:skip|xfail)\b|pytest\.skip\(|@unittest\.skip|\b(?:it|test|describe)\.skip\(|\bx(?:it|describe)\(|"
    r"@tag\s+:skip|@moduletag\s+:skip|#\[ignore\]|t\.Skip\(",
)


def find_pivots(actions: Sequence[Action]) -> list[Action]:
    """Strategy changes: a disabled feature, another backend or engine, a workaround switch, a
    check bypassed.

    Flags of an engine's first launch are its starting point, not a change of strategy.
    """
    ordered = sorted(actions, key=lambda a: a.seq)
    launches = [a for a in ordered if a.kind is ActionKind.LAUNCH]
    engine_at = {a.seq: a.subject for a in launches}
    first_launch: dict[str, int] = {}
    for a in launches:
        first_launch.setdefault(a.subject, a.seq)
    start = launches[0].seq if launches else -1
    pivots: list[Action] = []
    prev_engine: str | None = None
    for a in ordered:
        if a.kind is ActionKind.LAUNCH:
            if prev_engine is not None and a.subject != prev_engine:
                pivots.append(a)
            prev_engine = a.subject
        elif a.kind in (ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED):
            engine = engine_at.get(a.seq)
            if engine is not None and a.seq != first_launch[engine] and _PIVOT_FLAG.search(a.subject):
                pivots.append(a)
        elif (a.kind is ActionKind.ENV_SET and a.seq > start >= 0 and _PIVOT_ENV.search(a.subject)) or _bypasses_a_check(a):
            pivots.append(a)
    return pivots


def _bypasses_a_check(a: Action) -> bool:
    """`git commit --no-verify` (the hooks skipped), a checker's ignore file written, or an inline
    suppression added (`# noqa`, `credo:disable-for-next-line`, `@pytest.mark.skip`)."""
    if a.kind is ActionKind.RUN and a.subject == "git":
        verb, _, rest = (a.value or "").partition(" ")
        flags = set(rest.split())
        # `git commit -n` is --no-verify; `git push -n` is a dry run
        return ("--no-verify" in flags and verb in ("commit", "push", "merge")) or (verb == "commit" and "-n" in flags)
    if a.kind is not ActionKind.FILE_EDIT:
        return False
    if _CHECKER_IGNORE.search(a.subject):
        return True
    return len(_SUPPRESSION.findall(a.added)) > len(_SUPPRESSION.findall(a.removed))
