"""Peak memory of `classify`, `analyze` and `events -O jsonl` on an error-dense plain log.

    python bench/memory_dense.py [--size 100M] [--seed 7] [--out bench/out] [--generate-only]

Writes bench/out/dense.log (git-ignored): timestamped lines where about one line in four belongs to
an error block, the blocks taken from the real error texts of tests/corpus/real_errors.jsonl and
tests/fixtures, every number and path varied so that most findings have their own fingerprint
(the worst case for anything kept per finding). Then runs each command under `/usr/bin/time -v`
with stdout to /dev/null and prints wall time, CPU time and peak RSS as a markdown table
(bench/results-robustness.md keeps the figures). Same seed, same bytes.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "real_errors.jsonl"
FIXTURES = ROOT / "tests" / "fixtures"
BENIGN = (
    "INFO server: request handled in {n} ms",
    "DEBUG worker {n}: heartbeat ok",
    "INFO step {n}/100000 loss={f}",
    "[{n}/{m}] Building CXX object src/CMakeFiles/core.dir/file_{n}.cpp.o",
)
COMMANDS = (
    ("classify", ["classify", "{log}", "-O", "json"]),
    ("analyze", ["analyze", "{log}", "-o", "{out}/dense.md"]),
    ("events -O jsonl", ["events", "{log}", "-O", "jsonl"]),
)


def error_blocks() -> list[str]:
    """Real error texts: the corpus logs and the plain-text fixtures (paragraph by paragraph)."""
    blocks = [orjson.loads(line)["log"] for line in CORPUS.read_bytes().splitlines() if line.strip()]
    for path in sorted(FIXTURES.rglob("*.log")) + sorted(FIXTURES.rglob("*.txt")):
        text = path.read_text(errors="replace")
        blocks.extend(p for p in re.split(r"\n\s*\n", text) if 0 < len(p) < 4000)
    return [b for b in blocks if b.strip()]


_DIGITS = re.compile(r"\d+")
_PATH = re.compile(r"/(home|root|usr|opt|tmp|workspace)/[\w.-]+")


def varied(block: str, rng: random.Random) -> str:
    """The block with its numbers and home/opt paths changed (a new fingerprint, the same shape)."""
    block = _DIGITS.sub(lambda m: str(rng.randrange(10 ** min(len(m.group()), 6))), block)
    return _PATH.sub(lambda m: f"/{m.group(1)}/u{rng.randrange(100000)}", block)


def lines(size: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    blocks = error_blocks()
    written, second = 0, 0
    while written < size:
        second += 1
        stamp = f"2024-05-{1 + second // 86400 % 28:02d} {second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
        if rng.random() < 0.25:
            text = "\n".join(f"{stamp} ERROR {ln}" if i == 0 else ln
                             for i, ln in enumerate(varied(rng.choice(blocks), rng).splitlines()))
        else:
            text = f"{stamp} " + rng.choice(BENIGN).format(n=rng.randrange(10**5), m=rng.randrange(10**5),
                                                          f=rng.random())
        written += len(text) + 1
        yield text + "\n"


def generate(path: Path, size: int, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fh.writelines(lines(size, seed))


def measure(args: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds (user + system), peak RSS in MB, exit code) of one logsleuth
    run, stdout discarded. CPU time is the figure to compare on a shared machine: wall time
    grows with the load of other jobs."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "logsleuth", *args]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    rss = float(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024  # type: ignore[union-attr]
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", proc.stderr).group(1)  # type: ignore[union-attr]
    secs = sum(float(x) * 60**i for i, x in enumerate(reversed(wall.split(":"))))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", proc.stderr).group(1))  # type: ignore[union-attr]
              for k in ("User", "System"))
    code = int(re.search(r"Exit status: (\d+)", proc.stderr).group(1))  # type: ignore[union-attr]
    return secs, cpu, rss, code


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100M")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--only", help="run only this command (classify, analyze, events -O jsonl)")
    a = ap.parse_args()
    log = a.out / f"dense-{a.size}.log"
    if not log.exists():
        generate(log, parse_size(a.size), a.seed)
    mb = log.stat().st_size / 2**20
    print(f"input: {log.name}, {mb:.1f} MB")
    if a.generate_only:
        return
    print("| command | wall | CPU | peak RSS | RSS / input | exit |\n|---|---|---|---|---|---|")
    for name, argv in COMMANDS:
        if a.only and a.only != name:
            continue
        secs, cpu, rss, code = measure([x.format(log=log, out=a.out) for x in argv])
        print(f"| `{name}` | {secs:.1f} s | {cpu:.1f} s | {rss:.0f} MB | {rss / mb:.1f}× | {code} |", flush=True)


if __name__ == "__main__":
    main()
