"""sample_logs/: the shared test bed. Each case.yaml is ground truth a reader of the session would
write down; these tests keep the samples, their ground truth and the readers in agreement."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
CASES = sorted(p.parent.name for p in SAMPLES.glob("*/case.yaml"))
REQUIRED = ("case", "description", "files", "goal", "chain", "catch22", "pivots", "outcome", "recipe", "facts",
            "hedged_claims", "invented", "real")
OUTCOMES = {"resolved", "worked around", "unresolved"}
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
# transcript formats and the reader module that handles each (logs are checked by line instead)
READERS = {"claude-code": "claude_code", "opencode-export": "opencode", "codex": "codex", "gemini": "gemini",
           "aider": "aider"}
SEED_FORMATS = ("claude-code", "opencode-export", "codex")


@cache
def load(case: str) -> dict[str, Any]:
    return yaml.safe_load((SAMPLES / case / "case.yaml").read_text(encoding="utf-8"))


@cache
def read_events(case: str, fmt: str) -> tuple[Any, list[dict[str, Any]]]:
    pytest.importorskip(f"logsleuth.ingest.{READERS[fmt]}")
    from logsleuth.ingest import by_name, make_probe

    t = by_name(fmt).read(make_probe(str(SAMPLES / case / load(case)["files"][fmt])))
    return t.report, t.events.sort("seq").to_dicts()


def _vocabulary() -> set[str] | None:
    path = ROOT / "patterns" / "_meta" / "categories.yaml"
    if not path.is_file():
        return None
    return {c["name"] for c in yaml.safe_load(path.read_text(encoding="utf-8"))["categories"]}


def _transcripts(case: str) -> list[str]:
    return [f for f in load(case)["files"] if f in READERS]


def _seq_claims(case: str) -> list[tuple[str, dict[str, int], str]]:
    """(what, {format: seq}, text the event must contain) for every seq claim with a text to check."""
    doc = load(case)
    out = []
    for i, item in enumerate(doc["chain"]):
        if "first_seq" in item:
            out.append((f"chain[{i}].first_seq", item["first_seq"], item["pattern_hint"]))
        for rel in ("revealed_by", "resolved_by", "worked_around_by"):
            act = item.get(rel)
            if act and act.get("seq"):
                out.append((f"chain[{i}].{rel}", act["seq"], act["subject"]))
        for j, act in enumerate(item.get("attempts", [])):
            out.append((f"chain[{i}].attempts[{j}]", act["seq"], act["subject"]))
    for name, exp in (doc.get("expected_text") or {}).items():
        out.append((f"expected_text.{name}", exp["seq"], exp["contains"]))
    for i, claim in enumerate(doc["hedged_claims"]):
        out.append((f"hedged_claims[{i}]", claim["seq"], claim["text"]))
    for i, pivot in enumerate(doc["pivots"]):
        out.append((f"pivots[{i}]", pivot["seq"], pivot["subject"]))
    for i, noise in enumerate(doc.get("noise") or []):
        out.append((f"noise[{i}]", noise["seq"], noise["contains"]))
    if doc.get("success") and doc["success"].get("first_seq"):
        out.append(("success", doc["success"]["first_seq"], doc["success"]["pattern_hint"]))
    return out


# --- case.yaml is valid ---------------------------------------------------------------------------


def test_there_are_five_cases() -> None:
    assert CASES == ["flash-attn-abi", "nccl-timeout", "no-cuda", "sglang-sm120", "vllm-arch"]


@pytest.mark.parametrize("case", CASES)
def test_case_yaml_is_valid(case: str) -> None:
    doc = load(case)
    missing = [k for k in REQUIRED if k not in doc]
    assert not missing, f"{case}/case.yaml lacks {missing}"
    assert doc["case"] == case
    assert doc["outcome"] in OUTCOMES
    for fmt, rel in doc["files"].items():
        assert (SAMPLES / case / rel).is_file(), f"{case}: {fmt} file {rel} is missing"
    vocab = _vocabulary()
    cats = [item["category"] for item in doc["chain"]]
    cats += [c for pair in doc["catch22"] for c in pair] + [n["category"] for n in doc.get("noise") or []]
    for cat in cats:
        assert SNAKE.match(cat), f"{case}: category {cat!r} is not snake_case"
        if vocab is not None:
            assert cat in vocab, f"{case}: category {cat!r} is not in patterns/_meta/categories.yaml"
    for pair in doc["catch22"]:
        assert set(pair) <= {item["category"] for item in doc["chain"]}
    for item in doc["chain"]:
        assert item.get("pattern_hint")
        assert "first_seq" in item or "first_line" in item
        for fmt in item.get("first_seq", {}):
            assert fmt in doc["files"], f"{case}: first_seq names unknown format {fmt}"
    if doc["outcome"] != "unresolved":
        assert doc["recipe"] or case in ("no-cuda",), f"{case}: a success needs its recipe"


@pytest.mark.parametrize("case", CASES)
def test_first_lines_point_at_the_error(case: str) -> None:
    doc = load(case)
    checked = 0
    for item in [*doc["chain"], doc.get("success") or {}]:
        for fmt, line in (item.get("first_line") or {}).items():
            # bytes, not read_text: tqdm's bare \r must not count as a line break
            lines = (SAMPLES / case / doc["files"][fmt]).read_bytes().decode("utf-8").split("\n")
            hint = item["pattern_hint"]
            assert _loose(hint) in _loose(lines[line - 1]) or _loose(lines[line - 1]) in _loose(hint), (
                f"{case}: {fmt} line {line} is {lines[line - 1]!r}, expected {hint!r}")
            assert not any(_loose(hint) in _loose(x) for x in lines[: line - 1]), f"{case}: {fmt} line {line} is not the first"
            checked += 1
    assert checked or case in ("no-cuda", "nccl-timeout") or "first_line" in str(doc)


def _loose(s: str) -> str:
    return " ".join(s.split())


# --- the transcripts parse cleanly -----------------------------------------------------------------


@pytest.mark.parametrize(("case", "fmt"), [(c, f) for c in CASES for f in _transcripts(c)])
def test_transcript_parses_without_skips(case: str, fmt: str) -> None:
    report, evs = read_events(case, fmt)
    assert report.format == fmt
    assert not report.skipped, f"{case}/{fmt}: skipped {report.skipped[:3]}"
    assert report.lines == report.used + report.ignored + len(report.skipped)
    assert len(evs) == load(case)["events"][fmt]
    assert [e["seq"] for e in evs] == list(range(len(evs)))
    calls = [e for e in evs if e["kind"] == "tool_call"]
    assert len(calls) == load(case)["tool_calls"][fmt]
    results = {e["call_id"] for e in evs if e["kind"] == "tool_result"}
    assert all(c["call_id"] in results for c in calls if fmt != "aider"), "every call gets its result"


@pytest.mark.parametrize("case", CASES)
def test_ground_truth_seqs_point_at_the_text(case: str) -> None:
    failures = []
    for what, per_fmt, text in _seq_claims(case):
        for fmt, seq in per_fmt.items():
            evs = read_events(case, fmt)[1]
            if seq >= len(evs) or _loose(text) not in _loose(evs[seq]["text"]):
                failures.append(f"{what} {fmt}@{seq}: {text!r} not in {evs[seq]['text'][:120]!r}"
                                if seq < len(evs) else f"{what} {fmt}@{seq}: out of range")
    assert not failures, "\n".join(failures)


def test_chain_first_seqs_are_failures_in_order() -> None:
    for case in CASES:
        doc = load(case)
        for fmt in _transcripts(case):
            seqs = [item["first_seq"][fmt] for item in doc["chain"] if fmt in item.get("first_seq", {})]
            assert seqs == sorted(seqs), f"{case}/{fmt}: chain is not in order"
            evs = read_events(case, fmt)[1]
            for s in seqs:
                assert evs[s]["kind"] in ("tool_result", "text"), f"{case}/{fmt}@{s}"


def test_no_cuda_story_has_no_cuda_in_it() -> None:
    doc = load("no-cuda")
    assert doc["cuda_categories"] == [] and doc["chain"][0]["category"] == "tests_failed"
    text = (SAMPLES / "no-cuda" / doc["files"]["claude-code"]).read_text(encoding="utf-8")
    for word in doc["must_not_mention"]:
        assert word not in text, f"no-cuda mentions {word}"


# --- the seed session tells one story in three formats ----------------------------------------------


def _raw_commands(fmt: str) -> list[str]:
    """Shell commands straight from the files (independent of the readers)."""
    path = SAMPLES / "sglang-sm120" / load("sglang-sm120")["files"][fmt]
    if fmt == "claude-code":
        recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [b["input"]["command"] for r in recs if r.get("type") == "assistant"
                for b in r["message"]["content"] if b["type"] == "tool_use"]
    if fmt == "opencode-export":
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [p["state"]["input"]["command"] for m in doc["messages"] for p in m["parts"] if p["type"] == "tool"]
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    calls = [r["payload"] for r in recs if r["type"] == "response_item" and r["payload"]["type"] == "function_call"]
    return [json.loads(c["arguments"])["command"][2] for c in calls]


def test_seed_formats_issue_the_same_commands() -> None:
    claude = _raw_commands("claude-code")
    assert len(claude) == load("sglang-sm120")["tool_calls"]["claude-code"]
    assert _raw_commands("opencode-export") == claude
    assert _raw_commands("codex") == claude
    assert all(c.startswith('ssh -o ConnectTimeout=10 root@10.1.2.6 "pct exec 200 -- bash -c ') for c in claude)


def test_seed_formats_read_as_the_same_story() -> None:
    tables = {fmt: read_events("sglang-sm120", fmt)[1] for fmt in SEED_FORMATS}
    shape = {fmt: [(e["role"], e["kind"]) for e in evs] for fmt, evs in tables.items()}
    assert shape["opencode-export"] == shape["claude-code"] == shape["codex"]
    calls = {fmt: [e["text"] for e in evs if e["kind"] == "tool_call"] for fmt, evs in tables.items()}
    assert calls["opencode-export"] == calls["claude-code"] == calls["codex"] == _raw_commands("claude-code")


SEED_EXPECT = {
    9489: "libnvrtc.so.13: cannot open shared object file",
    9496: "Successfully installed nvidia-cuda-nvcc-13.2.78",
    9506: 'error: "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths"',
    9507: "nvidia-cuda-nvcc==13.0.26",
    9508: 'uv pip install --python /root/venv/bin/python3 \\"nvidia-cuda-nvcc<13.1\\" 2>&1 | tail -5',
    9509: "Build cuda_13.0.r13.0/compiler.36424714_0",
    9510: "sglang.launch_server",
    9511: "Unsupported .version 9.2; current version is '9.0'",
    9512: "We're stuck in a catch-22",
    9518: "No solution found",
}


def test_seed_messages_map_to_their_events() -> None:
    doc = load("sglang-sm120")
    assert set(doc["seed_msg"]) == set(SEED_EXPECT)
    for fmt in SEED_FORMATS:
        evs = read_events("sglang-sm120", fmt)[1]
        for msg, seq in doc["seed_msg"].items():
            assert SEED_EXPECT[msg] in evs[seq]["text"], f"msg {msg} -> {fmt}@{seq}"
        assert evs[doc["seed_msg"][9512]]["kind"] == "reasoning"


def test_seed_quotes_are_verbatim() -> None:
    shared = ROOT.parent / "shared" / "seeds"
    if not shared.is_dir():
        pytest.skip("../shared is absent")
    seeds = " ".join(p.read_text(encoding="utf-8") for p in shared.glob("*.txt"))
    text = (SAMPLES / "sglang-sm120" / "session.jsonl").read_text(encoding="utf-8")
    thinking = " ".join(b["thinking"] for line in text.splitlines() for r in [json.loads(line)]
                        if r.get("type") == "assistant" for b in r["message"]["content"] if b["type"] == "thinking")
    for quote in ("We're stuck in a catch-22 — upgrading to nvcc 13.2 would support PTX 9.2, but then the CCCL "
                  "header version check fails because the system CUDA toolkit headers conflict with the bundled ones.",
                  "The CCCL/libcudacxx headers bundled with flashinfer generate PTX version 9.2, but nvcc 13.0's "
                  "ptxas only supports up to version 9.0.",
                  "This is from cuda_toolkit.h line 41, where it checks if the nvcc version matches the toolkit "
                  "header version."):
        assert quote in seeds and quote in thinking


# --- the generator is deterministic and the committed files are current ------------------------------


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "_build" / "make_samples.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode, saved = True, sys.dont_write_bytecode
    try:
        spec.loader.exec_module(module)
        assert module.main([str(tmp_path)]) == 0
    finally:
        sys.dont_write_bytecode = saved
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*")
                       if p.is_file() and "_build" not in p.parts and p.name != "README.md")
    assert made == committed
    for rel in made:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), f"{rel} is stale: rerun make_samples.py"
