"""Facts a postmortem states about a session: the goal, the machine, the stack, what was established.

Everything here is read off the events (never the wall clock) and cites the event it came from.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from logsleuth.ingest.base import harness_text
from logsleuth.model import Action, ActionKind

_GPU = re.compile(
    r"NVIDIA (?:GeForce |Tesla |Quadro )?(?:RTX PRO \d{4} Blackwell(?: [A-Za-z]+)*|RTX \d{4}(?: Ti| SUPER)?|"
    r"RTX A\d{4}|[ABHL]\d{2,3}[A-Za-z]*(?:[- ](?:SXM\d?|PCIe|NVL|\d+GB))*|GB\d{3}|V100|T4|A10G?)"
)
_DRIVER = re.compile(r"Driver Version: (?P<v>\d+\.\d+(?:\.\d+)?)")
_CUDA_SMI = re.compile(r"CUDA Version: (?P<v>\d+\.\d+)")
_NVCC = re.compile(r"Cuda compilation tools, release (?P<v>\d+\.\d+), V(?P<full>[\d.]+)")
_PIP_SHOW = re.compile(r"^Name: (?P<name>\S+)\s*\nVersion: (?P<v>\S+)", re.M)
_DIST_INFO = re.compile(r"(?P<name>[A-Za-z][\w.]*?)-(?P<v>\d[\w.+]*)\.dist-info")
# ssh's flags that take an argument (-o Opt=v, -p 22, -i key …) versus those that do not
_SSH = re.compile(
    r"\bssh((?:\s+-[46AaCfGgKkMNnqsTtVvXxYy]+|\s+-[BbcDEeFIiJLlmOopQRSWw]\s*\S+)*)\s+"
    r"(?:(?P<user>[\w.-]+)@)?(?P<host>[A-Za-z0-9][\w.-]*)"
)
_PCT = re.compile(r"\bpct exec (?P<ct>\d+)")
_DOCKER = re.compile(r"\bdocker exec (?:-\S+\s+)*(?P<ctr>[\w.-]+)")
_ARCH = re.compile(r"(?i)(?<![a-z])sm_?\d{2,3}[a-z]?(?![a-z0-9])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Cited:
    """A statement and the event that supports it."""

    text: str
    seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq}


def goal(rows: Sequence[Mapping[str, Any]], limit: int = 2) -> list[Cited]:
    """The first user messages, trimmed to their first sentences: what the session set out to do."""
    out: list[Cited] = []
    for r in rows:
        if r["role"] == "user" and r["kind"] == "text" and r["text"].strip() and not harness_text(r["text"]):
            text = " ".join(r["text"].split())
            sentences = _SENTENCE_END.split(text)
            out.append(Cited(" ".join(sentences[:3])[:600], r["seq"]))
            if len(out) >= limit:
                break
    return out


# a row without one of these can add nothing to `machine` / `stack` (callers may pass only the rows with one)
MACHINE_GATES = ("NVIDIA", "Driver Version: ", "CUDA Version: ", "Cuda compilation tools")
STACK_GATES = ("Name: ", ".dist-info")


def machine(rows: Sequence[Mapping[str, Any]], actions: Sequence[Action]) -> dict[str, Any]:
    """GPUs, driver, CUDA, hosts and containers seen in the session."""
    gpus: dict[str, tuple[int, int]] = {}  # name -> (count in one listing, first seq)
    driver = cuda = nvcc = None
    for r in rows:
        if r["kind"] not in ("tool_result", "log"):
            continue
        text = r["text"]
        if "NVIDIA" in text:
            found = _GPU.findall(text)
            for name in set(found):
                count = found.count(name)
                prev = gpus.get(name)
                gpus[name] = (max(count, prev[0] if prev else 0), prev[1] if prev else r["seq"])
        # substring gates first: `in` is far cheaper than a regex scan of a long tool output
        if driver is None and "Driver Version: " in text and (m := _DRIVER.search(text)):
            driver = Cited(m["v"], r["seq"])
        if cuda is None and "CUDA Version: " in text and (m := _CUDA_SMI.search(text)):
            cuda = Cited(m["v"], r["seq"])
        if "Cuda compilation tools" in text and (m := _NVCC.search(text)) is not None:
            nvcc = Cited(m["full"], r["seq"])
    hosts: dict[str, int] = {}
    for a in actions:
        text = a.raw or a.command
        for gate, rx, fmt in (("ssh", _SSH, "{host}"), ("pct exec", _PCT, "container {ct}"),
                              ("docker exec", _DOCKER, "container {ctr}")):
            m = rx.search(text) if gate in text else None
            if m:
                hosts.setdefault(fmt.format(**m.groupdict()), a.seq)
    return {
        "gpus": [{"name": n, "count": c, "seq": s} for n, (c, s) in sorted(gpus.items(), key=lambda kv: kv[1][1])],
        "driver": driver.to_dict() if driver else None,
        "cuda": cuda.to_dict() if cuda else None,
        "nvcc": nvcc.to_dict() if nvcc else None,
        "hosts": [{"name": h, "seq": s} for h, s in sorted(hosts.items(), key=lambda kv: kv[1])],
    }


def stack(rows: Sequence[Mapping[str, Any]], actions: Sequence[Action]) -> list[dict[str, Any]]:
    """Package versions as seen: installed/resolved by actions, `pip show`, dist-info folder names."""
    seen: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["kind"] != "tool_result":
            continue
        text = r["text"]
        for m in _PIP_SHOW.finditer(text) if "Name: " in text else ():
            seen[_norm(m["name"])] = {"package": _norm(m["name"]), "version": m["v"], "seq": r["seq"], "how": "shown"}
        for m in _DIST_INFO.finditer(text) if ".dist-info" in text else ():
            name = _norm(m["name"])
            seen.setdefault(name, {"package": name, "version": m["v"], "seq": r["seq"], "how": "found"})
    for a in actions:
        if a.kind in (ActionKind.INSTALL, ActionKind.UPGRADE, ActionKind.DOWNGRADE, ActionKind.PIN) and a.resolved:
            seen[a.subject] = {"package": a.subject, "version": a.resolved, "seq": a.seq, "how": "installed"}
    return sorted(seen.values(), key=lambda d: (d["seq"], d["package"]))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def duration(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """First and last timestamp, the minutes between them (see `span_minutes`) and how many
    distinct timestamps the record holds."""
    stamps = {r["ts"] for r in rows if r["ts"] is not None}
    if not stamps:
        return {"start": None, "end": None, "minutes": None, "stamps": 0}
    start, end = min(stamps), max(stamps)
    return {"start": start, "end": end, "minutes": span_minutes(start, end), "stamps": len(stamps)}


def span_minutes(start: Any, end: Any) -> int | None:
    """Whole minutes from `start` to `end`; None (unknown) unless both exist and differ. A record
    with one timestamp (an aider history without its input history, a log with one stamped
    line) says when the session began, not how long it ran: that is no "0 minutes"."""
    if start is None or end is None or start == end:
        return None
    minutes: int = round((end - start).total_seconds() / 60)
    return minutes


def human_minutes(minutes: int | None, stamps: int | None = None) -> str:
    """The span in words; `stamps` (distinct timestamps, from `duration`) says why it is unknown."""
    if minutes is None:
        return "an unknown span (the record has one timestamp)" if stamps == 1 else "an unknown time"
    if minutes == 0:
        return "less than a minute"
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min"


def first_lines(text: str, n: int = 3, width: int = 160) -> list[str]:
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    return [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in lines[:n]]


def established(
    result_of: Mapping[int, Mapping[str, Any]],
    actions: Iterable[Action],
    failed: Iterable[tuple[Action, Any]],
    searches: Sequence[Cited] | None = None,
) -> list[Cited]:
    """Facts the session established: versions resolved, versions that do not exist, searches that
    came up empty (`searches`: `search_facts` of the same actions, when the caller has them)."""
    actions = list(actions)
    facts: list[Cited] = []
    for a in actions:
        if a.kind in (ActionKind.INSTALL, ActionKind.UPGRADE, ActionKind.DOWNGRADE, ActionKind.PIN) and a.resolved:
            spec = a.value or ""
            prev = f", replacing {a.previous}" if a.previous else ""
            facts.append(Cited(f"`{a.subject}{spec}` resolves to {a.resolved}{prev}", a.seq))
    for a, f in failed:
        facts.append(Cited(f"`{a.subject}{a.value or ''}` cannot be installed: {first_lines(f.text, 1)[0]}", f.seq))
    facts += search_facts(result_of, actions) if searches is None else searches
    return sorted(facts, key=lambda c: c.seq)


def search_facts(result_of: Mapping[int, Mapping[str, Any]], actions: Iterable[Action]) -> list[Cited]:
    """What the session's `find`/`ls`/`fd` calls found (or that they found nothing), in action order."""
    facts: list[Cited] = []
    for a in actions:
        if a.kind is not ActionKind.INVESTIGATE or a.subject not in ("find", "ls", "fd"):
            continue
        res = result_of.get(a.seq)
        if res is None:
            continue
        lines = [ln.strip() for ln in res["text"].splitlines() if ln.strip()]
        glob = _name_glob(a.command)
        if glob is not None:  # one tool call may run several finds: keep the lines this one could print
            match = _glob_matcher(glob)
            lines = [ln for ln in lines if match(ln.rsplit("/", 1)[-1])]
        elif a.subject != "ls":
            continue
        if not lines or lines[0] in ("(no output)", "(Bash completed with no output)"):
            facts.append(Cited(f"`{short(a.command)}` found nothing", res["seq"]))
        elif glob is not None:
            names = sorted({ln.rsplit("/", 1)[-1] for ln in lines})
            archs = sorted({m.lower().replace("_", "") for n in names for m in _ARCH.findall(n)})
            which = f" ({', '.join(archs)} only)" if archs else ""
            shown = ", ".join(short(n, 60) for n in names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
            facts.append(Cited(f"`{short(a.command)}` found {len(names)} file(s){which}: {shown}", res["seq"]))
    return facts


@functools.lru_cache(maxsize=256)
def _glob_matcher(glob: str) -> Callable[[str], Any]:
    """`fnmatch.fnmatch(name, glob)` (POSIX: case-sensitive), compiled once per glob."""
    return re.compile(fnmatch.translate(glob)).match


def _name_glob(command: str) -> str | None:
    m = re.search(r"-i?name\s+(['\"]?)(?P<g>[^'\"\s]+)\1", command)
    return m["g"] if m else None


def short(text: str, width: int = 110) -> str:
    """`text` on one line (whitespace runs become one space), cut to `width` with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def table_facts(findings: Iterable[Any], knowledge: Any) -> list[dict[str, Any]]:
    """Rows of the knowledge tables that the captured values touch (PTX ISA, compute capability)."""
    from logsleuth.library.knowledge import Facts

    lookup = Facts(knowledge)
    out: dict[str, dict[str, Any]] = {}
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
                    out.setdefault(f"ptx {value}", {"text": f"PTX ISA {value} ships with CUDA {cuda}{extra}", "seq": f.seq})
            elif "sm" in k or "arch" in k or k in ("cc", "compute_capability"):
                arch = lookup.arch_for_sm(value)
                if arch != "?":
                    gpus = lookup.gpus_for_sm(value)
                    extra = f" ({gpus})" if gpus != "?" else ""
                    out.setdefault(f"sm {value}", {"text": f"{value} is a {arch} GPU{extra}", "seq": f.seq})
    return sorted(out.values(), key=lambda d: (d["seq"], d["text"]))
