"""`logsleuth patterns …` and `logsleuth classify`, plus every example of the real library as a test."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

import pytest
import regex
from typer.testing import CliRunner

from logsleuth.cli import app, main
from logsleuth.evaluate import evaluate
from logsleuth.library import load_library
from logsleuth.pattern_tests import ExampleResult, example_checks

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "patterns"
ONLY_FIXTURE = ["--no-builtin", "--patterns", str(FIXTURE)]
runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout


def test_patterns_test_passes_on_the_fixture_library() -> None:
    code, out = _invoke("patterns", "test", *ONLY_FIXTURE)
    assert code == 0, out
    assert re.fullmatch(r"\d+ passed, 0 failed", out.strip().splitlines()[-1])


def test_patterns_test_fails_on_a_wrong_capture_and_a_stolen_example(tmp_path: Path) -> None:
    root = tmp_path / "pats"
    shutil.copytree(FIXTURE, root)
    p = root / "generic" / "missing-shared-library.yaml"
    p.write_text(p.read_text().replace("captures: {lib: libcudart.so.12}", "captures: {lib: libcudart.so.13}"))
    g = root / "generic" / "dlopen-generic.yaml"
    same_category = g.read_text().replace("priority: 30", "priority: 95")
    g.write_text(same_category)  # outranks missing-shared-library on its example, but same category: fine
    code, out = _invoke("patterns", "test", "--no-builtin", "--patterns", str(root))
    assert code == 1 and out.strip().splitlines()[-1].endswith(" passed, 1 failed")
    assert "missing-shared-library:match[0]: captures differ: lib: expected 'libcudart.so.13'" in out
    g.write_text(same_category.replace("category: missing_shared_library", "category: python_traceback"))
    code, out = _invoke("patterns", "test", "--no-builtin", "--patterns", str(root))
    assert code == 1 and out.strip().splitlines()[-1].endswith(" passed, 2 failed")
    assert "missing-shared-library:wins[0]: won by dlopen-generic (python_traceback, priority 95)" in out
    assert "ptxas-unsupported-ptx-version" not in out


def test_lint_reports_path_line_and_exits_1(tmp_path: Path) -> None:
    root = tmp_path / "pats"
    shutil.copytree(FIXTURE, root)
    bad = root / "cuda" / "ptxas-unsupported-ptx-version.yaml"
    bad.write_text(bad.read_text().replace('regex: "Unsupported', 'regex: "(?<!x)Unsupported'))
    code, out = _invoke("patterns", "lint", "--no-builtin", "--patterns", str(root))
    assert code == 1
    assert f"{root}/cuda/ptxas-unsupported-ptx-version.yaml:6: regex is not portable" in out
    code, out = _invoke("patterns", "lint", *ONLY_FIXTURE)
    assert code == 0 and out.strip().endswith("0 error(s), 0 warning(s)")


def test_export_rg_one_regex_per_line() -> None:
    code, out = _invoke("patterns", "export", "--rg", *ONLY_FIXTURE)
    lines = out.strip().splitlines()
    lib = load_library([str(FIXTURE)], builtins=False, env=False)
    assert code == 0 and len(lines) == len(lib.patterns)
    for line in lines:
        regex.compile(line)
    assert main(["patterns", "export", *ONLY_FIXTURE]) == 2  # a format is required


def test_list_and_show() -> None:
    code, out = _invoke("patterns", "list", "-O", "json", *ONLY_FIXTURE)
    ids = [p["id"] for p in json.loads(out)]
    assert code == 0 and ids == sorted(ids) and "nonzero-exit" in ids
    code, out = _invoke("patterns", "show", "nonzero-exit", "-O", "json", *ONLY_FIXTURE)
    shown = json.loads(out)
    assert shown["scope"] == {"kinds": ["tool_result"], "is_error": True, "command": "\\b(make|ninja|pip)\\b"}
    code, out = _invoke("patterns", "show", "nonzero-exit", *ONLY_FIXTURE)
    assert "nonzero-exit: A build command exited non-zero" in out
    assert main(["patterns", "show", "nonzero-exi", *ONLY_FIXTURE]) == 2


def test_classify_cli_json_and_fail_on() -> None:
    session = str(FIXTURES / "classify" / "session.jsonl")
    code, out = _invoke("classify", session, "-O", "json", *ONLY_FIXTURE)
    data = json.loads(out)
    assert code == 0 and set(data) == {"report", "primary", "findings", "unclassified"}
    assert data["primary"]["pattern"] == "ptxas-unsupported-ptx-version" and data["primary"]["line"] == 3
    assert [f["pattern"] for f in data["findings"]] == [
        "ptxas-unsupported-ptx-version", "missing-shared-library", "dlopen-generic", "sgl-kernel-common-ops",
        "python-traceback",
    ]
    assert data["report"]["format"] == "openai-messages"
    assert [u["template"] for u in data["unclassified"]] == ["worker <num> failed with status <hex> at <path>"]
    assert main(["classify", session, "--fail-on", "error", *ONLY_FIXTURE]) == 1
    assert main(["classify", session, "--fail-on", "fatal", *ONLY_FIXTURE]) == 0
    code, out = _invoke("classify", session, *ONLY_FIXTURE)
    assert "primary: ptxas-unsupported-ptx-version (ptxas_unsupported_ptx_version)" in out


def test_eval_scores_a_small_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    recs = [
        {"id": "a", "category": "missing_shared_library", "log": "x\nImportError: libz.so.1: cannot open shared object file"},
        {"id": "b", "category": "ptxas_unsupported_ptx_version",
         "log": "ptxas fatal   : Unsupported .version 8.8; current version is '8.7'"},
        {"id": "c", "category": "none", "log": "INFO:     Application startup complete."},
        {"id": "d", "category": "cuda_oom", "log": "torch.OutOfMemoryError: CUDA out of memory."},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    code, out = _invoke("patterns", "eval", str(corpus), "-O", "json", "--reader", "record", *ONLY_FIXTURE)
    data = json.loads(out)
    assert code == 0 and data["accuracy"] == 0.75 and data["records"] == 4
    assert data["confusions"] == [{"id": "d", "expected": "cuda_oom", "predicted": "none", "pattern": None}]
    cats = {c["category"]: c for c in data["categories"]}
    assert cats["none"]["precision"] == 0.5 and cats["cuda_oom"]["recall"] == 0.0
    assert main(["patterns", "eval", str(corpus), "--min-accuracy", "0.9", "--reader", "record", *ONLY_FIXTURE]) == 1


# ------------------------------------------------------------ the real library: every example is a test


@functools.cache
def _builtin_results() -> tuple[ExampleResult, ...]:
    return tuple(example_checks(load_library([], env=False)))


def _builtin_ids() -> list[str]:
    return [r.name for r in _builtin_results()] or ["<no patterns yet>"]


@pytest.mark.parametrize("name", _builtin_ids())
def test_builtin_example(name: str) -> None:
    results = {r.name: r for r in _builtin_results()}
    if not results:
        pytest.skip("patterns/ holds no patterns yet")
    r = results[name]
    assert r.ok, str(r)


def test_builtin_library_lints_clean() -> None:
    lib = load_library([], env=False)
    assert not lib.errors, "\n".join(str(p) for p in lib.errors)


def test_eval_on_the_dev_corpus(shared: Path) -> None:
    corpus = shared / "corpus" / "cuda_errors_dev.jsonl"
    lib = load_library([], env=False)
    result = evaluate(str(corpus), lib)
    wanted = {o.expected for o in result.outcomes} - {"none"}
    covered = {p.category for p in lib.patterns}
    if not wanted <= covered:  # the pattern data is still being written
        pytest.xfail(f"no patterns yet for {sorted(wanted - covered)}; accuracy {result.accuracy:.3f}")
    assert result.accuracy >= 0.95, result.to_text()
