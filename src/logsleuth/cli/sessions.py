"""`logsleuth sessions FILE…` and `logsleuth sessions --db DIR`: one line per session."""

from __future__ import annotations

from pathlib import Path

import typer

from logsleuth.cli.app import TableOrJson, app, complete_reader, emit, reader_format_hint
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected
from logsleuth.errors import InputError, Location, UsageError


@app.command()
def sessions(
    paths: list[str] = typer.Argument(None, help="Transcripts, logs or folders (analysed now)."),
    db: Path | None = typer.Option(None, "--db", help="List the sessions of this index instead (see `index`)."),
    format: str | None = typer.Option(None, "--format", help="Force a reader instead of detecting.", autocompletion=complete_reader),
    patterns: list[str] = typer.Option([], "--patterns", help="Extra pattern directories (override built-ins by id)."),
    output_format: TableOrJson | None = typer.Option(
        None, "--output-format", "-O", help="table or json (default: from -o's extension, else table)."
    ),
    output: Path | None = output_opt(),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 3) instead of warning when the reader skipped part of an input."),
) -> None:
    """One line per session: id, format, start, duration, events, failures, outcome, root cause."""
    from logsleuth import sessions as sessions_mod

    reader_format_hint(format, tuple(TableOrJson))
    fmt = pick_format(output, output_format, tuple(TableOrJson), TableOrJson.table)
    check_target(output)
    if paths and db is not None:
        raise UsageError("give FILE… or --db, not both", hint="`logsleuth sessions s.jsonl` or `logsleuth sessions --db DIR`")
    if paths:
        from logsleuth.index.patterns import library

        rows = sessions_mod.from_inputs(paths, format, library(tuple(patterns)), strict=strict)
    else:
        from logsleuth.index.files import default_dir

        where = db if db is not None else default_dir()
        if not (where / "files.parquet").is_file():  # exit 3, as `search` and `serve` say it
            raise InputError("no index here", Location(str(where)), "build one with `logsleuth index PATH…`, or give FILE…")
        rows = sessions_mod.from_index(where)
    with redirected(output):
        if fmt == TableOrJson.json:
            from logsleuth import jsonout

            emit(jsonout.dumps({"sessions": [r.to_dict() for r in rows]}))
        else:
            from logsleuth.cli.classify import show_table, table_width

            show_table(sessions_mod.table(rows, width=table_width()))
