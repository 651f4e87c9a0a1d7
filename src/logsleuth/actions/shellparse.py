"""Shell command lines -> the simple commands they run, with every wrapper peeled off.

Agents rarely run `pip install x`; they run `ssh host "pct exec 200 -- bash -c 'export … && pip
install \\"x<2\\" 2>&1 | tail -5'"`. This module lexes bash syntax (quotes, escapes, operators,
redirections, heredocs, `$(…)` kept as text), splits lists and pipelines, and unwraps ssh, pct/lxc,
docker/kubectl exec, `bash -c`, sudo, timeout, nohup, env, `uv run`, `conda run`, … recursively.
It never raises on bad input: an unbalanced quote (a truncated transcript) yields one
`Cmd(parsed=False)` built from a best-effort split.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace

from logsleuth.actions.lexer import LexError, Word, tokenize

_REDIRECTS = frozenset({"&>>", "&>", ">>", "<<<", "<<-", "<<", ">&", "<&", ">|", "<>", ">", "<"})
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_VARREF = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
_MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: str
    fd: str = ""
    body: str | None = None  # heredoc text

    @property
    def writes_file(self) -> bool:
        """Output to a real file (not /dev/null, not an fd duplication like 2>&1)."""
        return self.op in (">", ">>", ">|", "&>", "&>>") and not self.target.startswith("/dev/")


@dataclass(frozen=True, slots=True)
class Cmd:
    """One simple command after unwrapping: `assigns` are `VAR=value` prefixes (and wrapper env)."""

    argv: tuple[str, ...]
    assigns: tuple[tuple[str, str], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    stage: int = 0  # position in its pipeline; later stages are usually filters (`| tail -5`)
    first: tuple[str, ...] = ()  # argv of the pipeline's first stage (context for `| xargs kill`)
    cwd: str | None = None  # from an earlier `cd` in the same call
    parsed: bool = True
    via: tuple[str, ...] = field(default=())  # the wrappers peeled off: ("ssh root@h", "pct exec 200")

    @property
    def prog(self) -> str:
        return basename(self.argv[0]) if self.argv else ""

    def display(self) -> str:
        """A re-parseable shell rendering: prefixes, argv, and redirections that write files."""
        parts = [f"{k}={shlex.quote(v)}" for k, v in self.assigns]
        parts += [_quote_word(a) if i else shlex.quote(a) for i, a in enumerate(self.argv)]
        for r in self.redirects:
            if r.op in ("<<", "<<-"):
                parts.append(f"<<{shlex.quote(r.target)}")
            elif r.writes_file or r.op == "<":
                parts.append(f"{r.fd}{r.op} {shlex.quote(r.target)}")
        return " ".join(parts)


def _quote_word(word: str) -> str:
    """`PATH='/x:$PATH'` rather than `'PATH=/x:$PATH'`: the same word, easier to read. A version
    specifier (`'torch==2.1,!=2.1+cpu'`) is quoted whole: `torch='=2.1…'` reads as an assignment."""
    m = _ASSIGN.match(word)
    if m and not word[m.end() :].startswith(("=", "~")):
        return word[: m.end()] + shlex.quote(word[m.end() :])
    return shlex.quote(word)


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] if path else ""


TEMP_DIRS = ("/tmp/", "/var/tmp/", "/dev/shm/")  # where a probe writes throwaway files


def in_temp(path: str | None) -> bool:
    """A path under a temp folder: what is written there is scratch, not the user's project."""
    return bool(path) and f"{path}/".startswith(TEMP_DIRS)


# ---------------------------------------------------------------- lists and pipelines


