"""One input of an index run analysed into its rows: ingest, classify, actions, link, then the
rows of each session (rows.py). A Task is what the run asks for, a FileOutcome what it gets back
(the rows, or the one-line error that replaces them); pool.py runs tasks on several cores and
batch.py many small ones in one pass, each with the outcome `analyse` gives it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from logsleuth.errors import InputError
from logsleuth.index.files import discover
from logsleuth.index.rows import analysis_rows, findings_frame
from logsleuth.index.schema import empty_findings

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary
    from logsleuth.model import IngestReport, Transcript


@dataclass(frozen=True, slots=True)
class Task:
    source: str
    sha: str
    size: int
    reader: str | None = None  # the reader the run's folder walk detected (ingest.detected_reader)


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What one input gave: its result, or the one-line error that replaces it."""

    result: FileResult | None
    error: str | None = None
    batch: int = -1  # the batch it was analysed in (its part is written with the batch's)
    closes: bool = True  # the last outcome of its batch: the batch's part can be written


@dataclass(frozen=True, slots=True)
class FileResult:
    frame: pl.DataFrame
    format: str
    sessions: int
    skipped: int
    warnings: tuple[str, ...] = ()  # what the reader could not use (ingest/coverage.py), one line each


def analyse_input(source: str, library: PatternLibrary, sha: str = "") -> FileResult:
    """Ingest one input and analyse every session in it separately (no reasoning: no spaCy).

    A plain text log is read as its candidate records (`ingest.read_candidates`, as `classify`
    does): a log has no tool calls, so no actions, and its findings are the same, hence the same
    rows, for a fraction of the work on a big log."""
    from logsleuth import ingest
    from logsleuth.classify import scan_terms

    return analyse_transcript_rows(ingest.read_candidates(source, None, *scan_terms(library)), library, sha)


def analyse_transcript_rows(t: Transcript, library: PatternLibrary, sha: str = "") -> FileResult:
    """`analyse_input` of an input already read (`ingest.read_candidates`)."""
    from logsleuth.analysis import analyze_transcript

    sessions = t.events["session"].unique(maintain_order=True).to_list() if t.events.height else []
    rows: list[dict[str, Any]] = []
    for s in sessions:
        an = analyze_transcript(t, library, session=s, with_reasoning=False)
        rows += analysis_rows(an, t.report.format, sha)
    from logsleuth.ingest.coverage import under_read

    warnings = tuple(c.warning() for c in under_read(t))
    return FileResult(findings_frame(rows), t.report.format, len(sessions), _skipped(t.report), warnings)


def _skipped(report: IngestReport) -> int:
    return len(report.skipped)


def analyse_files(paths: Sequence[str], library: PatternLibrary) -> tuple[pl.DataFrame, list[str]]:
    """Findings of the given inputs (files or folders), analysed on the fly; plus one line per bad input."""
    frames: list[pl.DataFrame] = []
    errors: list[str] = []
    for root in paths:
        try:
            inputs = discover(root)
        except InputError as exc:
            errors.append(exc.one_line())
            continue
        for source in inputs:
            try:
                frames.append(analyse_input(source, library).frame)
            except InputError as exc:
                errors.append(exc.one_line())
    frame = pl.concat(frames) if frames else empty_findings()
    return frame, errors


def analyse(task: Task, library: PatternLibrary) -> FileOutcome:
    try:
        return FileOutcome(analyse_input(task.source, library, task.sha))
    except Exception as exc:  # one bad input never aborts the run
        return FileOutcome(None, error_line(task.source, exc))


def error_line(source: str, exc: BaseException) -> str:
    from logsleuth.errors import LogsleuthError, shown_path

    source = shown_path(source)
    if isinstance(exc, LogsleuthError):
        line = exc.one_line()
        return line if line.startswith(source) else f"{source}: {line}"
    if isinstance(exc, OSError):
        return f"{source}: {exc.strerror or exc}"
    return f"{source}: internal error: {type(exc).__name__}: {exc}"
