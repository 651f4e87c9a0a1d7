"""`logsleuth events FILE`: print the event table."""

from __future__ import annotations

import enum

import typer

from logsleuth.cli.app import app, emit


class EventsFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"


@app.command()
def events(
    file: str = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok)."),
    format: str | None = typer.Option(None, "--format", help="Force a reader instead of detecting."),
    output_format: EventsFormat = typer.Option(EventsFormat.table, "--output-format", "-O"),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
) -> None:
    """Print the event table every reader produces."""
    from logsleuth import ingest, jsonout

    t = ingest.read(file, format)
    if not no_redact:  # the one masking pass of every output (render/masking.py)
        from logsleuth.render.masking import redact_object

        t = redact_object(t)[0]
    if output_format is EventsFormat.json:
        emit(jsonout.dumps({"report": t.report.to_dict(), "events": jsonout.event_rows(t.events)}))
    elif output_format is EventsFormat.jsonl:
        emit(b"\n".join(jsonout.dumps(r, indent=False) for r in jsonout.event_rows(t.events)) or b"")
    else:
        from logsleuth.render.table import events_table

        emit(events_table(t))
