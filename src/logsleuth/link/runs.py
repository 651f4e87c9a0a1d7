"""Runs: every executed command of a session as a run of a *target*, with a status and a role.

ARCHITECTURE.md ("Linking"): a run is one tool call and its result. Its *target* is a normalised
identity of what ran (`make`, `make check`, `pytest tests/x.py`, `python run.py`, `git push`), its
*role* says whether it pursued the goal (build, test, launch, the user's program), changed something
(install, env, edit) or only looked (ls, grep, `--version`, `pip list`, a `python -c` probe, a dry
run), and its *status* comes from the exit code, the error flag and the failure/success findings of
its output. The linker resolves failures by re-runs of the same (or a covering) target.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

import polars as pl

from logsleuth.actions.commands import INVESTIGATE, WRITES, git_look, operands
from logsleuth.actions.shellparse import TEMP_DIRS, Cmd, basename, commands
from logsleuth.ingest.tools import ToolCall, call_of, normalise
from logsleuth.model import CALL_SCHEMA, Finding, Run, RunRole, RunStatus, Severity, Target, ToolKind

# Environment switches that make a program say more, never behave differently: not fixes.
DIAGNOSTIC_ENV = re.compile(
    r"^(NCCL_DEBUG(_SUBSYS|_FILE)?|CUDA_LAUNCH_BLOCKING|TORCH_SHOW_CPP_STACKTRACES|TORCH_LOGS|TORCH_DISTRIBUTED_DEBUG|"
    r"TORCH_CPP_LOG_LEVEL|PYTHONVERBOSE|PYTHONFAULTHANDLER|PYTHONTRACEMALLOC|RUST_BACKTRACE|RUST_LOG|LD_DEBUG|"
    r"VERBOSE|DEBUG|CUDA_LOG_FILE|TF_CPP_MIN_LOG_LEVEL|TRITON_DEBUG|VLLM_LOGGING_LEVEL|SGLANG_LOG_LEVEL|LOG_LEVEL|"
    r"PYTHONUNBUFFERED|"
    r"NVCC_APPEND_FLAGS_VERBOSE|TERM|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|CI|PAGER|GIT_PAGER|"
    # any tool's own switch for more output (SETUPTOOLS_SCM_DEBUG, PIP_VERBOSE, CMAKE_VERBOSE_MAKEFILE)
    r"[A-Z][A-Z0-9_]*_(?:DEBUG|VERBOSE|VERBOSITY|LOG_LEVEL|LOGLEVEL|TRACE|VERBOSE_MAKEFILE))$"
)
DIAGNOSTIC_FLAGS = frozenset({"-v", "-vv", "-vvv", "--verbose", "--debug", "--log-level", "--trace", "-x", "--tb",
                              "-s", "--show-traceback", "--print-build-logs"})
_DRY_RUN = frozenset({"--dry-run", "--dryrun", "-n", "--just-print", "--simulate", "-s", "--no-act", "--recon",
                      "--what-if"})

_PYTHON = re.compile(r"^(python|python\d(\.\d+)?|pypy3?)$")
_TEST_MODULES = {"pytest": "pytest", "unittest": "unittest", "nose2": "pytest"}
_JS_PMS = frozenset({"npm", "pnpm", "yarn", "bun"})
_JS_GOALS = frozenset({"test", "build", "run", "start", "dev", "lint", "typecheck", "check", "install", "ci", "exec"})
_GIT_GOALS = frozenset({"push", "commit", "add", "merge", "rebase", "pull", "cherry-pick", "tag", "clone", "am"})
_LINTERS = frozenset({"pylint", "flake8", "ruff", "mypy", "pyright", "eslint", "black", "isort", "shellcheck",
                      "golangci-lint", "prettier", "stylelint", "hadolint", "yamllint", "markdownlint", "pyflakes",
                      "pycodestyle", "bandit", "rubocop", "clang-tidy", "cppcheck"})
_FIXERS = frozenset({"export", "unset", "source", ".", "cp", "mv", "ln", "rm", "rmdir", "chmod", "chown", "patch",
                     "install", "rsync", "conda", "mamba", "micromamba", "apt", "apt-get", "yum", "dnf", "brew",
                     "pip", "pip3", "uv", "pipx", "poetry", "pdm", "systemctl", "service", "kill", "pkill",
                     "killall", "update-alternatives", "alternatives", "ldconfig", "nvm", "pyenv", "rustup",
                     "corepack", "npx-install", "wget", "curl", "tar", "unzip", "git-checkout", "git-restore",
                     "git-stash", "git-reset", "git-apply", "git-config", "git-add", "git-rm"})


_ASKS_ABOUT = frozenset({"--version", "--help", "-V", "--show-config", "--print-config"})  # held-out dupbase


def target_of(cmd: Cmd) -> Target | None:
    """The goal target of one simple command, or None when it is not a goal (a look, a fix)."""
    argv = list(cmd.argv)
    if not argv or cmd.stage > 0:
        return None
    host = next((v.split(" ", 1)[1] for v in cmd.via if v.startswith("ssh ")), "")

    prog = basename(argv[0])
    args = argv[1:]
    if _ASKS_ABOUT.intersection(args):  # `pytest --version`, `make --help`: a look at the tool, not a run
        return None
    ops = [a for a in args if not a.startswith("-") and "=" not in a]

    def t(family: str, name: str, targs: Iterable[str] = ()) -> Target:
        return Target(family, name, tuple(targs), host)

    if prog in _LINTERS:  # a check the work must pass: its failures are the story's
        files = [o for o in ops if o not in ("check", "format")]
        return t("lint", " ".join([prog, *files[:3]]), files)
    if prog in ("make", "gmake", "ninja"):
        if any(a in _DRY_RUN or a.startswith("--dry-run") for a in args):
            return None
        goals = [a for a in operands(args, "CjlfIWo") if "=" not in a]
        return t("make", " ".join(["make", *goals]), goals)
    if prog == "cmake":
        if "--build" in args:
            return t("cmake", "cmake --build", ())
        if "--version" in args or "-E" in args or "--help" in args:
            return None
        return t("cmake", "cmake", ())
    if prog == "ctest":
        return t("ctest", "ctest", ())
    if prog in ("pytest", "py.test"):
        paths = _test_paths(args)
        return t("pytest", " ".join(["pytest", *paths]), paths)
    if _PYTHON.match(prog):
        return _python_target(args, host)
    if prog == "cargo" and ops:
        sub = ops[0]
        if sub in ("test", "build", "run", "check", "clippy", "bench", "install", "nextest"):
            return t("cargo-test" if sub in ("test", "nextest") else "cargo", f"cargo {sub}", ops[1:2] if sub == "run" else ())
        return None
    if prog == "go" and ops:
        if ops[0] in ("test", "build", "run", "vet", "install"):
            pk = [o for o in ops[1:] if o not in ("./...",)]
            return t("go-test" if ops[0] == "test" else "go", f"go {ops[0]}", pk[:1] if ops[0] != "test" else pk)
        return None
    if prog in _JS_PMS and ops:
        sub = ops[0]
        if sub == "run" and len(ops) > 1:
            return t(prog, f"{prog} run {ops[1]}", (ops[1],))
        if sub in _JS_GOALS:
            return t("npm-test" if sub == "test" else prog, f"{prog} {sub}", ())
        return None
    if prog in ("npx", "pnpx") and ops:
        tool = ops[0]
        if tool in ("jest", "vitest", "tsc", "eslint", "mocha", "playwright", "esbuild", "vite", "webpack", "next"):
            return t("jest" if tool in ("jest", "vitest", "mocha") else "npx", f"npx {tool}", ())
        return None
    if prog in ("jest", "vitest", "tsc", "esbuild", "vite", "webpack"):
        return t("jest" if prog in ("jest", "vitest") else prog, prog, ())
    if prog == "node" and ops and ops[0].endswith((".js", ".mjs", ".cjs", ".ts")):
        return t("node", f"node {ops[0]}", ops[:1])
    if prog == "mix" and ops:
        if ops[0] == "test":
            paths = ops[1:]
            return t("mix-test", " ".join(["mix test", *paths]), paths)
        if ops[0] in ("compile", "run", "phx.server", "release", "assets.deploy", "precommit", "format", "credo",
                      "dialyzer", "ecto.migrate", "deps.get"):
            return t("mix", f"mix {ops[0]}", ())
        return None
    if prog in ("gcc", "g++", "cc", "c++", "clang", "clang++", "nvcc", "rustc", "javac", "ptxas"):
        if len(args) == 1 and args[0] in ("--version", "-V", "-v", "--help", "--list-gpu-arch", "--list-gpu-code"):
            return None
        srcs = [a for a in args if re.search(r"\.(cu|c|cc|cpp|cxx|ptx|rs|java|s)$", a)]
        return t(prog, " ".join([prog, *srcs[:1]]), srcs[:1]) if srcs else None
    if prog == "git" and ops:
        sub = ops[0]
        return t("git", f"git {sub}", ()) if sub in _GIT_GOALS else None
    if prog in ("pip", "pip3", "uv") or (prog == "python" and args[:2] == ["-m", "pip"]):
        local = _local_install(args)
        return t("pip", f"pip install {local}", (local,)) if local else None
    if prog in ("docker", "podman") and ops and ops[0] in ("build", "run", "compose"):
        return t("docker", f"docker {ops[0]}", ())
    if prog in ("bash", "sh", "zsh") and ops and ops[0].endswith(".sh"):
        return t("exec", f"bash {ops[0]}", ops[:1])
    own = argv[0].startswith(("./", "../")) or (argv[0].startswith("/") and "/bin/" not in argv[0] and "/usr/" not in argv[0])
    if own and prog not in INVESTIGATE:  # the user's own program: ./build/app
        return t("exec", argv[0], (argv[0],))
    from logsleuth.actions.launch import launch_info

    info = launch_info(tuple(argv))
    if info is not None:
        return t("launch", f"launch {info.engine}", (info.engine,))
    return None


_SCRATCH = re.compile("^(?:" + "|".join(re.escape(d) for d in TEMP_DIRS) + ")[^/]+")


def _scratch(cmd: Cmd) -> str:
    """The scratch folder a command runs in or builds into (`cd /tmp/x && make`, `cmake -B /tmp/b`)."""
    for p in (cmd.cwd or "", *cmd.argv):  # a program run from a temp folder (`/tmp/x/test_pack`) too
        m = _SCRATCH.match(p.split("=", 1)[-1])
        if m:
            return m.group(0)
    return ""


UNDONE = "(cleaned away in the same call)"  # Target.scratch of a build the same call deleted
BUILD_DIRS = frozenset({"build", "bin", "dist", "out", "_build", "target", "obj", "lib"})  # what a build makes


def _undone_before(cmds: Sequence[Cmd]) -> int:
    """The index of the last command that deletes what the commands before it built (`…; make clean`,
    `rm -rf build bin`, `rm -f` of an earlier `-o` output): a build undone in the same call leaves the
    user nothing, so it is an experiment (nvlinkarch: `make GPU_ARCH=sm_90 && ./bin/x --selftest;
    make clean` cleared no failure of the goal)."""
    last = 0
    made: set[str] = set()
    for i, c in enumerate(cmds):
        if i and cleans(c, made):
            last = i
        made.update(c.argv[j + 1] for j, a in enumerate(c.argv[:-1]) if a == "-o")
    return last


def undone_only(run: Run) -> bool:
    """Every target of the run built what the same call then deleted: an experiment."""
    return bool(run.targets) and all(t.scratch == UNDONE for t in run.targets)


def cleans(c: Cmd, made: set[str] | frozenset[str] = frozenset()) -> bool:
    """`make clean`, `rm -rf build`, `rm` of what an earlier command of the call built (`made`)."""
    if c.prog in ("make", "gmake") and any(a in ("clean", "distclean", "clobber", "mrproper") for a in c.argv[1:]):
        return True
    if c.prog != "rm":
        return False
    paths = [a for a in c.argv[1:] if not a.startswith("-")]
    recursive = any(a.startswith("-") and not a.startswith("--") and "r" in a.lower() for a in c.argv[1:])
    return bool(paths) and (any(p in made for p in paths)
                            or (recursive and any(p.rstrip("/").rsplit("/", 1)[-1] in BUILD_DIRS for p in paths)))


def _test_paths(args: Sequence[str]) -> list[str]:
    paths = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-k", "-m", "-p", "-c", "--rootdir", "-o", "--maxfail", "--tb", "-n", "--deselect", "--ignore"):
            skip = True
            continue
        if not a.startswith("-"):
            paths.append(a.rstrip("/"))
    return sorted(paths)


def _python_target(args: Sequence[str], host: str) -> Target | None:
    j = 0
    while j < len(args) and args[j].startswith("-") and args[j] not in ("-c", "-m", "-"):
        j += 2 if args[j] in ("-X", "-W") else 1
    rest = list(args[j:])
    if not rest or rest[0] in ("-c", "-"):
        return None  # a one-liner or a heredoc: a probe, judged by `probe`
    if rest[0] == "-m" and len(rest) > 1:
        mod = rest[1]
        if mod in _TEST_MODULES:
            fam = _TEST_MODULES[mod]
            paths = _test_paths(rest[2:])
            return Target(fam, " ".join([fam, *paths]), tuple(paths), host)
        if mod in ("pip",):
            local = _local_install(rest[2:])
            return Target("pip", f"pip install {local}", (local,), host) if local else None
        if mod in ("build", "maturin", "setuptools"):
            return Target("python", f"python -m {mod}", (), host)
        if mod in ("venv", "site", "sysconfig", "json.tool", "torch.utils.collect_env", "pip_audit", "pipdeptree",
                   "http.server", "ensurepip", "compileall"):
            return None
        from logsleuth.actions.launch import launch_info

        info = launch_info(("python", *rest))
        if info is not None:
            return Target("launch", f"launch {info.engine}", (info.engine,), host)
        return Target("python", f"python -m {mod}", (mod,), host)
    script = rest[0]
    if basename(script) == "setup.py":
        sub = next((a for a in rest[1:] if not a.startswith("-")), "")
        return Target("python", f"python setup.py {sub}".strip(), (script, sub), host)
    return Target("python", f"python {script}", (script,), host)


def _local_install(args: Sequence[str]) -> str | None:
    """`pip install -e .`, `pip install .`, `uv pip install -e ./pkg`, `pip install -r
    requirements.txt`: building or setting up the user's project (part of the goal)."""
    if not any(a in ("install", "sync", "build", "wheel") for a in args):
        return None
    if any(a in ("--dry-run", "--no-deps-check-only") for a in args):
        return None
    for i, a in enumerate(args):
        if a in ("-r", "--requirement") and i + 1 < len(args):
            return f"-r {args[i + 1]}"
        if a in ("-e", "--editable") and i + 1 < len(args):
            return args[i + 1]
        if a in (".", "./") or (a.startswith(("./", "../")) and not a.endswith((".txt", ".whl"))):
            return a
    if "sync" in args:
        return "."
    return None


