"""A long `analyze` says what it is doing on stderr (a live line on a terminal, a line a stage
with --progress), never on stdout; `index`'s bar names the input being analysed, not the last one."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.cli import main
from logsleuth.index import build as indexer

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "sample_logs" / "sglang-sm120" / "server.log"


def test_progress_names_each_stage_on_stderr_and_leaves_stdout_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(LOG), "--no-progress"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main(["analyze", str(LOG), "--progress"]) == 0
    loud = capsys.readouterr()
    assert loud.out == quiet.out
    stages = [ln.split(": ", 2)[2].rsplit(" (", 1)[0] for ln in loud.err.splitlines()]
    assert all(ln.startswith("logsleuth: analyzing: ") for ln in loud.err.splitlines())
    assert stages[0] == f"reading {LOG}" and stages[-1] == "writing the md report"
    assert any(s.startswith("classifying ") and s.endswith(" events") for s in stages)
    assert any(s.startswith("linking ") for s in stages)


def test_without_a_terminal_no_progress_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(LOG), "-O", "json"]) == 0
    assert capsys.readouterr().err == ""  # stderr is captured here: no terminal, no line


def test_the_index_bar_names_the_input_under_way(tmp_path: Path) -> None:
    a, b = tmp_path / "in" / "a.log", tmp_path / "in" / "b.log"
    a.parent.mkdir()
    a.write_bytes(LOG.read_bytes())
    b.write_bytes(LOG.read_bytes() + b"\nextra line\n")
    seen: list[tuple[int, str]] = []
    indexer.build([str(a.parent)], tmp_path / "db", origin="t", jobs=1,
                  progress=lambda p: seen.append((p.done, Path(p.source).name)))
    # each input is named when its analysis starts (done still counts the ones before it), then when it is done
    assert seen == [(0, "a.log"), (1, "a.log"), (1, "b.log"), (2, "b.log")]
