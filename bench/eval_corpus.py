"""Score the pattern library on the labelled corpus: a thin wrapper over `logsleuth patterns eval`.

    python bench/eval_corpus.py [CORPUS.jsonl] [--output-format json] [--min-accuracy 0.95]
"""

from __future__ import annotations

import sys
from pathlib import Path

from logsleuth.cli import main

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "cuda_errors_dev.jsonl"

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        args = [str(DEFAULT), *args]
    sys.exit(main(["patterns", "eval", *args]))
