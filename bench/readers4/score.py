"""Score logsleuth's readers on the fourth batch of public transcripts against counts.json.

    PYTHONPATH=src .venv/bin/python bench/readers4/score.py DIR

DIR holds the transcripts as bench/readers4/SOURCES.md lists them, one folder each (fetched from
their repositories: most carry no licence, so they are not shipped). counts.json was written by
count_truth.py (a helper session's, from the files alone, before logsleuth read them). A folder's
transcript is the one file in it that is not SOURCE.txt. For formats whose files hold no call ids
(aider, Antigravity, Replit, mini-swe-agent) a result answers its call by position, so "paired" is
checked against the results counted. Counting is done by tests/real_readers2/score.py's functions.
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
# the reader each folder's file should be read by (its format, as logsleuth names it)
FORMATS = {
    "aider": ("aider",),
    "antigrav": ("antigravity",),
    "cc": ("claude-code",),
    "codex": ("codex",),
    "copilot": ("copilot",),
    "gemini": ("gemini",),
    "miniswe": ("swe-agent",),
    "openhands": ("openhands",),
    "replit": ("openai-messages",),  # a role/content log with tool_calls: the messages reader's shape
}
POSITIONAL = ("aider", "antigrav", "replit", "miniswe")
# positional results whose call the file lacks (the helper's caveat: antigrav-metta is cut at its head, so
# its first result answers a call that is not in the file)
ORPHANS = {"antigrav-metta": 1}


def transcript_of(folder: Path) -> Path:
    return next(p for p in sorted(folder.iterdir()) if p.name != "SOURCE.txt")


def score(name: str, want: dict[str, int], formats: dict[str, tuple[str, ...]] = FORMATS,
          positional: tuple[str, ...] = POSITIONAL, orphans: dict[str, int] = ORPHANS) -> dict[str, object]:
    path = transcript_of(HERE / name)
    got = read_counts(path)
    keys = ("tool_calls", "tool_results", "paired", "results_with_text", "user_turns")
    calls_only = ("tool_calls", "tool_results", "paired", "results_with_text")  # batch 3's measure
    want = dict(want)
    if name.startswith(positional):  # the file holds no ids: each result answers its call by position
        want["paired"] = want["tool_results"] - orphans.get(name, 0)
    prefix = max((p for p in formats if name.startswith(p)), key=len)
    right_format = got["format"] in formats[prefix]
    exact = all(got[k] == want[k] for k in keys) and right_format
    calls_exact = all(got[k] == want[k] for k in calls_only) and right_format
    return {**got, "want": {k: want[k] for k in keys}, "stderr": cli_stderr(path), "exact": exact,
            "calls_exact": calls_exact}


def main(counts_path: Path = COUNTS, formats: dict[str, tuple[str, ...]] = FORMATS,
         positional: tuple[str, ...] = POSITIONAL, orphans: dict[str, int] = ORPHANS) -> None:
    """Score every file of `counts_path` (another batch passes its own tables: bench/readers5/score.py)."""
    counts = json.loads(counts_path.read_text())
    rows = {name: score(name, want, formats, positional, orphans) for name, want in counts.items()}
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1, default=str))
        return
    for name, r in rows.items():
        w = r["want"]
        cells = " ".join(f"{k}={r[k]}/{w[k]}" for k in w)
        print(f"{name:18s} {r['format']!s:16s} {cells} unread={r['unread']}/{r['lines']} exact={r['exact']}")
        if r["stderr"]:
            print(f"{'':18s} stderr: {str(r['stderr'])[:200]}")
    print(f"exact (calls, results, paired, with text, user turns; right reader): {sum(r['exact'] for r in rows.values())} of {len(rows)}")
    print(f"calls exact (batch 3's measure, no user turns): {sum(r['calls_exact'] for r in rows.values())} of {len(rows)}")


if __name__ == "__main__":
    main()
