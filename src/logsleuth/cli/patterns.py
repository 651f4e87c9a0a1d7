"""`logsleuth patterns list|show|test|lint|export|eval`: the pattern library."""

from __future__ import annotations

from pathlib import Path

import typer

from logsleuth.cli.app import TableOrJson, app, emit
from logsleuth.cli.classify import BUILTIN_HELP, PATTERNS_HELP
from logsleuth.cli.output import check_target, output_opt, pick_format, redirected
from logsleuth.termsafe import say

patterns_app = typer.Typer(
    name="patterns", help="List, show, test, lint, export and evaluate the pattern library.",
    no_args_is_help=True, rich_markup_mode=None,
)
app.add_typer(patterns_app, name="patterns")


def _opt_dirs() -> list[str]:
    opt: list[str] = typer.Option([], "--patterns", metavar="DIR", help=PATTERNS_HELP)
    return opt


def _opt_builtin() -> bool:
    opt: bool = typer.Option(True, "--builtin/--no-builtin", help=BUILTIN_HELP)
    return opt


def _opt_format() -> TableOrJson | None:
    opt: TableOrJson | None = typer.Option(
        None, "--output-format", "-O", help="table or json (default: from -o's extension, else table)."
    )
    return opt


def _format(output: Path | None, chosen: TableOrJson | None) -> TableOrJson:
    """-O, else what -o's name says, else a table; the target checked before the work."""
    fmt = TableOrJson(pick_format(output, chosen, tuple(TableOrJson), TableOrJson.table))
    check_target(output)
    return fmt


@patterns_app.command("list")
def list_(
    patterns: list[str] = _opt_dirs(), builtin: bool = _opt_builtin(), output_format: TableOrJson | None = _opt_format(),
    output: Path | None = output_opt(),
) -> None:
    """List every loaded pattern."""
    from logsleuth import jsonout
    from logsleuth.cli.classify import load_library_for_cli

    fmt = _format(output, output_format)
    lib = load_library_for_cli(patterns, builtin)
    with redirected(output):
        if fmt is TableOrJson.json:
            emit(jsonout.dumps([
                {"id": p.id, "category": p.category, "severity": p.severity.value, "priority": p.priority,
                 "title": p.title, "path": p.path}
                for p in lib.patterns
            ]))
        else:
            from logsleuth.render.findings import patterns_table

            emit(patterns_table(lib.patterns))


@patterns_app.command()
def show(
    pattern_id: str = typer.Argument(..., metavar="ID"),
    patterns: list[str] = _opt_dirs(),
    builtin: bool = _opt_builtin(),
    output_format: TableOrJson | None = _opt_format(),
    output: Path | None = output_opt(),
) -> None:
    """Show one pattern in full."""
    import difflib

    from logsleuth import jsonout
    from logsleuth.cli.classify import load_library_for_cli
    from logsleuth.errors import UsageError

    fmt = _format(output, output_format)
    lib = load_library_for_cli(patterns, builtin)
    p = lib.get(pattern_id)
    if p is None:
        close = difflib.get_close_matches(pattern_id, [q.id for q in lib.patterns], n=3)
        raise UsageError(f"no pattern {pattern_id!r}",
                         hint=f"did you mean {', '.join(close)}?" if close else "see `logsleuth patterns list`")
    with redirected(output):
        if fmt is TableOrJson.json:
            emit(jsonout.dumps(p.to_dict()))
        else:
            from logsleuth.render.findings import pattern_text

            emit(pattern_text(p))


@patterns_app.command()
def test(
    patterns: list[str] = _opt_dirs(),
    builtin: bool = _opt_builtin(),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also list the examples that pass."),
    output_format: TableOrJson | None = _opt_format(),
    output: Path | None = output_opt(),
) -> None:
    """Run every embedded example (of the fact patterns too), plus the check that each is won by its own pattern."""
    from logsleuth import jsonout
    from logsleuth.library import load_library
    from logsleuth.library.fact_patterns import facts_for
    from logsleuth.pattern_tests import example_checks, fact_example_checks

    fmt = _format(output, output_format)
    lib = load_library(patterns, builtins=builtin)
    facts = facts_for(patterns, builtin)  # the fact patterns (patterns/_facts) are tested too
    results = example_checks(lib) + fact_example_checks(facts)
    broken = [*lib.errors, *facts.problems]  # a file that does not load is a failed test too
    failed = sum(1 for r in results if not r.ok) + len(broken)
    line = f"{len(results) - failed + len(broken)} passed, {failed} failed"
    with redirected(output):
        if fmt is TableOrJson.json:
            emit(jsonout.dumps({
                "passed": len(results) - failed + len(broken), "failed": failed,
                "results": [{"name": r.name, "ok": r.ok, "message": r.message, "path": r.path, "line": r.line}
                            for r in results if verbose or not r.ok],
                "problems": [str(p) for p in broken],
            }))
        else:
            shown = [str(p) for p in broken] + [str(r) for r in results if verbose or not r.ok]
            emit("\n".join([*shown, line]))
    if failed:
        raise typer.Exit(1)


