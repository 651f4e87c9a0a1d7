"""A fix told as the state it changed, and the actions that change no state a fix can rest on.

A fix is the difference between the state at the failing run and at the first run that passed:
files whose content changed, packages and their exact versions (a local tag such as `+cpu` is part
of the version), the environment the passing run needed. Not a change: a backup copy (`cp A
A.orig` edits nothing), a variable set inside a read-only probe (`C=…; ls $C`), a file made and
deleted in one command, a call that never ran, a re-run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from logsleuth.actions.commands import shell_variable
from logsleuth.actions.sed import blank_name, line_address
from logsleuth.actions.shellparse import in_temp
from logsleuth.clip import short
from logsleuth.enums import INSTALLS, PACKAGE_CHANGES
from logsleuth.link.resolution import dry_build, is_diagnostic
from logsleuth.model import Action, ActionKind, Run
from logsleuth.verdict.model import Change

K = ActionKind
_WIDTH = 80
_BACKUP = re.compile(r"(?:\.(?:orig|bak|backup|old|save|saved|copy|prev|before)\d*|~)$", re.I)
_COPY = re.compile(r"^\s*(?:sudo\s+)?(?:cp|rsync|install)\b")
_READ_ONLY = re.compile(r"^\s*(?:ls|cat|head|tail|find|grep|rg|stat|file|readelf|objdump|nm|ldd|which|echo|printf|"
                        r"test|\[|du|wc|realpath|readlink|env|printenv|type|command|python3?\s+-c)\b")
_SEP = re.compile(r"(?:&&|\|\||;|\|)")  # pieces are stripped after: a leading \s* rescans every blank run
_FLAG_KINDS = frozenset({K.FLAG_ADDED, K.FLAG_CHANGED, K.FLAG_REMOVED})
# Flags that change how a run reports, not what it does: dropping `-q` fixes nothing.
_COSMETIC = re.compile(r"^-(?:q+|v+|s|x|rA|ra|rs|l)$|^--(?:quiet|verbose|tb|color|colour|no-header|durations|"
                       r"capture|show-capture|progress|no-cache-dir|disable-pip-version-check|log-level)(?:=.*)?$")


def is_backup(a: Action) -> bool:
    """A copy made to keep a file as it was: `cp A A.orig`, `cp A A.bak` (it changes no content in use)."""
    if a.kind is not K.FILE_EDIT:
        return False
    if _BACKUP.search(a.subject):
        return True
    return bool(_COPY.match(a.command)) and any(_BACKUP.search(w) for w in a.command.split()[1:])


def in_probe(a: Action) -> bool:
    """An env variable set only to feed a read-only command of the same call (`C=/x; ls $C/bin`)."""
    if a.kind not in (K.ENV_SET, K.ENV_UNSET):
        return False
    pieces = [p for p in _SEP.split(a.raw or a.command) if p.strip()]
    rest = [p for p in pieces if not re.match(rf"^\s*(?:export\s+)?{re.escape(a.subject)}=", p)]
    return bool(rest) and all(_READ_ONLY.match(p) for p in rest) and any(f"${a.subject}" in p or "${" + a.subject in p
                                                                         for p in rest)


def scratch_file(a: Action) -> bool:
    """A file created and deleted in the same command, or under a temp folder: scratch, not the project."""
    if a.kind is not K.FILE_EDIT:
        return False
    if in_temp(a.subject) or a.subject.startswith("/dev/"):
        return True
    raw = a.raw or a.command
    name = re.escape(a.subject.rsplit('/', 1)[-1])
    if a.value == "rm":  # a deletion changes the project, unless the same command wrote the file first
        return bool(re.search(rf"(?:>|\btee\s|-o\s*)\s*\S*{name}\b[\s\S]*\brm\b", raw))
    if re.search(rf"\brm\s+(?:-\w+\s+)*\S*{name}\b", raw):
        return True
    # made inside a folder the same command removes (`ln -sf … build/pathtest/nvcc; …; rm -rf build/pathtest`)
    parts = a.subject.split("/")[:-1]
    folders = ["/".join(parts[:i]) for i in range(len(parts), 0, -1) if parts[i - 1] not in (".", "")]
    return any(re.search(rf"\brm\s+(?:-\w+\s+)*(?:\./)?{re.escape(f)}/?(?=[\s;&|)]|$)", raw) for f in folders)


def is_change(a: Action, never_ran: frozenset[int] = frozenset()) -> bool:
    """Does the action change state a fix can rest on?"""
    if a.seq in never_ran or not a.kind.is_fix or is_diagnostic(a):  # `SETUPTOOLS_SCM_DEBUG=1` changes nothing
        return False
    if a.kind is K.BUILD and dry_build(a.command):  # `make -pn` prints what it would do
        return False
    if a.kind in _FLAG_KINDS and _COSMETIC.match(a.subject):
        return False
    return not (is_backup(a) or in_probe(a) or scratch_file(a) or shell_variable(a))


def lasting(a: Action, run: Run | None) -> bool:
    """An env variable given on the command line of the passing run, or before any other one command
    (`X=1 make` earlier), lives in that command only."""
    if a.kind in (K.ENV_SET, K.ENV_UNSET) and a.scoped:  # heldout4 tlsprof: a probe's inline variable was a "fix"
        return False
    if a.kind not in (K.ENV_SET, K.ENV_UNSET) or run is None:
        return True
    return a.seq != run.seq and not any(k == a.subject for k, _ in run.env)


def gone_by_run(a: Action, run: Run | None) -> bool:
    """An inline variable of an earlier command (`X=1 ./probe`) was gone by the passing run: not its state."""
    return a.scoped and (run is None or a.seq not in (run.seq, run.result_seq))


def change_of(a: Action, run: Run | None = None) -> Change:
    """The action as the state it changed."""

    keep = lasting(a, run)
    return Change(_kind(a), a.subject, state_text(a, keep), a.seq, keep)


def _kind(a: Action) -> str:
    if a.kind in PACKAGE_CHANGES:
        return "package"
    if a.kind in (K.ENV_SET, K.ENV_UNSET, K.ENV_ACTIVATE):
        return "env"
    if a.kind in _FLAG_KINDS:
        return "flag"
    return {K.FILE_EDIT: "file", K.BUILD: "build"}.get(a.kind, "other")


def state_text(a: Action, keep: bool = True) -> str:
    """The change as a fact: "Cython 3.3.1 installed", "edited `a.pyx`: … → …", "`X=1` for that command only"."""
    if a.kind in PACKAGE_CHANGES:
        return _package_text(a)
    if a.kind is K.ENV_SET:
        return f"`{a.subject}={short(a.value or '', _WIDTH)}`" + ("" if keep else " for that command only")
    if a.kind is K.ENV_UNSET:
        return f"`{a.subject}` unset" + ("" if keep else " for that command only")
    if a.kind is K.FILE_EDIT:
        return edit_text(a)
    if a.kind is K.FLAG_ADDED:
        return f"`{a.subject}{' ' + a.value if a.value else ''}` added to the command"
    if a.kind is K.FLAG_REMOVED:
        return f"`{a.subject}` dropped from the command"
    if a.kind is K.FLAG_CHANGED:
        return f"`{a.subject}` set to `{a.value}`"
    if a.kind is K.ENV_ACTIVATE:
        return f"`{a.subject}` activated"
    if a.kind is K.BUILD:
        return f"rebuilt (`{short(a.command, _WIDTH)}`)"
    return f"`{short(a.command, _WIDTH)}`"


def _package_text(a: Action) -> str:
    if a.subject in (".", "./") or a.subject.startswith(("./", "/")):  # the project itself, from its folder
        return f"the project reinstalled (`{short(a.command, _WIDTH)}`)"
    if a.kind is K.UNINSTALL:
        return f"`{a.subject}`{' ' + a.previous if a.previous else ''} removed"
    version = a.resolved or (a.value or "").lstrip("=")
    if a.kind in INSTALLS and a.value and a.value[:1] in "<>!~" and a.resolved:
        spec = f" (`{a.subject}{a.value}`)"
    else:
        spec = ""
    was = f", was {a.previous}" if a.previous and a.previous != version else ""
    got = f" {version}" if version and version[:1].isdigit() else ""
    where = "" if got or not a.value else f" from `{short(a.value, _WIDTH)}`"
    return f"`{a.subject}`{got}{where} installed{spec}{was}"


def edit_text(a: Action) -> str:
    """An edit with what it changed: the first line it took out and the first it put in (lines
    both sides share are context, not the change), when the command says them, and the names the
    rest of a many-line edit took out and brought in."""
    if a.value in ("rm", "touch"):
        return f"deleted `{a.subject}`" if a.value == "rm" else f"created `{a.subject}` (touch)"
    if a.value is not None and a.value.startswith("mv ") and not a.added:
        return f"moved `{a.value[3:]}` to `{a.subject}`"
    if a.value in ("pip download", "pip wheel"):
        return f"files fetched into `{a.subject}` (`{short(a.command, _WIDTH)}`)"
    before, after = _lines(a.removed), _lines(a.added)
    gone = _code_first([ln for ln in before if ln not in after], before)
    came = _code_first([ln for ln in after if ln not in before], after)
    if len(gone) == 1 and len(came) == 1 and (inner := _word_change(gone[0], came[0])) is not None:
        return f"edited `{a.subject}`: {inner}"
    if not before and came and (a.value or "").startswith("write"):  # a heredoc wrote the whole file: not an addition
        return _written(a, after)
    more = max(len(gone), len(came)) - 1
    if gone and came:
        verb = "rewrote" if (a.value or "").startswith("write") else "edited"
        shown = f"`{short(_telling(gone), 60)}` → `{short(_telling(came), 60)}`"
        return f"{verb} `{a.subject}`: {shown}{_rest(more, before, after, shown)}"
    if came and a.added != a.raw:
        shown = f"added `{short(_telling(came), 70)}`"
        return f"edited `{a.subject}`: {shown}{_rest(more, before, after, shown)}"
    if gone and not came:
        shown = f"removed `{short(_telling(gone), 70)}`"
        return f"edited `{a.subject}`: {shown}{_rest(more, before, after, shown)}"
    if (a.removed or a.added) and not (a.removed + a.added).strip():  # `sed 's/^    /\t/'`: indentation
        at = line_address(a.value or "")
        where = f" on line {at}" if at is not None else ""
        return f"edited `{a.subject}`: {blank_name(a.removed)} → {blank_name(a.added)}{where}"
    return f"edited `{a.subject}`" + (f" ({a.value})" if a.value else "")


_CONFIG = re.compile(r"\.(?:ini|cfg|toml|ya?ml|conf|properties|env)$|(?:^|/)(?:\.?\w*rc|Pipfile|\.editorconfig)$")
_SETTING = re.compile(r"^[\w.-]+\s*[=:]\s*\S")


def _written(a: Action, after: list[str]) -> str:
    """A whole file written: its first line and the first names of its code; a config file by its
    settings (heldout7 eclipse: pytest.ini told as `testpaths = tests` (code: `pytest`, `addopts`),
    where `addopts = -p ledger` was the change)."""
    if _CONFIG.search(a.subject):
        settings = [ln for ln in after if _SETTING.match(ln) and not _COMMENT.match(ln)][:_NAMES]
        if settings:
            return f"rewrote `{a.subject}` ({a.value}): " + ", ".join(f"`{short(ln, 60)}`" for ln in settings)
    telling = next((ln for ln in after if not (ln.startswith("[") and ln.endswith("]"))), after[0])
    names = [n for n in (_called(after) or _code_names(after)) if n not in telling][:_NAMES + 2]
    uses = f" (code: {', '.join(f'`{short(n, 40)}`' for n in names)})" if names else ""
    return f"rewrote `{a.subject}` ({a.value}): `{short(telling, 60)}`{uses}"


def _rest(more: int, before: list[str], after: list[str], shown: str) -> str:
    """` (+N more lines: names)` past the lines shown, or ` (+N more lines)` when no name changed."""
    if more <= 0:
        return ""
    lines = f"+{more} more line{'s' if more > 1 else ''}"
    names = _names_change(before, after, shown)
    return f" ({lines}: {names})" if names else f" ({lines})"


# `#include` / `#define` are C code, not comments
_COMMENT = re.compile(r"^(?:#(?!\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma)\b)|//|/\*|\*|--|;|<!--|\"\"\"|\'\'\')")  # a docstring too


def _telling(lines: list[str]) -> str:
    """The first line of code, not a comment (a comment says what the edit meant, the code what it
    did: held-out oldtools named a C comment as the fix); past a bare initialisation (`int khz = 0;`
    says nothing of the change), the first call after it (`cudaDeviceGetAttribute(&khz, …)`)."""
    code = [ln for ln in lines if not _COMMENT.match(ln) and not _BARE.match(ln) and not _prose(ln)] or lines
    if _bare_init(code[0]):
        return next((ln for ln in code[1:] if _CALL.search(ln)), code[0])
    return code[0]


_CALL = re.compile(r"\b(?!(?:sizeof|if|for|while|switch|return|alignof|decltype)\b)[A-Za-z_]\w*\s*\(")
_BARE = re.compile(r"^(?:#\s*(?:if|ifdef|ifndef|else|elif|endif)\b.*|[{}()\[\];,]+|(?:else|try|do|end)\s*[:{]?)$")
_DECL_WORD = re.compile(r"[\w:<>*&]+")


def _bare_init(line: str) -> bool:
    """`int khz = 0;`, `x = None`: a declaration with a plain value (no call, no comparison)."""
    lhs, eq, rhs = line.rstrip(";").partition("=")
    words = lhs.split()
    return bool(eq) and bool(words) and not rhs.startswith("=") and all(_DECL_WORD.fullmatch(w) for w in words) \
        and not any(c in rhs for c in "()=")


def _word_change(old: str, new: str) -> str | None:
    """A one-line edit told by the words it changed, when the line is long and most of it stayed
    (`CXXFLAGS := … -I$(CUDA_HOME)/include` → `… -I$(CUDA_HOME)/include/cccl` read the same when
    both were cut at 60 characters)."""
    a, b = old.split(), new.split()
    if len(old) <= 60 and len(new) <= 60:
        return None
    lo = 0
    while lo < min(len(a), len(b)) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < min(len(a), len(b)) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    gone, came = " ".join(a[lo:len(a) - hi]), " ".join(b[lo:len(b) - hi])
    where = short(" ".join(a[:max(lo, 1)]), 40)
    if not gone and came:
        return f"added `{short(came, 70)}` to `{where}…`"
    if gone and not came:
        return f"removed `{short(gone, 70)}` from `{where}…`"
    return f"`{short(gone, 50)}` → `{short(came, 50)}` in `{where}…`" if lo or hi else None


# a name in code (`Retry.DEFAULT_ALLOWED_METHODS`, `cub::Sum`) or a flag (`-rdc=true`, `-lcudadevrt`)
_NAME = re.compile(r"(?<![\w.$/-])(?:[A-Z_][A-Z0-9_]{2,}=[\w.+-]+|[A-Za-z_][\w.-]*(?:/[\w.-]+)+|[A-Za-z][\w.-]*(?:\[[\w,]+\])?(?:==|>=|<=|~=|!=)[\w.*+!-]+|--?[A-Za-z][\w.+-]*(?:=[\w.+/:-]+)?|[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)")
_CODE_LINE = re.compile(r"[=(){}\[\];<>]|^\s*(?:import|from|#\s*include|def|class|return)\b|^\s*-")
_PLAIN = frozenset(["import", "from", "return", "def", "class", "self", "cls", "if", "else", "elif", "for", "while", "in", "not", "and", "or", "is", "None", "True", "False", "const", "int", "void", "char", "auto", "bool", "float", "double", "long", "unsigned", "static", "inline", "struct", "include", "define", "std", "the", "with", "as", "try", "except", "raise", "pass", "lambda", "yield", "async", "await", "print", "len", "str", "dict", "list", "tuple", "set", "new", "delete", "this", "nullptr"])
_NAMES = 4


def _names_change(before: list[str], after: list[str], shown_lines: str) -> str | None:
    """The rest of a many-line edit told by the names it took out and brought in, beyond those of
    the lines shown (`_CappedRetry`, `method_whitelist` → `allowed_methods`, `backoff_max`): heldout5
    depbump, warnerr and isobuild showed one line of a rewrite and "+29 more lines". Comments and
    prose lines are left out."""
    old, new = _code_names(before), _code_names(after)
    came = [n for n in new if n not in old and n not in shown_lines]
    gone = [n for n in old if n not in new and n not in shown_lines]
    if not came and not gone:
        return None
    def shown(names: list[str]) -> str:
        more = f" (+{len(names) - _NAMES} more)" if len(names) > _NAMES else ""
        return ", ".join(f"`{short(n, 40)}`" for n in names[:_NAMES]) + more
    return f"{shown(gone)} → {shown(came)}" if gone and came else f"added {shown(came)}" if came else f"removed {shown(gone)}"


_TRAILING = re.compile(r"\s(?:#(?!\s*(?:include|define)\b)|//).*$|/\*.*?\*/")
_CODEISH = re.compile(r"[_.:\dA-Z]|^-")  # `allowed_methods`, `cub::Sum`, `-rdc=true` before a plain `series`


_CALLED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:(?:\.|::|->)[A-Za-z_]\w*)*)\s*\(")
_IMPORT = re.compile(r"^(?:import|from|#\s*include|using|require)\b")
_NOT_CALLED = frozenset({"if", "for", "while", "switch", "return", "sizeof", "print", "len", "str", "int", "float",
                         "range", "isinstance", "super", "dict", "list", "tuple", "set", "bool", "open", "type"})


def _called(lines: list[str]) -> list[str]:
    """The functions a new file defines and calls, in order of first use (flushzero: the fegetenv /
    fesetenv wrapper around `ctypes.CDLL` said more than its imports `ctypes.util`, `Path`)."""
    return _names_in([ln for ln in lines if not _IMPORT.match(ln)], _CALLED, _NOT_CALLED)


def _code_first(changed: list[str], whole: list[str]) -> list[str]:
    """The changed lines, those of code first (a docstring's lines are known only from the whole text)."""
    code = set(_code_lines(whole))
    return sorted(changed, key=lambda ln: ln not in code)


def _code_names(lines: list[str]) -> list[str]:
    """The names of the code lines (not comments, docstrings or prose), code-like names first,
    each group in order of first use, without keywords and short words."""
    return _names_in(lines, _NAME)


def _names_in(lines: list[str], rx: re.Pattern[str], skip: frozenset[str] = frozenset()) -> list[str]:
    """The names `rx` finds (its group 1, else the match) in the code lines, trailing comments cut,
    code-like names first, each group in order of first use, without keywords and short words."""
    out: dict[str, None] = {}
    for ln in _code_lines(lines):
        for m in rx.finditer(_TRAILING.sub("", ln)):
            n = m.group(1) if rx.groups else m.group(0)
            if len(n) > 2 and n not in _PLAIN and n not in skip:
                out.setdefault(n, None)
    return sorted(out, key=lambda n: not _CODEISH.search(n))


def _code_lines(lines: list[str]) -> list[str]:
    """The lines outside docstrings and block comments that look like code."""
    out, inside, prev = [], "", ""
    for ln in lines:
        if inside:
            inside = "" if inside in ln else inside
            continue
        opener = next((q for q in ('"""', "'''", "/*") if ln.startswith(q)), "")
        prev, was = ln, prev
        if opener and ln == opener and _prose(was):  # a docstring's closing quotes: the edit began inside it
            continue
        if opener:
            close = "*/" if opener == "/*" else opener
            inside = "" if close in ln[len(opener):] else close
            continue
        if not _COMMENT.match(ln) and _CODE_LINE.search(ln) and not _prose(ln):
            out.append(ln)
    return out


_WORD = re.compile(r"[A-Za-z]+[.,;:]?")
_STATEMENT = re.compile(r"(?:import|from|def|class|return|if|elif|for|while|with|raise|assert|#\s*include)\b")


def _prose(line: str) -> bool:
    """A sentence, not code: five or more words, mostly plain ones, no assignment, block or call
    (a docstring's lines when an edit's text starts inside it: heldout5 ccclstd)."""
    words = line.split()
    if len(words) < 5 or re.search(r"[=;{}]|\w\(|[:({,]$|[A-Za-z]_\w|_[A-Za-z]", line) or _STATEMENT.match(line):
        return False
    return sum(1 for w in words if _WORD.fullmatch(w)) >= 0.6 * len(words)


def _lines(text: str) -> list[str]:
    """The lines that say something (not blank, not a lone bracket), stripped; a sed address's
    anchors dropped."""
    return [ln.strip().removeprefix("^").removesuffix("$") for ln in (text or "").splitlines() if len(ln.strip()) > 2]


def changes_between(actions: Sequence[Action], lo: int, hi: int, never_ran: frozenset[int]) -> list[Action]:
    """The state-changing actions with lo < seq < hi (sorted by seq)."""
    return [a for a in actions if lo < a.seq < hi and is_change(a, never_ran)]
