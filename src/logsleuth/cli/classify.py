"""`logsleuth classify FILE`: findings, the primary finding, unclassified templates."""

from __future__ import annotations

import enum
import sys
from typing import TYPE_CHECKING

import typer

from logsleuth.cli.app import TableOrJson, app, emit

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary


class FailOn(enum.StrEnum):
    info = "info"
    warning = "warning"
    error = "error"
    fatal = "fatal"


PATTERNS_HELP = "Extra pattern directory (repeatable); overrides built-ins by id."
BUILTIN_HELP = "Use the built-in patterns (--no-builtin: only --patterns dirs and LOGSLEUTH_PATTERNS)."


def load_library_for_cli(dirs: list[str], builtin: bool = True) -> PatternLibrary:
    """Load built-ins + user dirs; note broken pattern files on stderr (lint has the details)."""
    from logsleuth.library import load_library

    lib = load_library(dirs, builtins=builtin)
    if lib.errors:
        sys.stderr.write(f"logsleuth: warning: {len(lib.errors)} pattern problem(s); "
                         "run `logsleuth patterns lint`\n")
    return lib


@app.command()
def classify(
    file: str = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok)."),
    format: str | None = typer.Option(None, "--format", help="Force a reader instead of detecting."),
    output_format: TableOrJson = typer.Option(TableOrJson.table, "--output-format", "-O"),
    patterns: list[str] = typer.Option([], "--patterns", metavar="DIR", help=PATTERNS_HELP),
    builtin: bool = typer.Option(True, "--builtin/--no-builtin", help=BUILTIN_HELP),
    fail_on: FailOn | None = typer.Option(None, "--fail-on", help="Exit 1 when a finding is at or above this."),
) -> None:
    """Match every event against the pattern library and name the root error."""
    from logsleuth import ingest, jsonout
    from logsleuth.classify import classify as run
    from logsleuth.classify import scan_terms
    from logsleuth.model import Severity

    lib = load_library_for_cli(patterns, builtin)
    # a plain text log is read as the records a pattern could match (the same findings, and
    # the same report, for a fraction of the work on a big log)
    t = ingest.read_candidates(file, format, *scan_terms(lib))
    result = run(t.events, lib)
    for w in result.warnings:
        sys.stderr.write(f"logsleuth: warning: {w}\n")
    if output_format is TableOrJson.json:
        emit(jsonout.dumps({"report": t.report.to_dict(), **result.to_dict()}))
    else:
        from logsleuth.render.findings import classification_table

        emit(classification_table(t.report, result))
    if fail_on is not None:
        floor = Severity(fail_on.value).rank
        if any(f.severity.rank >= floor for f in result.findings):
            raise typer.Exit(1)
