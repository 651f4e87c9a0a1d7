"""Secrets planted and leaked, per output and input format: the figures of issue 20's closing note.

    python bench/secrets_matrix.py

Every kind of tests/robustness_secrets.py is planted into every free-text field (and glued to every
id) of a seed file of each format; each command's output is searched for every planted value (and
its fragments, `leaks`). Prints one row per command with the kinds seen with `--no-redact` (the
check is not vacuous) and the kinds leaked by default, then the index's Parquet files and
`search` over an index of all the planted files.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from robustness_fuzz import FORMATS, fmt_id
from robustness_secrets import PLANTS, leaks, write_planted

COMMANDS = ("events -O json", "events -O jsonl", "classify -O json", "graph -O json", "graph -O dot",
            "analyze -O json", "analyze -O md", "analyze -O html", "explain -m 1")


def run(argv: list[str]) -> str:
    from logsleuth.cli import main

    class Out(io.StringIO):
        buffer: io.BytesIO

    out = Out()
    out.buffer = io.BytesIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(argv)
    return out.buffer.getvalue().decode("utf-8", "replace") + out.getvalue()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "planted"
        planted = {fmt_id(f): write_planted(f, root / fmt_id(f).replace(":", "_")) for f in FORMATS}
        print(f"{len(PLANTS)} kinds planted into {len(planted)} formats\n")
        print("| output | formats | kinds seen with --no-redact (sum) | kinds leaked (sum) |")
        print("|---|---:|---:|---:|")
        for cmd in COMMANDS:
            seen = leaked = 0
            for path in planted.values():
                seen += len(leaks(run([*cmd.split(), str(path), "--no-redact"])))
                leaked += len(leaks(run([*cmd.split(), str(path)])))
            print(f"| `{cmd}` | {len(planted)} | {seen} | {leaked} |")
        db = Path(tmp) / "db"
        run(["index", str(root), "--db", str(db)])
        import polars as pl

        parquet = "".join(pl.read_parquet(p).write_ndjson() for p in sorted(db.rglob("*.parquet")))
        # for these, the second column counts the masks in the output (the rows did hold secrets)
        print(f"| index Parquet files | {len(planted)} | {parquet.count('[REDACTED')} masks | {len(leaks(parquet))} |")
        for q in ("RuntimeError: CUDA error: out of memory", "ghp", "password"):
            out = run(["search", q, "--db", str(db), "-O", "json"])
            print(f"| `search {q!r} -O json` | {len(planted)} | {out.count('[REDACTED')} masks | {len(leaks(out))} |")


if __name__ == "__main__":
    main()
