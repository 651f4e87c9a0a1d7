"""The narrative postmortem of the samples: every point the seeds make, in every seed format."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

from logsleuth.analysis import analyze
from logsleuth.cli import main
from logsleuth.render.explain import render_explain
from logsleuth.render.postmortem import analysis_document, render_markdown

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "sample_logs" / "sglang-sm120"
SECTIONS = [
    "## Introduction",
    "## The road",
    "## The catch-22",
    "## The diagnostic process and the pivot",
    "## Assumptions and their validity",
    "## Knowledge required and created",
    "## Root cause, resolution and the working recipe",
    "## The chain as a diagram",
    "## Timeline",
    "## Appendix: findings",
]


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # sources are reported as given: relative paths keep outputs stable


def seed_files() -> list[str]:
    case = yaml.safe_load((SEED / "case.yaml").read_text())
    return [f"sample_logs/sglang-sm120/{case['files'][f]}" for f in ("claude-code", "opencode-export", "codex")]


@pytest.fixture(scope="module")
def seed_md() -> str:
    os.chdir(ROOT)
    return render_markdown(analyze("sample_logs/sglang-sm120/session.jsonl"))


def test_seed_postmortem_has_every_section_in_order(seed_md: str) -> None:
    positions = [seed_md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    assert seed_md.startswith("# The nvidia-cuda-nvcc trap")


@pytest.mark.parametrize(
    "point",
    [
        "libnvrtc.so.13",  # the chain, as the seeds tell it
        "LD_LIBRARY_PATH",
        "Could not find nvcc",
        "13.2.78",
        "ninja-build",
        "CUDA compiler and CUDA toolkit headers are incompatible",
        "nvidia-cuda-nvcc==13.0.26",
        "nvidia-cuda-nvcc<13.1",
        "13.0.88",
        "Unsupported .version 9.2; current version is '9.0'",
        "PTX ISA 9.2 ships with CUDA 13.2",  # knowledge required: PTX ISA <-> toolkit
        "catch-22",
        "Path A",
        "Path B",
        "sm100f only",  # the cubin check: only sm100f cubins
        "-name '*120*'` found nothing",
        "nvidia-cu13>=13.2",
        "No solution found",
        "--disable-cuda-graph",
        "--attention-backend flashinfer",
        "CPATH",
        "The server is fired up and ready to roll!",
        "probably 13.2",  # a hedged assumption, checked
        "might use pre-compiled cubins",
        "193K",  # the goal
        "RTX PRO 6000 Blackwell",  # the machine
        "flashinfer-python 0.6.11.post1",  # the stack as seen
        "pct exec 200",
        "worked around",
    ],
)
def test_seed_postmortem_covers_the_seeds(seed_md: str, point: str) -> None:
    assert point in seed_md


def test_every_citation_points_at_a_real_message(seed_md: str) -> None:
    an = analyze("sample_logs/sglang-sm120/session.jsonl", with_reasoning=False)
    seqs = set(an.events["seq"].to_list())
    cited = {int(n) for n in re.findall(r"\[msg (\d+)\]", seed_md)}
    assert cited and cited <= seqs


def test_recipe_is_a_pasteable_shell_block(seed_md: str) -> None:
    block = seed_md.split("```bash\n# run on:", 1)[1].split("```", 1)[0]
    assert "export CPATH=" in block and "--disable-cuda-graph" in block
    assert "nvidia-cuda-nvcc==13.0.88" in block


def test_assumption_verdicts(seed_md: str) -> None:
    section = seed_md.split("## Assumptions and their validity", 1)[1].split("##", 1)[0]
    assert re.search(r"13\.0\.26.*\*\*did not hold\*\*", section)
    assert re.search(r"disabling graphs should avoid.*\*\*held\*\*", section)


def test_prose_varies_between_steps(seed_md: str) -> None:
    road = seed_md.split("## The road", 1)[1].split("## The catch-22", 1)[0]
    leads = [ln for ln in road.splitlines() if ln.endswith(":") and "[msg" in ln]
    stems = [re.sub(r"\[msg \d+\]", "", ln) for ln in leads]
    assert len(stems) >= 5 and len(set(stems)) == len(stems)


@pytest.mark.parametrize("path", seed_files())
def test_every_seed_format_tells_the_same_story(path: str) -> None:
    an = analyze(path, with_reasoning=False)
    g = an.graph
    cats = [g.node(n).category for n in g.chain if n in g.failure_ids()]
    assert cats == [
        "missing_shared_library",
        "nvcc_not_found",
        "ninja_not_found",
        "cuda_toolkit_header_mismatch",
        "ptxas_unsupported_ptx_version",
    ]
    assert g.outcome.value == "worked around"
    assert [[g.node(e).category for e in c.episodes] for c in g.catch22] == [
        ["cuda_toolkit_header_mismatch", "ptxas_unsupported_ptx_version"]
    ]
    assert "--disable-cuda-graph" in {p.subject for p in g.pivots}


def test_markdown_and_json_are_deterministic() -> None:
    a = render_markdown(analyze("sample_logs/sglang-sm120/session.jsonl"))
    b = render_markdown(analyze("sample_logs/sglang-sm120/session.jsonl"))
    assert a == b
    doc = analysis_document(analyze("sample_logs/sglang-sm120/session.jsonl"))
    assert doc["graph"]["outcome"] == "worked around" and doc["story"]["catch22"]
    assert str(ROOT) not in str(doc)


def test_no_cuda_story_invents_no_cuda_story() -> None:
    case = yaml.safe_load((ROOT / "sample_logs/no-cuda/case.yaml").read_text())
    path = f"sample_logs/no-cuda/{case['files']['claude-code']}"
    an = analyze(path)
    groups = {an.library.categories[ep.category].group for ep in an.graph.episodes}
    assert not groups & {"cuda", "gpu", "toolchain", "arch", "distributed"}
    md = render_markdown(an)
    head = md.split("## Timeline", 1)[0]
    assert "CUDA" not in head and "catch-22" not in head.lower()


def test_explain_tells_one_message() -> None:
    an = analyze("sample_logs/sglang-sm120/session.jsonl")
    out = render_explain(an, 62)
    for heading in ("## The message", "## The road to it", "## The reasoning behind it", "## What it assumed",
                    "## What happened after", "## Knowledge required and created"):
        assert heading in out
    assert "13.0.88" in out and "It revealed" in out and "Unsupported .version 9.2" in out


def test_cli_analyze_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    assert main(["analyze", "sample_logs/sglang-sm120/session.jsonl", "-O", "html", "-o", str(out)]) == 0
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "http://" not in html.split("<body>")[0]
    assert main(["analyze", "sample_logs/sglang-sm120/session.jsonl", "-O", "json"]) == 0
    assert '"outcome": "worked around"' in capsys.readouterr().out
    assert main(["explain", "sample_logs/sglang-sm120/session.jsonl", "--message", "100000"]) == 2
    assert main(["graph", "sample_logs/sglang-sm120/session.jsonl", "-O", "mermaid"]) == 0
    assert capsys.readouterr().out.startswith("flowchart TD")
    assert main(["graph", "sample_logs/sglang-sm120/session.jsonl", "-O", "dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph causal {") and 'label="catch-22"' in dot
    assert main(["graph", "sample_logs/sglang-sm120/session.jsonl"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"nodes", "edges", "chain", "catch22", "pivots", "outcome", "recipe", "root_cause", "resolutions",
                        "notes"}
    assert {n["type"] for n in doc["nodes"]} == {"failure", "action", "success"}
    assert all({"id", "type", "seq", "label"} <= set(n) for n in doc["nodes"])
    assert {e["relation"] for e in doc["edges"]} >= {"attempted", "resolved", "revealed", "succeeded"}


def test_a_folder_is_told_through_its_transcript_not_its_log() -> None:
    an = analyze("sample_logs/sglang-sm120", with_reasoning=False)
    assert an.transcript.report.format == "folder" and len(an.transcript.report.parts) == 4
    assert set(an.events["role"].to_list()) != {"log"}
    assert an.graph.catch22 and an.graph.outcome.value == "worked around"