@patterns_app.command()
def lint(
    patterns: list[str] = _opt_dirs(),
    builtin: bool = _opt_builtin(),
    strict: bool = typer.Option(False, "--strict", help="Fail on warnings too."),
    output_format: TableOrJson | None = _opt_format(),
    output: Path | None = output_opt(),
) -> None:
    """Report `path:line: problem` for every bad pattern file (fact patterns too); exit 1 on any error."""
    from logsleuth import jsonout
    from logsleuth.library import load_library
    from logsleuth.library.fact_patterns import facts_for

    fmt = _format(output, output_format)
    lib = load_library(patterns, builtins=builtin)
    facts = facts_for(patterns, builtin)  # the fact patterns (patterns/_facts) are linted too
    from logsleuth.library.linear import problems_of

    # a super-linear regex is rejected here (the Rust engine that matches it stays linear; the
    # Python side that captures from it would not): issue 35
    problems = [*lib.problems, *facts.problems, *problems_of(lib.patterns)]
    errors = [p for p in problems if p.level == "error"]
    with redirected(output):
        if fmt is TableOrJson.json:
            emit(jsonout.dumps([{"path": p.path, "line": p.line, "level": p.level, "message": p.message}
                                for p in problems]))
        else:
            emit("\n".join([*(str(p) for p in problems),
                            f"{len(lib.patterns)} patterns, {len(facts.patterns)} fact patterns, {len(errors)} error(s),"
                            f" {len(problems) - len(errors)} warning(s)"]))
    if errors or (strict and problems):
        raise typer.Exit(1)


@patterns_app.command()
def export(
    rg: bool = typer.Option(False, "--rg", help="One ripgrep-compatible regex per line (rg -f FILE)."),
    patterns: list[str] = _opt_dirs(),
    builtin: bool = _opt_builtin(),
    output: Path | None = output_opt("Write the regexes here instead of stdout (then `rg -f FILE`)."),
) -> None:
    """Export the regexes for other tools."""
    from logsleuth.cli.classify import load_library_for_cli
    from logsleuth.errors import UsageError
    from logsleuth.library.regexes import to_ripgrep

    if not rg:
        raise UsageError("choose an export format", hint="pass --rg")
    check_target(output)
    lib = load_library_for_cli(patterns, builtin)
    out = []
    for p in lib.patterns:
        rx = to_ripgrep(p.regex)
        if rx is None:
            say(f"logsleuth: warning: {p.path}: {p.id}: regex is not ripgrep-compatible; skipped")
        else:
            out.append(rx)
    with redirected(output):
        emit("\n".join(out))


@patterns_app.command("eval")
def eval_(
    file: str = typer.Argument(..., help='JSONL of {"id", "category", "log"} records.'),
    patterns: list[str] = _opt_dirs(),
    builtin: bool = _opt_builtin(),
    reader: str = typer.Option("auto", "--reader", help="auto | plaintext | record (one event per record)."),
    min_accuracy: float | None = typer.Option(None, "--min-accuracy", help="Exit 1 below this accuracy."),
    output_format: TableOrJson | None = _opt_format(),
    output: Path | None = output_opt(),
) -> None:
    """Score the classifier on a labelled corpus: per-category precision/recall, accuracy, confusions."""
    from logsleuth import jsonout
    from logsleuth.cli.classify import load_library_for_cli
    from logsleuth.evaluate import evaluate

    fmt = _format(output, output_format)
    result = evaluate(file, load_library_for_cli(patterns, builtin), reader)
    with redirected(output):
        emit(jsonout.dumps(result.to_dict()) if fmt is TableOrJson.json else result.to_text())
    if min_accuracy is not None and result.accuracy < min_accuracy:
        raise typer.Exit(1)
