"""Score the pattern library on the labelled corpus: a thin wrapper over `logsleuth patterns eval`.

    python bench/eval_corpus.py [CORPUS.jsonl] [--output-format json] [--min-accuracy 0.95]

Without CORPUS it scores ../shared/corpus/cuda_errors_dev.jsonl (real excerpts from public issue
threads) when that folder sits next to the checkout; in a clean clone it falls back to a corpus
made from the library itself: every pattern's `match` examples, labelled with its category
(a weaker check, that the examples are won by their own category; it needs nothing outside the repo).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from logsleuth.cli import main

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "cuda_errors_dev.jsonl"


def examples_corpus(out: Path) -> Path:
    """The library's own `match` examples as a labelled corpus (JSONL {"id", "category", "log"})."""
    from logsleuth.library import load_library

    lib = load_library([])
    with out.open("w", encoding="utf-8") as fh:
        for p in sorted(lib.patterns, key=lambda p: p.id):
            if p.severity.value in ("success", "info"):  # the eval scores failures: it predicts none for these
                continue
            for i, ex in enumerate(p.match_examples):
                fh.write(json.dumps({"id": f"{p.id}#{i}", "category": p.category, "log": ex.text}) + "\n")
    return out


def default_corpus(tmp: Path) -> Path:
    if SHARED.is_file():
        return SHARED
    sys.stderr.write(f"eval_corpus: {SHARED} is absent; scoring the patterns' own match examples\n")
    return examples_corpus(tmp / "pattern_examples.jsonl")


if __name__ == "__main__":
    args = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        if not args or args[0].startswith("-"):
            args = [str(default_corpus(Path(tmp))), *args]
        sys.exit(main(["patterns", "eval", *args]))
