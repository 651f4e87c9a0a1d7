"""One unwrapped simple command -> the actions it stands for (drafts; versions are filled in later).

The order of drafts is the order within the command: `VAR=v` prefixes first, then the command's
own actions (a launch before its flag moves, packages in the order written).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from logsleuth.actions.launch import LaunchInfo, launch_info
from logsleuth.actions.packages import PkgCmd, Req, parse_package
from logsleuth.actions.sed import perl_edit, sed_edit
from logsleuth.actions.shellparse import Cmd, basename, in_temp
from logsleuth.model import Action
from logsleuth.model import ActionKind as K

if TYPE_CHECKING:
    import ast


@dataclass(frozen=True, slots=True)
class Draft:
    kind: K
    subject: str
    value: str | None
    command: str
    pkg: PkgCmd | None = None
    req: Req | None = None
    launch: LaunchInfo | None = None
    added: str = ""  # an edit's text written, where the command says it (`sed s/old/new/`, a heredoc)
    removed: str = ""  # and the text it replaced
    scoped: bool = False  # an assignment before a command (`X=1 make`): it lives in that command only


INVESTIGATE = frozenset({
    "ls", "ll", "la", "dir", "find", "fd", "cat", "bat", "head", "tail", "less", "more", "grep", "egrep", "fgrep",
    "rg", "ag", "ack", "which", "whereis", "type", "file", "stat", "du", "df", "free", "top", "htop", "nvtop",
    "ps", "pgrep", "pidof", "lsof", "ss", "netstat", "ldd", "nm", "objdump", "readelf", "strings", "cuobjdump",
    "nvdisasm", "nvidia-smi", "nvitop", "gpustat", "env", "printenv", "echo", "printf", "pwd", "whoami",
    "hostname", "uname", "date", "uptime", "id", "lscpu", "lspci", "lsblk", "nproc", "dmesg", "journalctl", "wc",
    "sort", "uniq", "diff", "cmp", "md5sum", "sha256sum", "tree", "realpath", "readlink", "dirname", "jq", "sleep",
    "watch", "awk", "cut", "tr", "column", "xxd", "hexdump", "od", "ip", "ping", "nc", "getent", "locale",
    "ulimit", "history", "man", "tldr", "screen", "tmux", "command", "hash", "sed", "zcat", "zgrep",
    "nvcc-version", "ibstat", "ibv_devinfo", "numastat", "vmstat", "iostat", "sensors", "timedatectl", "basename",
})
_GIT_LOOK = frozenset({"status", "log", "diff", "show", "branch", "remote", "rev-parse", "describe", "ls-files",
                       "blame", "grep", "tag", "shortlog", "reflog", "ls-remote", "config"})
_SERVICE_VERBS = frozenset({"restart", "start", "stop", "reload", "kill", "try-restart", "reload-or-restart",
                            "daemon-reload", "enable", "disable", "up", "down", "rm"})
_LOCAL = re.compile(r"(^|//|@)(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])([:/]|$)|/health|/v1/models|/get_model_info|"
                    r"/metrics|/server_info|/ping")
WRITES = re.compile(r"\.write\(|write_text|write_bytes|open\([^)]*['\"][wa]b?['\"]|shutil\.|os\.(remove|rename|system)|"
                     r"subprocess|\.unlink\(")
_PYTHON = re.compile(r"^(python|python\d(\.\d+)?|pypy3?)$")
_BUILD_PROGS = frozenset({"make", "gmake", "cmake", "ninja", "bazel", "meson", "scons"})


def classify(cmd: Cmd) -> list[Draft]:
    text = cmd.display()
    # `X=1 cmd` puts X in cmd's environment (scoped to it); a bare `X=1` sets a shell variable that no
    # program sees (not exported): scoped to its own call too, so never part of a later passing state
    # (held-out rtskew, ccclstd: `H=…`, `I=…` were named as fixes), yet still a step the agent took
    # (a wrapper's own environment, `docker exec -e X=1 …`, `env X=1 …`, comes as assignments with `via` set)
    out = [Draft(K.ENV_SET, k, v, text, scoped=True) for k, v in cmd.assigns if cmd.argv or cmd.via or k.isupper()]
    if not cmd.argv:
        return out
    if not cmd.parsed:
        return [Draft(K.RUN, cmd.prog or "?", None, " ".join(cmd.argv)[:300])]
    body = [_in_cwd(d, cmd.cwd) for d in _argv(cmd, text)]
    if cmd.stage > 0:  # `| tail -5`, `| grep x`: filters; only a real change (`| sudo tee /etc/x`) counts
        body = [d for d in body if d.kind.is_fix]
    return out + body


def _in_cwd(d: Draft, cwd: str | None) -> Draft:
    """A relative file written after `cd /tmp/x` lies in that temp folder: scratch, and named so
    (heldout4 glibcpin: `cd /tmp/nvqprobe && printf … > v.map` was told as an edit of the project)."""
    if cwd is None or d.kind is not K.FILE_EDIT or not in_temp(cwd) or d.subject.startswith(("/", "~", "$")):
        return d
    return replace(d, subject=f"{cwd.rstrip('/')}/{d.subject}")


def _argv(cmd: Cmd, text: str) -> list[Draft]:
    argv, prog, args = cmd.argv, cmd.prog, list(cmd.argv[1:])
    if len(args) == 1 and args[0] in ("--version", "-V", "--help", "-h", "version"):
        return [_look(prog, args, text)]
    for handler in (_env, _package, _launch, _edit, _service, _build, _python, _git, _docker):
        drafts = handler(cmd, prog, args, text)
        if drafts is not None:
            return drafts
    if prog in INVESTIGATE:
        return [_look(prog, args, text)]
    if prog in ("curl", "wget", "http", "httpie"):
        local = any(_LOCAL.search(a) for a in args)
        writes = any(a in ("-o", "-O", "--output", "--remote-name") for a in args) or prog == "wget"
        return [_look(prog, args, text) if local and not writes else Draft(K.RUN, prog, _join(args), text)]
    if prog in ("ldconfig",) and "-p" in args:
        return [_look(prog, args, text)]
    return [Draft(K.RUN, prog or argv[0] or "?", _join(args), text)]


def _join(args: list[str], limit: int = 120) -> str | None:
    s = " ".join(args)
    return (s if len(s) <= limit else s[: limit - 1] + "…") or None


def _look(prog: str, args: list[str], text: str) -> Draft:
    return Draft(K.INVESTIGATE, prog, _join(args), text)


def operands(args: list[str], with_arg: str = "") -> list[str]:
    out, j = [], 0
    while j < len(args):
        a = args[j]
        if a.startswith("-") and len(a) > 1:
            j += 2 if len(a) == 2 and a[1] in with_arg else 1
            continue
        out.append(a)
        j += 1
    return out


# ---------------------------------------------------------------- environment


def _env(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    if prog in ("export", "declare", "typeset"):
        unset = "-n" in args
        out = []
        for a in args:
            if m := re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=", a):
                out.append(Draft(K.ENV_UNSET if unset else K.ENV_SET, m.group(1), a[m.end() :], text))
            elif unset and not a.startswith("-"):
                out.append(Draft(K.ENV_UNSET, a, None, text))
        return out or ([_look(prog, args, text)] if not args or args == ["-p"] else [])
    if prog == "unset":
        return [Draft(K.ENV_UNSET, a, None, text) for a in args if not a.startswith("-")] if "-f" not in args else []
    if prog in ("source", ".") and args:
        path = args[0]
        subject = path[: -len("/bin/activate")] if path.endswith("/bin/activate") else path
        return [Draft(K.ENV_ACTIVATE, subject or path, None, text)]
    if prog in ("conda", "mamba", "micromamba") and args[:1] == ["activate"]:
        return [Draft(K.ENV_ACTIVATE, args[1] if len(args) > 1 else "base", prog, text)]
    if prog in ("workon", "pyenv") and args:
        name = args[-1]
        if prog == "workon" or args[0] in ("activate", "shell", "local", "global"):
            return [Draft(K.ENV_ACTIVATE, name, prog, text)]
    if prog in ("deactivate",) or (prog in ("conda", "mamba") and args[:1] == ["deactivate"]):
        return []
    return None


# ---------------------------------------------------------------- packages and launches


_FETCH_DIRS = {"download": ("-d", "--dest"), "wheel": ("-w", "--wheel-dir")}


def _fetched(prog: str, args: list[str]) -> tuple[str, str] | None:
    """(verb, folder) of `pip download -d DIR …` / `pip wheel -w DIR …`: files written into a folder."""
    words = args[2:] if _PYTHON.match(prog) and args[:2] == ["-m", "pip"] else args if prog in ("pip", "pip3") else []
    verb = next((w for w in words if not w.startswith("-")), "")
    flags = _FETCH_DIRS.get(verb, ())
    for i, w in enumerate(words):
        if w in flags and i + 1 < len(words):
            return verb, words[i + 1]
        if "=" in w and w.split("=", 1)[0] in flags:
            return verb, w.split("=", 1)[1]
    return None


def _package(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    fetched = _fetched(prog, args)
    if fetched is not None:  # files written into a folder (held-out licensor: a wheel fetched into vendor/)
        return [Draft(K.FILE_EDIT, fetched[1].rstrip("/"), f"pip {fetched[0]}", text)]
    pkg = parse_package(cmd.argv)
    if pkg is None:
        return None
    if pkg.query or any(a in ("--dry-run", "--simulate", "--just-print") or a.startswith("--dry-run") for a in args):
        return [_look(pkg.manager, args, text)]  # a dry run only asks what would happen
    kind = K.UNINSTALL if pkg.verb == "uninstall" else K.UPGRADE if pkg.upgrade else K.INSTALL
    return [Draft(kind, _subject(r, cmd.cwd), r.value, text, pkg=pkg, req=r) for r in pkg.reqs]


def _subject(req: Req, cwd: str | None) -> str:
    """`pip install -e .` after `cd /root/sglang` installs `sglang`; `-e "python[all]"` there is `sglang/python`."""
    path = req.value if req.value is not None and req.value == req.arg[-1] else None
    if cwd is None or path is None or req.version is not None:
        return req.subject
    if path.startswith(("/", "~", "git+", "file:")) or "://" in path:
        return req.subject
    tail = basename(cwd)
    return tail if req.subject in (".", "") else f"{tail}/{req.subject}"


def _launch(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    info = launch_info(cmd.argv)
    if info is None:
        return None
    return [Draft(K.LAUNCH, info.engine, info.model, text, launch=info)]


# ---------------------------------------------------------------- files


def _edit(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    if prog == "sed" and any(a.startswith(("-i", "--in-place")) for a in args):
        return _sed(args, text)
    if prog == "perl" and any(re.match(r"^-\w*i", a) for a in args):
        files = operands([a for a in args if a != ""], with_arg="eE")
        e = perl_edit(args)
        return [Draft(K.FILE_EDIT, f, "perl -i", text, added=e.added, removed=e.removed) for f in files]
    writes = [r for r in cmd.redirects if r.writes_file]
    if prog in ("echo", "printf", "cat") and writes:
        body = next((r.body for r in cmd.redirects if r.body is not None), None)
        out = []
        for r in writes:
            verb = "append" if r.op.endswith(">>") else "write"
            n = body.count("\n") if body is not None else 0
            out.append(Draft(K.FILE_EDIT, r.target, f"{verb} {n} lines" if body is not None else verb, text,
                             added=body or ""))
        return out
    if prog == "tee":
        files = [f for f in operands(args) if not _is_log(f)]
        verb = "append" if "-a" in args or "--append" in args else "write"
        return [Draft(K.FILE_EDIT, f, verb, text) for f in files]
    if prog == "patch" or (prog == "git" and args[:1] in (["apply"], ["am"])):
        body = next((r.body for r in cmd.redirects if r.body), None)
        files = _diff_files(body) if body else []
        if not files:
            src = next((r.target for r in cmd.redirects if r.op == "<"), None)
            ops = operands(args[1:] if prog == "git" else args, with_arg="pidDFgBVYzoir")
            files = [src] if src else ops[-1:] or ["patch"]
        return [Draft(K.FILE_EDIT, f, "patch", text) for f in files]
    if prog in ("cp", "mv", "install", "rsync") and not cmd.stage:
        ops = operands(args, with_arg="tSmog" if prog == "install" else "t")
        if len(ops) >= 2:
            return [Draft(K.FILE_EDIT, ops[-1], f"{prog} {' '.join(ops[:-1])}"[:120], text)]
    if prog == "ln":
        ops = operands(args)
        if ops:
            link = ops[-1] if len(ops) >= 2 else basename(ops[0])
            return [Draft(K.FILE_EDIT, link, f"ln -s {ops[0]}" if len(ops) >= 2 else "ln -s", text)]
    if prog in ("rm", "rmdir", "unlink"):
        return [Draft(K.FILE_EDIT, f, "rm", text) for f in operands(args)]
    if prog == "touch" and not any(a.startswith(("-r", "-d", "-t", "--reference", "--date")) for a in args):
        # an empty `tests/__init__.py` is the whole fix of pytest's same-basename clash (held-out dupbase)
        return [Draft(K.FILE_EDIT, f, "touch", text) for f in operands(args)]
    fmt = _formatter(prog, args)
    if fmt is not None:
        return [Draft(K.FILE_EDIT, f, fmt, text) for f in (_format_targets(prog, args) or ["."])]
    return None


# Code formatters and fixers that rewrite files in place (`mix format` after a hook's "[FORMAT] not
# formatted"): an edit of what they format. With a check flag they only look.
_FORMATTERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("mix", "format"): ("--check-formatted", "--dry-run"),
    ("black", ""): ("--check", "--diff"),
    ("ruff", "format"): ("--check", "--diff"),
    ("ruff", "check"): ("",),  # only with --fix, below
    ("isort", ""): ("--check", "--check-only", "--diff", "-c"),
    ("prettier", ""): ("",),  # only with --write, below
    ("gofmt", ""): ("",),  # only with -w
    ("go", "fmt"): (),
    ("cargo", "fmt"): ("--check",),
    ("rustfmt", ""): ("--check",),
    ("clang-format", ""): ("",),  # only with -i
    ("autopep8", ""): ("",),  # only with -i
    ("yapf", ""): ("",),  # only with -i
    ("eslint", ""): ("",),  # only with --fix
}
_IN_PLACE = {("ruff", "check"): "--fix", ("prettier", ""): "--write", ("gofmt", ""): "-w", ("clang-format", ""): "-i",
             ("autopep8", ""): "-i", ("yapf", ""): "-i", ("eslint", ""): "--fix"}


def _formatter(prog: str, args: list[str]) -> str | None:
    sub = args[0] if args and (prog, args[0]) in _FORMATTERS else ""
    key = (prog, sub)
    if key not in _FORMATTERS:
        return None
    flag = _IN_PLACE.get(key)
    if flag is not None and not any(a == flag or a.startswith(flag + "=") for a in args):
        return None
    if any(a in _FORMATTERS[key] for a in args if a):
        return None
    return f"{prog} {sub}".strip()


def _format_targets(prog: str, args: list[str]) -> list[str]:
    rest = args[1:] if args and (prog, args[0]) in _FORMATTERS else args
    return [a for a in operands(rest) if a != "." and not a.startswith("-")]


def _sed(args: list[str], text: str) -> list[Draft]:
    e = sed_edit(args)
    return ([Draft(K.FILE_EDIT, f, e.summary, text, added=e.added, removed=e.removed) for f in e.files]
            or [Draft(K.RUN, "sed", e.summary, text)])


def _is_log(path: str) -> bool:
    name = basename(path)
    return path.startswith(("/tmp/", "/dev/", "/var/log/")) or name.endswith((".log", ".out", ".err")) or "log" in name


def _diff_files(body: str) -> list[str]:
    files = re.findall(r"^\+\+\+ (?:b/)?(\S+)", body, re.M) + re.findall(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", body, re.M)
    return list(dict.fromkeys(f.strip() for f in files if f.strip() != "/dev/null"))


# ---------------------------------------------------------------- services, builds, interpreters


def _service(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    ops = operands(args)
    if prog == "systemctl" and ops:
        verb = ops[0]
        if verb == "daemon-reload":
            return [Draft(K.SERVICE_RESTART, "systemd", verb, text)]
        if verb in _SERVICE_VERBS:
            return [Draft(K.SERVICE_RESTART, u.removesuffix(".service"), verb, text) for u in ops[1:]]
        return [_look(prog, args, text)]
    if prog == "service" and len(ops) >= 2:
        return [Draft(K.SERVICE_RESTART, ops[0], ops[1], text) if ops[1] in _SERVICE_VERBS else _look(prog, args, text)]
    if prog in ("supervisorctl", "pm2") and len(ops) >= 2 and ops[0] in _SERVICE_VERBS:
        return [Draft(K.SERVICE_RESTART, s, ops[0], text) for s in ops[1:]]
    if prog in ("pkill", "killall"):
        ops = operands(args, with_arg="uUgGPstn")
        return [Draft(K.SERVICE_RESTART, ops[0] if ops else prog, prog, text)]
    if prog == "kill":
        targets = [_kill_target(a) for a in operands(args, with_arg="sn") if a != "-9"]
        if not targets and cmd.stage and cmd.first[:1] and basename(cmd.first[0]) in ("pgrep", "pidof"):
            targets = operands(list(cmd.first[1:]), with_arg="uUgGPst")[:1]
        return [Draft(K.SERVICE_RESTART, t, "kill", text) for t in targets or ["kill"]]
    if prog == "fuser" and "-k" in args:
        return [Draft(K.SERVICE_RESTART, t, "fuser -k", text) for t in ops] or None
    return None


def _kill_target(arg: str) -> str:
    m = re.search(r"(?:pgrep|pidof)\s+(?:-\w+\s+)*['\"]?([^'\")`]+)", arg)
    return m.group(1).strip() if m else arg


def _build(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    where = cmd.cwd or "."
    if prog in _BUILD_PROGS:
        if prog == "cmake" and args[:1] != ["--build"] and ("--version" in args or "-E" in args):
            return None
        target = None
        for flag in ("-C", "--build", "-B"):
            if flag in args and args.index(flag) + 1 < len(args):
                target = args[args.index(flag) + 1]
                break
        goals = [a for a in operands(args, with_arg="CjlfBSDGT") if prog in ("make", "gmake", "ninja")]
        return [Draft(K.BUILD, target or where, " ".join([prog, *goals]), text)]
    if prog == "nvcc" and any(a.endswith((".cu", ".cpp", ".ptx")) for a in args):
        src = next(a for a in args if a.endswith((".cu", ".cpp", ".ptx")))
        return [Draft(K.BUILD, src, "nvcc", text)]
    if prog in ("cargo", "go", "uv") and args[:1] == ["build"]:
        return [Draft(K.BUILD, where, f"{prog} build", text)]
    if _PYTHON.match(prog) and "setup.py" in args[:3]:
        i = args.index("setup.py")
        return [Draft(K.BUILD, where, " ".join(["setup.py", *args[i + 1 : i + 2]]), text)]
    if _PYTHON.match(prog) and args[:2] == ["-m", "build"]:
        return [Draft(K.BUILD, where, "python -m build", text)]
    if re.match(r"^pip\d?$", prog) and args[:1] == ["wheel"]:
        return [Draft(K.BUILD, where, "pip wheel", text)]
    return None


def _python(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    if not _PYTHON.match(prog):
        return None
    j = 0
    while j < len(args) and args[j].startswith("-") and args[j] not in ("-c", "-m", "-"):
        j += 2 if args[j] in ("-X", "-W") else 1
    rest = args[j:]
    if not rest or rest[0] == "-":
        body = next((r.body for r in cmd.redirects if r.body is not None), "")
        if not rest and not body:
            return [_look(prog, args, text)]  # python --version, a bare REPL
        return [_script_draft(prog, body, text)]
    if rest[0] == "-c":
        return [_script_draft(prog, rest[1] if len(rest) > 1 else "", text)]
    if rest[0] == "-m" and len(rest) > 1:
        mod = rest[1]
        if mod in ("torch.utils.collect_env", "site", "sysconfig", "json.tool", "pip_audit", "pipdeptree"):
            return [_look(mod, rest[2:], text)]
        if mod == "venv":
            return [Draft(K.RUN, "venv", _join(rest[2:]), text)]
        return [Draft(K.RUN, mod, _join(rest[2:]), text)]
    return [Draft(K.RUN, rest[0], _join(rest[1:]), text)]


_WRITTEN = re.compile(r"""(?:Path|open)\(\s*(?:r|f)?['"]([^'"]+)['"]""")
_NAMED = re.compile(r"""^\s*(\w+)\s*=\s*+(?:(?:pathlib\.)?Path\()?\s*(?:r|f)?['"]([^'"\n]+)['"]""", re.M)


def _written_paths(code: str) -> list[str]:
    """Files a script writes: `open('x', 'w')`, `Path('x').write_text(…)`, and a name bound to a
    path that is written later (`p = 'Makefile'; open(p, 'w').write(s)`)."""
    out = [m.group(1) for m in _WRITTEN.finditer(code)]
    for m in _NAMED.finditer(code):
        var = re.escape(m.group(1))
        if re.search(rf"open\(\s*{var}\s*,\s*['\"][wa]|\b{var}\.write_(text|bytes)\(", code):
            out.append(m.group(2))
    return list(dict.fromkeys(p for p in out if not p.startswith(("/tmp/", "/dev/"))))


def script_edit(code: str) -> tuple[str, str]:
    """(removed, added) of a script that edits by `.replace(old, new)` / `re.sub(p, new, …)`, one
    pair a line: literal strings, names bound once to literals (`old1 = "…"`), and a loop over
    pairs of them (`for o, n in ((old1, new1), …): s = s.replace(o, n)`); ("", "") when it says no
    more (a script that cannot be parsed, or builds its text). Read with `ast`: linear."""
    import ast

    try:
        return _edit_pairs(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a sum 10,000 terms deep
        return "", ""


def _edit_pairs(tree: ast.AST) -> tuple[str, str]:
    """The (old, new) pairs of a parsed script, as script_edit returns them."""
    import ast

    consts: dict[str, str] = {}
    for n in ast.walk(tree):  # statements in order: `new = old + "…"` sees `old`
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            value = _literal(n.value, consts)
            if value is not None:
                consts[n.targets[0].id] = value
    pairs: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            pairs += _loop_pairs(node, consts)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("replace", "sub"):
            lit = [_literal(a, consts) for a in node.args[:2]]
            if len(lit) == 2 and lit[0] is not None and lit[1] is not None:
                pairs.append((lit[0], lit[1]))
    return "\n".join(o for o, _ in pairs), "\n".join(n for _, n in pairs)


def _literal(node: object, consts: dict[str, str]) -> str | None:
    """A string literal, a name bound to one, or a sum of them (`old + "…"`)."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, consts), _literal(node.right, consts)
        return left + right if left is not None and right is not None else None
    return consts.get(node.id) if isinstance(node, ast.Name) else None


def _loop_pairs(loop: object, consts: dict[str, str]) -> list[tuple[str, str]]:
    """The (old, new) pairs a `for o, n in ((a, b), …)` loop feeds to a `.replace(o, n)` in its body."""
    import ast

    assert isinstance(loop, ast.For)
    names = [t.id for t in loop.target.elts if isinstance(t, ast.Name)] if isinstance(loop.target, ast.Tuple) else []
    if len(names) != 2 or not isinstance(loop.iter, (ast.Tuple, ast.List)):
        return []
    fed = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("replace", "sub")
              and [getattr(a, "id", None) for a in c.args[:2]] == names for b in loop.body for c in ast.walk(b))
    if not fed:
        return []
    out = []
    for el in loop.iter.elts:
        vals = [_literal(v, consts) for v in el.elts] if isinstance(el, ast.Tuple) and len(el.elts) == 2 else []
        if len(vals) == 2 and vals[0] is not None and vals[1] is not None:
            out.append((vals[0], vals[1]))
    return out


def _script_draft(prog: str, code: str, text: str) -> Draft:
    """A one-liner or heredoc: a look, unless it writes; a script that rewrites a file is an edit of
    that file (`p = Path('x.py'); p.write_text(...)`), however it is made."""
    if not WRITES.search(code):
        return Draft(K.INVESTIGATE, prog, _join([code.strip()]), text)
    path = next(iter(_written_paths(code)), None)
    if path is not None and re.search(r"write_text|write_bytes|open\([^)]*['\"][wa]", code):
        removed, added = script_edit(code)
        return Draft(K.FILE_EDIT, path, "python edit", text, added=added, removed=removed)
    return Draft(K.RUN, prog, _join([code.strip()]), text)


def git_look(cmd: Cmd) -> bool:
    """`git status`, `git diff --stat`, `git log`: git only showing something."""
    ops = operands(list(cmd.argv[1:]), with_arg="C")
    return cmd.prog == "git" and (not ops or ops[0] in _GIT_LOOK)


def _git(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    if prog != "git":
        return None
    if git_look(cmd):
        return [_look("git", args, text)]
    return [Draft(K.RUN, "git", _join(args), text)]


def _docker(cmd: Cmd, prog: str, args: list[str], text: str) -> list[Draft] | None:
    if prog == "docker-compose":
        args, prog = ["compose", *args], "docker"
    if prog not in ("docker", "podman"):
        return None
    ops = operands(args, with_arg="fp")
    if ops[:1] == ["compose"]:
        ops = ops[1:]
        if ops and ops[0] in _SERVICE_VERBS:
            return [Draft(K.SERVICE_RESTART, s, f"compose {ops[0]}", text) for s in ops[1:]] or [
                Draft(K.SERVICE_RESTART, "compose", f"compose {ops[0]}", text)
            ]
        return [_look("docker", args, text)]
    sub = ops[0] if ops else ""
    if sub in ("restart", "stop", "start", "kill", "rm"):
        return [Draft(K.SERVICE_RESTART, c, sub, text) for c in ops[1:]]
    if sub in ("ps", "logs", "images", "inspect", "stats", "top", "version", "info", "port"):
        return [_look("docker", args, text)]
    if sub == "build":
        return [Draft(K.BUILD, ops[-1] if len(ops) > 1 else ".", "docker build", text)]
    return [Draft(K.RUN, "docker", _join(args), text)]


def shell_variable(a: Action) -> bool:
    """`H=path/to/x.h` alone (no program after it, not exported): a name the call's own script
    reads, no program's environment (heldout5 rtskew, heldout6 abiwheel: `H=…`, `OP=…`, `T=…` were
    part of a fix; heldout7 eclipse: "set K" was a step of the story)."""
    if a.kind is not K.ENV_SET or not a.scoped:
        return False
    try:
        words = shlex.split(a.command)
    except ValueError:
        return False
    return bool(words) and all(_BARE_ASSIGN.match(w) for w in words)


_BARE_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")
