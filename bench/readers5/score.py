"""Score logsleuth's readers on the fifth batch of public transcripts against counts.json.

    PYTHONPATH=src .venv/bin/python bench/readers5/score.py DIR

DIR holds the transcripts as bench/readers5/SOURCES.md lists them, one folder each (fetched from their
repositories: most carry no licence, so they are not shipped). counts.json was written by count_truth.py (a
helper session's, from the files alone, before logsleuth read them). Scored as bench/readers4/score.py scores
its batch (its functions, loaded from there), with this batch's formats.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent


def _batch4_scorer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("readers4_score", HERE.parent / "readers4" / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the reader each folder's file should be read by (its format, as logsleuth names it)
FORMATS = {
    "aider": ("aider",),
    "antigrav": ("antigravity",),
    "cc": ("claude-code",),
    "cline": ("cline",),
    "codex": ("codex",),
    "cursor": ("cursor",),
    "gemini": ("gemini",),
    "openhands": ("openhands",),
    "pi": ("pi",),
}
POSITIONAL = ("aider", "antigrav", "cline")  # formats whose files hold no call ids


if __name__ == "__main__":
    _batch4_scorer().main(HERE / "counts.json", FORMATS, POSITIONAL, {})
