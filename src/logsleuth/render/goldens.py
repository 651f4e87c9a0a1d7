"""Regenerate (or check) the postmortems of every sample in sample_logs/: `python -m logsleuth.render.goldens`.

Run from the repository root: report sources are the relative paths as given, so the bytes do
not depend on where the checkout lives.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

SAMPLES = Path("sample_logs")
REPORTS = Path("reports")


def cases() -> list[tuple[str, str, str]]:
    """(case, format name, transcript path) for every transcript a case.yaml lists, sorted."""
    out = []
    for case_file in sorted(SAMPLES.glob("*/case.yaml")):
        data = yaml.safe_load(case_file.read_text())
        for fmt, rel in sorted((data.get("files") or {}).items()):
            path = case_file.parent / rel
            if not path.is_file():
                continue
            out.append((case_file.parent.name, fmt, path.as_posix()))
    return out


def target(case: str, fmt: str) -> Path:
    return REPORTS / case / f"{fmt}.md"


def render(path: str) -> str:
    from logsleuth.analysis import analyze
    from logsleuth.render.postmortem import render_markdown

    return render_markdown(analyze(path))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for case, fmt, path in cases():
        text = render(path)
        out = target(case, fmt)
        if check:
            if not out.is_file() or out.read_text() != text:
                stale.append(str(out))
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        print(f"wrote {out}")
    if stale:
        print("stale: " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
