"""Score logsleuth's readers on the transcripts here against counts.json (see SCORE.md).

Per file: the format detection picked (no --format) and the one the file is; tool calls, results and
results paired to a call by id, read against counts.json; results read with no text where the file
holds text; lines unread; and what `logsleuth events FILE` says on stderr. Run from the repository
root: `PYTHONPATH=src .venv/bin/python tests/real_readers2/score.py [--json]`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from logsleuth import ingest

HERE = Path(__file__).parent
# the format each folder's file is, from its source (a role/content history may be read by either
# reader of that shape)
FORMATS = {
    "aider": ("aider",),
    "codex": ("codex",),
    "gemini-chat": ("gemini",),
    "gemini-stream": ("gemini-stream",),
    "managed": ("managed-agent",),
    "sweagent-function_calling_simple": ("swe-agent", "openai-messages"),
    "sweagent": ("swe-agent",),
}


def expected_formats(name: str) -> tuple[str, ...]:
    folder = name.split("/")[0]
    for prefix in sorted(FORMATS, key=len, reverse=True):
        if folder.startswith(prefix):
            return FORMATS[prefix]
    raise KeyError(folder)


def read_counts(path: Path) -> dict[str, object]:
    t = ingest.read(str(path))
    ev = t.events
    kind = pl.col("kind").cast(pl.Utf8)
    calls = ev.filter(kind == "tool_call")
    results = ev.filter(kind == "tool_result")
    ids = set(calls.get_column("call_id").drop_nulls().to_list())
    paired = results.filter(pl.col("call_id").is_in(list(ids))).height if ids else 0
    # a reader's marker for an output the file leaves empty ("[success]", "[no output]") is not text
    text = pl.col("text").fill_null("").str.strip_chars()
    with_text = results.filter((text != "") & ~text.str.contains(r"^\[[a-z _-]+\]$")).height
    users = ev.filter((pl.col("role").cast(pl.Utf8) == "user") & (kind == "text")).height
    return {
        "format": t.report.format,
        "tool_calls": calls.height,
        "tool_results": results.height,
        "paired": paired,
        "results_with_text": with_text,
        "user_turns": users,
        "unread": len(t.report.skipped),
        "lines": t.report.lines,
    }


def cli_stderr(path: Path) -> str:
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH") or str(HERE.parent.parent / "src"))
    out = subprocess.run(
        [sys.executable, "-m", "logsleuth", "events", str(path), "-O", "json"],
        capture_output=True, text=True, env=env, check=False,
    )
    return " ".join(line for line in out.stderr.splitlines() if line.strip())[:160]


def score(name: str, want: dict[str, int]) -> dict[str, object]:
    got = read_counts(HERE / name)
    keys = ("tool_calls", "tool_results", "paired", "results_with_text")
    exact = all(got[k] == want[k] for k in keys) and got["format"] in expected_formats(name)
    return {**got, "want": {k: want[k] for k in keys}, "stderr": cli_stderr(HERE / name), "exact": exact}


def main() -> None:
    counts = json.loads((HERE / "counts.json").read_text())
    print_rows({name: score(name, want) for name, want in counts.items()})


def print_rows(rows: dict[str, dict[str, object]]) -> None:
    """The scored rows as a markdown table and the count of exact ones (`--json`: the rows as JSON)."""
    if "--json" in sys.argv:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return
    print("| file | format | calls | results | paired | with text | unread/lines | stderr | exact |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        w = r["want"]
        print(
            f"| {name.split('/')[0]} | {r['format']} | {r['tool_calls']}/{w['tool_calls']} "
            f"| {r['tool_results']}/{w['tool_results']} | {r['paired']}/{w['paired']} "
            f"| {r['results_with_text']}/{w['results_with_text']} | {r['unread']}/{r['lines']} "
            f"| {r['stderr'] or '-'} | {'yes' if r['exact'] else '**no**'} |"
        )
    print(f"\nexact: {sum(1 for r in rows.values() if r['exact'])} of {len(rows)}")


if __name__ == "__main__":
    main()
