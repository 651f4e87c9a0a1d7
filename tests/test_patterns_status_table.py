"""The status table (`patterns/_meta/status_names.yaml`): names, messages and codes mapped to categories as data,
made into one pattern per (family, category) by `logsleuth.library.status_table`."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.classify import classify
from logsleuth.ingest.base import EventSink
from logsleuth.library import load_library
from logsleuth.library.status_table import family_patterns, status_patterns


def _primary(text: str) -> str | None:
    sink = EventSink("-", "t")
    sink.add(line=1, role="log", kind="log", text=text, session="s", source="s")
    found = classify(sink.frame(), load_library())
    return found.primary.category if found.primary else None


def test_made_patterns_are_in_the_library() -> None:
    ids = {p.id for p in load_library().patterns}
    assert {"status-cuda-cuda-oom", "status-cuda-cuda-launch-failure", "status-nccl-nccl-error",
            "status-cudnn-cudnn-error"} <= ids


@pytest.mark.parametrize(("text", "category"), [
    # one message, many wrappers: the table recognises the wrapper kind, not each wording
    ("CUDA error 2 at /src/ggml-cuda.cu:77: out of memory", "cuda_oom"),
    ("Cuda failure 2 'out of memory'", "cuda_oom"),
    ("THCudaCheck FAIL file=/x/THCGeneral.c line=9 error=2 : out of memory", "cuda_oom"),
    ("some_lib: cudaErrorLaunchFailure in k()", "cuda_launch_failure"),
    ("CUDA_ERROR_LAUNCH_FAILED", "cuda_launch_failure"),
    ("cuda driver library init failure: 802", "cuda_system_not_ready_802"),
])
def test_wrappers(text: str, category: str) -> None:
    assert _primary(text) == category


@pytest.mark.parametrize("text", [
    "the CUDA error handling section lists out of memory too",  # no separator before the message
    "nvcc init failure: 80211",  # a code is a whole number
    "ncclSystemErrorCount = 0",  # a name is a whole word
])
def test_not_output(text: str) -> None:
    assert _primary(text) is None


def test_a_category_pattern_takes_its_rows_and_examples() -> None:
    fam = {"family": "x", "name_form": r"\b(?P<status>{names})\b", "message_prefixes": ["E: "],
           "statuses": [{"names": ["xA", "xB"], "message": "bad", "category": "cuda_oom"},
                        {"names": ["xC"], "category": "nccl_error"}],
           "examples": [{"category": "cuda_oom", "text": "xA"}, {"category": "none", "text": "xAB"}]}
    made = {d["id"]: d for d, problem in family_patterns(fam) if not problem}
    assert set(made) == {"status-x-cuda-oom", "status-x-nccl-error"}
    oom = made["status-x-cuda-oom"]
    assert oom["regex"] == r"\b(?P<status>xA|xB)\b|(?:E: )(?P<message>bad)"
    assert oom["examples"]["match"] == [{"text": "xA"}]
    assert made["status-x-nccl-error"]["examples"]["match"] == []  # validation then reports the missing example


def test_a_bad_table_is_a_problem_not_a_crash() -> None:
    assert status_patterns({"status_names": [{"family": "x"}]})[0][2]
    assert status_patterns([])[0][2]


def test_a_table_in_a_user_directory_loads(tmp_path: Path) -> None:
    meta = tmp_path / "_meta"
    meta.mkdir()
    (meta / "status_names.yaml").write_text(
        'status_names:\n  - family: demo\n    priority: 99\n    statuses:\n'
        '      - {names: [demoErrorBoom], category: cuda_oom}\n'
        '    examples:\n      - {category: cuda_oom, text: "demo: demoErrorBoom"}\n', encoding="utf-8")
    lib = load_library([str(tmp_path)], cache=False)
    made = lib.get("status-demo-cuda-oom")
    assert made is not None and made.path.endswith("_meta/status_names.yaml")
    assert not [p for p in lib.errors if "status_names" in p.path]
