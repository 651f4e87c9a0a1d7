"""The oracle of classify speed work: `classify -O json` of many inputs by two checkouts, diffed.

    python bench/classify_oracle.py --old /path/to/old/checkout [--new .] [--no-big] [--keep DIR]

Inputs: every file of sample_logs/ (not its _build/ scripts), each `log`/`text` of
tests/corpus/*.jsonl and ../shared/corpus/cuda_errors_dev.jsonl written to a file of its own, one
concatenation of all of those texts repeated past 17 MiB (so that logscan's Hyperscan path runs on
them too), and bench/data/big.log (bench/generate.py). Each checkout classifies all of them in one
child process (its src/ first on PYTHONPATH, its own cache folder), exit code and stdout kept per
input; any byte that differs is printed and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = [*sorted((ROOT / "tests" / "corpus").glob("*.jsonl")), ROOT.parent / "shared" / "corpus" / "cuda_errors_dev.jsonl"]
BIG_CONCAT = 17 * 1024 * 1024

# run in the child: classify every input named on stdin into OUT/<n>.json, and its exit code
CHILD = r"""
import contextlib, io, json, os, sys
from logsleuth.cli import main
out = sys.argv[1]
for n, path in enumerate(json.load(sys.stdin)):
    dest = os.path.join(out, f"{n}.json")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["classify", path, "-O", "json", "-o", dest])
    with open(dest + ".rc", "w") as f:
        f.write(f"{rc}\n{err.getvalue()}")
"""


def inputs(work: Path, big: bool) -> list[Path]:
    files = [p for p in sorted((ROOT / "sample_logs").rglob("*")) if p.is_file() and "_build" not in p.parts]
    texts: list[str] = []
    for corpus in CORPORA:
        if not corpus.is_file():
            print(f"oracle: {corpus} missing, skipped")
            continue
        for i, line in enumerate(corpus.read_text().splitlines()):
            rec = json.loads(line)
            text = rec.get("log") or rec.get("text")
            if isinstance(text, str):
                dest = work / f"{corpus.stem}-{i:04d}.log"
                dest.write_text(text)
                files.append(dest)
                texts.append(text)
    blob = ("\n".join(texts) + "\n").encode()
    concat = work / "all-texts.log"
    with open(concat, "wb") as f:
        for _ in range(BIG_CONCAT // max(len(blob), 1) + 1):
            f.write(blob)
    files.append(concat)
    if big and (ROOT / "bench" / "data" / "big.log").is_file():
        files.append(ROOT / "bench" / "data" / "big.log")
    return files


def run(checkout: Path, files: list[Path], out: Path, cache: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve() / "src"), "LOGSLEUTH_CACHE_DIR": str(cache)}
    subprocess.run([sys.executable, "-c", CHILD, str(out)], input=json.dumps([str(p) for p in files]),
                   text=True, env=env, check=True, cwd=ROOT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--new", type=Path, default=ROOT)
    ap.add_argument("--no-big", action="store_true", help="leave bench/data/big.log out")
    ap.add_argument("--keep", type=Path, help="keep the outputs here")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="classify-oracle-"))
    (work / "in").mkdir(parents=True, exist_ok=True)
    files = inputs(work / "in", not args.no_big)
    for side, checkout in (("old", args.old), ("new", args.new)):
        run(checkout, files, work / side, work / f"cache-{side}")
    differ = 0
    for n, path in enumerate(files):
        for suffix in (".json", ".json.rc"):
            a, b = work / "old" / f"{n}{suffix}", work / "new" / f"{n}{suffix}"
            da = a.read_bytes() if a.exists() else b"<missing>"
            db = b.read_bytes() if b.exists() else b"<missing>"
            if da != db:
                differ += 1
                print(f"DIFFER {path} ({suffix}): old {len(da)} bytes, new {len(db)} bytes")
    findings = sum(len(json.loads((work / "new" / f"{n}.json").read_text()).get("findings", []))
                   for n in range(len(files)) if (work / "new" / f"{n}.json").exists())
    print(f"oracle: {len(files)} inputs, {findings} findings (new), {differ} outputs differ; outputs in {work}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
