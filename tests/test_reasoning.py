from __future__ import annotations

import subprocess
import sys
import time

import pytest

from logsleuth.ingest.base import EventSink
from logsleuth.model import Sentence
from logsleuth.reasoning import (
    MAX_CHARS,
    catch22_statements,
    classify_texts,
    extract,
    key_quotes,
    markdown_blocks,
)

# Reasoning quoted in the seed postmortems (../shared/seeds), message by message.
MSG_9506 = (
    'The error is: error: "CUDA compiler and CUDA toolkit headers are incompatible, please check your '
    'include paths". This is from cuda_toolkit.h line 41, where it checks if the nvcc version matches the '
    "toolkit header version.\n\n"
    "I'm running into too many compatibility issues with this SM120 and flashinfer JIT approach, so I should "
    "try a different strategy. I could disable CUDA graphs to skip the JIT compilation entirely, switch to "
    "the triton backend..."
)
MSG_9512 = (
    "The CCCL/libcudacxx headers bundled with flashinfer generate PTX version 9.2, but nvcc 13.0's ptxas only "
    "supports up to version 9.0. The CCCL headers are from a newer CUDA toolkit (probably 13.2) bundled with "
    "the flashinfer package.\n\n"
    "So the issue is: flashinfer's bundled CCCL headers generate PTX 9.2, but our nvcc 13.0 only supports PTX 9.0.\n\n"
    "We're stuck in a catch-22 — upgrading to nvcc 13.2 would support PTX 9.2, but then the CCCL header version "
    "check fails because the system CUDA toolkit headers conflict with the bundled ones.\n\n"
    "Looking at the error traceback, the failure happens specifically during CUDA graph capture in the "
    "cuda_graph_runner, so disabling graphs should avoid hitting this code path. The flashinfer JIT compilation "
    "during graph capture is what's failing, though during normal inference it might use pre-compiled cubins "
    "instead."
)
MSG_9513 = (
    "The output shows only sm100f cubins under "
    "/root/venv/lib/python3.12/site-packages/flashinfer/data/cubin/ and there are no SM120 attention cubins."
)


@pytest.fixture(scope="module")
def sentences() -> list[Sentence]:
    return classify_texts([(9506, MSG_9506), (9512, MSG_9512), (9513, MSG_9513)])


def find(sentences: list[Sentence], start: str) -> Sentence:
    hits = [s for s in sentences if s.text.startswith(start)]
    assert len(hits) == 1, [s.text for s in sentences]
    return hits[0]


def labels(s: Sentence, label: str) -> set[str]:
    return {text for lab, text in s.entities if lab == label}


def test_ptx_mismatch_is_a_diagnosis_with_entities(sentences: list[Sentence]) -> None:
    s = find(sentences, "The CCCL/libcudacxx headers bundled")
    assert (s.seq, s.label, s.hedged) == (9512, "diagnosis", False)
    assert labels(s, "VERSION") == {"9.2", "13.0", "9.0"}
    assert labels(s, "CUDA_LIB") >= {"CCCL", "libcudacxx", "ptxas", "nvcc", "PTX"}
    assert labels(s, "PACKAGE") == {"flashinfer"}
    # entities in the order they appear
    assert [t for _, t in s.entities][:3] == ["CCCL", "libcudacxx", "flashinfer"]


def test_so_the_issue_is_is_a_diagnosis(sentences: list[Sentence]) -> None:
    s = find(sentences, "So the issue is")
    assert s.label == "diagnosis" and not s.hedged


def test_probably_is_a_hedged_hypothesis(sentences: list[Sentence]) -> None:
    s = find(sentences, "The CCCL headers are from a newer CUDA toolkit")
    assert (s.label, s.hedged) == ("hypothesis", True)
    assert ("VERSION", "13.2") in s.entities and ("PACKAGE", "flashinfer") in s.entities


def test_might_use_cubins_instead_is_a_hypothesis(sentences: list[Sentence]) -> None:
    s = find(sentences, "The flashinfer JIT compilation during graph capture")
    assert (s.label, s.hedged) == ("hypothesis", True)
    assert ("CUDA_LIB", "cubins") in s.entities
    assert ("FEATURE", "graph capture") in s.entities


def test_should_as_expectation_is_hedged_but_i_should_is_a_decision(sentences: list[Sentence]) -> None:
    expect = find(sentences, "Looking at the error traceback")
    assert (expect.label, expect.hedged) == ("hypothesis", True)
    decide = find(sentences, "I'm running into too many compatibility issues")
    assert (decide.label, decide.hedged) == ("decision", False)
    assert ("GPU_ARCH", "SM120") in decide.entities


