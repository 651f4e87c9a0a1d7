"""The pattern library loader: validation with path:line problems, overrides, portability, knowledge."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from logsleuth.errors import UsageError
from logsleuth.library import Knowledge, Renderer, builtin_dir, load_library, regexes
from logsleuth.library.knowledge import Facts
from logsleuth.model import Severity

FIXTURE = Path(__file__).parent / "fixtures" / "patterns"

GOOD = """\
id: {id}
title: Something broke
category: missing_shared_library
severity: error
priority: {priority}
regex: "(?P<lib>lib\\\\w+\\\\.so): cannot open"
prefilter: ["cannot open"]
fingerprint: [lib]
explain: "{{{{ lib }}}} is missing."
examples:
  match:
    - text: "libfoo.so: cannot open"
      captures: {{lib: libfoo.so}}
"""


def _lib_dir(tmp_path: Path) -> Path:
    """A pattern dir with the fixture _meta tables and nothing else."""
    root = tmp_path / "pats"
    shutil.copytree(FIXTURE / "_meta", root / "_meta")
    (root / "fam").mkdir()
    return root


def _load(*dirs: Path) -> object:
    return load_library([str(d) for d in dirs], builtins=False, env=False)


def _problems(root: Path) -> list[str]:
    lib = load_library([str(root)], builtins=False, env=False)
    return [str(p) for p in lib.problems]


def test_fixture_library_loads_sorted_and_clean() -> None:
    lib = load_library([str(FIXTURE)], builtins=False, env=False)
    ids = [p.id for p in lib.patterns]
    assert ids == sorted(ids) and "ptxas-unsupported-ptx-version" in ids
    assert lib.problems == ()
    p = lib.get("ptxas-unsupported-ptx-version")
    assert p is not None and p.severity is Severity.ERROR and p.groups == ("ptx_version", "ptxas_max")
    assert p.path == f"{FIXTURE}/cuda/ptxas-unsupported-ptx-version.yaml" and p.line == 1
    assert "ptxas_unsupported_ptx_version" in lib.categories


def test_yaml_syntax_error_is_located_and_the_rest_loads(tmp_path: Path) -> None:
    root = _lib_dir(tmp_path)
    (root / "fam" / "good.yaml").write_text(GOOD.format(id="good", priority=50))
    (root / "fam" / "broken.yaml").write_text("id: broken\ntitle: x\nregex: [unclosed\nseverity: error\n")
    lib = load_library([str(root)], builtins=False, env=False)
    assert [p.id for p in lib.patterns] == ["good"]
    (problem,) = lib.problems
    assert problem.path == f"{root}/fam/broken.yaml" and problem.line == 4
    assert str(problem).startswith(f"{root}/fam/broken.yaml:4: YAML syntax error")


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (("severity: error", "severity: bad"), 4, "severity 'bad' is not one of"),
        (("priority: 50", "priority: high"), 5, "priority must be an integer"),
        (("id: x1", "id: other"), 1, "must equal the file name stem 'x1'"),
        (("category: missing_shared_library", "category: nope"), 3, "unknown category 'nope'"),
        (("fingerprint: [lib]", "fingerprint: [library]"), 8, "fingerprint names capture 'library'"),
        (("{lib: libfoo.so}", "{libname: libfoo.so}"), 13, "names capture 'libname', which the regex lacks"),
        (('regex: "(?P<lib>', 'regex: "(?P<lib>('), 6, "invalid regex (Python `regex`)"),
        (('explain: "{{ lib }} is missing."', 'explain: "{{ dir }} is missing."'), 9, "has no group named 'dir'"),
        (('explain: "{{ lib }} is missing."', 'explain: "{{ lib | nosuchfilter }}"'), 9, "nosuchfilter"),
        (("title: Something broke\n", ""), 1, "missing required field 'title'"),
    ],
)
def test_schema_violations_are_located(tmp_path: Path, edit: tuple[str, str], line: int, message: str) -> None:
    root = _lib_dir(tmp_path)
    text = GOOD.format(id="x1", priority=50)
    assert edit[0] in text
    (root / "fam" / "x1.yaml").write_text(text.replace(edit[0], edit[1], 1))
    (root / "fam" / "ok.yaml").write_text(GOOD.format(id="ok", priority=50))
    lib = load_library([str(root)], builtins=False, env=False)
    errors = [p for p in lib.problems if p.level == "error"]
    assert len(errors) == 1, lib.problems
    assert errors[0].line == line and message in errors[0].message, str(errors[0])
    assert [p.id for p in lib.patterns] == ["ok"]  # the bad file is left out, the rest loads


def test_duplicate_id_within_a_root(tmp_path: Path) -> None:
    root = _lib_dir(tmp_path)
    (root / "fam" / "dup.yaml").write_text(GOOD.format(id="dup", priority=50))
    (root / "other").mkdir()
    (root / "other" / "dup.yaml").write_text(GOOD.format(id="dup", priority=60))
    lib = load_library([str(root)], builtins=False, env=False)
    assert [p.priority for p in lib.patterns] == [50]
    assert any("duplicate id 'dup'" in str(p) and str(p).startswith(f"{root}/other/dup.yaml:1") for p in lib.problems)


def test_user_dir_overrides_by_id_and_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _lib_dir(tmp_path)
    (base / "fam" / "shared-id.yaml").write_text(GOOD.format(id="shared-id", priority=10))
    user = tmp_path / "user"
    (user / "x").mkdir(parents=True)
    (user / "x" / "shared-id.yaml").write_text(GOOD.format(id="shared-id", priority=99))
    lib = load_library([str(base), str(user)], builtins=False, env=False)
    (p,) = lib.patterns
    assert p.priority == 99 and p.origin == str(user)
    monkeypatch.setenv("LOGSLEUTH_PATTERNS", str(user))
    lib = load_library([str(base)], builtins=False, env=True)  # --patterns beats the env var
    assert lib.patterns[0].priority == 10
    lib = load_library([], builtins=False, env=True)
    assert lib.patterns[0].priority == 99


def test_missing_user_dir_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load_library([str(tmp_path / "nope")], builtins=False, env=False)


def test_regex_polars_rejects_is_a_lint_error_but_the_pattern_still_loads(tmp_path: Path) -> None:
    root = _lib_dir(tmp_path)
    text = GOOD.format(id="lookbehind", priority=50).replace('regex: "(?P<lib>', 'regex: "(?<=x)(?P<lib>')
    text = text.replace('"libfoo.so: cannot open"', '"xlibfoo.so: cannot open"')
    (root / "fam" / "lookbehind.yaml").write_text(text)
    lib = load_library([str(root)], builtins=False, env=False)
    (problem,) = lib.problems
    assert problem.level == "error" and problem.line == 6 and "not portable" in problem.message
    assert "look-around" in problem.message
    (p,) = lib.patterns
    assert not p.portable


def test_empty_matching_regex_is_rejected(tmp_path: Path) -> None:
    root = _lib_dir(tmp_path)
    text = GOOD.format(id="empty", priority=50).replace('regex: "(?P<lib>lib\\\\w+\\\\.so): cannot open"',
                                                        'regex: "(?P<lib>x*)"')
    (root / "fam" / "empty.yaml").write_text(text)
    assert any("matches the empty string" in p for p in _problems(root))


def test_python_regex_timeout_is_an_exception_not_a_hang() -> None:
    start = time.perf_counter()
    with pytest.raises(regexes.RegexTimeout):
        regexes.search(r"(a|aa)+$", "a" * 60 + "b", timeout=0.1)
    assert time.perf_counter() - start < 5


def test_ripgrep_export_is_one_line_without_group_names() -> None:
    # `rg -f` joins the lines into one regex (group names would clash) and matches line by line:
    # the most specific single-line piece of a multi-line regex is kept (see library/ripgrep.py)
    assert regexes.to_ripgrep("(?P<v>\\d+)\nx\\Z") == "(?:x$)"
    assert regexes.to_ripgrep("(?m)^(?P<a>b)|c") == "(?:(?m)^(?:b)|c)"
    assert regexes.to_ripgrep("(?<=a)b") is None


def test_knowledge_filters() -> None:
    lib = load_library([str(FIXTURE)], builtins=False, env=False)
    f = Facts(lib.knowledge)
    assert f.cuda_for_ptx("9.2") == "13.2" and f.cuda_for_ptx("PTX 8.7") == "12.8"
    assert f.ptx_for_cuda("13.2.1") == "9.2" and f.ptx_for_cuda("12") == "8.8"
    assert f.driver_for_cuda("12.8") == "r570" and f.driver_for_cuda("13020") == "r595"
    assert f.arch_for_sm("sm_120a") == "Blackwell" and f.arch_for_sm("12.0") == "Blackwell"
    assert f.gpus_for_sm("compute_90") == "H100, H200"
    assert f.cuda_for_ptx("1.0") == "?" and f.arch_for_sm("") == "?"


def test_renderer_missing_captures_render_empty_and_sandboxed() -> None:
    r = Renderer(Knowledge())
    assert r.render("lib={{ lib }} sm={{ sm }}.", {"lib": "libx.so"}, ("lib", "sm")) == "lib=libx.so sm=."
    assert r.render("{% if sm.startswith('12') %}new{% endif %}ok", {}, ("sm",)) == "ok"
    from jinja2.exceptions import SecurityError

    with pytest.raises(SecurityError):
        r.render("{{ x.__class__.__mro__[1].__subclasses__() }}", {"x": "a"})


def test_builtin_dir_is_the_repo_patterns_folder() -> None:
    d = builtin_dir()
    assert d is not None and d.name in ("patterns", "_patterns")
