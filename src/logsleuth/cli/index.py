"""`logsleuth index PATH…` and `logsleuth search QUERY`: the corpus index and its search."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from logsleuth.cli.app import TableOrJson, app, complete_category, emit
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected
from logsleuth.errors import ExitCode, InputError, Location, UsageError

DB_OPT = typer.Option(None, "--db", help="Index directory (default: $XDG_DATA_HOME/logsleuth).")
PATTERNS_OPT = typer.Option([], "--patterns", help="Extra pattern directories (override built-ins by id).")
BUILTIN_OPT = typer.Option(
    True, "--builtin/--no-builtin", help="Use the built-in patterns (--no-builtin: only --patterns dirs)."
)


@contextmanager
def _progress_bar() -> Iterator[Callable[[Any], None] | None]:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.description}", style="dim"),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("", total=None)
    with bar:

        def update(p: Any) -> None:
            bar.update(task, completed=p.done, total=p.total, description=p.source[-60:])

        yield update


def _summary_text(s: Any) -> str:
    lines = [
        f"indexed {s.files} file(s): {s.sessions} session(s), {s.findings} finding(s), "
        f"{s.skipped_lines} skipped line(s); {s.unchanged} unchanged, {s.removed} removed, "
        f"{len(s.errors)} error(s)",
        f"index: {s.total_files} file(s), {s.total_findings} finding(s)",
    ]
    lines += [f"not used: {e}" for e in s.errors]
    return "\n".join(lines)


@app.command()
def index(
    paths: list[str] = typer.Argument(None, help="Transcripts, logs or folders (searched recursively)."),
    auto: bool = typer.Option(False, "--auto", help="Also index the default session folders of Claude Code, Codex, opencode and Gemini CLI."),
    db: Path | None = DB_OPT,
    no_wait: bool = typer.Option(False, "--no-wait", help="Fail instead of waiting when another index run holds the lock."),
    force: bool = typer.Option(False, "--force", help="Re-index every input, changed or not."),
    keep_deleted: bool = typer.Option(False, "--keep-deleted", help="Keep the findings of inputs that no longer exist."),
    patterns: list[str] = PATTERNS_OPT,
    builtin: bool = BUILTIN_OPT,
    output_format: TableOrJson | None = typer.Option(
        None, "--output-format", "-O", help="The summary as table or json (default: from -o's extension, else table)."
    ),
    output: Path | None = output_opt("Write the summary here instead of stdout (the extension picks the format, as -O does)."),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", min=1, help="Processes analysing inputs side by side (default: the cores, at most 4; $LOGSLEUTH_INDEX_JOBS)."
    ),
    origin: str | None = typer.Option(
        None, "--origin", help="Who or which machine these inputs come from (default: the host name): the same path from two origins is two inputs."
    ),
) -> None:
    """Build or update the Parquet index of findings and what resolved them."""
    from logsleuth.index.build import build
    from logsleuth.index.files import auto_roots
    from logsleuth.index.patterns import library

    roots = list(paths or [])
    if auto:
        found = auto_roots()
        if not found and not roots:
            raise UsageError(
                "--auto found no session folders",
                hint="looked for ~/.claude/projects, ~/.codex/sessions, $XDG_DATA_HOME/opencode, ~/.gemini/tmp/*/chats",
            )
        roots += found
    if not roots:
        raise UsageError("nothing to index", hint="give PATH… or --auto")
    fmt = pick_format(output, output_format, tuple(TableOrJson), TableOrJson.table)
    check_target(output)
    with _progress_bar() as progress:
        summary = build(
            roots, db, library=library(tuple(patterns), builtin), wait=not no_wait, force=force, keep_deleted=keep_deleted, progress=progress,
            jobs=jobs, origin=origin,
        )
    with redirected(output):
        if fmt == TableOrJson.json:
            from logsleuth import jsonout

            emit(jsonout.dumps(summary.to_dict() | {"not_used": summary.not_used}))
        else:
            emit(_summary_text(summary) + "".join(f"\nnot used: {u}" for u in summary.not_used))
    if summary.errors and not (summary.files or summary.unchanged):
        raise typer.Exit(int(ExitCode.INPUT))


@app.command()
def search(
    query: str = typer.Argument(..., help="Pasted error text (a line or a whole traceback), a pattern id, or - for stdin."),
    db: Path | None = DB_OPT,
    files: list[str] = typer.Option([], "--in", help="Search these inputs (analysed now) instead of the index."),
    category: str | None = typer.Option(None, "--category", help="Only this category.", autocompletion=complete_category),
    since: str | None = typer.Option(None, "--since", help="Only occurrences on or after this date (YYYY-MM-DD)."),
    limit: int = typer.Option(10, "--limit", help="At most this many results."),
    patterns: list[str] = PATTERNS_OPT,
    builtin: bool = BUILTIN_OPT,
    output_format: TableOrJson | None = typer.Option(
        None, "--output-format", "-O", help="table or json (default: from -o's extension, else table)."
    ),
    output: Path | None = output_opt(),
) -> None:
    """Prior occurrences of an error and what fixed them."""
    from logsleuth.index.patterns import library
    from logsleuth.search import engine
    from logsleuth.search.hits import render_table
    from logsleuth.search.query import parse_since

    fmt = pick_format(output, output_format, tuple(TableOrJson), TableOrJson.table)
    check_target(output)
    if query == "-":
        query = sys.stdin.read()
    if db is not None and db.exists() and not db.is_dir():  # said as `files.parquet: Not a directory` before
        raise InputError("not an index folder (a file)", Location(str(db)),
                         "give --db the folder `logsleuth index` wrote (it holds files.parquet)")
    lib = library(tuple(patterns), builtin)
    if category is not None and lib.categories and category not in lib.categories:
        import difflib

        close = difflib.get_close_matches(category, sorted(lib.categories), n=1)
        raise UsageError(
            f"unknown category '{category}'",
            hint=(f"did you mean '{close[0]}'? " if close else "") + "one of: " + ", ".join(sorted(lib.categories)),
        )
    result = engine.search(
        query,
        db=db,
        files=files,
        category=category,
        since=parse_since(since),
        limit=limit,
        lib=lib,
    )
    with redirected(output):
        if fmt == TableOrJson.json:
            from logsleuth import jsonout

            emit(jsonout.dumps(result.to_dict()))
        elif result.hits:
            emit(render_table(result))
    if files and result.errors and len(result.errors) >= len(files) and not result.hits:
        raise InputError(result.errors[0])
    if not result.hits:  # as grep and ripgrep: nothing on stdout, 1 when nothing was found
        if fmt == TableOrJson.table:
            _say_no_hits(result)
        raise typer.Exit(int(ExitCode.FINDINGS))


def _say_no_hits(result: Any) -> None:
    """On stderr: that nothing was found, the inputs that could not be searched, and what the
    pattern library says about the error."""
    from logsleuth.search.render import no_hits
    from logsleuth.termsafe import inert_text, say

    for e in result.errors:
        say(f"logsleuth: warning: {e}")
    q = result.query
    sys.stderr.write(inert_text(no_hits({"text": q.text, "pattern": q.pattern, "category": q.category,
                                         "captures": q.captures})))
