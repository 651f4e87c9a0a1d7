"""Resolution by re-run, noise, the outcome from the goal, pivots from what was said and done.

ARCHITECTURE.md ("Linking"), on top of link/runs.py: a failure seen in run R of target T is resolved at
the first later run of T (or of a target covering T) that passes or no longer shows it; what fixed
it is the change in effect between R and that run that bears on the failure. Failures that are not
the story (probes, expected failures, quotes of old errors) become notes.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set

import polars as pl

from logsleuth.actions.shellparse import TEMP_DIRS, basename, commands
from logsleuth.enums import INSTALLS, PACKAGE_CHANGES
from logsleuth.link.runindex import RunIndex, in_copy, scratch_only
from logsleuth.link.runs import (
    DIAGNOSTIC_ENV,
    DIAGNOSTIC_FLAGS,
    carried_on,
    probe_tool_missing,
    undone_only,
)
from logsleuth.model import (
    NO_SEQ_LIMIT,
    Action,
    ActionKind,
    Episode,
    Finding,
    Outcome,
    Resolution,
    Run,
    RunRole,
    RunStatus,
)

# the changes kept as tried against one failure (the first and the last half of them): a failure
# never fixed in a session of thousands of changes would otherwise list them all, once per failure
MAX_ATTEMPTS = 64


def _first_and_last(forward: Iterator[int], backward: Iterator[int], fixes: Sequence[Action]) -> tuple[Action, ...]:
    """fixes[i] for the first MAX_ATTEMPTS // 2 and the last MAX_ATTEMPTS // 2 of the positions
    (each iterator read only that far), in order, each once."""
    head = list(itertools.islice(forward, MAX_ATTEMPTS // 2))
    tail = [i for i in itertools.islice(backward, MAX_ATTEMPTS // 2) if not head or i > head[-1]]
    return tuple(fixes[i] for i in (*head, *reversed(tail)))

_RECAP = re.compile(
    r"^\s*(This session is being continued from a previous conversation|<summary>|Summary of (the|our) "
    r"(conversation|session)|Previous conversation summary|Here is a summary of|Context from the previous session|"
    r"Analysis:\s*\n|<command-name>/compact)",
    re.I,
)
_EXPECTED = re.compile(
    r"\b(expect(ed|ing)? (it |this |them |the \w+ |the tests? )?to fail|should (still )?fail|as expected|fails as "
    r"expected|confirm(s|ed)? (that )?(it|the tests?) fails?|(red|failing) (phase|test first)|"
    r"tests? (now )?fails? as (expected|intended|planned)|"
    r"fails? because .{0,40}\b(not (yet )?(implemented|written|defined)|doesn't exist yet|does not exist yet)|TDD)\b",
    re.I,
)
_PIVOT_WORDS = re.compile(
    r"\b(instead of (\w+ing|the|a|an|using)\b|rather than|work ?around|work around|fall ?back|switch(ing)? to|bypass|sidestep|"
    r"different approach|another approach|alternative approach|regenerat\w+|rebuild the ptx|avoid(ing)? the need|"
    # a test made to pass round what it found: relaxed, skipped, or aimed at what works
    r"(adjust|relax|loosen|weaken|skip|disable|xfail)\w* (the )?(\w+ ){0,2}(tests?|assertions?|expectations?|checks?)\b"
    r"(?! (setup|fixture|config))|tests? what (actually|currently|already) works)\b",
    re.I,
)
_GAVE_UP = re.compile(
    r"\b(cannot be (fixed|resolved|done)|can(no|')t (be )?(fix|resolve|get (it|this) to)|unable to (fix|resolve|get)|"
    r"still (fails|failing|broken|does not work|doesn't work)|not possible (under|with|without)|blocked (on|by)|"
    r"no way to (fix|satisfy)|impossible (to|under)|could not (fix|resolve|get (it|this) (to )?work)|"
    r"remains? (unresolved|broken)|won't work under)\b",
    re.I,
)
# The agent calling what it did a workaround ("would make the split-ABI workaround unnecessary",
# "as a stopgap until the vendor ships …"): the problem is still there, the goal was reached round it.
_WORKAROUND_SAID = re.compile(
    r"\b(the|this|my|our|a|as a|[\w-]+) work-?arounds?\b|\bworked around\b|\bstop-?gap\b|\btemporary (fix|workaround|hack)\b",
    re.I,
)
_NOT_A_WORKAROUND = re.compile(r"\b(no|without|not|never|instead of|rather than)\s+(\w+\s+){0,2}(work-?around|stop-?gap)",
                               re.I)
# Subjects that bear on a kind of failure although its text does not name them.
_BEARS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"^(LD_LIBRARY_PATH|LD_PRELOAD|LIBRARY_PATH|CUDA_HOME|CUDA_PATH)$"),
     re.compile(r"\.so\b|shared object|shared librar|undefined symbol|libcu|libnv|cannot find -l", re.I)),
    (re.compile(r"^(CUDA_HOME|CUDA_PATH|PATH|CUDACXX|NVCC|CUDA_ROOT|CUDA_TOOLKIT_ROOT_DIR)$"),
     re.compile(r"nvcc|cuda|ptxas|toolkit", re.I)),
    (re.compile(r"^(TORCH_CUDA_ARCH_LIST|CUDA_ARCH|CUDAARCHS|CMAKE_CUDA_ARCHITECTURES|ARCH|SM|GPU_ARCH)$"),
     re.compile(r"sm_\d|compute_\d|arch|ptx|capabilit", re.I)),
    (re.compile(r"^(CC|CXX|CUDAHOSTCXX|NVCC_CCBIN|CPATH|C_INCLUDE_PATH|CPLUS_INCLUDE_PATH|CFLAGS|CXXFLAGS|LDFLAGS)$"),
     re.compile(r"compiler|gcc|g\+\+|clang|\.h\b|header|include|unsupported|#error", re.I)),
    (re.compile(r"^(PYTHONPATH|VIRTUAL_ENV|PYTHONHOME)$"),
     re.compile(r"No module named|ModuleNotFound|ImportError|cannot import", re.I)),
)
_PROJECT_FILE = re.compile(
    r"(Makefile|CMakeLists\.txt|setup\.py|setup\.cfg|pyproject\.toml|requirements[\w.-]*\.txt|\.(cu|cuh|c|cc|cpp|h|hpp|py|rs|go|"
    r"js|ts|tsx|jsx|ex|exs|toml|cfg|ini|ya?ml|json|mk|sh|ptx|lock))$"
)


# ---------------------------------------------------------------- noise


def split_notes(
    main: Sequence[Finding], idx: RunIndex, events: pl.DataFrame, written: Sequence[tuple[int, str]] = ()
) -> tuple[list[Finding], list[Finding]]:
    """(story failures, notes). Notes: failures of investigations and probes (unless a goal run shows
    the same failure), what a goal run that passed reported on its way (a fallback's "no device"),
    failures the agent announced it expected of a test, quotes of old errors in
    recaps and user messages. A user pasting a new error is the first occurrence of that failure."""
    if not idx.goals:  # nothing we can tell a goal by: every failure stays in the story
        return list(main), []
    texts = _prose(events)
    recap = _recaps(events)
    # a run in a throwaway folder that meets a condition the project's own goal runs show is the
    # probe of a known failure (heldout4 glibcpin: a binary under /tmp/nvqprobe met the loader's form
    # of the link error); one that finds a new condition found a failure of the project (rec-ptxpack:
    # `cd /tmp && ptxas kernels/ptx/saxpy.ptx` first showed the PTX too new)
    in_project = any(not in_copy(r) for r in idx.goals)
    copy = {f.seq for f in main if in_project and (r := idx.at.get(f.seq)) is not None and in_copy(r)}
    key_in_goal = {(f.pattern, f.fingerprint) for f in main
                   if _role_at(idx, f.seq) is RunRole.GOAL and not undone_only(idx.at[f.seq]) and f.seq not in copy}
    shown_in_goal = {f.category for f in main if _role_at(idx, f.seq) is RunRole.GOAL and f.seq not in copy}
    keep: list[Finding] = []
    notes: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for f in main:
        key = (f.pattern, f.fingerprint)
        run = idx.at.get(f.seq)
        note = False
        if f.seq in recap or carried_on(f) or _own_message(f, written):
            note = True  # a quote of an old error; or a program saying it went on without it ("… skipped (…)")
        elif run is None:
            note = key in seen  # a quote of an error already in the story
        elif f.seq in copy and key not in key_in_goal and (f.category in shown_in_goal or _names_temp(f.text)
                                                          or all(_names_temp(t.name) for t in run.targets)):
            # a known condition met again, or the probe's own artifact failing (`ptxas /tmp/k13.ptx`;
            # heldout7 gauge: `gcc -m32 /tmp/m32.c` to see whether 32-bit code links at all)
            note = True
        elif run.role is RunRole.INVESTIGATION or undone_only(run):
            # an experiment the same call undid met its own conditions, not the goal's
            note = key not in key_in_goal
        elif typed_probe_missing(f, run):
            note = True
        elif run.role is RunRole.GOAL and (run.status is RunStatus.PASSED or _expected(f, run, texts)):
            note = True  # a condition a passing run reported and got past, or a failure it expected
        (notes if note else keep).append(f)
        if not note:
            seen.add(key)
    return keep, notes




def _names_temp(text: str) -> bool:
    """The failure's first line is about a file in a temp folder (the probe's own artifact)."""
    head = text.strip().split("\n", 1)[0]
    return any(d in head for d in TEMP_DIRS)


def _own_message(f: Finding, written: Sequence[tuple[int, str]]) -> bool:
    """The failure's message is one the agent itself wrote into a file before it showed (its new
    `$(error nvcc not found on PATH …)` exercised on purpose, or the edit's own diff printed back):
    the agent checking its error path, not the project failing (held-out cudahome2)."""
    line = f.text.strip().split("\n", 1)[0]
    words = line.split()
    if len(words) < 5:
        return False
    before = "\n".join(m for seq, text in written if seq <= f.seq for m in _raised(text))
    return bool(before) and any(" ".join(words[i:i + 5]) in before for i in range(len(words) - 4))


# the messages a written file raises on purpose: make's $(error …), Python's raise/sys.exit, a shell's echo >&2
_RAISES = re.compile(r"\$\((?:error|warning)\s+([^)\n]+)\)|\braise\s+\w+\(\s*[rfbu]?[\"']([^\"'\n]+)"
                     r"|\bsys\.exit\(\s*[rf]?[\"']([^\"'\n]+)|\becho\s+[\"']([^\"'\n]+)[\"']\s*>&2")


def _raised(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _RAISES.finditer(text)]


def typed_probe_missing(f: Finding, run: Run) -> bool:
    """A program the agent typed to look with is missing (link.runs.probe_tool_missing)."""
    return probe_tool_missing(f, run.targets, run.command)


def acted_on(notes: Sequence[Finding], fixes: Sequence[Action], idx: RunIndex) -> list[Finding]:
    """The probe failures the agent then acted on: a change before the next goal run writes what
    the failure names (a dry run's `No matching distribution found for pytest==8.3.6`, then the
    pin edited in requirements-dev.txt). The probe found a failure of the project: a story step."""
    out = []
    for f in notes:
        run = idx.at.get(f.seq)
        if run is None or run.role is not RunRole.INVESTIGATION:
            continue
        nxt = next((r.seq for r in idx.goals_after(run.end)), NO_SEQ_LIMIT)
        low = f.text.lower()
        if any(run.end < a.seq < nxt and a.kind is ActionKind.FILE_EDIT and _bears(a, low, f.text) for a in fixes):
            out.append(f)
    return out


def split_slips(main: Sequence[Finding], fixes: Sequence[Action], idx: RunIndex) -> tuple[list[Finding], list[Finding]]:
    """(story failures, slips). A slip: a failure located inside a file the agent edited just
    before (`include/vecops.h(30): error: expected a declaration` after an edit of vecops.h), seen
    once, whose target ran again without it: the agent's own typo, taken back at once, is not a
    step of the story, and the run that showed it does not count as the earlier failure's fix."""
    count: dict[tuple[str, str], int] = {}
    for f in main:
        count[(f.pattern, f.fingerprint)] = count.get((f.pattern, f.fingerprint), 0) + 1
    edits = [a for a in fixes if a.kind is ActionKind.FILE_EDIT]
    keep: list[Finding] = []
    slips: list[Finding] = []
    for f in main:
        run = idx.at.get(f.seq)
        prev = keep[-1].seq if keep else -1
        names = {a.subject.rsplit("/", 1)[-1] for a in edits if run is not None and prev < a.seq <= run.seq}
        head = f.text.strip().split("\n", 1)[0]  # the cause; a wrapper's `Makefile:25` is make's own recipe
        inside = any(n and re.search(rf"(?<![\w.-]){re.escape(n)}(:\d+|\(\d+\))", head) for n in names)
        again = run is not None and next(idx.covering_after(run.targets, run.end), None) is not None
        if (inside and again and count[(f.pattern, f.fingerprint)] == 1 and run is not None and run.role is RunRole.GOAL
                and not _VERDICT.search(f.text) and _takes_back(edits, names, prev, run.seq, f.seq)):
            slips.append(f)
        else:
            keep.append(f)
    return keep, slips


