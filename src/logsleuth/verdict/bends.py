"""What was bent to get the goal to pass: a rule of the request broken, a check skipped or
bypassed, the fix living only in one command's environment, a vendor artefact replaced. Any of
them makes a pass a workaround."""

from __future__ import annotations

import re
from collections.abc import Sequence

from logsleuth.clip import short
from logsleuth.link.constraints import bends as rule_bends
from logsleuth.link.request import clauses
from logsleuth.model import Action, ActionKind, Run, RunStatus
from logsleuth.verdict.changes import is_change, state_text
from logsleuth.verdict.context import Context
from logsleuth.verdict.model import Bend, FailureVerdict

# A check turned off in the command that passed: tests deselected, a hook or an exit code ignored.
_SKIP_FLAGS = re.compile(r"(?:^|\s)(?:-k\s+['\"]?not\b|--deselect\b|--ignore(?:-glob)?=?\S*|-p\s+no:|--no-verify\b|"
                         r"--continue-on-collection-errors\b|--lf\b)|\|\|\s*(?:true|:)\s*$")
# An edit that marks tests skipped or expected to fail, or relaxes the warnings/errors policy.
_SKIP_ADDED = re.compile(r"@pytest\.mark\.(?:skip|xfail)|pytest\.(?:skip|xfail)\(|@unittest\.skip|"
                         r"\bcontinue-on-error:\s*true|--no-verify", re.I)
# A linter's or type checker's finding silenced: a bend only where the goal runs that checker (held-out
# isobuild: a noqa comment for E402 beside a moved import was told "check skipped" under a goal of pip + pytest)
_SILENCED = re.compile(r"#\s*type:\s*ignore|#\s*noqa|#\s*pylint:\s*disable|#\s*pyright:\s*ignore", re.I)
_CHECKERS = re.compile(r"\b(?:ruff|flake8|pylint|mypy|pyright|pre-commit|pyflakes|pycodestyle|black|isort|lint)\b")
_POLICY_REMOVED = re.compile(r"filterwarnings\s*=\s*(?:\n\s*)?error|-Werror\b|\berror::", re.I)
# A feature turned off to get past a failure: `--disable-cuda-graph`, `--enforce-eager`, `--no-…`.
_DISABLING = re.compile(r"^--(?:disable|no)[-_]|^--enforce[-_]eager$|^--skip[-_]")
VENDOR = re.compile(r"(?:^|/)(?:third_party|third-party|vendor|vendored|external|site-packages|dist-packages|gen)/")


def find_bends(ctx: Context, failures: Sequence[FailureVerdict], success: Run | None) -> tuple[Bend, ...]:
    """Every bend in force at the passing run, in seq order (none when nothing passed)."""
    if success is None or not ctx.graph.episodes:
        return ()
    first = min(ep.occurrences[0] for ep in ctx.graph.episodes)
    acts = [a for a in ctx.actions if first < a.seq <= success.seq and is_change(a, ctx.never_ran)]
    found = [*_broken_rules(ctx, acts), *_skipped(acts, success), *_one_command(failures, success),
             *_vendor(ctx, acts), *_disabled(failures), *_kept_failing(ctx)]
    firsts: dict[tuple[str, str], Bend] = {}
    for b in sorted(found, key=lambda b: b.seq):  # the same bend made again is one bend, first seen
        firsts.setdefault((b.kind, b.text), b)
    return tuple(firsts.values())


def _broken_rules(ctx: Context, acts: list[Action]) -> list[Bend]:
    if not ctx.rules:
        return []
    out = []
    for a in rule_bends(acts, ctx.rules, ctx.events):
        rule = next((c for c in ctx.rules if _protects(c.subjects, c.files, a)), ctx.rules[0])
        out.append(Bend("constraint broken", f"{state_text(a)}, against the request's “{short(rule.clause, 90)}”", a.seq))
    return out


def _kept_failing(ctx: Context) -> list[Bend]:
    """A check the request keeps ("`make hardening` has to keep passing") that fails at its last run."""
    finals = ctx.final_runs()
    out = []
    for name in sorted(ctx.kept):
        run = finals.get(name)
        if run is not None and ctx.status(run) is RunStatus.FAILED:
            clause = next((c for c in clauses(ctx.request) if f"`{name}" in c), name)
            out.append(Bend("constraint broken", f"`{name}` fails at its last run [msg {run.seq}], against the "
                            f"request's “{short(clause.strip(), 90)}”", run.seq))
    return out


def _protects(subjects: Sequence[str], files: Sequence[str], a: Action) -> bool:
    low = a.subject.lower()
    return any(s in low for s in subjects) or any(low.endswith(f) for f in files)


def _skipped(acts: list[Action], success: Run) -> list[Bend]:
    out = []
    if _SKIP_FLAGS.search(success.command):
        out.append(Bend("check skipped", f"the passing run `{short(success.command, 90)}` leaves checks out", success.seq))
    for a in acts:
        if a.kind is not ActionKind.FILE_EDIT:
            continue
        silenced = _CHECKERS.search(success.command) is not None and _SILENCED.search(a.added or "") \
            and not _SILENCED.search(a.removed or "")
        if silenced or (_SKIP_ADDED.search(a.added or "") and not _SKIP_ADDED.search(a.removed or "")):
            out.append(Bend("check skipped", f"{state_text(a)} (a test or check is skipped)", a.seq))
        elif _POLICY_REMOVED.search(a.removed or "") and not _POLICY_REMOVED.search(a.added or ""):
            out.append(Bend("check skipped", f"{state_text(a)} (warnings no longer fail the run)", a.seq))
    return out


def _one_command(failures: Sequence[FailureVerdict], success: Run) -> list[Bend]:
    """A variable set on the passing run's own command line; one set on an earlier run's only
    (a probe: `GLIBC_TUNABLES=… pytest` before the bare command passed) is no part of the pass."""
    return [Bend("fix only in one command's environment", c.text, c.seq)
            for f in failures for c in f.fix if not c.lasting and c.seq in (success.seq, success.result_seq)]


def _vendor(ctx: Context, acts: list[Action]) -> list[Bend]:
    """A vendored or installed artefact changed in place; under a folder the request names it is
    always a bend, in site-packages (someone else's package, lost on reinstall) too."""
    named = {m.lower() for m in re.findall(r"[\w.-]+/", ctx.request)}
    out = []
    for a in acts:
        m = VENDOR.search(a.subject) if a.kind in (ActionKind.FILE_EDIT, ActionKind.BUILD) else None
        if m is None:
            continue
        folder = m.group(0).strip("/").lower() + "/"
        if folder in named or "packages/" in folder:
            out.append(Bend("vendor artefact replaced", state_text(a), a.seq))
    return out


def _disabled(failures: Sequence[FailureVerdict]) -> list[Bend]:
    """A flag that turns a feature off, in the fix of a failure: the failure is avoided, not fixed."""
    return [Bend("feature disabled", c.text, c.seq) for f in failures for c in f.fix
            if c.kind == "flag" and _DISABLING.match(c.subject) and "added" in c.text]
