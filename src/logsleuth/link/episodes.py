"""Failures into episodes: which failures of each output are the story, named by their causes,
one per log incident, grouped by pattern and fingerprint (link/chain.py builds the graph on them)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from logsleuth.enums import PACKAGE_CHANGES
from logsleuth.link.causes import named_by_cause
from logsleuth.link.resolution import any_between
from logsleuth.link.roles import StoryRoles
from logsleuth.model import Action, Episode, Finding, Severity


def result_to_call(events: pl.DataFrame) -> dict[int, int]:
    """tool_result seq -> tool_call seq (same call_id)."""
    if not events.height:
        return {}
    calls = events.filter((pl.col("kind") == "tool_call") & pl.col("call_id").is_not_null()).select(
        "call_id", pl.col("seq").alias("call_seq")
    )
    results = events.filter((pl.col("kind") == "tool_result") & pl.col("call_id").is_not_null()).select(
        "call_id", "seq"
    )
    joined = results.join(calls.unique("call_id", keep="first"), on="call_id", how="inner")
    return dict(zip(joined["seq"].to_list(), joined["call_seq"].to_list(), strict=True))


def split_failures(
    findings: Iterable[Finding],
    actions: Sequence[Action],
    call_of: Mapping[int, int],
    roles: StoryRoles,
    events: pl.DataFrame,
) -> tuple[list[tuple[Action, Finding]], list[Finding]]:
    """Strongest failure per event (among equals, the one that says most, then the one printed
    first: the run stopped there); attempt failures split off; generic ones only as a last resort."""
    strongest: dict[int, list[Finding]] = {}
    for f in findings:
        if not f.severity.is_failure:
            continue
        fs = strongest.get(f.seq)
        if fs is None or (f.priority, f.severity.rank) > (fs[0].priority, fs[0].severity.rank):
            strongest[f.seq] = [f]
        elif (f.priority, f.severity.rank) == (fs[0].priority, fs[0].severity.rank):
            fs.append(f)
    also = distinct_causes(findings, strongest, roles)
    texts = texts_at(events, sorted({seq for seq, fs in strongest.items() if len(fs) > 1} | set(also)))
    top = {
        seq: min(fs, key=lambda f: (-sum(1 for v in f.captures.values() if v), position(texts.get(f.seq, ""), f.text)))
        for seq, fs in strongest.items()
    }
    package_actions: dict[int, list[Action]] = defaultdict(list)
    for a in actions:
        if a.kind in PACKAGE_CHANGES:
            package_actions[a.seq].append(a)
    failed: list[tuple[Action, Finding]] = []
    main: list[Finding] = []
    for seq in sorted(top):
        f = top[seq]
        owners = package_actions.get(call_of.get(seq, -1), [])
        if f.category in roles.attempt and owners:
            failed.extend((a, f) for a in owners)
        elif f.category not in roles.attempt or seq in call_of:
            # an install's failure outside any install action (a `pip install --dry-run` probe):
            # a transcript's runs decide whether it is a note or a step; a bare log drops it
            others = [g for g in also.get(seq, ()) if _area(g, roles) != _area(f, roles)]
            main.extend(sorted((f, *others), key=lambda g: position(texts.get(seq, ""), g.text)))
    specific = [f for f in main if f.category not in roles.generic]
    return failed, (specific or main)


SPECIFIC = 70  # a pattern this strong names its cause (the library's priorities: generic text is below 50)


def distinct_causes(
    findings: Iterable[Finding], strongest: Mapping[int, list[Finding]], roles: StoryRoles
) -> dict[int, list[Finding]]:
    """Other failures of one output that name a cause of their own: in another area (a probe where
    ptxas rejects both the arch and the PTX version), one per group; or the same kind of error in
    another file (`make -j4` stopping in two .cu files), the first printed per file. Failures of one
    group are one problem told at several levels (an NCCL error and the watchdog timeout it caused)."""
    plain = roles.generic | roles.wrapper | roles.attempt | roles.progress
    out: dict[int, dict[str, Finding]] = {}
    for f in findings:
        fs = strongest.get(f.seq)
        if not f.severity.is_failure or f.category in plain or fs is None or fs[0].category in plain:
            continue
        top = fs[0]
        kept = out.setdefault(f.seq, {_area(top, roles): top})
        if f.category == top.category and f.captures.get("file"):
            if _own_file(f.captures["file"]) and _own_file(top.captures.get("file", "")):
                kept.setdefault(f"file:{f.captures['file']}", f)
            continue
        group = roles.groups.get(f.category, "")
        if f.priority < SPECIFIC or top.priority < SPECIFIC or not group:
            continue
        if group not in kept or (f.priority, f.severity.rank) > (kept[group].priority, kept[group].severity.rank):
            kept[group] = f
    return {seq: list(kept.values()) for seq, kept in out.items() if len(kept) > 1}


# A toolkit's or library's own file (three CCCL headers refusing C++14 for one .cu): the same problem,
# seen from each header, not a failure per header.
_NOT_OWN = re.compile(r"^/(?:usr|opt|lib|lib64|etc|snap|nix)/|[/\\](?:site|dist)-packages[/\\]")


def _own_file(path: str) -> bool:
    return bool(path) and not _NOT_OWN.search(path)


def _area(f: Finding, roles: StoryRoles) -> str:
    """What one failure of an output stands for: its file where it names one, else its group."""
    return f"file:{f.captures['file']}" if f.captures.get("file") else roles.groups.get(f.category, f.category)


def position(text: str, quote: str) -> int:
    first = quote.strip().split("\n", 1)[0]
    at = text.find(first) if first else -1
    return at if at >= 0 else len(text)


def texts_at(events: pl.DataFrame, seqs: Sequence[int]) -> dict[int, str]:
    """seq -> text of the given events (none asked: no query)."""
    if not seqs:
        return {}
    return {seq: text or "" for seq, text in events.filter(pl.col("seq").is_in(list(seqs))).select("seq", "text").iter_rows()}


def named_by_causes(
    main: Sequence[Finding], events: pl.DataFrame, roles: StoryRoles, log_seqs: set[int]
) -> list[Finding]:
    """A transcript's wrapper failures (`make: *** … Error 1`) named by the line that says why."""
    texts = texts_at(events, [f.seq for f in main if f.category in roles.wrapper and f.seq not in log_seqs])
    return [named_by_cause(f, texts[f.seq]) if f.seq in texts else f for f in main]