# A test's verdict on the code under test, located in the test file just written: not a slip of the
# edit (the file ran), a failure of what it tests.
_VERDICT = re.compile(r"\bassert(ion)?\b|AssertionError|Assertion with|expected .{1,80} (but )?got\b|\bto(Be|Equal)\(", re.I)


def _takes_back(edits: Sequence[Action], names: Set[str], lo: int, run_seq: int, seq: int) -> bool:
    """The next edit of the file changes what the edits before the failure wrote (the agent's own
    typo, taken back), not what was there before them (`CUDA::cublas` the project always linked).
    Where that edit does not say what it replaced, it counts as taken back."""
    def of_file(a: Action) -> bool:
        return a.subject.rsplit("/", 1)[-1] in names

    wrote = "\n".join(a.added for a in edits if lo < a.seq <= run_seq and of_file(a))
    nxt = next((a for a in edits if a.seq > seq and of_file(a)), None)
    if nxt is None:
        return True
    replaced = nxt.removed
    lines = [ln.strip().strip("^$") for ln in replaced.splitlines()]
    return not replaced.strip() or any(len(ln) >= 4 and ln in wrote for ln in lines)


def _role_at(idx: RunIndex, seq: int) -> RunRole | None:
    run = idx.at.get(seq)
    return run.role if run is not None else None


