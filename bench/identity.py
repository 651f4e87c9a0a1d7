"""Byte-identity oracle for speed work: every output of the shipped inputs, saved, then diffed.

    python bench/identity.py save  DIR     # before a change: write every output under DIR
    python bench/identity.py check DIR     # after it: the same outputs again, diffed against DIR

Inputs: every transcript and log under sample_logs/ (its case.yaml files and *.log) and every
session under tests/real_sessions/. Outputs per input: `classify -O json`, `analyze` markdown,
`analyze -O json`, and the golden renderer's markdown (render/goldens.render). All run in one
process through the CLI app (typer's runner), so caches kept between calls are exercised too.
Run from the repository root (report sources are relative paths).
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS: dict[str, list[str]] = {
    "classify.json": ["classify", "-O", "json"],
    "analyze.md": ["analyze", "-O", "md"],
    "analyze.json": ["analyze", "-O", "json"],
}


def inputs() -> Iterator[Path]:
    """Every shipped input, relative to the repository root, sorted."""
    seen: set[Path] = set()
    sys.path.insert(0, str(ROOT / "src"))
    from logsleuth.render import goldens

    for _, _, path in goldens.cases():  # the transcripts case.yaml lists (aider's hidden file too)
        seen.add(Path(path))
        yield Path(path)
    for pattern in ("sample_logs/*/*.log", "sample_logs/*/*.json", "sample_logs/*/*.jsonl",
                    "tests/real_sessions/*/session.*"):
        for p in sorted(ROOT.glob(pattern)):
            rel = p.relative_to(ROOT)
            if rel not in seen:
                seen.add(rel)
                yield rel


def outputs() -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every output of every input."""
    from typer.testing import CliRunner

    from logsleuth.cli.app import app
    from logsleuth.render import goldens

    runner = CliRunner()
    for rel in inputs():
        key = rel.as_posix().replace("/", "__")
        for name, argv in COMMANDS.items():
            res = runner.invoke(app, [*argv, rel.as_posix()], env={"NO_COLOR": "1", "COLUMNS": "160"})
            yield f"{key}.{name}", f"rc={res.exit_code}\n".encode() + res.stdout_bytes
        yield f"{key}.golden.md", goldens.render(rel.as_posix()).encode()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("save", "check"):
        print(__doc__)
        return 2
    mode, folder = argv[0], Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    differ = missing = 0
    for name, data in outputs():
        target = folder / name
        if mode == "save":
            target.write_bytes(data)
            continue
        if not target.is_file():
            missing += 1
            print(f"NEW   {name}")
        elif target.read_bytes() != data:
            differ += 1
            print(f"DIFF  {name}")
            old = target.read_bytes().decode(errors="replace").splitlines()
            new = data.decode(errors="replace").splitlines()
            sys.stdout.writelines(line + "\n" for line in list(difflib.unified_diff(old, new, lineterm=""))[:40])
    if mode == "check":
        print(f"identity: {differ} differ, {missing} new")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main(sys.argv[1:]))
