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