def _prose(events: pl.DataFrame) -> list[tuple[int, str]]:
    prose = events.filter(
        (pl.col("role").cast(pl.Utf8) == "assistant") & pl.col("kind").cast(pl.Utf8).is_in(["text", "reasoning"])
    )
    return list(zip(prose["seq"].to_list(), prose["text"].fill_null("").to_list(), strict=True))


def _recaps(events: pl.DataFrame) -> set[int]:
    users = events.filter(pl.col("role").cast(pl.Utf8).is_in(["user", "system"]) & (pl.col("kind").cast(pl.Utf8) == "text"))
    return {s for s, t in zip(users["seq"].to_list(), users["text"].fill_null("").to_list(), strict=True) if _RECAP.search(t[:400])}


def _expected(f: Finding, run: Run, prose: Sequence[tuple[int, str]]) -> bool:
    """A test the agent ran expecting it to fail (the red step of red-green): said just before the
    run, or "as expected" just after its result. Only test failures: an obstacle the agent foresaw
    ("I expect it to fail because CUDA_HOME is empty") is still a failure of the story."""
    if not any(t.prog in ("pytest", "unittest", "cargo-test", "go-test", "mix-test", "npm-test", "jest") for t in run.targets):
        return False
    seqs = [s for s, _ in prose]
    i = bisect.bisect_left(seqs, run.seq)
    before = [t for _, t in prose[max(0, i - 2) : i]]
    j = bisect.bisect_right(seqs, run.end)
    after = [t for s, t in prose[j : j + 1] if s - run.end <= 3]
    return any(_EXPECTED.search(t) for t in (*before, *after))


