"""Documentation that lists error/status names is quoted text; command output that names an error is not.

Both directions with real text: the documentation pages are records of tests/corpus/real_errors.jsonl (each
with its source), the outputs are the corpus' real error records. The plain-text reader keeps a listing in one
event (`plaintext.join_listings`), so `quoting.py` sees the names around a match; a tool result is one event
already.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from logsleuth.classify import classify
from logsleuth.ingest.base import EventSink
from logsleuth.ingest.listing import entry_name, is_output, listing_spans
from logsleuth.library import PatternLibrary, load_library
from logsleuth.quoting import is_quoted
from test_corpus_splitting import log_texts  # the event texts of a log

CORPUS = Path(__file__).parent / "corpus" / "real_errors.jsonl"
_LOGS = {r["id"]: r["log"] for r in map(orjson.loads, CORPUS.read_bytes().splitlines())}
CODE_LIST = _LOGS["benign-cuda-error-code-list-cuda-python-458"]  # code, code, name, message, description
NCCL_DOC = _LOGS["benign-doc-nccl-result-types-2181"]  # bare names, blank line, `(N) description`
RCCL_DOC = _LOGS["benign-doc-rccl-result-codes"]  # `ncclSuccess = 0 ,` then a doxygen enumerator list
NOTES = _LOGS["benign-doc-rtx3090-notes-yolov5"]  # a numbered list item that is only the error in backticks
# real output: one NCCL status line after PyTorch's wrapper; two ranks failing differently; glog lines as bullets
NCCL_CUDA = _LOGS["nccl-cudafail-sourcell-9"]
NCCL_SYS = _LOGS["nccl-syserr-pytorch-149984"]
TRT_BULLETS = _LOGS["trt-engine-tritonserver-317"]


@pytest.fixture(scope="module")
def lib() -> PatternLibrary:
    return load_library()


def _q(text: str, needle: str) -> bool:
    pos = text.index(needle)
    return is_quoted(text, pos, pos + len(needle))




def _tool_result(lib: PatternLibrary, out: str) -> list[str]:
    """Categories of the findings on one Bash tool result holding `out`."""
    sink = EventSink("s1", "t.jsonl")
    sink.add(line=1, role="assistant", kind="tool_call", text="cat out.txt", call_id="c1", tool="Bash")
    sink.add(line=2, role="tool", kind="tool_result", text=out, call_id="c1")
    return sorted({f.category for f in classify(sink.frame(), lib).findings})


def test_entries_are_definitions_not_output_lines() -> None:
    assert entry_name("  ncclSuccess = 0 ,") == "ncclSuccess"
    assert entry_name("cudaErrorStreamCaptureUnsupported") == "cudaErrorStreamCaptureUnsupported"
    assert entry_name("  • cudaErrorMemoryAllocation = 2") == "cudaErrorMemoryAllocation"
    assert entry_name("CUDA_ERROR_OUT_OF_MEMORY |") == "CUDA_ERROR_OUT_OF_MEMORY"
    # how output prints a status: `name: message`, a call, a glog line in a bullet
    assert entry_name(NCCL_SYS.splitlines()[1]) is None
    assert entry_name("ncclUnhandledCudaError: Call to CUDA function failed.") is None
    assert entry_name("cudaGetLastError()") is None
    assert is_output(TRT_BULLETS.splitlines()[1])


def test_listing_spans_of_real_pages() -> None:
    lines = CODE_LIST.split("\n")
    assert listing_spans(lines) == [(2, len(lines))]  # both entries, through the last description
    nccl = NCCL_DOC.split("\n")
    (span,) = listing_spans(nccl)
    assert nccl[span[0]] == "ncclSuccess" and "progressed in the background" in nccl[span[1] - 1]
    assert listing_spans(["ncclSystemError", "(2) A call to the system failed."]) == []  # one name is no listing


def test_output_between_entries_ends_the_listing() -> None:
    text = RCCL_DOC + "\n" + NCCL_CUDA
    lines = text.split("\n")
    row = lines.index("ncclUnhandledCudaError: Call to CUDA function failed.")
    assert all(not a <= row < b for a, b in listing_spans(lines))
    assert not _q(text, "ncclUnhandledCudaError: Call to CUDA function failed.")
    assert _q(text, "Unhandled system error")


def test_reader_keeps_a_listing_in_one_event(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, CODE_LIST + "\n")
    (listing,) = [t for t in texts if "cudaErrorStreamCaptureUnsupported" in t]
    assert "operation not permitted when stream is capturing" in listing
    assert "cudaErrorStreamCaptureInvalidated" in listing
    # output stays cut as before: a NCCL status line after PyTorch's wrapper is its own record
    assert log_texts(tmp_path, NCCL_CUDA + "\n")[-1] == "ncclUnhandledCudaError: Call to CUDA function failed."


@pytest.mark.parametrize("doc", [CODE_LIST, NCCL_DOC, RCCL_DOC], ids=["cuda-python", "nccl", "rccl"])
def test_a_page_printed_by_a_tool_is_no_failure(lib: PatternLibrary, doc: str) -> None:
    assert _tool_result(lib, doc) == []


def test_output_around_a_page_stays_a_failure(lib: PatternLibrary) -> None:
    assert _tool_result(lib, RCCL_DOC + "\n" + NCCL_CUDA) == ["nccl_error"]
    assert _tool_result(lib, NCCL_CUDA + "\n\n" + NCCL_DOC) == ["nccl_error"]


def test_two_ranks_failing_differently_are_no_listing(lib: PatternLibrary) -> None:
    out = NCCL_CUDA + "\n" + NCCL_SYS
    assert _tool_result(lib, out) == ["nccl_error"]
    assert not _q(out, "ncclSystemError: System call")


def test_glog_lines_in_bullets_stay_output(lib: PatternLibrary) -> None:
    assert "tensorrt_engine_incompatible" in _tool_result(lib, TRT_BULLETS)


def test_doc_items_and_headings() -> None:
    assert _q(NOTES, "with CUDA capability sm_86 is not compatible")
    assert _q("## CUDA error: an illegal memory access was encountered\nThis error may be due to kernel errors.",
              "an illegal memory access was encountered")
    # a list item that quotes an error with no page around it (a user listing what they got) still counts
    item = "1. `NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.`"
    assert not _q(item, "with CUDA capability sm_86 is not compatible")
    assert not _q("RuntimeError: CUDA error: an illegal memory access was encountered",
                  "an illegal memory access was encountered")