def test_weighing_options_is_a_decision_or_hypothesis(sentences: list[Sentence]) -> None:
    s = find(sentences, "I could disable CUDA graphs")
    assert s.label in {"decision", "hypothesis"}
    assert ("PACKAGE", "triton") in s.entities and ("FEATURE", "CUDA graphs") in s.entities


def test_this_is_from_is_a_diagnosis_and_the_error_is_an_observation(sentences: list[Sentence]) -> None:
    assert find(sentences, "This is from cuda_toolkit.h").label == "diagnosis"
    assert ("CUDA_LIB", "cuda_toolkit.h") in find(sentences, "This is from").entities
    assert find(sentences, "The error is:").label == "observation"


def test_plain_observation(sentences: list[Sentence]) -> None:
    s = find(sentences, "The output shows only sm100f cubins")
    assert (s.label, s.hedged) == ("observation", False)
    assert labels(s, "GPU_ARCH") == {"sm100f", "SM120"}
    assert labels(s, "PATH") == {"/root/venv/lib/python3.12/site-packages/flashinfer/data/cubin/"}


def test_catch22_helper_picks_the_trap(sentences: list[Sentence]) -> None:
    picked = catch22_statements(sentences)
    assert [s.text[:30] for s in picked] == ["We're stuck in a catch-22 — up"]


def test_key_quotes_prefers_diagnoses_and_keeps_session_order(sentences: list[Sentence]) -> None:
    quotes = key_quotes(sentences, limit=3)
    assert len(quotes) == 3
    texts = [q.text for q in quotes]
    assert any(t.startswith("We're stuck in a catch-22") for t in texts)
    assert any(t.startswith("The CCCL/libcudacxx headers bundled") for t in texts)
    assert all(q.label in {"diagnosis", "hypothesis"} for q in quotes)
    order = [sentences.index(q) for q in quotes]
    assert order == sorted(order)
    assert key_quotes(sentences, limit=0) == []


@pytest.mark.parametrize(
    ("text", "label", "hedged"),
    [
        ("I'll add --disable-cuda-graph to the launch command.", "decision", False),
        ("Let's retry with the triton backend.", "decision", False),
        ("We need to pin nvidia-cuda-nvcc below 13.1.", "decision", False),
        ("Switching to vllm for the batch job.", "decision", False),
        ("The fix is to set CUDA_HOME before launching.", "decision", False),
        ("I suspect the wheel was built for cu130.", "hypothesis", True),
        ("It's possible that LD_LIBRARY_PATH is not exported.", "hypothesis", True),
        ("Perhaps ninja is missing from PATH.", "hypothesis", True),
        ("I couldn't find libnvrtc.so.13 anywhere.", "observation", False),
        ("Found 3 cubins for sm_90a.", "observation", False),
        ("There are no SM120 kernels in the wheel.", "observation", False),
        ("The build fails because ninja is missing.", "diagnosis", False),
        ("The root cause is a header mismatch between CUDA 13.0 and 13.2.", "diagnosis", False),
        ("Does flashinfer ship SM120 cubins at all?", "hypothesis", True),
        # a decision in the main clause stays a decision, hedged when it says so
        ("Now let me look for any cubins that might be relevant.", "decision", True),
        ("I think I'll pin torch to 2.11.", "decision", True),
        ("In May the build broke on sm_120.", "observation", False),
    ],
)
def test_rules(text: str, label: str, hedged: bool) -> None:
    [s] = classify_texts([(1, text)])
    assert (s.label, s.hedged) == (label, hedged)


def test_entity_shapes() -> None:
    [s] = classify_texts([(1, (
        "Installed torch==2.11.0+cu130 and flashinfer-python 0.6.11.post1 with uv pip install "
        "nvidia-cuda-nvcc<13.1 my-custom_pkg and then set LD_LIBRARY_PATH=/root/venv/lib and CUDA_HOME on "
        "Hopper (compute capability 9.0) with --attention-backend flashinfer."
    ))])
    ents = set(s.entities)
    assert {("PACKAGE", "torch"), ("VERSION", "2.11.0+cu130"), ("PACKAGE", "flashinfer-python"),
            ("VERSION", "0.6.11.post1"), ("PACKAGE", "nvidia-cuda-nvcc"), ("VERSION", "13.1"),
            ("PACKAGE", "my-custom_pkg"), ("ENV_VAR", "LD_LIBRARY_PATH"), ("PATH", "/root/venv/lib"),
            ("ENV_VAR", "CUDA_HOME"), ("GPU_ARCH", "Hopper"), ("GPU_ARCH", "compute capability 9.0"),
            ("FLAG", "--attention-backend")} <= ents
    # plain words after `install` are not packages; durations are not versions
    assert ("PACKAGE", "and") not in ents and ("PACKAGE", "then") not in ents
    [t] = classify_texts([(1, "The server took 12.5 s and 3.2 GB to start on 10.1.2.6 via root@10.1.2.6.")])
    assert ("VERSION", "12.5") not in t.entities and ("VERSION", "3.2") not in t.entities


