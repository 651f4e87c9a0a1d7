"""Throughput of `logsleuth index` over many small plain-text logs (must stay linear, ≥ 500 files/s).

    python bench/index_small.py [--files 5000 20000] [--size 1024] [--seed 7] [--out bench/out] [--repeat 3]

For each count N: writes N logs of about --size bytes (timestamped lines, one in three an error
line from tests/corpus/real_errors.jsonl with its numbers varied, so every file has findings and
its own part), then times `logsleuth index DIR --db DB` from scratch and once more with nothing
changed (the incremental path). Prints a markdown table of files/s; bench/results-robustness.md
keeps the figures. Same seed, same bytes.

This machine's speed varies by ±20 % from one minute to the next (a fixed pure-Python loop takes
3.0-4.5 s; steal time from its neighbours): with --repeat N each count is built N times and the
median and best runs are shown, each with the calibration loop's time just before it ("speed":
1.00 is the loop at its best run of the session).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "real_errors.jsonl"


def error_lines() -> list[str]:
    out = []
    for raw in CORPUS.read_bytes().splitlines():
        for line in orjson.loads(raw)["log"].splitlines():
            if 20 < len(line) < 200 and re.search(r"(?i)error|fail|exception", line):
                out.append(line)
    return sorted(set(out))


def write_logs(folder: Path, count: int, size: int, seed: int) -> None:
    rng = random.Random(seed)
    errors = error_lines()
    folder.mkdir(parents=True)
    for i in range(count):
        parts, n = [], 0
        while n < size:
            stamp = f"2024-05-01 10:{i // 60 % 60:02d}:{len(parts) % 60:02d}"
            if len(parts) % 3 == 2:
                line = re.sub(r"\d+", lambda m: str(rng.randrange(1000)), rng.choice(errors))
            else:
                line = f"INFO step {rng.randrange(10**5)} ok"
            parts.append(f"{stamp} {line}\n")
            n += len(parts[-1])
        (folder / f"d{i // 1000:03d}").mkdir(exist_ok=True)
        (folder / f"d{i // 1000:03d}" / f"run-{i:06d}.log").write_text("".join(parts))


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the run and its workers)."""
    cpu0 = _children_cpu()
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "logsleuth", *args], capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        sys.exit(f"logsleuth {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.monotonic() - start, _children_cpu() - cpu0


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def calibration() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast the machine is right now."""
    start = time.process_time()
    total = 0
    for i in range(3_000_000):
        total += i
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--repeat", type=int, default=1, help="builds per count (median and best are shown)")
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("| files | run | build | files/s | CPU ms/file | again (unchanged) | files/s | CPU ms/file | calibration |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for count in a.files:
        folder, db = a.out / f"small-{count}", a.out / f"small-{count}.db"
        if not folder.exists():
            write_logs(folder, count, a.size, a.seed)
        runs = []
        for _ in range(a.repeat):
            cal = calibration()
            shutil.rmtree(db, ignore_errors=True)
            build, bcpu = timed(["index", str(folder), "--db", str(db)])
            again, acpu = timed(["index", str(folder), "--db", str(db)])
            runs.append((build, bcpu, again, acpu, cal))
        runs.sort()
        shown = [("best", runs[0]), ("median", runs[len(runs) // 2])] if len(runs) > 1 else [("", runs[0])]
        for label, (build, bcpu, again, acpu, cal) in shown:
            print(f"| {count} | {label} | {build:.1f} s | {count / build:.0f} | {1000 * bcpu / count:.1f} | {again:.1f} s "
                  f"| {count / again:.0f} | {1000 * acpu / count:.1f} | {cal:.2f} s | (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