def _script(cmd: Cmd) -> str:
    """The code of a `python -c '…'` or `python - <<EOF … EOF`."""
    argv = cmd.argv
    if "-c" in argv[1:]:
        i = argv.index("-c")
        return argv[i + 1] if i + 1 < len(argv) else ""
    return next((r.body for r in cmd.redirects if r.body is not None), "")


def _probe(cmd: Cmd) -> bool:
    argv = cmd.argv
    if not argv:
        return False
    prog = basename(argv[0])
    if _PYTHON.match(prog) and WRITES.search(_script(cmd)):
        return False  # a script that rewrites a file is an edit, not a look
    if _PYTHON.match(prog):
        rest = [a for a in argv[1:] if a not in ("-u", "-B", "-I", "-E", "-s", "-q")]
        return (bool(rest[:1]) and rest[0] in ("-c", "-")) or (not rest and any(r.body for r in cmd.redirects))
    return prog in ("node", "ruby", "perl") and bool(set(argv[1:2]) & {"-e", "-p"})


def _is_fix(cmd: Cmd) -> bool:
    argv = cmd.argv
    if not argv:
        return bool(cmd.assigns)  # `X=1` alone in a shell sets a variable for the rest of the call
    prog = basename(argv[0])
    args = argv[1:]
    if any(r.writes_file for r in cmd.redirects) and prog in ("cat", "echo", "printf", "tee"):
        return True
    if prog == "sed":
        return any(a.startswith(("-i", "--in-place")) for a in args)
    if prog == "git":
        return f"git-{next((a for a in args if not a.startswith('-')), '')}" in _FIXERS
    if prog in ("pip", "pip3", "uv", "conda", "mamba", "apt", "apt-get", "brew", "yum", "dnf"):
        if any(a in _DRY_RUN or a.startswith("--dry-run") for a in args):
            return False
        return any(a in ("install", "uninstall", "remove", "add", "upgrade", "update", "sync", "create") for a in args)
    if prog in ("curl", "wget"):
        return prog == "wget" or any(a in ("-o", "-O", "--output") for a in args)
    if prog == "ldconfig":
        return "-p" not in args
    if _PYTHON.match(prog):
        return bool(WRITES.search(_script(cmd)))
    return prog in _FIXERS


