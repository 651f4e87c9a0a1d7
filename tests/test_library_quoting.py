"""Quoted error text (docs, code, grep hits) is not a failure; emitted error text is."""

from __future__ import annotations

import pytest

from logsleuth.quoting import is_quoted

ERR = "CUDA error: unspecified launch failure"


def _q(line: str, needle: str = ERR) -> bool:
    pos = line.index(needle)
    return is_quoted(line, pos, pos + len(needle))


@pytest.mark.parametrize("line", [
    f"- Note: on older cards you may see `{ERR}` when the kernel watchdog fires, see below.",
    f'    raise RuntimeError("{ERR}")',
    f'msg = "{ERR}"',
    f'src/logsleuth/checks.py:42:    raise RuntimeError("{ERR}")',
    f"docs/errors.md:12:{ERR}",
    # rec-fastgelu: `grep -n 'CUDA_HOME' cpp_extension.py` prints the line number alone
    f'628:        raise FileNotFoundError(f"{ERR}")',
])
def test_quoted_text_is_not_a_failure(line: str) -> None:
    assert _q(line)


@pytest.mark.parametrize("line", [
    f"RuntimeError: {ERR}",
    f"`RuntimeError: {ERR}`",
    f"`RuntimeError: {ERR}` with `torch 2.2.1+cpu`",
    f"src/kernel.cu:12:5: error: {ERR}",
    f"WARNING 06-01 _custom_ops.py:14] Failed with ImportError('{ERR}')",
    f"12: {ERR}",
    f"/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:88: UserWarning: {ERR}",
])
def test_emitted_errors_still_count(line: str) -> None:
    assert not _q(line)


CUBLAS = "CUBLAS_STATUS_EXECUTION_FAILED"


@pytest.mark.parametrize("text", [
    # a docs table copied from a rendered page: the error name is a cell; the delimiter row is split off by readers
    f"{CUBLAS} | The GPU program failed to execute.",
    f"| `{CUBLAS}` | 13 | The GPU program failed to execute. |",
    f"| 13 | {CUBLAS} | The GPU program failed to execute. |",
    f"status | meaning\n-- | --\n{CUBLAS} when calling `cublasSgemm( handle, ...)` is rare | see below",
])
def test_markdown_table_rows_are_documentation(text: str) -> None:
    pos = text.index(CUBLAS)
    assert is_quoted(text, pos, pos + len(CUBLAS))


@pytest.mark.parametrize("text", [
    # loguru's `time | LEVEL | message` and nvidia-smi boxes have pipes but are output, not tables
    f"2024-06-01 12:00:00.000 | ERROR    | train:step:88 - RuntimeError: {CUBLAS} when calling `cublasSgemm`",
    f"| 0 | RuntimeError: {CUBLAS} when calling `cublasSgemm` |",
    f"RuntimeError: {CUBLAS} when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F)`",
    f"{CUBLAS} when calling cublasSgemm | rank 0",
])
def test_pipes_in_output_are_not_a_table(text: str) -> None:
    pos = text.index(CUBLAS)
    assert not is_quoted(text, pos, pos + len(CUBLAS))


def test_vitest_summary_with_pipes_is_output() -> None:
    line = "      Tests  1 failed | 1 passed (2)"
    pos = line.index("Tests")
    assert not is_quoted(line, pos, line.index(" |"))
