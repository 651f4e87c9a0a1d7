"""docs/cli.md's command reference is generated from the CLI: it fails here when it drifts."""

from __future__ import annotations

from logsleuth.cli import docgen


def test_cli_reference_is_current() -> None:
    current = docgen.DOC.read_text(encoding="utf-8")
    assert docgen.render(current) == current, "docs/cli.md is stale: run `python -m logsleuth.cli.docgen`"


def test_reference_covers_every_command_and_flag() -> None:
    ref = docgen.reference()
    for heading in ("`logsleuth analyze`", "`logsleuth sessions`", "`logsleuth patterns eval`", "`logsleuth search`"):
        assert f"### {heading}" in ref
    for flag in ("--output-format", "--open", "--color", "--version", "--category", "--db"):
        assert flag in ref


def test_render_replaces_only_the_generated_part() -> None:
    doc = f"intro\n{docgen.BEGIN}\nold text\n{docgen.END}\noutro\n"
    out = docgen.render(doc)
    assert out.startswith(f"intro\n{docgen.BEGIN}\n") and out.endswith(f"{docgen.END}\noutro\n")
    assert "old text" not in out and "### `logsleuth analyze`" in out
