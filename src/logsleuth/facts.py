"""The facts stage: what a session states about itself, computed once before any report is written.

The goal (the user's first requests), the machine (GPUs, driver, CUDA, nvcc, hosts), the stack
(package versions), the span of time, what the session established (versions resolved, versions
that cannot be installed, searches that found something or nothing) and the knowledge-table rows
its captured values touch. Machine and version facts are read by the library's fact patterns
(`patterns/_facts`, `library.fact_patterns`); renderers read `SessionFacts` and never the text.
Everything cites the event it came from; nothing reads the wall clock.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from logsleuth.actions.packages import spec_code
from logsleuth.clip import first_lines, short
from logsleuth.enums import INSTALLS
from logsleuth.ingest.base import harness_text
from logsleuth.library.fact_patterns import FactLibrary, builtin_facts
from logsleuth.link.roles import builtin_roles
from logsleuth.model import Action, ActionKind, Finding

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Cited:
    """A statement and the event that supports it."""

    text: str
    seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class Established:
    """A fact the session established, with the action that established it (`by`)."""

    text: str
    seq: int
    by: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class Gpu:
    name: str
    count: int  # the most seen in one listing
    seq: int  # where first seen

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "count": self.count, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class Host:
    name: str  # a host, or "container N"
    seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class Machine:
    gpus: tuple[Gpu, ...] = ()
    driver: Cited | None = None
    cuda: Cited | None = None  # as the driver reports it
    nvcc: Cited | None = None  # the last nvcc seen
    hosts: tuple[Host, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpus": [g.to_dict() for g in self.gpus],
            "driver": self.driver.to_dict() if self.driver else None,
            "cuda": self.cuda.to_dict() if self.cuda else None,
            "nvcc": self.nvcc.to_dict() if self.nvcc else None,
            "hosts": [h.to_dict() for h in self.hosts],
        }


@dataclass(frozen=True, slots=True)
class PackageVersion:
    package: str
    version: str
    seq: int
    how: str  # "shown" (pip show), "found" (a dist-info folder), "installed" (an install resolved it)

    def to_dict(self) -> dict[str, Any]:
        return {"package": self.package, "version": self.version, "seq": self.seq, "how": self.how}


@dataclass(frozen=True, slots=True)
class Span:
    """First and last timestamp, the minutes between them (`span_minutes`), distinct timestamps."""

    start: datetime | None = None
    end: datetime | None = None
    minutes: int | None = None
    stamps: int = 0

    @property
    def words(self) -> str:
        return human_minutes(self.minutes, self.stamps)


@dataclass(frozen=True, slots=True)
class SessionFacts:
    goal: tuple[Cited, ...]
    machine: Machine
    stack: tuple[PackageVersion, ...]
    span: Span
    installed: tuple[Established, ...]  # versions resolved, in action order
    not_installable: tuple[Established, ...]  # attempts that failed on their own
    searches: tuple[Established, ...]  # what find/ls/fd found, in action order
    tables: tuple[Cited, ...]  # knowledge-table rows the failures' captured values touch

    def established(self, failed: bool = True) -> list[Established]:
        """Everything established, in event order (without the failed installs unless `failed`)."""
        both = [*self.installed, *(self.not_installable if failed else ()), *self.searches]
        return sorted(both, key=lambda c: c.seq)

    def established_by(self, seq: int) -> list[Established]:
        """What the actions of one event established (its installs and searches)."""
        return sorted([c for c in (*self.installed, *self.searches) if c.by == seq], key=lambda c: c.seq)


def session_facts(an: Analysis, library: FactLibrary | None = None) -> SessionFacts:
    """The facts of the analysed session (masked if the analysis was)."""
    lib = library if library is not None else builtin_facts()
    events = an.events
    rows = output_rows(events, lib)
    machine = read_machine(rows, an.actions, lib)
    stack = read_stack(rows, an.actions, lib)
    installed = tuple(
        Established(f"{spec_code(a.subject, a.value)} resolves to {a.resolved}"
                    f"{f', replacing {a.previous}' if a.previous else ''}", a.seq, a.seq)
        for a in an.actions if a.kind in INSTALLS and a.resolved
    )
    failed = tuple(
        Established(f"{spec_code(a.subject, a.value)} cannot be installed: {first_lines(f.text, 1)[0]}", f.seq, a.seq)
        for a, f in an.graph.failed_attempts if a.kind in INSTALLS and f.category not in builtin_roles().not_run
    )
    findings = [f for ep in an.graph.episodes for f in ep.findings]
    return SessionFacts(
        goal=tuple(goal(_goal_rows(events))),
        machine=machine,
        stack=tuple(stack),
        span=span(events["ts"].to_list()),
        installed=installed,
        not_installable=failed,
        searches=tuple(search_facts(events, an.actions, lib)),
        tables=tuple(table_facts(findings, an.library.knowledge)),
    )


# -- the goal and the span -------------------------------------------------------------------


def _goal_rows(events: Any) -> list[dict[str, Any]]:
    import polars as pl

    users = events.filter((pl.col("role") == "user") & (pl.col("kind") == "text")).sort("seq")
    return list(users.select("seq", "text").iter_rows(named=True))


def goal(rows: Iterable[Mapping[str, Any]], limit: int = 2) -> list[Cited]:
    """The first user messages (rows with `seq` and `text`), trimmed to their first sentences."""
    out: list[Cited] = []
    for r in rows:
        text = r["text"] or ""
        if text.strip() and not harness_text(text):
            sentences = _SENTENCE_END.split(" ".join(text.split()))
            out.append(Cited(" ".join(sentences[:3])[:600], r["seq"]))
            if len(out) >= limit:
                break
    return out


def span(stamps: Iterable[datetime | None]) -> Span:
    """The span of a record's timestamps (None ignored)."""
    seen = {t for t in stamps if t is not None}
    if not seen:
        return Span()
    start, end = min(seen), max(seen)
    return Span(start, end, span_minutes(start, end), len(seen))


