"""Package manager commands (pip, uv, conda/mamba, apt, brew, …) and the versions their output reports.

`parse_package(argv)` says which packages a command installs, removes or only asks about;
`output_versions(text)` reads what the tool printed (`Successfully installed x-1.0`, uv's
` + x==1.0` / ` - x==0.9`, apt's `Setting up x (1.0)`, conda's `x  1.0 --> 0.9`, …).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from logsleuth.actions.shellparse import basename


@dataclass(frozen=True, slots=True)
class Req:
    """One requested package: subject (normalised name, file or path tail), value as written."""

    subject: str
    value: str | None
    arg: tuple[str, ...]  # the tokens that request it: ("x<2",) or ("-r", "req.txt") or ("-e", ".")
    version: str | None = None  # known from the argument itself (a wheel file name)


@dataclass(frozen=True, slots=True)
class PkgCmd:
    manager: str  # pip | uv | conda | apt | brew | pipx | poetry | dpkg
    verb: str  # install | uninstall | upgrade | query
    installer: tuple[str, ...] = ()  # argv that repeats the command without its requirements
    reqs: tuple[Req, ...] = ()
    upgrade: bool = False

    @property
    def query(self) -> bool:
        return self.verb == "query"


_PYTHON = re.compile(r"^(python|python\d(\.\d+)?|py|pypy3?)$")
_PIP = re.compile(r"^pip(\d(\.\d+)?)?$")
_NAME = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9+])?)\s*+(\[[^\]]*\])?\s*(.*)$", re.S)
_PIP_WITH_ARG = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
    "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--python", "-p", "--src", "--upgrade-strategy",
    "--platform", "--python-version", "--implementation", "--abi", "--only-binary", "--no-binary", "--progress-bar",
    "--log", "--cache-dir", "--trusted-host", "--proxy", "--timeout", "--retries", "-C", "--config-settings",
    "--config-setting", "--global-option", "--install-option", "--index-strategy", "--torch-backend", "--prerelease",
    "--resolution", "--extra", "--group", "--exclude-newer", "--link-mode", "--keyring-provider", "--report",
    "--override", "--overrides", "--index", "--default-index", "--reinstall-package", "--upgrade-package", "-P",
    "--python-platform", "--constraints", "--build-constraint", "--optional", "--package", "--project",
    "--directory", "--tag", "--branch", "--rev", "--marker", "--channel", "-n", "--name", "--file", "--solver",
    "-o", "--option", "--target-release", "--default-release",
})
# options that do not belong in a pasteable recipe line
_DROP = frozenset({"-U", "--upgrade", "-q", "-qq", "--quiet", "-v", "--verbose", "--force-reinstall",
                   "--reinstall", "--no-cache-dir", "--no-cache", "--dry-run", "--progress-bar", "--log",
                   "--report", "--upgrade-package", "-P", "--reinstall-package"})
_REQ_FILE_OPTS = frozenset({"-r", "--requirement", "--file"})
_EDITABLE_OPTS = frozenset({"-e", "--editable"})
_PIP_QUERY = frozenset({"show", "list", "freeze", "check", "index", "inspect", "debug", "config", "tree",
                        "help", "--version", "-V", "search", "hash"})


def parse_package(argv: tuple[str, ...] | list[str]) -> PkgCmd | None:
    """The package operation `argv` performs, or None when it is not a package command."""
    if not argv:
        return None
    argv = list(argv)
    prog = basename(argv[0])
    args = list(argv[1:])
    if _PIP.match(prog):
        return _pip_like("pip", list(argv[:1]), args)
    if _PYTHON.match(prog) or prog.startswith("python3."):
        for j in range(1, min(len(argv) - 1, 4)):
            if argv[j] == "-m" and argv[j + 1] in ("pip", "pip3"):
                return _pip_like("pip", list(argv[: j + 2]), list(argv[j + 2 :]))
            if argv[j] == "-m" and argv[j + 1] == "uv" and argv[j + 2 : j + 3] == ["pip"]:
                return _pip_like("uv", list(argv[: j + 3]), list(argv[j + 3 :]))
        return None
    if prog == "uv" and args:
        if args[0] == "pip":
            return _pip_like("uv", ["uv", "pip"], args[1:])
        if args[0] in ("add", "remove"):
            return _pip_like("uv", ["uv"], args)
        if args[0] == "tool" and len(args) > 1:
            return _pip_like("uv", ["uv", "tool"], args[1:])
        return None
    if prog in ("pipx", "poetry", "pdm", "rye"):
        return _pip_like(prog, [argv[0]], args)
    if prog in ("conda", "mamba", "micromamba"):
        return _conda(prog, args)
    if prog in ("apt", "apt-get", "yum", "dnf", "apk", "zypper", "brew", "apt-cache", "port"):
        return _system(prog, args)
    if prog == "dpkg" and args:
        if args[0] in ("-i", "--install"):
            return PkgCmd("dpkg", "install", ("dpkg", "-i"), tuple(_path_req(a, ()) for a in args[1:]))
        if args[0] in ("-r", "-P", "--remove", "--purge"):
            return PkgCmd("dpkg", "uninstall", ("dpkg", args[0]), tuple(_name_req(a, "dpkg") for a in args[1:]))
        return PkgCmd("dpkg", "query")
    return None


def _verb(word: str) -> str | None:
    return {
        "install": "install", "add": "install", "sync": "install", "inject": "install", "create": "install",
        "reinstall": "install", "uninstall": "uninstall", "remove": "uninstall", "rm": "uninstall",
        "purge": "uninstall", "del": "uninstall", "erase": "uninstall", "upgrade": "upgrade", "update": "upgrade",
        "downgrade": "install",
    }.get(word)


def _pip_like(manager: str, prefix: list[str], args: list[str]) -> PkgCmd | None:
    if not args:
        return None
    if args[0] in _PIP_QUERY:
        return PkgCmd(manager, "query")
    verb = _verb(args[0])
    if verb is None or (manager == "pip" and args[0] not in ("install", "uninstall")):
        return None  # pip download / wheel / cache purge …: an ordinary run
    kept: list[str] = [*prefix, args[0]]
    reqs: list[Req] = []
    upgrade = False
    rest = args[1:]
    j = 0
    while j < len(rest):
        a = rest[j]
        if a.startswith("-") and a != "-":
            name, eq, attached = a.partition("=")
            takes = name in _PIP_WITH_ARG and not eq
            val = attached if eq else (rest[j + 1] if takes and j + 1 < len(rest) else "")
            if name in ("-U", "--upgrade") or (re.fullmatch(r"-[Uqvy]+", a) and "U" in a):
                upgrade = True
            if name in _REQ_FILE_OPTS and val:
                reqs.append(Req(val, None, (name, val)))
            elif name in _EDITABLE_OPTS and val:
                reqs.append(_path_req(val, (name,)))
            elif name not in _DROP and not re.fullmatch(r"-[Uqv]+", a):
                kept.extend([a, val] if takes and val else [a])
            j += 2 if takes else 1
            continue
        reqs.append(_arg_req(a, manager))
        j += 1
    return PkgCmd(manager, verb, tuple(kept), tuple(reqs), upgrade) if reqs else None


def _conda(prog: str, args: list[str]) -> PkgCmd | None:
    if not args:
        return None
    if args[0] in ("list", "info", "search", "config", "--version", "-V", "doctor", "repoquery"):
        return PkgCmd(prog, "query")
    if args[0] == "env" and args[1:2] == ["list"]:
        return PkgCmd(prog, "query")
    verb = _verb(args[0])
    if verb is None:
        return None
    kept, reqs = [prog, args[0]], []
    j, rest = 0, args[1:]
    while j < len(rest):
        a = rest[j]
        if a.startswith("-"):
            name, eq, attached = a.partition("=")
            takes = name in ("-c", "--channel", "-n", "--name", "-p", "--prefix", "--file", "--solver") and not eq
            val = attached if eq else (rest[j + 1] if takes and j + 1 < len(rest) else "")
            if name == "--file" and val:
                reqs.append(Req(val, None, (name, val)))
            elif name not in _DROP:
                kept.extend([a, val] if takes and val else [a])
            j += 2 if takes else 1
            continue
        reqs.append(_arg_req(a.split("::", 1)[-1], "conda"))
        j += 1
    if not reqs:
        return None
    return PkgCmd("conda" if prog != "micromamba" else prog, verb, tuple(kept), tuple(reqs), verb == "upgrade")


def _system(prog: str, args: list[str]) -> PkgCmd | None:
    sub = next((a for a in args if not a.startswith("-")), None)
    if prog == "apt-cache" or sub in ("list", "show", "search", "policy", "info", "madison", "depends", "rdepends",
                                      "outdated", "deps", "leaves", "--version"):
        return PkgCmd(prog, "query")
    verb = _verb(sub or "")
    if verb is None or sub is None:
        return None
    kept, reqs = [prog], []
    j, seen_sub = 0, False
    while j < len(args):
        a = args[j]
        if a == sub and not seen_sub:
            seen_sub = True
            kept.append(a)
        elif a.startswith("-"):
            takes = a in ("-o", "-t", "-c", "--option", "--target-release")
            if a not in _DROP:
                kept.extend([a, args[j + 1]] if takes and j + 1 < len(args) else [a])
            j += 1 if not takes else 2
            continue
        elif seen_sub:
            reqs.append(_arg_req(a, "apt"))
        j += 1
    if not reqs:  # `apt-get upgrade`, `apt autoremove`: no single subject
        return None
    return PkgCmd("brew" if prog == "brew" else "apt" if prog.startswith("apt") else prog, verb, tuple(kept),
                  tuple(reqs), verb == "upgrade")


# ---------------------------------------------------------------- requirements


def normalise(name: str, manager: str = "pip") -> str:
    """PEP 503 for Python and conda packages; system package names only lower-cased."""
    if manager in ("apt", "brew", "dpkg", "yum", "dnf", "apk", "zypper", "pacman", "port"):
        return name.lower().split(":", 1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _arg_req(a: str, manager: str) -> Req:
    if manager == "apt":
        a = re.sub(r":[a-z0-9]+(?==|$)", "", a)  # libc6:amd64
    direct = re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[^\]]*\])?\s*@\s", a)  # `name @ url`
    if not direct and (re.match(r"^(git\+|hg\+|svn\+|https?://|file:)", a) or _looks_like_path(a)):
        return _path_req(a, ())
    m = _NAME.match(a.strip())
    if not m:
        return Req(a, None, (a,))
    name, extras, rest = m.group(1), m.group(2) or "", m.group(3).split(";", 1)[0].strip()
    value = (extras + rest) or None
    return Req(normalise(name, manager), value, (a,))


def _name_req(a: str, manager: str) -> Req:
    return Req(normalise(a, manager), None, (a,))


def _looks_like_path(a: str) -> bool:
    return a.startswith((".", "/", "~")) or a.endswith((".whl", ".tar.gz", ".zip", ".tgz", ".deb")) or (
        "/" in a and not re.search(r"[<>=!~]", a)
    )


def _path_req(a: str, opts: tuple[str, ...]) -> Req:
    """Subject of a path, wheel or URL: the distribution name when it can be read, else the tail."""
    egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", a)
    tail = re.split(r"[#?]", a)[0].rstrip("/")
    tail = re.sub(r"@[^/@]*$", "", tail) if "://" in tail else tail  # git+https://…/x.git@v1 -> …/x.git
    tail = basename(tail.removeprefix("file:")) or tail
    tail = re.sub(r"\[[^\]]*\]$", "", tail)  # -e "python[all]"
    version = None
    if egg:
        subject = normalise(egg.group(1))
    elif tail.endswith(".whl") and tail.count("-") >= 2:
        dist, version = tail.split("-")[:2]
        subject = normalise(dist)
    elif m := re.match(r"^(.+?)-(\d[^-]*?)(\.tar\.gz|\.zip|\.tgz)$", tail):
        subject, version = normalise(m.group(1)), m.group(2)
    elif tail.endswith(".deb"):
        subject = tail.split("_", 1)[0].lower()
    else:
        subject = tail.removesuffix(".git") or a
    return Req(subject, a, (*opts, a), version)


def is_pin(value: str | None) -> bool:
    """`==`, `<`, `<=`, `~=`, `!=` (and conda/apt `=`) constrain the version: a pin. `>=` alone does not."""
    if not value:
        return False
    spec = re.sub(r"^\[[^\]]*\]", "", value).strip()
    clauses = [c.strip() for c in spec.split(",") if c.strip()]
    return any(c.startswith(("==", "<", "~=", "!=")) or (c.startswith("=") and not c.startswith("=>")) for c in clauses)


# ---------------------------------------------------------------- versions in the output


@dataclass(frozen=True, slots=True)
class OutputVersions:
    installed: dict[str, str] = field(default_factory=dict)  # normalised name -> version now installed
    removed: dict[str, str] = field(default_factory=dict)  # normalised name -> version replaced
    present: dict[str, str] = field(default_factory=dict)  # already satisfied
    failed: bool = False


_FAILED = re.compile(
    r"No solution found|No matching distribution found|Could not find a version that satisfies|"
    r"ResolutionImpossible|PackagesNotFoundError|Unable to locate package|has no installation candidate|"
    r"UnsatisfiableError|we can conclude that .* unsatisfiable|Cannot install .* because|No available formula"
)
_UV_LINE = re.compile(r"^\s*([+\-~])\s+([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)", re.M)
_MAMBA_LINE = re.compile(r"^\s*([+\-])\s+([a-z0-9][a-z0-9._-]*)\s+(\d[^\s]*)\s+\S+\s+\S+", re.M)
_PIP_OK = re.compile(r"Successfully installed (.+)")
_PIP_UNINSTALLED = re.compile(r"Successfully uninstalled (\S+)")
_PIP_FOUND = re.compile(r"Found existing installation: (\S+) (\S+)")
_PIP_SATISFIED = re.compile(r"Requirement already satisfied: ([A-Za-z0-9][A-Za-z0-9._-]*)[^\n]*? \((\d[^)\s]*)\)")
_APT_SETUP = re.compile(r"Setting up ([a-z0-9][a-z0-9.+-]*)(?::\w+)? \(([^)]+)\)")
_APT_UNPACK = re.compile(r"Unpacking ([a-z0-9][a-z0-9.+-]*)(?::\w+)? \(([^)]+)\) over \(([^)]+)\)")
_APT_NEWEST = re.compile(r"(?<![a-z0-9.+-])([a-z0-9][a-z0-9.+-]*) is already the newest version \(([^)]+)\)")
_APT_REMOVE = re.compile(r"Removing ([a-z0-9][a-z0-9.+-]*)(?::\w+)? \(([^)]+)\)")
_CONDA_ARROW = re.compile(r"^\s+([a-z0-9][a-z0-9._-]*)\s+(\S+)\s+-->\s+(\S+)", re.M)
_CONDA_NEW = re.compile(r"^\s+([a-z0-9][a-z0-9._-]*)\s+(?:\S+::)\1-(\d\S*)\s*$", re.M)


# Each regex runs only on an output holding its literal: `in` is far cheaper than a regex scan of
# a long install log (a pattern led by a character class is tried at every position).
_FAILED_WORDS = ("No solution found", "No matching distribution found", "Could not find a version", "ResolutionImpossible",
                 "PackagesNotFoundError", "Unable to locate package", "has no installation candidate",
                 "UnsatisfiableError", "unsatisfiable", "Cannot install ", "No available formula")


def _gated(rx: re.Pattern[str], gate: str, text: str) -> Iterator[re.Match[str]]:
    return rx.finditer(text) if gate in text else iter(())


def output_versions(text: str) -> OutputVersions:
    failed = bool(text) and any(w in text for w in _FAILED_WORDS) and bool(_FAILED.search(text))
    out = OutputVersions(failed=failed)
    if not text:
        return out
    inst, rem, pres = out.installed, out.removed, out.present
    for m in _gated(_PIP_OK, "Successfully installed ", text):
        for tok in m.group(1).split():
            name, _, ver = tok.rpartition("-")
            if name and ver[:1].isdigit():
                inst[normalise(name)] = ver
    for m in _gated(_PIP_UNINSTALLED, "Successfully uninstalled ", text):
        name, _, ver = m.group(1).rpartition("-")
        if name and ver[:1].isdigit():
            rem[normalise(name)] = ver
    for m in _gated(_PIP_FOUND, "Found existing installation: ", text):
        rem[normalise(m.group(1))] = m.group(2)
    for m in _gated(_PIP_SATISFIED, "Requirement already satisfied: ", text):
        pres[normalise(m.group(1))] = m.group(2)
    for m in _gated(_UV_LINE, "==", text):
        (rem if m.group(1) == "-" else inst)[normalise(m.group(2))] = m.group(3)
    for m in _MAMBA_LINE.finditer(text):
        (rem if m.group(1) == "-" else inst)[normalise(m.group(2))] = m.group(3)
    for m in _gated(_CONDA_ARROW, "-->", text):
        name = m.group(1)
        rem[normalise(name)] = _conda_version(m.group(2), name)
        inst[normalise(name)] = _conda_version(m.group(3), name)
    for m in _gated(_CONDA_NEW, "::", text):
        inst.setdefault(normalise(m.group(1)), m.group(2).rsplit("-", 1)[0])
    for m in _gated(_APT_SETUP, "Setting up ", text):
        inst[m.group(1)] = m.group(2)
    for m in _gated(_APT_UNPACK, "Unpacking ", text):
        inst[m.group(1)] = m.group(2)
        rem[m.group(1)] = m.group(3)
    for m in _gated(_APT_NEWEST, " is already the newest version (", text):
        pres[m.group(1)] = m.group(2)
    for m in _gated(_APT_REMOVE, "Removing ", text):
        rem.setdefault(m.group(1), m.group(2))
    return out


def _conda_version(token: str, name: str) -> str:
    token = token.split("::", 1)[-1]
    token = token.removeprefix(name + "-")
    return token.split("-", 1)[0]


def version_key(v: str) -> tuple[tuple[int, ...], int, int]:
    """Orders PEP 440-ish and Debian-ish versions well enough to tell a downgrade from an upgrade."""
    v = v.split(":", 1)[-1].split("+", 1)[0].lower()
    m = re.match(r"(\d+(?:\.\d+)*)(.*)", v)
    if not m:
        return ((), 0, 0)
    # bounded: int() refuses strings past 4300 digits, and a longer part is no version anyway
    release = tuple(int(x[:18]) for x in m.group(1).split("."))
    release = release + (0,) * (6 - len(release)) if len(release) < 6 else release
    rest = m.group(2)
    tag = re.match(r"[.\-_]?(dev|a|alpha|b|beta|rc|c|pre|post|p|-)?(\d*)", rest)
    rank = {"dev": -4, "a": -3, "alpha": -3, "b": -2, "beta": -2, "rc": -1, "c": -1, "pre": -1, "post": 1, "p": 1}
    label = tag.group(1) if tag else None
    num = int(tag.group(2)[:18]) if tag and tag.group(2) else 0
    return (release, rank.get(label or "", 1 if rest.startswith("-") else 0), num)


def compare_versions(a: str, b: str) -> int:
    ka, kb = version_key(a), version_key(b)
    return (ka > kb) - (ka < kb)


def spec_code(subject: str, value: str | None) -> str:
    """A package action's target as code: `torch<2.6` or `torch[cuda]` where the value is a
    version specifier or extras, `torch` from `../dl/torch-2.6.0.whl` where it is a path or URL
    (the two written together read as one name)."""
    if not value:
        return f"`{subject}`"
    if value[:1] in "<>=!~[" or value.startswith(" @"):
        return f"`{subject}{value}`"
    return f"`{subject}` from `{value}`"