def split_commands(s: str) -> list[Cmd]:
    """The simple commands of one shell string, in order (no unwrapping). Raises LexError."""
    toks = tokenize(s)
    out: list[Cmd] = []
    words: list[Word] = []
    redirects: list[Redirect] = []
    stage = 0
    first: tuple[str, ...] = ()

    def end() -> None:
        nonlocal first
        assigns: list[tuple[str, str]] = []
        argv: list[str] = []
        for w in words:
            m = _ASSIGN.match(w.raw)
            if not argv and m:
                assigns.append((m.group(1), w.text[w.text.index("=") + 1 :]))
            else:
                argv.append(w.text)
        if argv or assigns:
            if stage == 0:
                first = tuple(argv)
            out.append(Cmd(tuple(argv), tuple(assigns), tuple(redirects), stage, first if stage else ()))
        words.clear()
        redirects.clear()

    k = 0
    while k < len(toks):
        t = toks[k]
        if isinstance(t, Word):
            words.append(t)
        elif t.op in _REDIRECTS:
            target = toks[k + 1] if k + 1 < len(toks) else None
            if isinstance(target, Word):
                redirects.append(Redirect(t.op, target.text, t.fd, target.heredoc))
                k += 1
        elif t.op in ("|", "|&"):
            end()
            stage += 1
        else:  # && || ; ;; & ( ) and newlines all end a command and its pipeline
            end()
            stage = 0
        k += 1
    end()
    return out


def fallback(s: str) -> Cmd:
    """Best-effort argv for text the lexer rejects."""
    try:
        argv = shlex.split(s, comments=False, posix=True)
    except ValueError:
        argv = s.split()
    return Cmd(tuple(argv), parsed=False)


# ---------------------------------------------------------------- unwrapping


@dataclass
class _Ctx:
    cwd: str | None = None
    vars: dict[str, str] = field(default_factory=dict)


def commands(s: str) -> list[Cmd]:
    """Every simple command `s` runs, wrappers removed, in order. Never raises."""
    return _expand(s, _Ctx(), (), 0, 0)


def argv_commands(argv: list[str]) -> list[Cmd]:
    """Like `commands` for an argv already split (a JSON command list)."""
    return _unwrap(Cmd(tuple(argv)), _Ctx(), 0)


def _expand(s: str, ctx: _Ctx, via: tuple[str, ...], stage: int, depth: int) -> list[Cmd]:
    if depth > _MAX_DEPTH:
        return [replace(fallback(s), via=via)]
    try:
        simple = split_commands(s)
    except (LexError, RecursionError):
        return [replace(fallback(s), via=via, stage=stage)]
    out: list[Cmd] = []
    for cmd in simple:
        cmd = replace(cmd, via=via, stage=cmd.stage + stage)
        out.extend(_unwrap(cmd, ctx, depth))
    return out


def _unwrap(cmd: Cmd, ctx: _Ctx, depth: int) -> list[Cmd]:
    if depth > _MAX_DEPTH:
        return [cmd]
    argv = list(cmd.argv)
    # $PY -m pip … where PY was assigned earlier in the same call
    if argv and (m := _VARREF.match(argv[0])) and (val := ctx.vars.get(m.group(1) or m.group(2) or "")):
        argv = val.split() + argv[1:]
    argv = _strip_keywords(argv)
    cmd = replace(cmd, argv=tuple(argv), cwd=ctx.cwd)
    if not argv:
        for k, v in cmd.assigns:
            ctx.vars[k] = v
        return [cmd] if cmd.assigns else []
    prog = basename(argv[0])
    if prog in ("cd", "pushd") and len(argv) > 1:
        ctx.cwd = argv[1] if argv[1].startswith(("/", "~")) or not ctx.cwd else f"{ctx.cwd}/{argv[1]}"
        return []
    if prog == "export":
        for a in argv[1:]:
            if m := _ASSIGN.match(a):
                ctx.vars[m.group(1)] = a[m.end() :]
    body = _stdin_script(cmd)
    if body is not None and _stdin_shell(argv):  # bash -s <<'EOF' … EOF: the body is the script
        return _expand(body, ctx, (*cmd.via, f"{prog} <<"), cmd.stage, depth + 1)
    peeled = _peel(argv)
    if peeled is None:
        return [cmd]
    label, env, inner, as_string = peeled
    via = (*cmd.via, label)
    pre: list[Cmd] = []
    body = _stdin_script(cmd)
    if body is not None and label.startswith("ssh ") and (as_string is None or _stdin_shell(as_string.split())):
        return _expand(body, _Ctx(), via, cmd.stage, depth + 1)  # ssh host [bash -s] <<'EOF' … EOF
    if as_string is not None:
        if cmd.assigns or env:
            pre.append(replace(cmd, argv=(), assigns=cmd.assigns + env, redirects=()))
        return pre + _expand(as_string, ctx if label.startswith(("bash", "sh")) else _Ctx(), via, cmd.stage, depth + 1)
    if not inner:
        return [cmd]
    child = replace(cmd, argv=tuple(inner), assigns=cmd.assigns + env, via=via)
    return _unwrap(child, ctx, depth + 1)