def span_minutes(start: Any, end: Any) -> int | None:
    """Whole minutes from `start` to `end`; None (unknown) unless both exist and differ. A record
    with one timestamp (an aider history without its input history, a log with one stamped
    line) says when the session began, not how long it ran: that is no "0 minutes"."""
    if start is None or end is None or start == end:
        return None
    minutes: int = round((end - start).total_seconds() / 60)
    return minutes


def human_minutes(minutes: int | None, stamps: int | None = None) -> str:
    """The span in words; `stamps` (distinct timestamps) says why it is unknown."""
    if minutes is None:
        return "an unknown span (the record has one timestamp)" if stamps == 1 else "an unknown time"
    if minutes == 0:
        return "less than a minute"
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min"


# -- the machine and the stack, by fact patterns ---------------------------------------------------


def output_rows(events: Any, lib: FactLibrary) -> list[tuple[int, str, str]]:
    """(seq, kind, text) of the events an `output` fact pattern may read, in seq order: one
    vectorised pass over every prefilter instead of a substring test per row of a long session."""
    import polars as pl

    kinds = sorted({k for p in lib.of("output") for k in p.kinds})
    if not kinds or not lib.prefilters:
        return []
    hit = events.filter(pl.col("kind").is_in(kinds) & pl.col("text").str.contains_any(list(lib.prefilters)).fill_null(False))
    return list(hit.sort("seq").select("seq", "kind", "text").iter_rows())


def read_machine(rows: Sequence[tuple[int, str, str]], actions: Sequence[Action], lib: FactLibrary) -> Machine:
    """GPUs, driver, CUDA (as the driver reports it), nvcc, hosts and containers."""
    gpus: dict[str, tuple[int, int]] = {}  # name -> (count in one listing, first seq)
    single: dict[str, Cited] = {}  # driver, cuda, nvcc
    for seq, kind, text in rows:
        for p in lib.of("output"):
            if kind not in p.kinds or p.fact not in ("gpu", "driver", "cuda", "nvcc"):
                continue
            found = [m.value for m in p.find(text)]
            if p.fact == "gpu":
                for name in dict.fromkeys(found):
                    prev = gpus.get(name)
                    gpus[name] = (max(found.count(name), prev[0] if prev else 0), prev[1] if prev else seq)
            elif found and (p.keep == "last" or p.fact not in single):
                single[p.fact] = Cited(found[0], seq)
    hosts: dict[str, int] = {}
    for a in actions:
        text = a.raw or a.command
        for p in lib.of("command", "host"):
            for m in p.find(text):
                hosts.setdefault(m.value, a.seq)
    return Machine(
        gpus=tuple(Gpu(n, c, s) for n, (c, s) in sorted(gpus.items(), key=lambda kv: kv[1][1])),
        driver=single.get("driver"),
        cuda=single.get("cuda"),
        nvcc=single.get("nvcc"),
        hosts=tuple(Host(h, s) for h, s in sorted(hosts.items(), key=lambda kv: kv[1])),
    )


def read_stack(rows: Sequence[tuple[int, str, str]], actions: Sequence[Action], lib: FactLibrary) -> list[PackageVersion]:
    """Package versions as seen (`pip show`, dist-info folder names), then as installs resolved them."""
    seen: dict[str, PackageVersion] = {}
    patterns = lib.of("output", "package")
    for seq, kind, text in rows:
        for p in patterns:
            if kind not in p.kinds:
                continue
            for m in p.find(text):
                name = _norm(m.captures.get("name", ""))
                if p.keep == "last" or name not in seen:
                    seen[name] = PackageVersion(name, m.value, seq, p.how)
    for a in actions:
        if a.kind in INSTALLS and a.resolved:
            seen[a.subject] = PackageVersion(a.subject, a.resolved, a.seq, "installed")
    return sorted(seen.values(), key=lambda v: (v.seq, v.package))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# -- what searches found ------------------------------------------------------------------------