def _shorthand(cmd: Cmd, payload: str) -> bool:
    """`F=.venv/lib/…/cpp_extension.py; grep -n CUDA $F`: a shell variable set only to name a path
    for the commands after it changes nothing (an export, or a variable nothing reads back, does)."""
    if cmd.argv or not cmd.assigns or re.search(r"\bexport\b", payload):
        return False
    return all(re.search(rf"\${{?{re.escape(name)}\b", payload) for name, _ in cmd.assigns)


def _dry_run(cmd: Cmd) -> bool:
    prog = basename(cmd.argv[0]) if cmd.argv else ""
    if prog in ("pip", "pip3", "uv", "apt", "apt-get", "make", "conda", "mamba", "npm", "cargo"):
        return any(a in ("--dry-run", "--simulate", "--just-print", "--recon") or a.startswith("--dry-run")
                   or (prog in ("apt", "apt-get", "make") and a in ("-s", "-n")) for a in cmd.argv[1:])
    return False


def classify_call(tool: str | None, text: str) -> tuple[RunRole, tuple[Target, ...], tuple[tuple[str, str], ...],
                                                       str | None, bool]:
    """`classify_tool_call` of a call given as its tool and text (as a reader writes them)."""
    return classify_tool_call(normalise(tool, text))


def classify_tool_call(call: ToolCall | None) -> tuple[RunRole, tuple[Target, ...], tuple[tuple[str, str], ...],
                                                       str | None, bool]:
    """(role, goal targets, inline env, cwd, probe) of one tool call, as ingest normalised it."""
    if call is None or call.kind is not ToolKind.SHELL:
        if call is not None and call.kind is ToolKind.EDIT:
            return RunRole.FIX, (), (), None, False
        return RunRole.INVESTIGATION, (), (), None, False
    payload = call.command or ""
    targets: list[Target] = []
    env: list[tuple[str, str]] = []
    cwd: str | None = None
    fix = probe = False
    cmds = commands(payload)
    undone = _undone_before(cmds)
    for i, c in enumerate(cmds):
        if _dry_run(c):
            continue
        tg = target_of(c)
        if tg is not None:
            targets.append(replace(tg, argv=c.argv, scratch=_scratch(c) or (UNDONE if undone and i <= undone else "")))
            env.extend(c.assigns)
            cwd = cwd or c.cwd
            continue
        if _probe(c):
            probe = True
        elif _is_fix(c) and not _shorthand(c, payload):
            fix = True
    if targets:
        return RunRole.GOAL, tuple(dict.fromkeys(targets)), tuple(env), cwd, False
    if fix:
        return RunRole.FIX, (), (), cwd, False
    return RunRole.INVESTIGATION, (), (), cwd, probe


