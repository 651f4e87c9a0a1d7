"""Turn bench/gpu_harvest.py's tarball into a labelled corpus file (JSONL {"id", "category", "source", "log"}).

    python bench/harvest_to_corpus.py HARVEST_DIR OUT.jsonl --date 2026-12-07

Each case keeps its label (set by construction before it ran). The device machine's paths are replaced
(`/tmp/harvest-*` -> `/home/user/work`, the Python environment -> `/home/user/.venv`); a long output keeps its
last MAX_CHARS characters. A failure case that exited 0 without a `; true` (the failure was not provoked) is left out.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MAX_CHARS = 6000
PATHS = [
    (re.compile(r"/tmp/harvest-out-\w+"), "/home/user/out"),
    (re.compile(r"/tmp/harvest-ext\d"), "/home/user/.cache/torch_extensions"),
    (re.compile(r"/tmp/harvest-\w+"), "/home/user/work"),
    (re.compile(r"/opt/torch/\.venv"), "/home/user/.venv"),
    (re.compile(r"/root\b"), "/home/user"),
]


def scrub(text: str) -> str:
    """The output with the machine's own paths replaced."""
    for rx, repl in PATHS:
        text = rx.sub(repl, text)
    return text


def provoked(row: dict[str, object]) -> bool:
    """Whether a case's run did what it was built for (benign: always; a failure: it failed)."""
    if row["rc"] is None:
        return False
    return row["label"] == "none" or row["rc"] != 0 or str(row["command"]).rstrip().endswith("true")


def main(harvest: str, out: str, date: str) -> int:
    """Write the corpus file; print what was left out."""
    folder = Path(harvest)
    rows = json.loads((folder / "manifest.json").read_text())
    with open(out, "w", encoding="utf-8") as fh:
        for row in rows:
            if not provoked(row):
                print(f"left out: {row['name']} (rc {row['rc']})")
                continue
            text = scrub((folder / f"{row['name']}.out").read_text(errors="replace")).strip()[-MAX_CHARS:]
            if not text:
                print(f"left out: {row['name']} (no output)")
                continue
            source = f"H100, {date}, bench/gpu_harvest.py case {row['name']}: {scrub(str(row['command']))[:300]}"
            fh.write(json.dumps({"id": f"h100-{row['name']}", "category": row["label"], "source": source,
                                 "log": text}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[sys.argv.index("--date") + 1] if "--date" in sys.argv else ""))