def result_texts(events: Any, call_seqs: Iterable[int]) -> dict[int, tuple[int, str]]:
    """For each tool call seq asked for: (seq, text) of its first result, paired by call id."""
    import polars as pl

    wanted = set(call_seqs)
    if not wanted:
        return {}
    tools = events.filter(pl.col("kind").is_in(["tool_call", "tool_result"]) & pl.col("call_id").is_not_null())
    tools = tools.sort("seq").select("seq", "kind", "call_id")
    rows = list(tools.iter_rows())
    calls = {cid: seq for seq, kind, cid in rows if kind == "tool_call"}
    first: dict[int, int] = {}
    for seq, kind, cid in rows:
        if kind == "tool_result" and cid in calls and calls[cid] in wanted:
            first.setdefault(calls[cid], seq)
    if not first:
        return {}
    texts = events.filter(pl.col("seq").is_in(sorted(set(first.values())))).select("seq", "text")
    by_seq = dict(zip(texts["seq"].to_list(), texts["text"].to_list(), strict=True))
    return {call: (res, by_seq.get(res) or "") for call, res in first.items()}


def search_facts(events: Any, actions: Iterable[Action], lib: FactLibrary | None = None) -> list[Established]:
    """What the session's `find`/`ls`/`fd` calls found (or that they found nothing), in action order."""
    lib = lib if lib is not None else builtin_facts()
    searches = [a for a in actions if a.kind is ActionKind.INVESTIGATE and a.subject in ("find", "ls", "fd")]
    results = result_texts(events, [a.seq for a in searches])
    archs_of = lib.of("file_name", "gpu_arch")
    facts: list[Established] = []
    for a in searches:
        res = results.get(a.seq)
        if res is None:
            continue
        res_seq, text = res
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        glob = _name_glob(a.command)
        if glob is not None:  # one tool call may run several finds: keep the lines this one could print
            match = _glob_matcher(glob)
            lines = [ln for ln in lines if match(ln.rsplit("/", 1)[-1])]
        elif a.subject != "ls":
            continue
        if not lines or lines[0] in ("(no output)", "(Bash completed with no output)"):
            facts.append(Established(f"`{short(a.command)}` found nothing", res_seq, a.seq))
        elif glob is not None:
            names = sorted({ln.rsplit("/", 1)[-1] for ln in lines})
            archs = sorted({m.value.lower().replace("_", "") for n in names for p in archs_of for m in p.find(n)})
            which = f" ({', '.join(archs)} only)" if archs else ""
            shown = ", ".join(short(n, 60) for n in names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
            facts.append(Established(f"`{short(a.command)}` found {len(names)} file(s){which}: {shown}", res_seq, a.seq))
    return facts


@functools.lru_cache(maxsize=256)
def _glob_matcher(glob: str) -> Callable[[str], Any]:
    """`fnmatch.fnmatch(name, glob)` (POSIX: case-sensitive), compiled once per glob."""
    return re.compile(fnmatch.translate(glob)).match


def _name_glob(command: str) -> str | None:
    """The pattern of a `find -name`/`-iname` (command parsing, as the actions stage does)."""
    m = re.search(r"-i?name\s+(['\"]?)(?P<g>[^'\"\s]+)\1", command)
    return m["g"] if m else None


# -- the knowledge tables ---------------------------------------------------------------------------


def table_facts(findings: Iterable[Finding], knowledge: Any) -> list[Cited]:
    """Rows of the knowledge tables that the captured values touch (PTX ISA, compute capability)."""
    from logsleuth.library.knowledge import Facts

    lookup = Facts(knowledge)
    out: dict[str, Cited] = {}
    for f in findings:
        for key, value in sorted(f.captures.items()):
            if not value:
                continue
            k = key.lower()
            if "ptx" in k:
                cuda = lookup.cuda_for_ptx(value)
                if cuda != "?":
                    drv = lookup.driver_for_cuda(cuda)
                    extra = f", which needs driver {drv} or newer" if drv != "?" else ""
                    out.setdefault(f"ptx {value}", Cited(f"PTX ISA {value} ships with CUDA {cuda}{extra}", f.seq))
            elif "sm" in k or "arch" in k or k in ("cc", "compute_capability"):
                arch = lookup.arch_for_sm(value)
                if arch != "?":
                    gpus = lookup.gpus_for_sm(value)
                    extra = f" ({gpus})" if gpus != "?" else ""
                    out.setdefault(f"sm {value}", Cited(f"{value} is a {arch} GPU{extra}", f.seq))
    return sorted(out.values(), key=lambda c: (c.seq, c.text))