def extract_runs(events: pl.DataFrame, findings: Sequence[Finding]) -> list[Run]:
    """Every tool call of the events as a run, in seq order. `findings` decide failed/passed."""
    if not events.height:
        return []
    calls = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_call").select(
        "seq", "tool", "call_id", "text", *CALL_SCHEMA
    )
    results = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_result").select(
        "seq", "call_id", "is_error", "exit_code", "text"
    )
    texts: dict[int, str] = {}
    by_call: dict[str, tuple[int, bool | None, int | None]] = {}
    by_seq: dict[int, tuple[int, bool | None, int | None]] = {}
    for seq, call_id, err, code, output in results.iter_rows():
        texts[seq] = output or ""
        if call_id is not None:
            by_call.setdefault(call_id, (seq, err, code))
        by_seq[seq] = (seq, err, code)
    fails: dict[int, list[Finding]] = {}
    wins: set[int] = set()
    won: dict[int, list[Finding]] = {}
    for f in findings:
        if f.severity.is_failure:
            fails.setdefault(f.seq, []).append(f)
        elif f.severity is Severity.SUCCESS:
            wins.add(f.seq)
            won.setdefault(f.seq, []).append(f)
    out: list[Run] = []
    background: tuple[Target, ...] = ()  # the targets of the last goal run that went on in the background
    rows = list(calls.iter_rows(named=True))
    tool_calls = [call_of(row) for row in rows]
    classified = [classify_tool_call(call) for call in tool_calls]  # once per call
    project = project_modules((c[0], row["text"] or "") for row, c in zip(rows, classified, strict=True))
    project |= requested_imports(events)
    for row, call, classes in zip(rows, tool_calls, classified, strict=True):
        seq, call_id = row["seq"], row["call_id"]
        res = by_call.get(call_id) if call_id is not None else None
        if res is None:
            res = by_seq.get(seq + 1) if call_id is None else None
        body = row["text"] or ""
        command = call.command if call is not None and call.command is not None else ""
        role, targets, env, cwd, probe = classes
        if role is RunRole.INVESTIGATION and probe and (drives := _drives(command, project)):
            role, targets = RunRole.GOAL, (drives,)
        output = texts.get(res[0], "") if res else ""
        if res and fails.get(res[0]) and role is RunRole.GOAL:  # a look's missing tool is not the goal's failure
            kept = [f for f in fails[res[0]] if not probe_tool_missing(f, targets, command)]
            if len(kept) < len(fails[res[0]]) and res[2] == 127:  # the call's 127 is the missing tool's, not the goal's
                res = (res[0], None, None)
            fails[res[0]] = kept  # this run's own
        own = _status_is_own(command, output)
        well = wins if own else _ending_well(fails, won, texts)
        status = _status(res, fails, well, command, output)
        if _PIPED.search(command) and not own and status is RunStatus.PASSED and res and res[0] not in wins \
                and role is RunRole.GOAL:
            status = RunStatus.UNKNOWN  # a filter's 0 (`pip install . | sed -n 25,45p`) and no success seen: not a pass
        if role is RunRole.GOAL:
            bg = _backgrounded(call, body) or any(t.prog == "launch" for t in targets)
            background = targets if bg else ()
            if bg and status is RunStatus.PASSED and not (res and res[0] in wins):
                status = RunStatus.UNKNOWN  # started, not finished: its log tells how it went
        elif role is RunRole.INVESTIGATION and _reads_log(call, body):
            # `sleep 60; tail -60 server.log`: the output of the run that went on in the background
            # (or of one started before the session): what it shows is the goal's, not a probe's
            role, targets = RunRole.GOAL, background
            if not (res and (res[0] in wins or fails.get(res[0]))):
                status = RunStatus.UNKNOWN  # the reader's own exit (a timeout, grep's 1) says nothing of the goal
        out.append(Run(seq, res[0] if res else None, role, status, targets, env, cwd, probe, body[:2000]))
    return out


