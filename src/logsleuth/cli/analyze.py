"""`logsleuth analyze`, `explain` and `graph`: the postmortem, one message's story, the causal graph."""

from __future__ import annotations

import enum
from pathlib import Path

import typer

from logsleuth.cli.app import app, emit


class ReportFormat(enum.StrEnum):
    md = "md"
    html = "html"
    json = "json"


class GraphFormat(enum.StrEnum):
    json = "json"
    dot = "dot"
    mermaid = "mermaid"


FILE_ARG = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok).")
FORMAT_OPT = typer.Option(None, "--format", help="Force a reader instead of detecting.")
PATTERNS_OPT = typer.Option([], "--patterns", help="Extra pattern directories (override built-ins by id).")
SESSION_OPT = typer.Option(None, "--session", help="Which session of a multi-session input (default: the largest).")


def _write(out: Path | None, data: str | bytes) -> None:
    if out is None:
        emit(data)
        return
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data.encode() if isinstance(data, str) else data)
    tmp.replace(out)


@app.command()
def analyze(
    file: str = FILE_ARG,
    output: Path | None = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
    output_format: ReportFormat = typer.Option(ReportFormat.md, "--output-format", "-O"),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    redact_hosts: bool = typer.Option(False, "--redact-hosts", help="Also mask IPs, host names and user names."),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
) -> None:
    """Write the narrative postmortem of a session (markdown, HTML or JSON)."""
    from logsleuth.analysis import analyze as run
    from logsleuth.render import postmortem

    # handed over, not kept: the renderer frees the analysis (its events table above all) once
    # its context is built, so this frame must hold no reference to it
    held = [run(file, format, patterns, session=session)]
    redact = not no_redact
    if output_format is ReportFormat.json:
        from logsleuth import jsonout

        _write(output, jsonout.dumps(postmortem.analysis_document(held.pop(), redact=redact, redact_hosts=redact_hosts)))
    elif output_format is ReportFormat.html:
        _write(output, postmortem.render_html(held.pop(), redact=redact, redact_hosts=redact_hosts))
    else:
        _write(output, postmortem.render_markdown(held.pop(), redact=redact, redact_hosts=redact_hosts))


@app.command()
def explain(
    file: str = FILE_ARG,
    message: int = typer.Option(..., "--message", "-m", help="The message number ([msg N] in reports: the event seq)."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
) -> None:
    """Tell the story of one message: the road to it, its reasoning, what it assumed, what followed."""
    from logsleuth.analysis import analyze as run
    from logsleuth.render import explain as explain_render

    an = run(file, format, patterns, session=session)
    _write(output, explain_render.render_explain(an, message, redact=not no_redact))


@app.command()
def graph(
    file: str = FILE_ARG,
    output_format: GraphFormat = typer.Option(GraphFormat.json, "--output-format", "-O"),
    format: str | None = FORMAT_OPT,
    patterns: list[str] = PATTERNS_OPT,
    session: str | None = SESSION_OPT,
) -> None:
    """Print the causal graph: failures, actions, chain, catch-22s, pivots, outcome, recipe."""
    from logsleuth.analysis import analyze as run
    from logsleuth.render import graph as graph_render

    an = run(file, format, patterns, session=session, with_reasoning=False)
    if output_format is GraphFormat.dot:
        emit(graph_render.to_dot(an.graph))
    elif output_format is GraphFormat.mermaid:
        emit(graph_render.to_mermaid(an.graph, an.category_title))
    else:
        from logsleuth import jsonout

        emit(jsonout.dumps(an.graph.to_dict()))
