"""Linking against the ground truth each sample's case.yaml writes down: chain, catch-22s, pivots,
outcome and the working recipe, for every transcript format of every story."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from logsleuth.analysis import analyze
from logsleuth.link.roles import builtin_roles

ROOT = Path(__file__).resolve().parent.parent
CUDA_GROUPS = {"cuda", "gpu", "toolchain", "arch", "distributed", "build"}


def _transcripts() -> list[tuple[str, str, str, dict[str, Any]]]:
    out = []
    for case_file in sorted((ROOT / "sample_logs").glob("*/case.yaml")):
        case = yaml.safe_load(case_file.read_text())
        for fmt, rel in sorted(case["files"].items()):
            seqs = case["chain"][0].get("first_seq", {}) if case["chain"] else {}
            if case["chain"] and fmt not in seqs:
                continue  # a plain log: its ground truth is by line, checked in test_render/goldens
            out.append((case["case"], fmt, f"sample_logs/{case_file.parent.name}/{rel}", case))
    return out


TRANSCRIPTS = _transcripts()


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_every_story_has_a_transcript_under_test() -> None:
    assert {c for c, *_ in TRANSCRIPTS} == {"sglang-sm120", "flash-attn-abi", "vllm-arch", "nccl-timeout", "no-cuda"}


@pytest.mark.parametrize(("case_id", "fmt", "path", "case"), TRANSCRIPTS, ids=[f"{c}/{f}" for c, f, *_ in TRANSCRIPTS])
def test_chain_matches_ground_truth(case_id: str, fmt: str, path: str, case: dict[str, Any]) -> None:
    g = analyze(path, with_reasoning=False).graph
    story = [(g.node(n).category, g.node(n).seq) for n in dict.fromkeys(g.chain) if n in g.failure_ids()]
    # failures of an attempt itself (no such version) are told with the attempt, not as steps
    story += [(f.category, f.seq) for _, f in g.failed_attempts if f.category in builtin_roles().attempt]
    expected = [(step["category"], step["first_seq"][fmt]) for step in case["chain"]]
    assert sorted(set(story), key=lambda x: x[1]) == expected
    assert g.outcome.value == case["outcome"]
    assert [[g.node(e).category for e in c.episodes] for c in g.catch22] == case["catch22"]


@pytest.mark.parametrize(("case_id", "fmt", "path", "case"), TRANSCRIPTS, ids=[f"{c}/{f}" for c, f, *_ in TRANSCRIPTS])
def test_pivots_and_recipe_match_ground_truth(case_id: str, fmt: str, path: str, case: dict[str, Any]) -> None:
    g = analyze(path, with_reasoning=False).graph
    truth = {p["subject"] for p in case["pivots"]}
    found = {p.subject for p in g.pivots}
    assert found <= truth
    assert bool(found) == bool(truth)
    recipe = "\n".join(g.recipe)
    for line in case["recipe"]:
        for token in _key_tokens(line):
            assert token in recipe, f"{token!r} of {line!r} missing from the recipe:\n{recipe}"


def _key_tokens(line: str) -> list[str]:
    """What a recipe line must keep: variable assignments, flags with their values, package names."""
    words = shlex.split(line)
    if words[:1] == ["export"]:
        name, _, value = words[1].partition("=")
        return [name, value.split(":")[0]]
    tokens = [w for w in words if w.startswith("--") and w not in ("--no-build-isolation", "--python", "--extra-index-url")]
    tokens += [re.split(r"[<>=!~]", w)[0] for w in words if re.match(r"^[a-z][\w.-]*[<>=]=?\d", w)]
    if words[:1] == ["apt-get"]:
        tokens.append(words[-1])
    if "MAX_JOBS=4" in line:
        tokens.append("MAX_JOBS=4")
    return tokens


def test_seed_catch22_is_the_nvcc_trap_in_every_format() -> None:
    for _, fmt, path, _case in (t for t in TRANSCRIPTS if t[0] == "sglang-sm120"):
        g = analyze(path, with_reasoning=False).graph
        c = g.catch22[0]
        assert (c.subject, c.values) == ("nvidia-cuda-nvcc", ("13.2.78", "13.0.88")), fmt
        assert "--disable-cuda-graph" in {p.subject for p in g.pivots}


def test_no_cuda_story_has_no_cuda_chain() -> None:
    an = analyze("sample_logs/no-cuda/session.jsonl", with_reasoning=False)
    assert an.graph.episodes, "the failing tests are its chain"
    assert not {an.library.categories[e.category].group for e in an.graph.episodes} & CUDA_GROUPS