LOG_GAP = 25  # log records further apart than this are separate incidents (a relaunch in between)


def incidents(
    main: Sequence[Finding], fixes: Sequence[Action], findings: Sequence[Finding], log_seqs: set[int]
) -> list[Finding]:
    """One finding per burst of log failures: a server log prints the wrapper, the cause and the
    traceback as separate records, which are one failure. A burst ends at a fix, a success, or a
    stretch of ordinary records. (A transcript's tool result is already one event.)"""
    fix_seqs = [a.seq for a in fixes]
    ok_seqs = sorted(f.seq for f in findings if f.severity is Severity.SUCCESS)
    out: list[Finding] = []
    burst: list[Finding] = []

    def close() -> None:
        if burst:
            out.append(max(burst, key=lambda f: (f.priority, f.severity.rank, -f.seq)))
            burst.clear()

    for f in main:
        if f.seq not in log_seqs:  # a transcript's events are separate observations
            close()
            out.append(f)
            continue
        if burst:
            prev = burst[-1].seq
            between = any_between(fix_seqs, prev, f.seq) or any_between(ok_seqs, prev, f.seq)
            far = f.seq in log_seqs and f.seq - prev > LOG_GAP
            if between or far:
                close()
        burst.append(f)
    close()
    return out


def group_episodes(main: Sequence[Finding]) -> list[Episode]:
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in main:
        groups.setdefault((f.pattern, f.fingerprint), []).append(f)
    ordered = sorted(groups.values(), key=lambda fs: fs[0].seq)
    return [
        Episode(
            id=f"f{i}",
            pattern=fs[0].pattern,
            category=fs[0].category,
            fingerprint=fs[0].fingerprint,
            severity=max((f.severity for f in fs), key=lambda s: s.rank),
            occurrences=tuple(f.seq for f in fs),
            findings=tuple(fs),
        )
        for i, fs in enumerate(ordered, start=1)
    ]