def test_markdown_noise_is_handled() -> None:
    text = (
        "## Findings\n\n"
        "- `flashinfer` ships **no** SM120 cubins\n"
        "- the `nvcc` is 13.0.88\n"
        "Let me check the headers:\n\n"
        "```bash\nls /root/venv/lib/python3.12/site-packages/nvidia/cu13/include/ # probably 13.0\n```\n"
        "| pkg | version |\n|---|---|\n| torch | 2.11 |\n"
        "See [the docs](https://docs.nvidia.com/cuda/) for PTX ISA 9.2."
    )
    blocks = markdown_blocks(text)
    assert blocks == [
        "flashinfer ships no SM120 cubins",
        "the nvcc is 13.0.88",
        "Let me check the headers:",
        "See the docs for PTX ISA 9.2.",
    ]
    out = classify_texts([(4, text)])
    assert [s.text for s in out] == blocks
    assert ("PACKAGE", "flashinfer") in out[0].entities  # inline code keeps its entity
    assert not any("probably" in s.text for s in out)  # code blocks are not classified
    assert out[2].label == "decision"


def _session(n: int) -> EventSink:
    sink = EventSink("s1", "session.jsonl")
    paragraphs = [p for p in MSG_9512.split("\n\n") + MSG_9506.split("\n\n") + [MSG_9513] if p]
    for i in range(n):
        sink.add(line=i + 1, role="user", kind="text", text="why does it fail? I think it is nvcc 13.2") if i % 10 == 0 else None
        sink.add(line=i + 1, role="tool", kind="tool_result", text="ptxas fatal: probably broken 9.2")
        kind = "reasoning" if i % 2 else "text"
        sink.add(line=i + 1, role="assistant", kind=kind, text=paragraphs[i % len(paragraphs)])
    return sink


def test_extract_reads_only_assistant_text_and_reasoning() -> None:
    events = _session(8).frame()
    out = extract(events)
    assistant_seqs = set(events.filter(events["role"] == "assistant")["seq"].to_list())
    assert out and {s.seq for s in out} <= assistant_seqs
    assert not any("ptxas fatal" in s.text or "why does it fail" in s.text for s in out)
    assert out == extract(events)  # deterministic
    assert extract(events.head(0)) == []


def test_long_messages_are_truncated() -> None:
    text = ("The build fails because ninja is missing. " * 1000) + "UNIQUE-TAIL probably."
    assert len(text) > MAX_CHARS
    out = classify_texts([(1, text)])
    assert out and not any("UNIQUE-TAIL" in s.text for s in out)


def test_a_thousand_message_session_is_fast() -> None:
    events = _session(1000).frame()
    extract(events.head(30))  # builds the pipeline
    start = time.process_time()  # CPU time: the suite shares two cores with other jobs
    out = extract(events)
    assert time.process_time() - start < 2.0
    assert len(out) > 1000


def test_cli_and_classify_paths_do_not_import_spacy() -> None:
    code = (
        "import sys, logsleuth.cli, logsleuth.redact, logsleuth.model; "
        "assert 'spacy' not in sys.modules, 'spacy imported'; "
        "assert 'logsleuth.reasoning' not in sys.modules"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_inline_code_is_never_split_into_sentences() -> None:
    """rec-vecops: the agent wrote `CUDA_HOME ?= /usr/local/cuda`; the `?` is make's, not a question."""
    text = "The Makefile needs `CUDA_HOME ?= /usr/local/cuda` as its default. I think the empty value is the cause."
    out = classify_texts([(1, text)])
    assert [s.text for s in out] == [
        "The Makefile needs CUDA_HOME ?= /usr/local/cuda as its default.",
        "I think the empty value is the cause.",
    ]
    ternary = "It returns `ok ? a : b`. Then the check passes."
    assert [s.text for s in classify_texts([(1, ternary)])] == ["It returns ok ? a : b.", "Then the check passes."]