# ---------------------------------------------------------------- resolution

_MAKE_DRY = re.compile(r"^-[A-Za-z]*n[A-Za-z]*$")  # make's -n inside combined short flags: `make -pn`


def dry_build(command: str) -> bool:
    """`make -pn`, `nvcc --dryrun`, `ninja -n`: a build that prints what it would do, and does nothing."""
    words = command.split()
    if not words:
        return False
    make = basename(words[0]) in ("make", "gmake", "ninja")
    # `make -f Makefile -f - print <<EOF`: a rule read from stdin that prints what the Makefile
    # worked out (held-out cudahome2: such a look was a line of the recipe)
    stdin_rule = make and any(w in ("-f", "--file", "--makefile") and n in ("-", "/dev/stdin")
                              for w, n in itertools.pairwise(words[1:]))
    return stdin_rule or any(w in _DRY_RUN_WORDS or (make and _MAKE_DRY.match(w) is not None) for w in words[1:])


_DRY_RUN_WORDS = frozenset({"--dry-run", "--dryrun", "--just-print", "--recon", "--what-if", "--no-act"})


def is_diagnostic(a: Action) -> bool:
    """A variable or flag that only shows more: no change."""
    if a.kind in (ActionKind.ENV_SET, ActionKind.ENV_UNSET):
        return bool(DIAGNOSTIC_ENV.match(a.subject))
    if a.kind in (ActionKind.FLAG_ADDED, ActionKind.FLAG_REMOVED, ActionKind.FLAG_CHANGED):
        return a.subject in DIAGNOSTIC_FLAGS
    return False


def resolve(
    episodes: Sequence[Episode],
    idx: RunIndex,
    fixes: Sequence[Action],
    pivots: Sequence[Action] = (),
    slips: Set[int] = frozenset(),
    requested: Sequence[str] = (),
) -> dict[str, Resolution]:
    """Each episode's resolution: the first later run of its target (or a covering one) that passed
    or no longer showed it (a run that only showed a slip does not count), else the first later
    goal run that passed; what fixed it is the change between the failing run and that run that
    bears on the failure."""
    fixes = sorted({a.id: a for a in (*fixes, *pivots)}.values(), key=lambda a: a.seq)
    fix_seqs = [a.seq for a in fixes]
    pivot_ids = {p.id for p in pivots}
    main = main_targets(idx, requested)

    def changed(lo: int, hi: int) -> bool:
        return any_between(fix_seqs, lo, hi)

    out: dict[str, Resolution] = {}
    for ep in episodes:
        occ = ep.occurrences
        at_last = _resolver(ep, occ[-1], idx, slips=slips, main=main, changed=changed)
        fixed: tuple[Action, ...] = ()
        held: bool | None = None
        if at_last is not None:
            start = _run_start(idx, occ[-1])
            window = between(fixes, fix_seqs, start, at_last.seq + 1)
            fixed = (*_rerun_changes(idx.at.get(occ[-1]), at_last, ep), *_bearing(window, ep, pivot_ids))
            fixed = (*fixed, *_made_permanent(fixed, at_last, fixes))
            held = True if fixed else None
        else:  # never resolved at the end: did an earlier occurrence clear for a while?
            for k in range(len(occ) - 1):
                r = _resolver(ep, occ[k], idx, before=occ[k + 1], slips=slips, main=main, changed=changed)
                if r is not None:
                    window = between(fixes, fix_seqs, _run_start(idx, occ[k]), r.seq + 1)
                    fixed = _bearing(window, ep, pivot_ids) or fixed
                    held = False if fixed else held
        first_run = _run_start(idx, occ[0])
        stop = at_last.seq + 1 if at_last is not None else NO_SEQ_LIMIT
        fixed_ids = {a.id for a in fixed}
        span = range(bisect.bisect_right(fix_seqs, first_run), bisect.bisect_left(fix_seqs, stop))
        tried = _first_and_last((i for i in span if fixes[i].id not in fixed_ids),
                                (i for i in reversed(span) if fixes[i].id not in fixed_ids), fixes)
        out[ep.id] = Resolution(ep.id, at_last.seq if at_last else None, fixed, held, tuple(tried))
    return out


