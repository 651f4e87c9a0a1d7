"""`logsleuth events FILE`: print the event table."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from logsleuth.cli.app import app, complete_reader, emit
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected

# rows turned into JSON and written at a time: the output of a big log is never held whole
# (6.3 GB for a 100 MB log when every row was a dict and every dict a string at once)
CHUNK_ROWS = 4096


class EventsFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"


@app.command()
def events(
    file: str = typer.Argument(..., help="A transcript, log, folder, or - for stdin (.gz/.zst ok)."),
    format: str | None = typer.Option(None, "--format", help="Force a reader instead of detecting.", autocompletion=complete_reader),
    output_format: EventsFormat | None = typer.Option(
        None, "--output-format", "-O", help="table, json or jsonl (default: from -o's extension, else table)."
    ),
    output: Path | None = output_opt(),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep secrets in the output (default: masked)."),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 3) instead of warning when the reader skipped part of the input."),
) -> None:
    """Print the event table every reader produces."""
    from logsleuth import ingest
    from logsleuth.ingest import coverage

    fmt = EventsFormat(pick_format(output, output_format, tuple(EventsFormat), EventsFormat.table))
    check_target(output)
    t = ingest.read(file, format)
    coverage.check(t, strict=strict)
    if not no_redact:  # the one masking pass of every output (render/masking.py)
        from logsleuth.render.masking import redact_object

        t = redact_object(t)[0]
    with redirected(output):
        if fmt is EventsFormat.table:
            from logsleuth.render.table import events_table

            emit(events_table(t))
            return
        from logsleuth.cli import jsonstream

        jsonstream.write(json_chunks(t.report.to_dict(), t.events, lines=fmt is EventsFormat.jsonl))


def json_chunks(report: dict[str, Any], frame: Any, *, lines: bool) -> Iterator[bytes]:
    """The `-O json` document (byte for byte what one `jsonout.dumps` of it gives) or the
    `-O jsonl` lines, CHUNK_ROWS events at a time."""
    from logsleuth import jsonout
    from logsleuth.cli import jsonstream

    rows = (r for chunk in frame.iter_slices(CHUNK_ROWS) for r in jsonout.event_rows(chunk))
    if lines:
        return jsonstream.lines(rows)
    return jsonstream.chunks({"report": report}, {"events": (frame.height, rows)})
