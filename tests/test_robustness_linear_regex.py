"""Every regex over untrusted text is linear (issue 35): the structural check, `patterns lint`, and
1 MB runs of each character class through the redactor and the two patterns that stalled."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.cli import main
from logsleuth.library.linear import check
from logsleuth.link import runs
from logsleuth.redact import redact

ROOT = Path(__file__).parents[1]
# runs of one character class (and the short units that defeated a rule) in a crafted line
UNITS = ("a", "A", "0", " ", "\t", "-", "_", ".", "/", ":", "=", "@", "\\n", "a.", "a/", "-p ", "-u x", "key ",
         "password is ", "ghp_ab\n", "c2VjcmV0", "[", "é")


@pytest.mark.parametrize("pattern,shape", [
    (r"(a+)+b", "nested"), (r"x(?:\w+\s?)*y", "nested"), (r"^\S*?[\w.-]+\.py:", "adjacent"),
    (r"[\w./-]+\.py\b", "leading"), (r"\s*foo", "leading"),
])
def test_super_linear_shapes_are_found(pattern: str, shape: str) -> None:
    assert shape in [f.shape for f in check(pattern)]


@pytest.mark.parametrize("pattern", [
    r"(?<![\w./-])[\w./-]+\.py\b", r"^\S*?(?<![\w.-])[\w.-]+\.py:", r"CUDA error: (\w+)", r"\x00{8,}",
    r"(?:, \d+ (?:skipped|deselected))* in", r"\b(?P<k>\w+) failed", r"\w++\w+",
])
def test_linear_shapes_pass(pattern: str) -> None:
    assert check(pattern) == []


def test_lint_rejects_a_super_linear_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = (ROOT / "patterns/loader/bare-undefined-symbol.yaml").read_text()
    bad = src.replace("""(?:^|[\\s:'"])(?P<so>""", "(?P<so>").replace("id: bare-undefined-symbol", "id: slow")
    (tmp_path / "slow.yaml").write_text(bad)
    code = main(["patterns", "lint", "--no-builtin", "--patterns", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "slow.yaml:6: regex may take super-linear time (leading)" in out


@pytest.mark.parametrize("unit", UNITS, ids=repr)
def test_a_1mb_run_of_each_class_redacts_in_linear_time(unit: str) -> None:
    small, big = unit * (100_000 // len(unit)), unit * (1_000_000 // len(unit))
    t0 = time.perf_counter()
    redact(small)
    t1 = time.perf_counter()
    redact(big)
    t2 = time.perf_counter()
    # generous: 10x the bytes may take 30x the time (quadratic would be 100x), and never minutes
    assert t2 - t1 < max(30 * (t1 - t0), 3.0), (unit, t1 - t0, t2 - t1)


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="aZ09 ._-/:=@\\n\t[]\"'", min_size=1, max_size=6), st.integers(20_000, 60_000))
def test_property_crafted_lines_cost_time_linear_in_their_length(unit: str, n: int) -> None:
    line = (unit * (n // len(unit) + 1))[:n]
    start = time.perf_counter()
    redact(line)
    runs._PY_PATH.findall(line)
    # ~1 µs a byte would be 0.06 s: 2 s is a stall, not noise
    assert time.perf_counter() - start < 2.0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_property_every_family_is_masked_for_any_seed(seed: int) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from secret_families import family_plants, planted_line

    for kind, (template, value) in family_plants(seed).items():
        out, count = redact(planted_line(kind, template, value))
        assert count >= 1 and value not in out and value[-12:] not in out, (kind, out)
