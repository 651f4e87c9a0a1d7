"""What is in force at a point of a session, and the working recipe as pasteable shell lines.

State is rebuilt from actions alone (each action's `command` is a re-parseable unwrapped command),
so the link stage can hand in any subset (say, without the attempts that failed). Rules:

* env: the last `env_set`/`env_unset` of each variable wins. A `VAR=v cmd` prefix counts as set
  from then on: the recipe wants everything the session needed, and agents re-type prefixes.
* packages: the last install/upgrade/downgrade/pin/uninstall of each subject wins.
* files and builds: the last action on each path / directory.
* launches: the last launch of each engine, with its flags; the recipe shows the latest launch.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from logsleuth.actions.launch import Flags, LaunchInfo, launch_info
from logsleuth.actions.lexer import LexError
from logsleuth.actions.packages import PkgCmd, Req, parse_package
from logsleuth.actions.shellparse import Cmd, basename, commands, split_commands
from logsleuth.enums import PACKAGE_CHANGES
from logsleuth.model import Action, ActionKind

K = ActionKind
_PASTEABLE_EDITS = frozenset({"sed", "perl", "ln", "cp", "mv", "install", "rm", "echo", "printf", "patch"})
_SYSTEM = frozenset({"apt", "brew", "dpkg", "yum", "dnf", "apk", "zypper", "port"})
_SAFE = re.compile(r"[\w@%+=:,./-]*")


@dataclass(frozen=True, slots=True)
class Launch:
    session: str
    seq: int
    engine: str
    model: str | None
    flags: Flags
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]  # `VAR=v` prefixes of the launch command

    def flag_dict(self) -> dict[str, str | None]:
        return dict(self.flags)

    @property
    def command(self) -> str:
        return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in self.env), *map(shlex.quote, self.argv)])


def _parse(command: str) -> Cmd | None:
    try:
        cmds = split_commands(command)
    except LexError:
        return None
    return cmds[0] if cmds else None


def launches(actions: Sequence[Action], session: str | None = None) -> list[Launch]:
    """Every launch, in order, with its parsed flags."""
    out: list[Launch] = []
    for a in _ordered(actions):
        if a.kind is not K.LAUNCH or (session is not None and a.session != session):
            continue
        parsed = _launch_of(a.command)
        if parsed is None:
            continue
        cmd, info = parsed
        out.append(Launch(a.session, a.seq, info.engine, info.model, info.flags, cmd.argv, cmd.assigns))
    return out


@lru_cache(maxsize=4096)
def _launch_of(command: str) -> tuple[Cmd, LaunchInfo] | None:
    """The parsed launch of a command (sessions relaunch the same command many times)."""
    cmd = _parse(command)
    info = launch_info(cmd.argv) if cmd else None
    return (cmd, info) if cmd is not None and info is not None else None


def server_flags_at(
    actions: Sequence[Action], seq: int, engine: str | None = None, session: str | None = None
) -> dict[str, str | None]:
    """Flags of the latest launch (of `engine`, if given) at or before `seq`; {} when none."""
    found = [x for x in launches(actions, session) if x.seq <= seq and (engine is None or x.engine == engine)]
    return found[-1].flag_dict() if found else {}


def _ordered(actions: Sequence[Action]) -> list[Action]:
    return sorted(actions, key=lambda a: (a.session, a.seq))  # stable: keeps the order within a command


def state_at(actions: Sequence[Action], seq: int, session: str | None = None) -> dict[str, Any]:
    """Env vars, activated envs, packages, edited files, builds and launches in force at `seq` (inclusive)."""
    sessions = sorted({a.session for a in actions})
    if session is None:
        if len(sessions) > 1:
            raise ValueError(f"actions span {len(sessions)} sessions; pass session=")
        session = sessions[0] if sessions else ""
    mine = [a for a in _ordered(actions) if a.session == session and a.seq <= seq]
    env: dict[str, str | None] = {}
    activated: dict[str, str] = {}
    packages: dict[str, dict[str, Any]] = {}
    files: dict[str, dict[str, Any]] = {}
    builds: dict[str, dict[str, Any]] = {}
    origin: dict[tuple[str, str], tuple[str, ...]] = {}  # where each entry in force was done
    for a in mine:
        origin[(_SECTION.get(a.kind, a.kind.value), a.subject)] = _where(a.raw)
        if a.kind in (K.ENV_SET, K.ENV_UNSET):
            env.pop(a.subject, None)
            env[a.subject] = a.value if a.kind is K.ENV_SET else None
        elif a.kind is K.ENV_ACTIVATE:
            activated.clear()
            activated[a.subject] = _activation_line(a)
        elif a.kind in PACKAGE_CHANGES:
            packages.pop(a.subject, None)
            packages[a.subject] = _package_state(a)
        elif a.kind is K.FILE_EDIT:
            files.pop(a.subject, None)
            files[a.subject] = {"summary": a.value, "seq": a.seq, "line": _edit_line(a)}
        elif a.kind is K.BUILD:
            builds.pop(a.subject, None)
            builds[a.subject] = {"summary": a.value, "seq": a.seq, "line": _build_line(a)}
    runs: dict[str, dict[str, Any]] = {}
    last: str | None = None
    for x in launches(mine):
        runs.pop(x.engine, None)
        runs[x.engine] = {"model": x.model, "flags": x.flag_dict(), "seq": x.seq,
                          "line": " ".join(shlex.quote(t) for t in x.argv)}
        last = x.engine
    live = [("env", k) for k in env] + [("activated", k) for k in activated] + [("packages", k) for k in packages]
    live += [("files", k) for k in files] + [("builds", k) for k in builds] + ([("launch", last)] if last else [])
    where = sorted({w for key in live for w in origin.get(key, ())})
    return {"session": session, "seq": seq, "where": where, "env": env, "activated": activated,
            "packages": packages, "files": files, "builds": builds, "launches": runs, "last_launch": last}


_SECTION = {K.ENV_SET: "env", K.ENV_UNSET: "env", K.ENV_ACTIVATE: "activated", K.FILE_EDIT: "files",
            K.BUILD: "builds", K.LAUNCH: "launch", **{k: "packages" for k in PACKAGE_CHANGES}}
_HOSTS = ("ssh ", "pct exec", "docker ", "podman ", "nerdctl ", "kubectl exec", "oc exec", "lxc", "incus")


@lru_cache(maxsize=4096)
def _where(raw: str) -> tuple[str, ...]:
    """The machines a tool call ran on: "ssh root@10.1.2.6 → pct exec 200" (none for a local command)."""
    if raw.lstrip().startswith(("{", "[")):
        return ()
    found = {" → ".join(v for v in c.via if v.startswith(_HOSTS)) for c in commands(raw)}
    return tuple(sorted(w for w in found if w))


def _activation_line(a: Action) -> str:
    cmd = _parse(a.command)
    return " ".join(shlex.quote(t) for t in cmd.argv) if cmd and cmd.argv else f"source {a.subject}/bin/activate"


def _package_state(a: Action) -> dict[str, Any]:
    state: dict[str, Any] = {"kind": a.kind.value, "spec": a.value, "resolved": a.resolved,
                             "previous": a.previous, "seq": a.seq}
    cmd = _parse(a.command)
    pkg = parse_package(cmd.argv) if cmd else None
    req = _matching_req(pkg, a) if pkg else None
    state["line"] = _install_line(pkg, req, a) if pkg and req else None
    return state


def _matching_req(pkg: PkgCmd, a: Action) -> Req | None:
    exact = [r for r in pkg.reqs if r.subject == a.subject]
    local = [r for r in pkg.reqs if r.subject == "." or a.subject.endswith("/" + r.subject)]
    found = exact or local
    return found[0] if found else None


def _install_line(pkg: PkgCmd, req: Req, a: Action) -> str:
    words = list(pkg.installer)
    if a.kind is K.UNINSTALL or len(req.arg) > 1 or (req.value and req.value.startswith((".", "/", "~", "git+", "http"))):
        words += list(req.arg) if a.kind is not K.UNINSTALL else [req.arg[-1]]
    elif a.resolved and pkg.manager not in _SYSTEM:  # a distro revision is no portable pin
        extras = re.match(r"^\[[^\]]*\]", a.value or "")
        words.append(f"{req.subject}{extras.group(0) if extras else ''}=={a.resolved}")
    else:
        words.append(req.arg[0])
    return " ".join(shlex.quote(w) for w in words)


def _edit_line(a: Action) -> str:
    cmd = _parse(a.command)
    heredoc = "<<" in a.command
    if cmd and cmd.argv and (basename(cmd.argv[0]) in _PASTEABLE_EDITS or (a.value or "").startswith("pip ")) and not heredoc:
        return a.command
    return f"# edited {a.subject}" + (f" ({a.value})" if a.value else "")


def _build_line(a: Action) -> str:
    return a.command if a.subject in (".", "") else f"(cd {shlex.quote(a.subject)} && {a.command})"


def export_line(name: str, value: str | None) -> str:
    if value is None:
        return f"unset {name}"
    if _SAFE.fullmatch(value):
        return f"export {name}={value}"
    # double quotes keep `$PATH` expanding, as the session wrote it
    return f'export {name}="' + value.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'


def recipe_lines(state: dict[str, Any]) -> list[str]:
    """The state as shell lines a person can paste: env, packages pinned to what resolved, edits, builds, launch."""
    lines: list[str] = [f"# run on: {w}" for w in state.get("where", [])]
    env_lines = list(state.get("activated", {}).values()) + [export_line(k, v) for k, v in state.get("env", {}).items()]
    sections: list[tuple[str, list[str]]] = [
        ("environment", env_lines),
        ("packages", [p["line"] for p in state.get("packages", {}).values() if p.get("line")]),
        ("files", [f["line"] for f in state.get("files", {}).values()]),
        ("builds", [b["line"] for b in state.get("builds", {}).values()]),
    ]
    last = state.get("last_launch")
    if last:
        sections.append(("launch", [state["launches"][last]["line"]]))
    for title, body in sections:
        if body:
            lines.append(f"# {title}")
            lines.extend(body)
    return lines
