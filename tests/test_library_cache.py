"""The pattern-library cache: reused when nothing changed, reloaded when anything did, never fatal."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from logsleuth.library import load_library, loader

FIXTURE = Path(__file__).parent / "fixtures" / "patterns"

GOOD = """\
id: cache-probe
title: {title}
category: missing_shared_library
severity: error
priority: 50
regex: "(?P<lib>lib\\\\w+\\\\.so): cannot open"
prefilter: ["cannot open"]
fingerprint: [lib]
explain: "{{{{ lib | arch_for_sm }}}} {{{{ lib }}}} is missing."
examples:
  match:
    - text: "libfoo.so: cannot open"
      captures: {{lib: libfoo.so}}
"""


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(loader.CACHE_ENV, str(folder))
    monkeypatch.delenv(loader.ENV_VAR, raising=False)
    return folder


@pytest.fixture
def pats(tmp_path: Path) -> Path:
    root = tmp_path / "pats"
    shutil.copytree(FIXTURE / "_meta", root / "_meta")
    (root / "fam").mkdir()
    (root / "fam" / "cache-probe.yaml").write_text(GOOD.format(title="Title A"))
    return root


def _no_load(*args: object) -> None:
    raise AssertionError("the library was parsed again instead of read from the cache")


def test_second_load_comes_from_the_cache(pats: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_library([str(pats)], builtins=False)
    assert len(first) == 1 and not first.problems
    assert len(list(cache.glob("library-*.pickle"))) == 1
    monkeypatch.setattr(loader, "_load", _no_load)
    again = load_library([str(pats)], builtins=False)
    assert again.patterns == first.patterns and again.problems == first.problems
    assert again.categories == first.categories and again.knowledge == first.knowledge
    # the renderer is rebuilt (lazily) and still knows the knowledge-table filters
    assert again.renderer is not None
    assert again.renderer.render("{{ sm | arch_for_sm }}", {"sm": "90"}) != "?"


def test_builtin_library_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = load_library(cache=False)
    load_library()  # writes the cache
    monkeypatch.setattr(loader, "_load", _no_load)
    cached = load_library()
    assert cached.patterns == fresh.patterns and cached.problems == fresh.problems


def test_a_changed_pattern_file_invalidates(pats: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = pats / "fam" / "cache-probe.yaml"
    assert load_library([str(pats)], builtins=False).get("cache-probe").title == "Title A"  # type: ignore[union-attr]
    stat = probe.stat()
    probe.write_text(GOOD.format(title="Title B"))  # same size, and the same mtime below
    os.utime(probe, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert load_library([str(pats)], builtins=False).get("cache-probe").title == "Title B"  # type: ignore[union-attr]
    (pats / "fam" / "cache-other.yaml").write_text(GOOD.format(title="Other").replace("cache-probe", "cache-other"))
    assert load_library([str(pats)], builtins=False).get("cache-other") is not None


def test_problems_are_reported_the_same_from_the_cache(pats: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (pats / "fam" / "broken.yaml").write_text("id: broken\ntitle: x\ncategory: nope\nregex: '('\n")
    first = load_library([str(pats)], builtins=False)
    assert first.errors and all(str(p).startswith(f"{pats}/fam/broken.yaml:") for p in first.errors)
    monkeypatch.setattr(loader, "_load", _no_load)
    again = load_library([str(pats)], builtins=False)
    assert [str(p) for p in again.problems] == [str(p) for p in first.problems]


def test_unwritable_or_corrupt_cache_still_loads(pats: Path, cache: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(loader.CACHE_ENV, str(blocker / "cache"))  # mkdir fails
    assert load_library([str(pats)], builtins=False).get("cache-probe") is not None
    monkeypatch.setenv(loader.CACHE_ENV, str(cache))
    load_library([str(pats)], builtins=False)
    (entry,) = cache.glob("library-*.pickle")
    entry.write_bytes(b"garbage")
    assert load_library([str(pats)], builtins=False).get("cache-probe") is not None
    entry.write_bytes(b"\x80\x05K\x01.")  # a valid pickle of the wrong thing
    assert load_library([str(pats)], builtins=False).get("cache-probe") is not None


def test_env_var_and_missing_dirs(pats: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(loader.ENV_VAR, str(tmp_path / "missing"))
    lib = load_library([str(pats)], builtins=False)
    assert any("does not exist" in p.message for p in lib.problems)
    monkeypatch.setenv(loader.ENV_VAR, str(pats))  # a different environment is a different key
    assert not any("does not exist" in p.message for p in load_library(builtins=False).problems)
    monkeypatch.delenv(loader.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert loader.cache_dir() == tmp_path / "xdg" / "logsleuth"
