"""Facts a postmortem states about a session: the goal, the machine, the stack, what was established.

Everything here is read off the events (never the wall clock) and cites the event it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
_SSH = re.compile(r"\bssh\b(?:\s+-\S+(?:\s+(?!-)\S+)?)*?\s+(?:(?P<user>[\w.-]+)@)?(?P<host>[\w.-]+\.[\w.-]+|[\w-]+)")
_PCT = re.compile(r"\bpct exec (?P<ct>\d+)")
_DOCKER = re.compile(r"\bdocker exec (?:-\S+\s+)*(?P<ctr>[\w.-]+)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Cited:
    """A statement and the event that supports it."""

    text: str
    seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq}


def goal(rows: Sequence[dict[str, Any]], limit: int = 2) -> list[Cited]:
    """The first user messages, trimmed to their first sentences: what the session set out to do."""
    out: list[Cited] = []
    for r in rows:
        if r["role"] == "user" and r["kind"] == "text" and r["text"].strip():
            text = " ".join(r["text"].split())
            sentences = _SENTENCE_END.split(text)
            out.append(Cited(" ".join(sentences[:3])[:600], r["seq"]))
            if len(out) >= limit:
                break
    return out


def machine(rows: Sequence[dict[str, Any]], actions: Sequence[Action]) -> dict[str, Any]:
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
        if driver is None and (m := _DRIVER.search(text)):
            driver = Cited(m["v"], r["seq"])
        if cuda is None and (m := _CUDA_SMI.search(text)):
            cuda = Cited(m["v"], r["seq"])
        if (m := _NVCC.search(text)) is not None:
            nvcc = Cited(m["full"], r["seq"])
    hosts: dict[str, int] = {}
    for a in actions:
        for rx, fmt in ((_SSH, "{host}"), (_PCT, "container {ct}"), (_DOCKER, "container {ctr}")):
            m = rx.search(a.raw or a.command)
            if m:
                hosts.setdefault(fmt.format(**m.groupdict()), a.seq)
    return {
        "gpus": [{"name": n, "count": c, "seq": s} for n, (c, s) in sorted(gpus.items(), key=lambda kv: kv[1][1])],
        "driver": driver.to_dict() if driver else None,
        "cuda": cuda.to_dict() if cuda else None,
        "nvcc": nvcc.to_dict() if nvcc else None,
        "hosts": [{"name": h, "seq": s} for h, s in sorted(hosts.items(), key=lambda kv: kv[1])],
    }


def stack(rows: Sequence[dict[str, Any]], actions: Sequence[Action]) -> list[dict[str, Any]]:
    """Package versions as seen: installed/resolved by actions, `pip show`, dist-info folder names."""
    seen: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["kind"] != "tool_result":
            continue
        for m in _PIP_SHOW.finditer(r["text"]):
            seen[_norm(m["name"])] = {"package": _norm(m["name"]), "version": m["v"], "seq": r["seq"], "how": "shown"}
        for m in _DIST_INFO.finditer(r["text"]):
            name = _norm(m["name"])
            seen.setdefault(name, {"package": name, "version": m["v"], "seq": r["seq"], "how": "found"})
    for a in actions:
        if a.kind in (ActionKind.INSTALL, ActionKind.UPGRADE, ActionKind.DOWNGRADE, ActionKind.PIN) and a.resolved:
            seen[a.subject] = {"package": a.subject, "version": a.resolved, "seq": a.seq, "how": "installed"}
    return sorted(seen.values(), key=lambda d: (d["seq"], d["package"]))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def duration(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    stamps = [r["ts"] for r in rows if r["ts"] is not None]
    if not stamps:
        return {"start": None, "end": None, "minutes": None}
    start, end = min(stamps), max(stamps)
    return {"start": start, "end": end, "minutes": round((end - start).total_seconds() / 60)}


def human_minutes(minutes: int | None) -> str:
    if minutes is None:
        return "an unknown time"
    if minutes < 90:
        return f"{minutes} minutes"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min"


def first_lines(text: str, n: int = 3, width: int = 160) -> list[str]:
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    return [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in lines[:n]]


def established(
    rows_by_seq: dict[int, dict[str, Any]],
    result_of: dict[int, dict[str, Any]],
    actions: Iterable[Action],
    failed: Iterable[tuple[Action, Any]],
) -> list[Cited]:
    """Facts the session established: versions resolved, versions that do not exist, searches that came up empty."""
    facts: list[Cited] = []
    for a in actions:
        if a.kind in (ActionKind.INSTALL, ActionKind.UPGRADE, ActionKind.DOWNGRADE, ActionKind.PIN) and a.resolved:
            spec = a.value or ""
            prev = f", replacing {a.previous}" if a.previous else ""
            facts.append(Cited(f"`{a.subject}{spec}` resolves to {a.resolved}{prev}", a.seq))
    for a, f in failed:
        facts.append(Cited(f"`{a.subject}{a.value or ''}` cannot be installed: {first_lines(f.text, 1)[0]}", f.seq))
    for a in actions:
        if a.kind is not ActionKind.INVESTIGATE or a.subject not in ("find", "ls", "grep", "rg", "fd"):
            continue
        res = result_of.get(a.seq)
        if res is None:
            continue
        body = res["text"].strip()
        if not body or body in ("(no output)", "(Bash completed with no output)"):
            facts.append(Cited(f"`{_short(a.command)}` found nothing", res["seq"]))
        elif a.subject == "find":
            lines = first_lines(body, 5, 200)
            names = sorted({ln.rsplit("/", 1)[-1] for ln in lines})
            facts.append(Cited(f"`{_short(a.command)}` found only: {', '.join(names)}", res["seq"]))
    return sorted(facts, key=lambda c: c.seq)


def _short(cmd: str, width: int = 110) -> str:
    cmd = " ".join(cmd.split())
    return cmd if len(cmd) <= width else cmd[: width - 1] + "…"