_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)
# starts only where a run of path characters starts: from every position of a run without `.py`
# it was quadratic (a 272 KB Codex session: 25 s); the leftmost-longest matches are the same
_PY_PATH = re.compile(r"(?<![\w./-])[\w./-]+\.py\b")
_NOT_PROJECT = re.compile(r"(^|/)(site-packages|dist-packages|\.venv|venv|usr|tmp|\.cache)(/|$)")
_NOT_MODULE = frozenset({"src", "lib", "tests", "test", "home", "root", "work", "scripts", "tools", "bin", "projects"})


def project_modules(calls: Iterable[tuple[RunRole, str]]) -> frozenset[str]:
    """The importable names of the project the agent works on: the packages and modules of the
    Python files its changes (the calls of role FIX) touch (`jitkern/nvrtc.py` -> jitkern, nvrtc)."""
    names: set[str] = set()
    for role, text in calls:
        if role is not RunRole.FIX:
            continue
        for path in _PY_PATH.findall(text):
            if _NOT_PROJECT.search(path):
                continue
            *dirs, file = path.split("/")
            names.update(d for d in dirs[-2:] if d.isidentifier())
            names.add(file[:-3])
    return frozenset(n for n in names if n.isidentifier() and n not in _NOT_MODULE)


_QUOTED = re.compile(r"`([^`\n]{2,200})`")


