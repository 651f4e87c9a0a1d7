"""Score logsleuth's readers on the third batch of public transcripts against counts.json.

    PYTHONPATH=src .venv/bin/python bench/readers3/score.py DIR

DIR holds the transcripts as bench/readers3/SOURCES.md lists them (fetched from their repositories:
most carry no licence, so they are not shipped). counts.json was written by count_truth.py from the
files alone, before logsleuth read them. For formats whose files hold no call ids (aider, cline,
mini-swe-agent, cursor) a result answers its call by position, so "paired" is checked against the
results counted.

Per file: the format detection picked (no --format) and the one the file is; tool calls, results and
results paired to a call by id, read against counts.json; results read with no text where the file
holds text; lines unread; and what `logsleuth events FILE` says on stderr (counted by
tests/real_readers2/score.py's functions, loaded from there, which also print the table). `--json` prints the rows.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else Path(__file__).parent
COUNTS = Path(__file__).parent / "counts.json"
REPO = Path(__file__).resolve().parents[2]


def _batch2_scorer():  # type: ignore[no-untyped-def]
    """tests/real_readers2/score.py: its counting of what logsleuth read serves this batch too."""
    spec = importlib.util.spec_from_file_location("readers2_score", REPO / "tests" / "real_readers2" / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_B2 = _batch2_scorer()
read_counts, cli_stderr = _B2.read_counts, _B2.cli_stderr
# the format each folder's file is, from its source (a role/content history may be read by either
# reader of that shape)
FORMATS = {
    "aider": ("aider",),
    "claude-reliability": ("claude-code",),
    "cline": ("cline",),
    "cursor": ("agent-otel",),
    "engram": ("openai-messages",),  # a role/content log of Anthropic blocks: the messages reader's shape
    "gemini-stream": ("gemini-stream",),
    "mini": ("swe-agent",),
}


POSITIONAL = ("aider", "cline", "cursor", "mini")


def expected_formats(name: str) -> tuple[str, ...]:
    folder = name.split("/")[0]
    for prefix in sorted(FORMATS, key=len, reverse=True):
        if folder.startswith(prefix):
            return FORMATS[prefix]
    raise KeyError(folder)


def score(name: str, want: dict[str, int]) -> dict[str, object]:
    got = read_counts(HERE / name)
    keys = ("tool_calls", "tool_results", "paired", "results_with_text")
    want = dict(want)
    if name.split("/")[0].startswith(POSITIONAL):  # the file holds no ids: each result answers its call by position
        want["paired"] = want["tool_results"]
    exact = all(got[k] == want[k] for k in keys) and got["format"] in expected_formats(name)
    return {**got, "want": {k: want[k] for k in keys}, "stderr": cli_stderr(HERE / name), "exact": exact}


def main() -> None:
    counts = json.loads(COUNTS.read_text())
    _B2.print_rows({name: score(name, want) for name, want in counts.items()})


if __name__ == "__main__":
    main()
