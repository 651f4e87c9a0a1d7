"""docs/cli.md's command reference, rendered from the CLI itself so that it cannot drift.

    python -m logsleuth.cli.docgen            # rewrite the generated part of docs/cli.md
    python -m logsleuth.cli.docgen --check    # exit 1 when it is stale (tests/test_cli_docs.py)

Only the text between the two markers is generated (every command's `--help`, at a fixed width);
the prose around it (exit codes, JSON shapes, colour, completion) is written by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BEGIN = "<!-- BEGIN GENERATED: python -m logsleuth.cli.docgen -->"
END = "<!-- END GENERATED -->"
WIDTH = 100
DOC = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


def _context(cmd: Any, name: str, parent: Any) -> Any:
    # typer ships its own click: the context class is the command's own module's
    import importlib

    ctx_cls = importlib.import_module(type(cmd).__mro__[1].__module__).Context
    return ctx_cls(cmd, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH,
                   help_option_names=["-h", "--help"])


def _help(cmd: Any, name: str, parent: Any) -> str:
    ctx = _context(cmd, name, parent)
    return str(cmd.get_help(ctx)).rstrip()


def reference() -> str:
    """Every command's help, root first, subcommands in the order `--help` lists them."""
    import typer

    from logsleuth.cli import app

    root = typer.main.get_command(app)
    root_ctx = _context(root, "logsleuth", None)
    parts = ["### `logsleuth`", "", "```text", _help(root, "logsleuth", None), "```", ""]

    def walk(group: Any, ctx: Any, prefix: str) -> None:
        for sub in group.list_commands(ctx):
            cmd = group.get_command(ctx, sub)
            if cmd is None or cmd.hidden:
                continue
            name = f"{prefix} {sub}"
            parts.extend([f"### `{name}`", "", "```text", _help(cmd, sub, ctx), "```", ""])
            if hasattr(cmd, "list_commands"):  # a group (`patterns`): its commands too
                walk(cmd, _context(cmd, sub, ctx), name)

    walk(root, root_ctx, "logsleuth")
    return "\n".join(parts).rstrip() + "\n"


def render(doc: str) -> str:
    """`doc` with its generated part replaced by the current reference."""
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{DOC}: the markers {BEGIN!r} … {END!r} are missing")
    return f"{head}{BEGIN}\n\n{reference()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    fresh = render(current)
    if "--check" in argv:
        if fresh != current:
            sys.stderr.write(f"{DOC} is stale: run `python -m logsleuth.cli.docgen`\n")
            return 1
        return 0
    DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