def _stdin_script(cmd: Cmd) -> str | None:
    return next((r.body for r in cmd.redirects if r.body is not None and r.op in ("<<", "<<-")), None)


def _stdin_shell(argv: list[str]) -> bool:
    """A shell reading its script from stdin: `bash`, `bash -s`, `sh -ex`, `bash -s -- arg`."""
    if not argv or basename(argv[0]) not in ("bash", "sh", "zsh", "dash", "ksh"):
        return False
    for a in argv[1:]:
        if a == "--":
            return True
        if not a.startswith("-") or "c" in a[1:]:
            return False
    return True


_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "exec", "command", "builtin"})
_SKIP = frozenset({"fi", "done", "esac", "}", "for", "case", "function", "select", "[", "[[", "test", "true", "false",
                   ":", "set", "shopt", "popd", "exit", "return", "wait", "clear", "trap", "local", "read", "break", "continue"})


def _strip_keywords(argv: list[str]) -> list[str]:
    while argv and argv[0] in _KEYWORDS and not (argv[0] == "command" and argv[1:2] == ["-v"]):
        argv = argv[1:]
    if argv and argv[0] in _SKIP:
        return []
    return argv


Peeled = tuple[str, tuple[tuple[str, str], ...], list[str], str | None]


def _peel(argv: list[str]) -> Peeled | None:
    """(label, env, inner argv, inner string) for a wrapper command, else None."""
    prog = basename(argv[0])
    args = argv[1:]
    if prog == "ssh":
        return _ssh(args)
    if prog == "pct" and args[:1] == ["exec"] and len(args) >= 2:
        rest = args[2:]
        return (f"pct exec {args[1]}", (), rest[1:] if rest[:1] == ["--"] else rest, None)
    if prog == "lxc-attach" or (prog in ("lxc", "incus") and args[:1] == ["exec"]):
        return (prog, (), args[args.index("--") + 1 :] if "--" in args else [], None)
    if prog in ("docker", "podman", "nerdctl") and args[:1] in (["exec"], ["run"]):
        return _docker(prog, args)
    if prog in ("kubectl", "oc") and args[:1] == ["exec"]:
        return (f"{prog} exec", (), args[args.index("--") + 1 :] if "--" in args else [], None)
    if prog in ("bash", "sh", "zsh", "dash", "ksh"):
        for j, a in enumerate(args):
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
                return (f"{prog} -c", (), [], args[j + 1] if j + 1 < len(args) else "")
            if not a.startswith("-"):
                break
        return None
    if prog == "su" and "-c" in args:
        j = args.index("-c")
        return ("su -c", (), [], args[j + 1] if j + 1 < len(args) else "")
    if prog in ("sudo", "doas"):
        return _options(prog, args, with_arg="ugpCDhrtUT", assigns=True)
    if prog == "env":
        return _env(args)
    if prog == "timeout":
        rest = _skip_opts(args, with_arg="sk")
        return ("timeout", (), rest[1:], None)
    if prog in ("nohup", "nice", "ionice", "stdbuf", "setsid", "unbuffer", "taskset", "numactl", "chrt", "xargs",
                "watch", "strace", "ltrace", "caffeinate", "script"):
        if prog == "watch":
            rest = _skip_opts(args, with_arg="nd")
            return ("watch", (), [], " ".join(rest)) if rest else None
        with_arg = {"nice": "n", "ionice": "cn", "stdbuf": "", "taskset": "", "numactl": "", "chrt": "",
                    "xargs": "IndLPsEa", "strace": "oepsu", "ltrace": "oeps"}.get(prog, "")
        rest = _skip_opts(args, with_arg=with_arg)
        if prog == "taskset" and rest:
            rest = rest[1:]  # the cpu list
        return (prog, (), rest, None)
    if prog in ("conda", "mamba", "micromamba", "uv", "poetry", "pixi", "pipenv", "hatch", "rye") and args[:1] == ["run"]:
        rest = _skip_opts(args[1:], with_arg="np", long_with_arg=_RUN_LONG)
        return (f"{prog} run", (), rest[1:] if rest[:1] == ["--"] else rest, None)
    return None


