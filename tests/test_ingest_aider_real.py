"""aider on real histories: every `Running` command read (also after an edit block whose ````
fence holds ``` lines), aider's own hints never part of a command's output, durations from aider's
input history, several sessions listed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.cli import main

REAL = Path(__file__).parent / "real_sessions"
SYNTAX_LOOP = REAL / "aider-worktree-syntax-loop" / "session.md"
README_PYLINT = REAL / "aider-worktree-readme-pylint" / "session.md"
HINTS = ("You can use /undo", "Add file to the chat?", "Tokens: ", "Applied edit to", "Attempt to fix lint errors?",
         "Only 3 reflections allowed")


def _kind(path: Path, kind: str) -> pl.DataFrame:
    ev = ingest.read(str(path)).events
    return ev.filter(pl.col("kind").cast(pl.Utf8) == kind)


@pytest.mark.parametrize("path", [SYNTAX_LOOP, README_PYLINT], ids=["syntax-loop", "readme-pylint"])
def test_every_running_line_is_a_tool_call(path: Path) -> None:
    runs = [ln for ln in path.read_text().splitlines() if re.match(r"^> (?:## Running: |Running )\S", ln)]
    calls = _kind(path, "tool_call")
    assert calls.height == len(runs) > 0
    assert calls["text"].to_list() == [re.sub(r"^> (?:## Running: |Running )", "", r).strip() for r in runs]


@pytest.mark.parametrize("path", [SYNTAX_LOOP, README_PYLINT], ids=["syntax-loop", "readme-pylint"])
def test_aider_hints_are_not_tool_output(path: Path) -> None:
    for text in _kind(path, "tool_result")["text"].to_list():
        assert not any(line.strip().startswith(HINTS) for line in text.splitlines()), text


def test_commit_line_and_prompts_stay_system_text(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-01-05 10:00:00\n\n#### run it\n\n```bash\nmake\n```\n\n"
        "> Run shell command? (Y)es/(N)o [Yes]: y  \n> Running make  \n> make: *** No rule to make target.  \n"
        "> Add command output to the chat? (Y)es/(N)o [Yes]: y  \n> Added 1 line of output to the chat.  \n"
        "> Commit 99a80f0 fix: build  \n> You can use /undo to undo and discard each aider commit.  \n"
    )
    ev = ingest.read(str(path)).events
    (result,) = ev.filter(pl.col("kind").cast(pl.Utf8) == "tool_result")["text"].to_list()
    assert result == "make: *** No rule to make target."
    system = "\n".join(ev.filter(pl.col("role").cast(pl.Utf8) == "system")["text"].to_list())
    assert "Commit 99a80f0" in system and "You can use /undo" in system


def test_duration_from_the_input_history(tmp_path: Path) -> None:
    """The chat history stamps only a session's start; aider's `.aider.input.history` beside it
    stamps each input (prompt_toolkit's `# time` + `+line` entries, a multi-line input as several)."""
    src = Path(__file__).parent / "fixtures" / "ingest" / "aider" / "sglang.aider.chat.history.md"
    shutil.copy(src, tmp_path / ".aider.chat.history.md")
    (tmp_path / ".aider.input.history").write_text(
        "\n# 2026-01-04 18:00:00.000000\n+/run nvcc --version\n"  # an earlier session: not this one's
        "\n# 2026-01-05 10:00:05.100000\n"
        '+The server dies with "no kernel image is available for execution on the device".\n'
        "+Please fix the build flags.\n"
        "\n# 2026-01-05 10:38:12.000000\n+/run nvcc --version\n"
    )
    ev = ingest.read(str(tmp_path / ".aider.chat.history.md")).events
    first = ev.filter(pl.col("session") == ev["session"][0])
    ts = first["ts"].drop_nulls()
    assert ts.len() == 3  # the header and the two inputs
    assert round((ts.max() - ts.min()).total_seconds() / 60) == 38
    without = ingest.read(str(src)).events
    assert without["ts"].drop_nulls().len() == 2  # the two headers alone


def test_several_sessions_listed_and_picked(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared / "samples" / "aider" / "aider.chat.history.md"
    headers = [ln for ln in path.read_text().splitlines() if ln.startswith("# aider chat started at ")]
    assert main(["sessions", "-O", "json", str(path)]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)["sessions"]
    assert len(rows) == len(headers) == 4
    first = rows[0]["session"]
    assert main(["analyze", "--session", first, "-O", "json", str(path)]) == 0
    doc = capsys.readouterr().out
    assert first in doc
