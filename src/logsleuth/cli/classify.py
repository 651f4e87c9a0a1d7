"""`logsleuth classify FILE`: findings, the primary finding, unclassified templates."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from logsleuth.cli.app import TableOrJson, app, complete_reader, emit, reader_format_hint
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected
from logsleuth.termsafe import say

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
        say(f"logsleuth: warning: {len(lib.errors)} pattern problem(s); run `logsleuth patterns lint`")
    return lib


@app.command()
def classify(
    file: str = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok)."),
    format: str | None = typer.Option(None, "--format", help="Force a reader instead of detecting.", autocompletion=complete_reader),
    output_format: TableOrJson | None = typer.Option(
        None, "--output-format", "-O", help="table or json (default: from -o's extension, else table)."
    ),
    output: Path | None = output_opt(),
    patterns: list[str] = typer.Option([], "--patterns", metavar="DIR", help=PATTERNS_HELP),
    builtin: bool = typer.Option(True, "--builtin/--no-builtin", help=BUILTIN_HELP),
    fail_on: FailOn | None = typer.Option(None, "--fail-on", help="Exit 1 when a finding is at or above this."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 3) instead of warning when the reader skipped part of the input."),
) -> None:
    """Match every event against the pattern library and name the root error."""
    from logsleuth import ingest
    from logsleuth.classify import classify as run
    from logsleuth.classify import scan_gate, scan_terms
    from logsleuth.model import Severity

    reader_format_hint(format, tuple(TableOrJson))
    fmt = pick_format(output, output_format, tuple(TableOrJson), TableOrJson.table)
    check_target(output)
    lib = load_library_for_cli(patterns, builtin)
    # a plain text log is read as the records a pattern could match (the same findings, and
    # the same report, for a fraction of the work on a big log)
    t = ingest.read_candidates(file, format, *scan_terms(lib), gate=scan_gate(lib))
    if t.report.format != "text":  # a plain log's candidates are a subset of its records by design
        from logsleuth.ingest import coverage

        coverage.check(t, strict=strict)
    result = run(t.events, lib)
    from logsleuth.analysis import (
        root_cause_classification,  # the verdict's root cause: one answer everywhere
    )

    result = root_cause_classification(t.events, result, lib)
    report = t.report
    if not no_redact:  # the one masking pass of every output (render/masking.py); the events teach, unprinted
        from logsleuth.render.masking import redact_output

        report, result = redact_output((t.report, result), t.events)
    del t  # the event table is not printed: freed before the output is made
    for w in result.warnings:
        say(f"logsleuth: warning: {w}")
    with redirected(output):
        if fmt == TableOrJson.json:
            from logsleuth.cli import jsonstream

            jsonstream.write(json_chunks(report.to_dict(), result))
        else:
            from logsleuth.render.findings import classification_table

            show_table(classification_table(report, result, width=table_width()) + _legend(result))
    if fail_on is not None:
        floor = Severity(fail_on.value).rank
        if any(f.severity.rank >= floor for f in result.findings):
            raise typer.Exit(1)


def json_chunks(report: dict[str, Any], result: Any) -> Iterator[bytes]:
    """`{"report", **result.to_dict()}` as `jsonout.dumps` writes it, a finding at a time: a dense
    log has hundreds of thousands, and their dicts and text were held all at once."""
    from logsleuth.cli import jsonstream

    def finding(i: int, f: Any) -> dict[str, Any]:
        d: dict[str, Any] = f.to_dict()
        if f.primary:
            d["primary"] = True
        if i in result.secondary:
            d["secondary"] = True
        return d

    head = {"report": report, "primary": result.primary.to_dict() if result.primary else None}
    return jsonstream.chunks(head, {
        "findings": jsonstream.mapped(result.findings, finding),
        "unclassified": jsonstream.mapped(result.unclassified, lambda _, u: u.to_dict()),
    })


# severity words and marks coloured on a terminal (the table itself is laid out as plain text)
_STYLES = (
    (r"(?<=│ )(fatal|error)\b", "bold red"),
    (r"(?<=│ )warning\b", "yellow"),
    (r"(?<=│ )(success|info)\b", "green"),
    (r"(?m)^primary:.*$", "bold"),
    (r"(?<=│ )\*[\w.-]+", "bold magenta"),
)


def table_width() -> int:
    """The terminal's width on a terminal; 160 columns when piped (stable for scripts)."""
    from logsleuth.cli.app import stdout_is_terminal

    if stdout_is_terminal():
        import shutil

        return max(80, shutil.get_terminal_size((160, 24)).columns)
    return 160


def show_table(text: str) -> None:
    """A table on stdout: coloured when `--color`/NO_COLOR/the terminal allow it, plain otherwise."""
    from logsleuth.cli.app import console, use_color

    if not use_color():
        emit(text)
        return
    from rich.text import Text

    from logsleuth.termsafe import inert_text

    text = inert_text(text)  # rich prints what it is given: the transcript's escapes go first
    styled = Text(text.rstrip("\n"))
    for regex, style in _STYLES:
        styled.highlight_regex(regex, style)
    console(width=max(len(line) for line in text.splitlines() or [""]) + 1).print(styled)


def _legend(result: object) -> str:
    """What the pattern column's marks mean, when the table uses them."""
    findings: tuple[Any, ...] = getattr(result, "findings", ())
    secondary: frozenset[int] = getattr(result, "secondary", frozenset())
    marks = []
    if any(f.primary for f in findings):
        marks.append("*pattern = the primary finding (the root error)")
    if secondary:
        marks.append("-pattern = secondary (outranked on the same event by a pattern of its category)")
    return "; ".join(marks) + "\n" if marks else ""