_RUN_LONG = frozenset({"--name", "--prefix", "--with", "--python", "--project", "--directory", "--env-file",
                       "--extra", "--group", "--index-url", "--extra-index-url", "--with-requirements", "--package",
                       "--environment", "--manifest-path", "--env"})


def _skip_opts(args: list[str], *, with_arg: str = "", long_with_arg: frozenset[str] = frozenset()) -> list[str]:
    j = 0
    while j < len(args):
        a = args[j]
        if a == "--":
            return args[j + 1 :]
        if a.startswith("--"):
            j += 2 if "=" not in a and a in long_with_arg else 1
        elif a.startswith("-") and len(a) > 1 and not a[1].isdigit():
            j += 2 if a[-1] in with_arg and len(a) == 2 else 1
        else:
            return args[j:]
    return []


def _options(label: str, args: list[str], *, with_arg: str, assigns: bool) -> Peeled:
    rest = _skip_opts(args, with_arg=with_arg, long_with_arg=frozenset({"--user", "--group"}))
    env: list[tuple[str, str]] = []
    while assigns and rest and (m := _ASSIGN.match(rest[0])):
        env.append((m.group(1), rest[0][m.end() :]))
        rest = rest[1:]
    return (label, tuple(env), rest, None)


def _env(args: list[str]) -> Peeled:
    env: list[tuple[str, str]] = []
    j = 0
    while j < len(args):
        a = args[j]
        if a in ("-u", "--unset", "-C", "--chdir", "-S"):
            if a == "-S" and j + 1 < len(args):
                return ("env", tuple(env), [], args[j + 1])
            j += 2
        elif a.startswith("-"):
            j += 1
        elif m := _ASSIGN.match(a):
            env.append((m.group(1), a[m.end() :]))
            j += 1
        else:
            break
    return ("env", tuple(env), args[j:], None)


_SSH_WITH_ARG = "BbcDEeFIiJLlmOopQRSWw"


def _ssh(args: list[str]) -> Peeled | None:
    j = 0
    while j < len(args):
        a = args[j]
        if a == "--":
            j += 1
            break
        if a.startswith("-") and len(a) > 1:
            # -o Opt / -oOpt / -p22 / -tt: the option letter decides whether an argument follows
            letter = a[1]
            j += 2 if letter in _SSH_WITH_ARG and len(a) == 2 else 1
            continue
        break
    if j >= len(args):
        return None
    host, rest = args[j], args[j + 1 :]
    if not rest:  # an interactive login, or a script on stdin (`ssh host <<'EOF'`)
        return (f"ssh {host}", (), [], None)
    # ssh joins the remaining words with spaces and hands them to the remote shell
    return (f"ssh {host}", (), [], " ".join(rest))


_DOCKER_WITH_ARG = frozenset({
    "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "-v", "--volume", "-p", "--publish", "--name",
    "--gpus", "--shm-size", "--ipc", "--network", "--net", "--entrypoint", "--runtime", "--device", "--mount",
    "--label", "-l", "--platform", "--ulimit", "--cap-add", "--cap-drop", "--security-opt", "--cpus", "-m",
    "--memory", "-h", "--hostname", "--restart", "--pull", "--add-host", "--pid", "--log-driver", "--detach-keys",
    "--tmpfs", "--group-add", "--dns", "--expose", "--cidfile", "--init-path", "--stop-signal", "--cpuset-cpus",
})


def _docker(prog: str, args: list[str]) -> Peeled:
    env: list[tuple[str, str]] = []
    j = 1
    while j < len(args):
        a = args[j]
        if a == "--":
            j += 1
            break
        if not a.startswith("-") or a == "-":
            break
        name, _, attached = a.partition("=")
        value = attached if "=" in a else (args[j + 1] if j + 1 < len(args) else "")
        if name in ("-e", "--env") and (m := _ASSIGN.match(value)):
            env.append((m.group(1), value[m.end() :]))
        j += 1 if "=" in a or name not in _DOCKER_WITH_ARG else 2
    target = args[j] if j < len(args) else "?"
    return (f"{prog} {args[0]} {target}", tuple(env), args[j + 1 :], None)