def _rerun_changes(failed: Run | None, passed: Run, ep: Episode) -> tuple[Action, ...]:
    """The flags the re-run added or dropped (`git push` -> `git push --set-upstream origin b`), and
    the operand the failure named given again by another path (`git add _build/…/x.exs` beyond a
    symlink, then `git add priv/…/x.exs`): changes in effect like any other, made on the command
    line of the run that passed."""
    if failed is None:
        return ()
    f = ep.first
    moves: list[tuple[ActionKind, str, str | None]] = []
    command = " ".join(passed.targets[0].argv)[:300] if passed.targets and passed.targets[0].argv else passed.command[:300]
    for b in failed.targets:
        a = next((a for a in passed.targets if a.covers(b) and a.argv and b.argv), None)
        if a is None or a.argv == b.argv:
            continue
        moves = [(ActionKind.FLAG_ADDED, x, _value_after(a.argv, x))
                 for x in a.argv[1:] if x.startswith("-") and x not in b.argv and x not in DIAGNOSTIC_FLAGS]
        moves += [(ActionKind.FLAG_REMOVED, x, None)
                  for x in b.argv[1:] if x.startswith("-") and x not in a.argv and x not in DIAGNOSTIC_FLAGS]
        command = " ".join(a.argv)[:300]
        break
    moves += [(ActionKind.FLAG_CHANGED, o, n) for o, n in _corrected_operands(_operands(failed), _operands(passed), f.text)]
    return tuple(Action(kind, name, value, f.session, passed.seq, f.source, f.line, command, raw=passed.command)
                 for kind, name, value in moves)


def _operands(run: Run) -> tuple[str, ...]:
    """Every operand of every command of the call (`git add a b && git add c`), in order."""
    return _operands_of(run.command)


@functools.lru_cache(maxsize=4096)
def _operands_of(command: str) -> tuple[str, ...]:
    # parsed once per call: each failure asks it of every later run of its target
    return tuple(x for c in commands(command) for x in c.argv[1:] if not x.startswith("-"))


def _made_permanent(fixed: Sequence[Action], run: Run, fixes: Sequence[Action]) -> tuple[Action, ...]:
    """A fix given on the command line of the run that passed (`make CUDA_HOME=/usr/local/cuda`,
    `FOO=1 pytest`) holds for that run only; the later edit that writes the same setting into a
    file (`CUDA_HOME ?= /usr/local/cuda` in the Makefile) is what makes it last."""
    names: set[str] = set()
    for a in fixed:
        if a.seq != run.seq:
            continue
        if a.kind in (ActionKind.ENV_SET, ActionKind.ENV_UNSET):
            names.add(a.subject)
        names.update(re.findall(r"(?<![\w-])([A-Z][A-Z0-9_]{2,})=", a.command))
    if not names:
        return ()
    rx = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    return tuple(a for a in fixes if a.seq > run.seq and a.kind is ActionKind.FILE_EDIT and rx.search(a.raw or a.command))[:1]


def _value_after(argv: Sequence[str], flag: str) -> str | None:
    i = argv.index(flag)
    nxt = argv[i + 1] if i + 1 < len(argv) else None
    return nxt if nxt is not None and not nxt.startswith("-") else None


def _run_start(idx: RunIndex, seq: int) -> int:
    run = idx.at.get(seq)
    return run.seq if run is not None else seq


def main_targets(idx: RunIndex, requested: Sequence[str]) -> frozenset[str]:
    """The session's goal: the targets the user named, else its most frequent goal target."""
    if requested:
        return frozenset(requested)
    counts: dict[str, int] = {}
    for r in idx.goals:
        for t in r.targets:
            if not t.scratch:
                counts[t.name] = counts.get(t.name, 0) + 1
    return frozenset([max(sorted(counts), key=lambda n: counts[n])]) if counts else frozenset()


def _resolver(
    ep: Episode,
    seq: int,
    idx: RunIndex,
    before: int = NO_SEQ_LIMIT,
    slips: Set[int] = frozenset(),
    main: Set[str] = frozenset(),
    changed: Callable[[int, int], bool] = lambda lo, hi: True,
) -> Run | None:
    run = idx.at.get(seq)
    occ = set(ep.occurrences)
    start = bisect.bisect_right(idx.goal_seqs, run.end if run is not None else seq)
    # the goal runs it never came back after: from its last occurrence on (bisected, not scanned)
    settled = max(start, bisect.bisect_left(idx.goal_seqs, max(occ, default=-1)))

    def cleared(r: Run, rerun: bool) -> bool:
        """r no longer shows it: it passed, or it failed otherwise after a change (a run that fails
        earlier, with nothing changed, only hid it); a re-run's own new flags are a change."""
        if r.status is RunStatus.UNKNOWN or r.result_seq in occ or r.result_seq in slips:
            return False
        if r.status is RunStatus.PASSED and _still_shows(ep, idx.outputs.get(r.result_seq or -1, "")):
            return False
        if rerun and run is not None and _drops_named_operand(run, r, ep):
            return False
        if r.status is RunStatus.PASSED or run is None or changed(run.seq, r.seq + 1):
            return True
        argv = {t.argv for t in run.targets}
        return rerun and any(t.argv not in argv for t in r.targets)

    if run is not None and run.targets:
        for r in idx.covering_after(run.targets, run.end, before):
            if cleared(r, rerun=True):
                return r
    # its target never ran again: the next run of the session's goal that no longer shows it (a
    # probe's failure is gone when the goal that met it runs without it) ...
    if main and not any(t.name in main for t in (run.targets if run is not None else ())):
        for i in idx.positions(("main", *sorted(main)), settled):
            r = idx.goals[i]
            if r.seq >= before:
                break
            if cleared(r, rerun=False):
                return r
    for i in idx.positions(("passed",), settled):  # ... else the first goal run that passed, if it never came back
        r = idx.goals[i]
        return r if r.seq < before else None
    return None


