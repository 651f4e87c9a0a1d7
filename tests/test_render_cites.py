"""Wording a user reads as wrong: a package installed from a path is the name *from* the path
(not `torch../dl/torch.whl`), and a fix re-run in the same command is said so, not cited twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from index_sessions import claude_session
from logsleuth.actions.packages import spec_code
from logsleuth.cli import main

MISSING = ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import {m}\n"
           "ModuleNotFoundError: No module named '{m}'")


@pytest.mark.parametrize(("subject", "value", "want"), [
    ("torch", "../dl/torch-2.6.0-cp311-cp311-linux_x86_64.whl", "`torch` from `../dl/torch-2.6.0-cp311-cp311-linux_x86_64.whl`"),
    ("nvidia-cuda-nvcc", "<13.1", "`nvidia-cuda-nvcc<13.1`"), ("torch", "==2.6.0", "`torch==2.6.0`"),
    ("vllm", "[all]", "`vllm[all]`"), ("ninja", None, "`ninja`"),
])
def test_a_package_target_reads_as_one_name_and_where_it_came_from(subject: str, value: str | None, want: str) -> None:
    assert spec_code(subject, value) == want


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], steps: list[tuple[str, str, bool]], *extra: str) -> str:
    path = tmp_path / "s.jsonl"
    path.write_text(claude_session("sess", "2026-03-01T09:00:00", steps, goal="train the model"))
    assert main(["analyze", str(path), *extra]) == 0
    return capsys.readouterr().out


def test_a_wheel_installed_from_a_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = _report(tmp_path, capsys, [
        ("python train.py", MISSING.format(m="torch"), True),
        ("pip install ../dl/torch-2.6.0-cp311-cp311-linux_x86_64.whl",
         "Processing ../dl/torch-2.6.0-cp311-cp311-linux_x86_64.whl\nSuccessfully installed torch-2.6.0", False),
        ("python train.py", "training ok, loss 0.1", False)])
    assert "`torch` from `../dl/torch-2.6.0-cp311-cp311-linux_x86_64.whl` resolves to 2.6.0" in md
    assert "torch../dl" not in md


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_fix_and_its_re_run_in_one_command_are_one_citation(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                fmt: str) -> None:
    out = _report(tmp_path, capsys, [
        ("python train.py", MISSING.format(m="einops"), True),
        ("pip install einops && python train.py", "Successfully installed einops-0.8.0\ntraining ok, loss 0.1", False)],
        "-O", fmt)
    assert "gone at the re-run in the same command" in out
    assert "gone at the re-run [msg 3]" not in out and "gone by [msg 3]" not in out


def test_sglangs_own_shutdown_kill_is_no_oom_kill(capsys: pytest.CaptureFixture[str]) -> None:
    """"Killed" right after "Received sigquit from a child process" is SGLang killing its own
    process group (the child's error is above), not the kernel's OOM killer."""
    import json

    log = Path(__file__).resolve().parent.parent / "sample_logs" / "sglang-sm120" / "server.log"
    assert main(["classify", str(log), "-O", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["findings"]
    patterns = [f["pattern"] for f in found]
    assert "process-killed-oom" not in patterns
    assert patterns.count("sglang-child-failed-shutdown") == 4
    assert all(f["severity"] == "info" for f in found if f["pattern"] == "sglang-child-failed-shutdown")
    # a build's "Killed" is still an OOM kill: the patterns' own examples (patterns test) hold both