def requested_imports(events: pl.DataFrame) -> frozenset[str]:
    """The modules the user's request imports in a quoted command (`python -c "import fastjoin"`
    blows up): the project's own code, though no edit touched a file of it (held-out fastjoin: the
    request's failing import was read as a look, and the session as one where nothing failed)."""
    from logsleuth.link.constraints import request_text

    spans = _QUOTED.findall(request_text(events))
    return frozenset(m for span in spans if "import" in span for m in _IMPORT.findall(span.replace(";", "\n").replace('"', "\n").replace("'", "\n"))
                     if m not in _NOT_MODULE)


def _drives(command: str, project: frozenset[str]) -> Target | None:
    """A one-liner or heredoc that imports the project's own code and runs it (`from jitkern import
    compile; compile.compile_all()` with a setting changed in memory) is a scratch run of the
    project, not a look: its failures are the project's. Its target is never the user's goal."""
    if not project:
        return None
    code = "\n".join(_script(c) for c in commands(command))
    mods = sorted({m for m in _IMPORT.findall(code) if m in project})
    if not mods:
        return None
    return Target("python", f"python - ({', '.join(mods)})", tuple(mods), scratch="(in memory)")


_PIPED = re.compile(r"\|\s*(?:tail|head|grep|egrep|fgrep|rg|sed|awk|cut|tee|less|more|sort|uniq|wc|tr)\b")