def _still_shows(ep: Episode, output: str) -> bool:
    """A 'passing' run that prints the failure's own telling line again (its exit status was a
    filter's) did not clear it."""
    if not output:
        return False
    line = ep.first.text.strip().split("\n", 1)[0].strip()
    return len(line) >= 16 and line in output


def _drops_named_operand(failed: Run, rerun: Run, ep: Episode) -> bool:
    """The re-run left out the operand the failure named (`git add a b c.css` refused the ignored
    `c.css`'s folder; `git add a b` then passed): it went round the failure, it did not clear it."""
    text = ep.first.text
    if not {x for t in rerun.targets for x in t.argv[1:] if not x.startswith("-")}:
        return False  # a bare `make` / `pytest` runs its whole default set, the named operand included
    after = set(_operands(rerun))
    bases = {basename(x) for x in after}
    return any(len(o) >= 4 and o not in after and basename(o) not in bases and _named_in(o, text) for o in _operands(failed))


def _corrected_operands(before: Sequence[str], after: Sequence[str], text: str) -> list[tuple[str, str]]:
    """(operand the failure named, the operand given instead): same file name, another path."""
    new = [n for n in after if n not in before]
    out = []
    for o in before:
        if o in after or len(o) < 4 or not _named_in(o, text):
            continue
        n = next((n for n in new if basename(n) == basename(o)), None)
        if n is not None:
            out.append((o, n))
    return out


def _named_in(operand: str, text: str) -> bool:
    """The failure's text names the operand, or a folder of its path (`priv/static/assets`)."""
    parts = operand.rstrip("/").split("/")
    return operand in text or ("/" in operand and any("/".join(parts[:k]) in text for k in range(2, len(parts))))


def any_between(seqs: Sequence[int], lo: int, hi: int) -> bool:
    """Is any of the sorted `seqs` in lo < seq < hi (a change between two runs)?"""
    return bisect.bisect_right(seqs, lo) < bisect.bisect_left(seqs, hi)


def between(items: Sequence[Action], seqs: Sequence[int], lo: int, hi: int) -> list[Action]:
    """The items (sorted by seq, `seqs` their seqs) with lo < seq < hi: bisect, not a scan, since
    this runs once per failure occurrence of sessions with thousands of attempts."""
    return list(items[bisect.bisect_right(seqs, lo) : bisect.bisect_left(seqs, hi)])


def _bearing(window: Sequence[Action], ep: Episode, pivot_ids: set[str]) -> tuple[Action, ...]:
    """The changes of `window` that bear on the failure: named by its text, or of a kind that
    bears on its kind (LD_LIBRARY_PATH on a missing .so); else edits of the project's files. When
    none does, every change of the window stands (the reader sees them all)."""
    if not window:
        return ()
    text = "\n".join(f.text for f in ep.findings[:3]) + "\n" + " ".join(
        v for f in ep.findings[:3] for v in f.captures.values()
    )
    low = text.lower()
    # a change of approach bears on every failure it gets past (`--disable-cuda-graph` skips the JIT)
    pivots = [a for a in window if a.id in pivot_ids]
    named = [a for a in window if a.id not in pivot_ids and _bears(a, low, text)]
    # an edit of a project file bears when nothing in the window is named by the failure
    project = [a for a in window if a.id not in pivot_ids and a.kind is ActionKind.FILE_EDIT
               and _PROJECT_FILE.search(a.subject)]
    picked = {a.id for a in (*pivots, *(named or project))}
    # a rebuild the failure names (`make -C libfastjoin`, `pip install -e .`) applies the project's
    # edits since: those are the change (held-out fastjoin: setup.py's runtime_library_dirs)
    if named and all(_rebuild(a) for a in named):
        picked |= {a.id for a in project}
    # `pip install -r requirements.txt` applies the pins edited in that file since: the edit is the fix too
    files = {a.subject.rsplit("/", 1)[-1] for a in window if a.id in picked and a.kind in INSTALLS and not a.value}
    picked |= {a.id for a in window if a.kind is ActionKind.FILE_EDIT and a.subject.rsplit("/", 1)[-1] in files}
    return tuple(a for a in window if a.id in picked) if picked else tuple(window)




