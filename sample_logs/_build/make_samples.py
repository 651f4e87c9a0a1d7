#!/usr/bin/env python3
"""Regenerate every file under sample_logs/ from the story definitions in this folder.

    python sample_logs/_build/make_samples.py        # rewrites the samples and their case.yaml
    python sample_logs/_build/make_samples.py DIR    # writes them under DIR instead

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


def write(out: Path, rel: str, text: str) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


CASES = (case_sglang, case_flash_attn, case_vllm, case_nccl, case_nocuda)


def render_all() -> dict[str, str]:
    """Every generated file, relative to sample_logs/, with its text."""
    out: dict[str, str] = {}
    for mod in CASES:
        out.update(mod.files())
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else OUT  # an explicit folder lets tests regenerate elsewhere
    for rel, text in sorted(render_all().items()):
        write(out, rel, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
