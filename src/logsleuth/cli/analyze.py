"""`logsleuth analyze`, `explain` and `graph`: the postmortem, one message's story, the causal graph."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from logsleuth.cli.app import app, complete_reader, emit, open_with_system, reader_format_hint
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected
from logsleuth.termsafe import say

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis


class ReportFormat(enum.StrEnum):
    md = "md"
    html = "html"
    json = "json"


class GraphFormat(enum.StrEnum):
    json = "json"
    dot = "dot"
    mermaid = "mermaid"


FILE_ARG = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok).")
FORMAT_OPT = typer.Option(
    None, "--format", help="Force a reader instead of detecting.", autocompletion=complete_reader
)
PATTERNS_OPT = typer.Option([], "--patterns", help="Extra pattern directories (override built-ins by id).")
SESSION_OPT = typer.Option(None, "--session", help="Which session of a multi-session input (default: the largest).")
STRICT_OPT = typer.Option(False, "--strict", help="Fail (exit 3) instead of warning when the reader skipped part of the input.")
PROGRESS_OPT = typer.Option(
    None, "--progress/--no-progress", help="What the work is doing now, on stderr (default: when stderr is a terminal)."
)


def _page_markdown(text: str) -> None:
    """The markdown rendered by rich, through the pager when it is longer than the screen."""
    import os

    from rich.markdown import Markdown

    from logsleuth.cli.app import console
    from logsleuth.termsafe import inert_text

    con = console()
    os.environ.setdefault("LESS", "-FRX")  # colours through less; quit at once when it fits
    with con.pager(styles=con.color_system is not None):
        # rich prints what it is given: the transcript's escapes are taken out first (its own
        # colours are added after)
        con.print(Markdown(inert_text(text), code_theme="ansi_dark", hyperlinks=False))


def _session_note(file: str, an: Analysis) -> None:
    """One stderr line when the input holds several sessions and none was asked for: which one the
    report covers, why, and how to pick another (the report's introduction lists them too)."""
    import shlex

    import polars as pl

    counts = (
        an.transcript.events.filter(pl.col("session").is_not_null())
        .group_by("session")
        .agg(pl.len().alias("n"))
    )
    if counts.height < 2:
        return
    n = int(counts.filter(pl.col("session") == an.session)["n"].sum())
    # main_session prefers a transcript to a plain log, then the most events
    why = (f"the largest, {n} events" if not counts.filter(pl.col("n") > n).height
           else f"the transcript with the most events, {n}; larger ones are plain logs")
    line = (f"logsleuth: note: {file} holds {counts.height} sessions; analysed {an.session} ({why}); "
            f"pick another with --session ID (see logsleuth sessions {shlex.quote(file)})")
    say(" ".join(line.split()))  # the id comes from the input


def _report(file: str, fmt: ReportFormat, reader: str | None, patterns: list[str], session: str | None,
            strict: bool, redact: bool, redact_hosts: bool) -> str | bytes:
    """The postmortem of `file` in `fmt`, the reader's coverage checked and the session noted."""
    from logsleuth.analysis import analyze as run
    from logsleuth.ingest import coverage
    from logsleuth.progress import stage
    from logsleuth.render import postmortem

    # handed over, not kept: the renderer frees the analysis (its events table above all) once
    # its context is built, so this frame must hold no reference to it
    held = [run(file, reader, patterns, session=session)]
    coverage.check(held[0].transcript, strict=strict)
    if session is None:
        _session_note(file, held[0])
    stage(f"writing the {fmt.value} report")
    if fmt is ReportFormat.json:
        from logsleuth import jsonout

        return jsonout.dumps(postmortem.analysis_document(held.pop(), redact=redact, redact_hosts=redact_hosts))
    if fmt is ReportFormat.html:
        return postmortem.render_html(held.pop(), redact=redact, redact_hosts=redact_hosts)
    return postmortem.render_markdown(held.pop(), redact=redact, redact_hosts=redact_hosts)


@app.command()
def analyze(
    file: str = FILE_ARG,
    output: Path | None = output_opt("Write here instead of stdout (the extension picks the format: .md, .html, .json)."),
    output_format: ReportFormat | None = typer.Option(
        None, "--output-format", "-O", help="md, html or json (default: from -o's extension, else md)."
    ),
    open_report: bool = typer.Option(False, "--open", help="Open the written report with the system's opener (without -o: a temporary file)."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    redact_hosts: bool = typer.Option(False, "--redact-hosts", help="Also mask IPs, host names and user names."),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
    strict: bool = STRICT_OPT,
    progress: bool | None = PROGRESS_OPT,
) -> None:
    """Write the narrative postmortem of a session (markdown, HTML or JSON)."""
    from logsleuth.cli.app import stdout_is_terminal, use_color

    reader_format_hint(format, tuple(ReportFormat))
    fmt = ReportFormat(pick_format(output, output_format, tuple(ReportFormat), ReportFormat.md))
    check_target(output)
    if open_report and output is None:
        import tempfile

        output = Path(tempfile.mkdtemp(prefix="logsleuth-")) / f"report.{fmt.value}"
    from logsleuth.cli.status import progress_line

    with progress_line("analyzing", progress):
        data = _report(file, fmt, format, patterns, session, strict, not no_redact, redact_hosts)
    if fmt is ReportFormat.md and output is None and stdout_is_terminal() and use_color():
        _page_markdown(data if isinstance(data, str) else data.decode())
        return
    with redirected(output):
        emit(data)
    if open_report and output is not None:
        say(f"logsleuth: opening {output}")
        open_with_system(output)


class ExplainFormat(enum.StrEnum):
    md = "md"
    json = "json"


@app.command()
def explain(
    file: str = FILE_ARG,
    message: int = typer.Option(..., "--message", "-m", help="The message number ([msg N] in reports: the event seq)."),
    output: Path | None = output_opt("Write here instead of stdout (the extension picks the format: .md, .json)."),
    output_format: ExplainFormat | None = typer.Option(
        None, "--output-format", "-O", help="md or json (default: from -o's extension, else md)."
    ),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
    strict: bool = STRICT_OPT,
) -> None:
    """Tell the story of one message: the road to it, its reasoning, what it assumed, what followed."""
    from logsleuth.analysis import analyze as run
    from logsleuth.ingest import coverage
    from logsleuth.render import explain as explain_render

    reader_format_hint(format, tuple(ExplainFormat))
    fmt = pick_format(output, output_format, tuple(ExplainFormat), ExplainFormat.md)
    check_target(output)
    an = run(file, format, patterns, session=session)
    coverage.check(an.transcript, strict=strict)
    if fmt == ExplainFormat.json:
        from logsleuth import jsonout

        data: str | bytes = jsonout.dumps(explain_render.explain_document(an, message, redact=not no_redact))
    else:
        data = explain_render.render_explain(an, message, redact=not no_redact)
    with redirected(output):
        emit(data)


@app.command()
def graph(
    file: str = FILE_ARG,
    output_format: GraphFormat | None = typer.Option(
        None, "--output-format", "-O", help="json, dot or mermaid (default: from -o's extension, else json)."
    ),
    output: Path | None = output_opt("Write here instead of stdout (the extension picks the format: .json, .dot, .mmd)."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
    strict: bool = STRICT_OPT,
) -> None:
    """Print the causal graph: failures, actions, chain, catch-22s, pivots, outcome, recipe."""
    from logsleuth.analysis import analyze as run
    from logsleuth.render import graph as graph_render

    reader_format_hint(format, tuple(GraphFormat))
    fmt = GraphFormat(pick_format(output, output_format, tuple(GraphFormat), GraphFormat.json))
    check_target(output)
    an = run(file, format, patterns, session=session, with_reasoning=False)
    from logsleuth.ingest import coverage

    coverage.check(an.transcript, strict=strict)
    if not no_redact:  # the one masking pass of every output
        from logsleuth.render.masking import redact_analysis

        an = redact_analysis(an)[0]
    with redirected(output):
        if fmt is GraphFormat.dot:
            emit(graph_render.to_dot(an.graph))
        elif fmt is GraphFormat.mermaid:
            emit(graph_render.to_mermaid(an.graph, an.category_title))
        else:
            from logsleuth import jsonout

            emit(jsonout.dumps(an.graph.to_dict()))