def _rebuild(a: Action) -> bool:
    """A build of the project, or an install of a local folder: it applies edits, it is not one."""
    local = a.subject in (".", "./") or a.subject.startswith(("./", "/"))
    return a.kind is ActionKind.BUILD or (a.kind in INSTALLS and local)


_DISTINCT = re.compile(r"(?:/[\w.+\-]+){2,}|(?<=['`\"])[\w.+\-/]{4,}(?=['`\"])|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
                       r"|\b[A-Za-z][\w.\-]*==[\w.+!]+")  # and pins: `pytest==8.3.6`


_SOURCE_FILE = re.compile(r"(?<![\w.-])([\w+-]+\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp|py|rs|go|ex|exs|ts|tsx|js|java|kt))"
                          r"(?=[:(]\d|:\(|\b)")


def _distinctive(text: str) -> set[str]:
    """Tokens of a failure's text that an edit fixing it would write: paths, quoted names, ENV_VARS."""
    out = set()
    for t in _DISTINCT.findall(text[:4000]):
        if len(t) < 4:
            continue
        out.add(t)
        parts = t.split("/")
        if t.startswith("/"):  # `/usr/local/cuda-13.1/bin/ptxas` is fixed by writing `/usr/local/cuda-13.1`
            out.update("/".join(parts[:k]) for k in range(4, len(parts)))
    return out


def _bears(a: Action, low: str, text: str) -> bool:
    subject = a.subject.lower()
    if a.kind in (ActionKind.ENV_SET, ActionKind.ENV_UNSET):
        if subject in low:
            return True
        return any(name.match(a.subject) and kind.search(text) for name, kind in _BEARS)
    if a.kind is ActionKind.FILE_EDIT:
        base = subject.rsplit("/", 1)[-1]
        if base and base in low:
            return True
        # the edit writes what the failure names (`/usr/local/cuda-13.1`): a shell edit by its own
        # command, not the whole call it shares with others; an edit tool by its input
        change = a.raw if a.command.startswith("edit ") or "<<" in a.command else a.command
        # or it writes a source file the failure names (`set_source_files_properties(src/engine_io.cpp …)`
        # in CMakeLists.txt for `engine_io.cpp:(.text+0x14): undefined reference …`)
        return any(tok in change for tok in _distinctive(text)) or any(
            re.search(rf"(?<![\w.-]){re.escape(name)}\b", change) for name in set(_SOURCE_FILE.findall(text)))
    names = {subject, subject.replace("-", "_"), subject.replace("_", "-")}
    if any(len(n) > 2 and any(c.isalpha() for c in n) and n in low for n in names):  # not a build's `.`
        return True
    return a.kind in PACKAGE_CHANGES and bool(
        re.search(r"No module named|ModuleNotFound|ImportError|version|requires|incompatib|conflict|not found|undefined symbol", text, re.I)
    )


# ---------------------------------------------------------------- outcome, pivots, root cause


def goal_passed(
    episodes: Sequence[Episode], resolutions: Mapping[str, Resolution], idx: RunIndex, requested: Sequence[str]
) -> tuple[bool, Run | None]:
    """(did the goal pass, the first goal run that passed after the last failure). The final runs
    of the targets the user asked for, else the session's last goal run, must pass, and no failure
    of the story may be left unresolved."""
    goals = tuple(r for r in idx.goals if not scratch_only(r))
    finals = [
        last
        for name in requested
        if (last := next((r for r in reversed(goals) if any(t.name == name for t in r.targets)), None)) is not None
    ]
    open_eps = any(resolutions[ep.id].at is None for ep in episodes)
    if finals:
        passed = all(r.status is RunStatus.PASSED for r in finals) and not open_eps
    else:
        passed = not open_eps and (not goals or goals[-1].status is not RunStatus.FAILED)
    if not passed:
        return False, None
    last_fail = max((ep.occurrences[-1] for ep in episodes), default=-1)
    after = [r for r in goals if r.seq > last_fail and r.status is RunStatus.PASSED]
    # the success to show is the asked-for target's (`pytest` passing), not a step on the way to it
    # (`pip install -r requirements.txt` printing "Successfully installed")
    asked = next((r for r in after if any(t.name in requested for t in r.targets)), None) if finals else None
    return True, asked or next(iter(after), None)


def outcome_from_goal(passed: bool, episodes: Sequence[Episode], worked_around: bool, closing: str) -> Outcome:
    """Resolved: the goal passed; worked around: only after a pivot or a catch-22; unresolved
    otherwise. The agent's closing words may lower the verdict, never raise it."""
    if not passed:
        return Outcome.UNRESOLVED
    if closing and _GAVE_UP.search(closing):
        return Outcome.UNRESOLVED
    said = bool(closing) and any(not _NOT_A_WORKAROUND.search(closing[max(0, m.start() - 40) : m.end()])
                                 for m in _WORKAROUND_SAID.finditer(closing))
    return Outcome.WORKED_AROUND if episodes and (worked_around or said) else Outcome.RESOLVED


def closing_words(events: pl.DataFrame, after: int) -> str:
    """The agent's prose after the last run: its conclusion."""
    prose = events.filter(
        (pl.col("role").cast(pl.Utf8) == "assistant") & (pl.col("kind").cast(pl.Utf8) == "text") & (pl.col("seq") > after)
    )
    return "\n".join(str(t or "") for t in prose["text"].to_list()[-3:])


