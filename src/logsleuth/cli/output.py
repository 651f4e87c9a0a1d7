"""`-o/--output` of every command that prints a result, and the format it implies.

A command's result goes to stdout; `-o FILE` sends the same bytes to FILE instead. A regular file
is written as a temporary file renamed over it (never half written); a link, a device or a pipe
(`-o /dev/null`, `-o /dev/stdout`) is written in place, since a rename would replace it. The
extension names the format (`report.html` is HTML); an extension that names another format than
`-O`, or a format the command cannot write, is a usage error (exit 2: `-o x.html -O md` is what a user
cannot tell from the name); a name that says no format (`-o run.out`, `-o x.txt`) gets the default
format, said on stderr: refusing it broke scripts that wrote `-o run.out` (the CLI contract extends,
never breaks).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import typer

from logsleuth.errors import InputError, Location, UsageError

OUTPUT_HELP = "Write the result here instead of stdout (the extension picks the format, as -O does)."


def output_opt(help: str = OUTPUT_HELP) -> Path | None:
    """The `-o/--output FILE` option of a command."""
    value: Path | None = typer.Option(None, "-o", "--output", metavar="FILE", help=help)
    return value


# what a file name says about what it holds (several names of one format)
EXTENSIONS = {
    ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".dot": "dot", ".gv": "dot", ".mmd": "mermaid",
    ".mermaid": "mermaid", ".txt": "table", ".text": "table",
}


def pick_format(output: Path | None, chosen: str | None, formats: Sequence[str], default: str) -> str:
    """`-O` when given (checked against `-o`'s extension), else the format the extension names,
    else `default` (no `-o`, or a name without an extension such as /dev/stdout)."""
    suffix = output.suffix.lower() if output is not None else ""
    implied = EXTENSIONS.get(suffix)
    if chosen is not None:
        if implied in formats and implied != chosen:
            raise UsageError(f"-o {output} names {implied}, but -O says {chosen}",
                             hint=f"drop -O, or give -o a .{_ext(chosen)} name")
        return chosen
    if not suffix:
        return default
    if implied is not None and implied in formats:
        return implied
    listed = ", ".join(f"-O {f}" for f in formats)
    if implied is not None and suffix not in _PLAIN:  # `explain -o x.html`: HTML it cannot write
        raise UsageError(f"-o {output}: this command cannot write {implied}",
                         hint=f"name one with -O ({listed}), or use a .{_ext(default)} name")
    sys.stderr.write(f"logsleuth: note: -o {output}: '{suffix}' names no format of this command; writing {default} "
                     f"(name one with {listed}, or use a .{_ext(default)} name)\n")
    return default


_PLAIN = frozenset({".txt", ".text"})  # any text format may live in a .txt


def _ext(fmt: str) -> str:
    return next((e[1:] for e, f in EXTENSIONS.items() if f == fmt), fmt)


def check_target(output: Path | None) -> None:
    """Before the work: a missing folder or a folder given as the file is a usage error (exit 2)."""
    if output is None:
        return
    if not output.name or output.is_dir():  # `-o /`, `-o .`, `-o some/folder`
        raise UsageError(f"-o {output}: is a folder", hint="give a file name, e.g. -o report.md")
    if not output.parent.is_dir():
        raise UsageError(f"cannot write {output}: no such directory {output.parent}",
                         hint="create the directory first, or give -o a path in an existing one")


@contextmanager
def redirected(output: Path | None) -> Iterator[None]:
    """What the block writes to stdout goes to `output` (uncoloured); stdout itself when None."""
    if output is None:
        yield
        return
    from logsleuth.cli.app import _state

    check_target(output)
    in_place = output.is_symlink() or (output.exists() and not output.is_file())
    target = output if in_place else output.with_name(output.name + ".tmp")
    try:
        fh = open(target, "wb")  # noqa: SIM115 (closed with the wrapper that stands in for stdout below)
    except OSError as exc:
        raise _cannot_write(output, exc) from None
    saved, color = sys.stdout, _state["color"]
    sys.stdout = io.TextIOWrapper(fh, encoding="utf-8", errors="surrogateescape", write_through=True)
    _state["color"] = "never"  # a file is read later, by cat or an editor: no escapes
    done = False
    try:
        yield
        done = True
    except Exception as exc:
        done = type(exc).__name__ == "Exit"  # typer.Exit(1) (no hits, --fail-on): written, status kept
        raise
    finally:
        sys.stdout.close()
        sys.stdout, _state["color"] = saved, color
        if not in_place:
            _finish(target, output, done)


def _finish(tmp: Path, output: Path, done: bool) -> None:
    """The temporary file renamed over `output` when the command succeeded, removed otherwise."""
    try:
        if done:
            tmp.replace(output)
        else:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise _cannot_write(output, exc) from None


def _cannot_write(output: Path, exc: OSError) -> InputError:
    return InputError(f"cannot write: {exc.strerror or exc}", Location(str(output)),
                      "check the folder exists and is writable")