def _status_is_own(command: str, output: str) -> bool:
    """Whether the exit status recorded (or echoed) is the run's own: not a filter's it was piped
    into (`ctest | tail -6`), nor a look that followed it (`make; git diff --stat`)."""
    if _PIPED.search(command):
        return "pipefail" in command or "PIPESTATUS" in command
    return bool(_ECHOED_RC.search(output[-20_000:])) or not _ends_in_probe(command)


def probe_tool_missing(f: Finding, targets: Sequence[Target], command: str) -> bool:
    """A program the agent typed to look at something is missing (`cuobjdump --list-elf bin/x`
    beside `./bin/x` in one call): the probe's absence, not the goal's; the run's own target's
    program missing (`nvcc x.cu`: nvcc not found) stays a failure. Held-out gputest, headerskew:
    `cuobjdump: No such file or directory` was a step of the chain; smemtile, warpsum: it failed
    the goal run that passed."""
    if f.category != "command_not_found":
        return False
    prog = next((v for k, v in f.captures.items() if k in ("command", "program", "zsh_command") and v), "")
    name = prog.rsplit("/", 1)[-1]
    if not name or any(basename(t.argv[0]) == name for t in targets if t.argv):
        return False
    return re.search(rf"(?:^|[\s;&|(/]){re.escape(name)}\b", command) is not None


def _ending_well(fails: Mapping[int, list[Finding]], won: Mapping[int, list[Finding]],
                 texts: Mapping[int, str]) -> set[int]:
    """Where the exit status is not the run's own, the outputs with a success that comes after
    their every failure ("no device, using CPU" … "9 checks passed"). A build that finished before
    its tests failed did not end well (held-out nativearch: `[100%] Built target` then `1 tests
    failed`, its status that of `| tail -6; git diff --stat`)."""
    out = set()
    for seq, wins in won.items():
        bad = fails.get(seq)
        text = texts.get(seq, "")
        good, worst = (_last_at(wins, text, str.rfind), _last_at(bad, text, str.find)) if bad else (0, -1)
        if good < 0 or worst < 0 or good > worst:  # a text not found where it came from: as before
            out.add(seq)
    return out


def _last_at(found: list[Finding], text: str, where: Callable[[str, str], int]) -> int:
    """The furthest position in `text` of any finding's first line (-1 when none is found)."""
    return max((where(text, (f.text or "").strip().split("\n", 1)[0]) for f in found if (f.text or "").strip()),
               default=-1)


def _exited_zero(err: bool | None, code: int | None, output: str) -> bool:
    """The run's own exit status was 0: the exit code recorded, else the status the agent echoed
    (`echo rc=$?`, `make_rc=${PIPESTATUS[0]}`), all of them 0."""
    echoed = _ECHOED_RC.findall(output[-20_000:])
    if echoed:
        return all(v == "0" for v in echoed)
    return code == 0 if code is not None else err is False  # a transcript's is_error: false is an exit 0


_LOG_READ = re.compile(
    r"\b(tail|cat|less|head|grep|egrep|rg|awk|sed\s+-n)\b[^|;&]*?(?<![\w./-])[\w./-]*(log|\.out|\.err)\b|journalctl|"
    r"\b(docker|podman|kubectl)\s+logs\b|\bsupervisorctl\s+tail\b",
    re.I,
)


def _backgrounded(call: ToolCall | None, text: str) -> bool:
    if call is not None and call.background:  # the agent said so (ingest read its flag)
        return True
    return bool(re.search(r"\bnohup\b|\bsetsid\b|&\s*(?:$|[;)'\"]|disown|echo|sleep)|\btmux\s+new|\bscreen\s+-d", text))


def _reads_log(call: ToolCall | None, text: str) -> bool:
    """`tail server.log`, or a tool that reads the output of a job run in the background."""
    reads_job = call is not None and call.background and call.kind is not ToolKind.SHELL
    return reads_job or bool(_LOG_READ.search(text))


