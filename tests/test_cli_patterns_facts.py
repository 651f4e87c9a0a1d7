"""`patterns lint` and `patterns test` cover the fact patterns (patterns/_facts) too: built in, and
those of a `--patterns DIR`'s `_facts/`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.library.fact_patterns import builtin_facts

FIXTURE = Path(__file__).parent / "fixtures" / "patterns"
runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout


def _library_with_facts(tmp_path: Path, fact: str) -> Path:
    root = tmp_path / "lib"
    shutil.copytree(FIXTURE, root)
    (root / "_facts").mkdir()
    (root / "_facts" / "driver.yaml").write_text(fact, encoding="utf-8")
    return root


GOOD = """id: driver
title: a driver version
fact: driver
applies_to: output
prefilter: ["Driver Version: "]
regex: "Driver Version: (?P<version>\\\\d+\\\\.\\\\d+)"
matches: first
keep: first
value: "{version}"
examples:
  match:
    - text: "Driver Version: 550.54"
      captures: {version: "550.54"}
  no_match:
    - text: "driver version: 550.54"
"""


def test_the_builtin_fact_patterns_are_linted_and_tested() -> None:
    n = len(builtin_facts().patterns)
    code, out = _invoke("patterns", "lint")
    assert code == 0 and f", {n} fact patterns, 0 error(s)" in out.splitlines()[-1], out
    code, out = _invoke("patterns", "test", "-v", "-O", "json")
    doc = json.loads(out)
    names = {r["name"] for r in doc["results"] if r["path"].startswith("patterns/_facts/")}
    assert code == 0 and doc["failed"] == 0 and len(names) >= 2 * n, names
    assert ", 0 fact patterns, " in _invoke("patterns", "lint", "--no-builtin", "--patterns", str(FIXTURE))[1]


def test_a_fact_pattern_whose_example_fails_fails_patterns_test(tmp_path: Path) -> None:
    root = _library_with_facts(tmp_path, GOOD)
    assert _invoke("patterns", "test", "--no-builtin", "--patterns", str(root))[0] == 0
    root = _library_with_facts(tmp_path / "bad", GOOD.replace('{version: "550.54"}', '{version: "550"}'))
    code, out = _invoke("patterns", "test", "--no-builtin", "--patterns", str(root))
    assert code == 1 and "FAIL driver:match[0]: capture version is '550.54', not '550'" in out, out


def test_a_bad_fact_pattern_file_fails_lint_with_its_line(tmp_path: Path) -> None:
    root = _library_with_facts(tmp_path, GOOD.replace("fact: driver", "fact: colour"))
    code, out = _invoke("patterns", "lint", "--no-builtin", "--patterns", str(root))
    assert code == 1 and "_facts/driver.yaml:3: fact must be one of" in out, out
    assert out.strip().endswith("0 fact patterns, 1 error(s), 0 warning(s)"), out
    code, out = _invoke("patterns", "test", "--no-builtin", "--patterns", str(root))
    assert code == 1 and out.strip().endswith("1 failed"), out
