"""Machine and version facts come from library data (patterns/_facts), not from the renderer:
every example of every fact pattern is a test, a bad file is a located problem, and the facts
stage reads the sample sessions' machines and stacks through them."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth import facts
from logsleuth.analysis import analyze
from logsleuth.library.fact_patterns import FactPattern, builtin_facts, check_examples, load_facts

ROOT = Path(__file__).resolve().parent.parent
LIB = builtin_facts()


def test_the_builtin_fact_patterns_load_without_problems() -> None:
    assert not LIB.problems, [str(p) for p in LIB.problems]
    assert {p.fact for p in LIB.patterns} == {"gpu", "driver", "cuda", "nvcc", "package", "host", "gpu_arch"}
    # one vectorised pass finds the rows: every `output` pattern has literals to find them by
    assert all(p.prefilter for p in LIB.of("output"))


@pytest.mark.parametrize("pattern", LIB.patterns, ids=lambda p: p.id)
def test_every_example_behaves(pattern: FactPattern) -> None:
    assert pattern.match_examples and pattern.no_match_examples
    assert check_examples(pattern) == []


def test_a_bad_fact_pattern_is_a_located_problem_and_left_out(tmp_path: Path) -> None:
    src = ROOT / "tests" / "fixtures" / "facts" / "bad-fact.yaml"
    (tmp_path / "bad-fact.yaml").write_text(src.read_text())
    lib = load_facts(tmp_path)
    assert lib.patterns == ()
    messages = "\n".join(str(p) for p in lib.problems)
    for needle in ("unknown key 'colour'", "must equal the file name", "fact must be one of",
                   "matches must be one of", "does not compile", "needs at least one"):
        assert needle in messages, needle
    assert all(p.path == "patterns/_facts/bad-fact.yaml" and p.line >= 1 for p in lib.problems)


def test_a_wrong_capture_in_an_example_is_reported() -> None:
    p = next(p for p in LIB.patterns if p.id == "nvidia-smi-driver")
    from dataclasses import replace

    from logsleuth.library.pattern import Example

    broken = replace(p, match_examples=(Example("Driver Version: 580.95.05", 3, {"version": "580"}),))
    assert check_examples(broken) == ["patterns/_facts/nvidia-smi-driver.yaml:3: capture version is '580.95.05', not '580'"]


def test_machine_and_stack_of_the_seed_session() -> None:
    an = analyze(str(ROOT / "sample_logs" / "sglang-sm120" / "session.jsonl"), with_reasoning=False)
    f = facts.session_facts(an)
    m = f.machine
    assert [(g.name, g.count) for g in m.gpus] == [("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 8)]
    assert m.driver is not None and m.driver.text == "580.95.05"
    assert m.cuda is not None and m.cuda.text == "13.0"
    assert m.nvcc is not None and m.nvcc.text == "13.0.88"  # the last nvcc seen, not the first (13.2)
    assert [h.name for h in m.hosts] == ["10.1.2.6", "container 200"]  # ssh before the container it enters
    stack = {p.package: (p.version, p.how) for p in f.stack}
    assert stack["sgl-kernel"] == ("0.3.21", "found") and stack["nvidia-cuda-nvcc"] == ("13.0.88", "installed")
    assert f.goal and f.goal[0].seq == 0
    assert f.span.minutes is not None and f.span.words.endswith(("minutes", "min"))


def test_read_machine_keeps_the_first_driver_and_counts_one_listing() -> None:
    rows = [(1, "tool_result", "Driver Version: 550.1\nNVIDIA H100 80GB x\nNVIDIA H100 80GB y\nNVIDIA L40S"),
            (2, "tool_result", "Driver Version: 560.2\nNVIDIA H100 80GB"),
            (3, "assistant", "NVIDIA A100")]  # not a tool output: not read
    m = facts.read_machine(rows, (), LIB)
    assert [(g.name, g.count, g.seq) for g in m.gpus] == [("NVIDIA H100 80GB", 2, 1), ("NVIDIA L40S", 1, 1)]
    assert m.driver == facts.Cited("550.1", 1)


def test_a_dist_info_name_does_not_replace_pip_show() -> None:
    rows = [(1, "tool_result", "Name: Flash_Attn\nVersion: 2.8.3"),
            (2, "tool_result", "flash_attn-2.7.0.dist-info\ntorch-2.9.0.dist-info")]
    got = [(p.package, p.version, p.how) for p in facts.read_stack(rows, (), LIB)]
    assert got == [("flash-attn", "2.8.3", "shown"), ("torch", "2.9.0", "found")]