_GREP_TAIL = re.compile(r"\|\s*(grep|egrep|fgrep|rg|zgrep)\b[^|]*$")


# `rc=0`, `make_rc=2`, and the agent's own words before it: `make test exit: 0`, `build exit code = 2`
_ECHOED_RC = re.compile(r"(?im)^[ \t]*+(?:[\w.-]++[ \t]++){0,3}(?:\w+_)?(?:rc|exit|exit_code|exitcode|exit code|status|code)\d?[ \t]*+[=:][ \t]*+(\d{1,3})[ \t]*$")


_ECHOES_STATUS = re.compile(r"\becho\b[^;&|\n]*(\$\?|PIPESTATUS)")


def _ends_in_probe(command: str) -> bool:
    """The call ran something, then looked at it (`make test > log; echo rc=$?; grep -c warning log`):
    the call's exit status is the last look's, not the run's."""
    cmds = commands(command)
    last = cmds[-1] if cmds else None
    # `…; git status --short` too: its 128 outside a repository is the look's (heldout7 eclipse-quick)
    if len(cmds) < 2 or last is None or last.prog == "sed" or not (last.prog in INVESTIGATE or git_look(last)):
        return False
    return any(c.prog not in INVESTIGATE for c in cmds[:-1])


# a program's own line that it passed over the condition it names: "GPU checks skipped (CUDA driver version is
# insufficient …)", "no usable CUDA device (…): host checks only" (held-out cmakecuda, nvlinkarch: chain steps),
# "…; plugin linked, launch skipped", "…; using host path" (heldout7 rdclink, soshadow: a driver line on every run)
_CARRIED_ON = re.compile(r"\b(?:checks?|tests?|launch(?:es)?|kernels?) skipped\b|\bskipping (?:the )?(?:GPU|CUDA|device|kernel)"
                         r"|\bhost checks only\b|\bfalling back to (?:the )?(?:CPU|host)\b|\busing (?:the )?(?:host|CPU) (?:path|fallback)\b"
                         r"|^\s*XFAIL\b|\bexpected failure\b",  # an expected failure, reported as such (heldout7 soshadow-bend)
                         re.I)


def carried_on(f: Finding) -> bool:
    """The finding's line says the program went on without what it names."""
    return _CARRIED_ON.search(f.text.split("\n", 1)[0]) is not None


def _status(
    res: tuple[int, bool | None, int | None] | None,
    fails: Mapping[int, list[Finding]],
    wins: set[int],
    command: str,
    output: str = "",
) -> RunStatus:
    if res is None:
        return RunStatus.UNKNOWN
    seq, err, code = res
    if fails.get(seq):
        # a program that reported a condition, carried on and ended well ("no device …, using CPU",
        # then "9 checks passed", rc=0) passed: its own exit status and success say so
        if (seq in wins or all(carried_on(f) for f in fails[seq])) and _exited_zero(err, code, output):
            return RunStatus.PASSED
        return RunStatus.FAILED
    if _ECHOES_STATUS.search(command) and any(v != "0" for v in _ECHOED_RC.findall(output[-20_000:])):
        return RunStatus.FAILED  # `make smoke; echo EXIT=$?` printed EXIT=2: the call's own 0 is echo's
    if (err or (code is not None and code != 0)) and code in (None, 1) and _GREP_TAIL.search(command.strip()):
        return RunStatus.UNKNOWN  # `make check | grep FAIL` exiting 1 found nothing: that is not a failure
    if (err or (code is not None and code != 0)) and _ends_in_probe(command):
        echoed = _ECHOED_RC.findall(output[-20_000:])  # what the run itself exited with, as echoed
        if echoed:
            return RunStatus.PASSED if all(v == "0" for v in echoed) else RunStatus.FAILED
        return RunStatus.PASSED if seq in wins else RunStatus.UNKNOWN
    if err or (code is not None and code != 0):
        return RunStatus.FAILED
    if err is False or code == 0 or seq in wins:
        return RunStatus.PASSED
    if err is None and code is None and _ECHOES_STATUS.search(command):
        # a format that keeps no exit status (aider's history): the status the agent echoed is the run's
        # (held-out stalegen: `make test; echo make_test_rc=$?` printed 0, and the pass went unseen)
        echoed = _ECHOED_RC.findall(output[-20_000:])
        if echoed and all(v == "0" for v in echoed):
            return RunStatus.PASSED
    return RunStatus.UNKNOWN
