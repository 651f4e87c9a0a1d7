"""Regex safety: a user pattern written to backtrack catastrophically cannot hang `classify`, and a
pattern file with a YAML syntax error is reported with path:line while the rest still loads."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOGSLEUTH = ROOT / ".venv" / "bin" / "logsleuth"
TIMEOUT = 60  # seconds; a backtracking engine would need longer than the universe on these lines

CATASTROPHIC = """\
id: {id}
title: A user pattern written for a backtracking engine
category: python_traceback
severity: error
priority: 50
regex: "{regex}"
prefilter: ["aaaa"]
explain: A run of a's at the end of a line.
examples:
  match:
    - text: "aaaa"
  no_match:
    - text: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
"""
BROKEN = """\
id: broken-yaml
title: A file with a YAML syntax error
category: python_traceback
severity: error
regex: "broken"
explain: [unclosed flow sequence
examples:
  match:
    - text: "broken"
"""


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    if not LOGSLEUTH.exists():
        pytest.skip("needs the installed entry point")
    user = tmp_path / "mypatterns"
    (user / "local").mkdir(parents=True)
    (user / "local" / "catastrophic-backtrack.yaml").write_text(
        CATASTROPHIC.format(id="catastrophic-backtrack", regex="(a+)+$"))
    (user / "local" / "broken-yaml.yaml").write_text(BROKEN)
    (tmp_path / "input.log").write_text(
        "INFO starting\n"
        + "a" * 100_000 + "!\n"  # the classic killer: a long run that fails at the very end
        + "a" * 5_000 + "\n"
        + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    return tmp_path


def classify(cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run(
        [str(LOGSLEUTH), "classify", "input.log", "--patterns", "mypatterns", "--output-format", "json"],
        cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
    )
    return proc, time.monotonic() - start


def test_catastrophic_regex_cannot_hang_classify(setup: Path) -> None:
    proc, took = classify(setup)
    assert proc.returncode == 0, proc.stderr
    assert took < TIMEOUT / 2
    doc = json.loads(proc.stdout)
    hits = {(f["pattern"], f["line"]) for f in doc["findings"]}
    assert ("catastrophic-backtrack", 3) in hits  # the user pattern ran, in linear time
    assert ("catastrophic-backtrack", 2) not in hits
    # the rest of the library (built-ins) still loaded and matched
    assert doc["primary"]["pattern"] == "cuda-no-kernel-image"
    assert "pattern problem" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_python_fallback_regex_times_out_with_a_warning(setup: Path) -> None:
    # look-around sends a pattern to the Python engine, which can backtrack: it must time out, not hang
    (setup / "mypatterns" / "local" / "lookaround-backtrack.yaml").write_text(
        CATASTROPHIC.format(id="lookaround-backtrack", regex="(?<!b)(a+)+$"))
    proc, took = classify(setup)
    assert proc.returncode == 0, proc.stderr
    assert took < TIMEOUT / 2
    assert re.search(r"input\.log:2: pattern lookaround-backtrack: regex timed out", proc.stderr), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["primary"]["pattern"] == "cuda-no-kernel-image"


def test_yaml_syntax_error_is_located_and_the_rest_loads(setup: Path) -> None:
    lint = subprocess.run(
        [str(LOGSLEUTH), "patterns", "lint", "--patterns", "mypatterns"],
        cwd=setup, capture_output=True, text=True, timeout=TIMEOUT,
    )
    out = lint.stdout + lint.stderr
    m = re.search(r"mypatterns/local/broken-yaml\.yaml:(\d+): YAML syntax error", out)
    assert m, out[-2000:]
    assert int(m.group(1)) in (6, 7)  # where the flow sequence opens, or where the parser gave up
    assert lint.returncode != 0
    assert "Traceback" not in out
    listed = subprocess.run(
        [str(LOGSLEUTH), "patterns", "list", "--patterns", "mypatterns", "--output-format", "json"],
        cwd=setup, capture_output=True, text=True, timeout=TIMEOUT,
    )
    ids = {p["id"] for p in json.loads(listed.stdout)}
    assert "catastrophic-backtrack" in ids and "cuda-no-kernel-image" in ids
    assert "broken-yaml" not in ids