def worded_pivots(
    events: pl.DataFrame,
    changes: Sequence[Action],
    idx: RunIndex,
    first_failure: int,
    failing_texts: Iterable[str],
) -> list[Action]:
    """Changes of approach the agent announced ("instead of", "rather than", "work around", "switch
    to", "fall back") right before a change, and artifacts regenerated in place of a toolchain fix: a
    build whose output is a file a failure named (`nvcc -ptx k.cu -o k.ptx` after ptxas rejected k.ptx)."""
    prose = _prose(events)
    seqs = [s for s, _ in prose]
    named = "\n".join(failing_texts)
    out: list[Action] = []
    by_seq: dict[int, list[Action]] = {}
    for a in changes:
        if a.seq > first_failure and (a.kind.is_fix or a.kind is ActionKind.BUILD) and not is_diagnostic(a):
            by_seq.setdefault(a.seq, []).append(a)
    prev_run_end = -1
    for run in idx.runs:
        acts = by_seq.get(run.seq)
        if acts:
            i = bisect.bisect_right(seqs, max(prev_run_end, first_failure))
            j = bisect.bisect_left(seqs, run.seq)
            said = any(_announces_pivot(t) for _, t in prose[i:j])
            regen = any(_regenerates(a, named) for a in acts)
            if said or regen:
                out.append(acts[0])
        prev_run_end = run.end
    return out


_INTENT = re.compile(r"\b(I|I'll|I will|I'm going to|let me|let's|we|we'll|we will|try|trying|going to|plan)\b", re.I)


def _announces_pivot(text: str) -> bool:
    """A sentence where the agent says it will change approach ("let me work around it", "I'll
    regenerate the PTX instead"), not one describing what code does ("it falls back to CPU")."""
    return any(_INTENT.search(c) and any(not _NEGATED.search(c[max(0, m.start() - 30) : m.start()])
                                         for m in _PIVOT_WORDS.finditer(c))
               for s in re.split(r"(?<=[.!?:])\s+|\n+", text) for c in _CLAUSE.split(s))


# "I will not fake it (no CPU fallback, no skip)": a way out refused, not taken
_NEGATED = re.compile(r"\b(no|not|never|without|won't|don't|do not|will not|rather not)\b[^.;:]*$", re.I)


# A purpose or reason clause says what a change does, not that the approach changes ("I'll add
# -Wl,--no-undefined so a missing symbol fails the link instead of the tests").
_CLAUSE = re.compile(r";\s*|,?\s+\b(?:so that|so|which|because|since|whereas)\b\s+", re.I)


def _regenerates(a: Action, failing: str) -> bool:
    if a.kind is not ActionKind.BUILD:
        return False
    m = re.search(r"(?:^|\s)-o\s*(\S+\.(?:ptx|cubin|fatbin|so|o))\b", a.raw or a.command)
    if not m:
        return False
    out = m.group(1).rsplit("/", 1)[-1]
    return out in failing and re.search(r"\s-(ptx|cubin|fatbin)\b", a.raw or a.command) is not None


def root_cause(
    episodes: Sequence[Episode], resolutions: Mapping[str, Resolution], catch22_trap: str | None, outcome: Outcome
) -> str | None:
    """The failure the outcome hinges on: the trap of a catch-22, else the last unresolved failure
    of an unresolved session, else the failure that held the session longest, or among equals the
    first, whose fix unlocked the rest."""
    if catch22_trap is not None:
        return catch22_trap
    if not episodes:
        return None
    if outcome is Outcome.UNRESOLVED:
        open_eps = [ep for ep in episodes if resolutions[ep.id].at is None]
        if open_eps:
            return max(open_eps, key=lambda e: e.occurrences[-1]).id
    # the failure that held the session longest: most occurrences, then (when the goal was reached only
    # round something) most attempts, the failure it hinged on; among equals the earliest, whose fix let
    # the build reach the others (heldout7 rdclink: the missing -rdc=true, not the duplicate symbols it
    # revealed and that took more attempts; rec-int8cal: the ABI split a workaround got round)
    tried = outcome is Outcome.WORKED_AROUND
    return max(episodes, key=lambda e: (len(e.occurrences), len(resolutions[e.id].attempts) if tried else 0,
                                        -e.occurrences[0])).id


def runs_of(events: pl.DataFrame, findings: Sequence[Finding]) -> RunIndex:
    from logsleuth.link.runs import extract_runs

    runs = extract_runs(events, findings)
    # what a passing goal run printed: a run whose exit status was lost (`pytest | head -30; pip list`)
    # and which still prints the error it would resolve did not clear it
    passed = [r.result_seq for r in runs if r.role is RunRole.GOAL and r.status is RunStatus.PASSED and r.result_seq is not None]
    outputs = {} if not passed else {
        seq: (text or "")[:20_000]
        for seq, text in events.filter(pl.col("seq").is_in(passed)).select("seq", "text").iter_rows()
    }
    return RunIndex.of(runs, outputs)
