"""Ingest: any supported input -> one event table (see model.EVENT_SCHEMA) plus an ingest report."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from logsleuth.errors import InputError, Location
from logsleuth.ingest.base import Probe, ReaderSpec, make_probe
from logsleuth.ingest.detect import by_name, detect, readers
from logsleuth.model import IngestReport, Transcript


def read(arg: str, fmt: str | None = None) -> Transcript:
    """Read one input (path, folder or `-`). A folder no single reader claims is read file by file."""
    probe = make_probe(arg)
    if fmt:
        return by_name(fmt).read(probe)
    if probe.is_dir:
        for spec in _dir_readers():
            if spec.sniff(probe):
                return spec.read(probe)
        return _read_folder(probe)
    _reject_unreadable(probe)
    return detect(probe).read(probe)


def _dir_readers() -> list[ReaderSpec]:
    return [r for r in readers() if r.dirs]


def discover(root: str) -> list[str]:
    """Inputs under a folder that a reader recognises (sorted, relative to how root was given)."""
    probe = make_probe(root)
    if not probe.is_dir:
        return [root]
    for spec in _dir_readers():
        if spec.sniff(probe):
            return [root]
    found: list[str] = []
    base = Path(root)
    for path in sorted(base.rglob("*")):
        if not path.is_file() or _inside_claimed_folder(path, base):
            continue
        child = str(path) if root != "." else str(path.relative_to(base))
        try:
            p = make_probe(child)
            _reject_unreadable(p)
            detect(p)
        except InputError:
            continue
        found.append(child)
    return found


def _inside_claimed_folder(path: Path, base: Path) -> bool:
    # Claude Code keeps subagent transcripts in <session>/subagents/: read with their parent file.
    return "subagents" in path.relative_to(base).parts[:-1]


def _read_folder(probe: Probe) -> Transcript:
    files = discover(probe.display)
    if not files:
        raise InputError("no readable transcript or log in this directory", Location(probe.display))
    parts = [read(f) for f in files]
    frames = [p.events for p in parts]
    reports = tuple(p.report for p in parts)
    events = pl.concat(frames) if frames else parts[0].events
    report = IngestReport(
        source=probe.display,
        format="folder",
        lines=sum(r.lines for r in reports),
        events=events.height,
        used=sum(r.used for r in reports),
        ignored=sum(r.ignored for r in reports),
        skipped=tuple(s for r in reports for s in r.skipped),
        parts=reports,
    )
    return Transcript(events, report)


def _reject_unreadable(probe: Probe) -> None:
    if probe.head.startswith(b"SQLite format 3\x00"):
        return  # a database (opencode.db): binary by nature
    if not probe.head:
        raise InputError("empty file", Location(probe.display), "nothing to analyse")
    sample = probe.head[:8192]
    if b"\x00" in sample and sample.count(b"\x00") > len(sample) // 100:
        raise InputError("binary file (not a transcript or text log)", Location(probe.display))


__all__ = ["discover", "read"]
