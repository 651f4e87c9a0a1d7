#!/usr/bin/env python3
"""Regenerate every file under sample_logs/ from the story definitions in this folder.

    python sample_logs/_build/make_samples.py        # rewrites the samples and their case.yaml

Deterministic: no clock, no randomness, nothing read from outside this folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import case_flash_attn  # noqa: E402
import case_nccl  # noqa: E402
import case_nocuda  # noqa: E402
import case_sglang  # noqa: E402
import case_vllm  # noqa: E402

OUT = HERE.parent


def write(rel: str, text: str) -> None:
    path = OUT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def main() -> int:
    for mod in (case_sglang, case_flash_attn, case_vllm, case_nccl, case_nocuda):
        for rel, text in mod.files().items():
            write(rel, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
