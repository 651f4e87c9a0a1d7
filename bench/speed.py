"""Issue #31's figures in one run, each side by side with its peer (rg, jq), ratios first.

    python bench/generate.py --size 256M --session-size 100M --corpus-size 64M   # the inputs, once
    python bench/speed.py [--runs 5] [--big-runs 3] [--only classify|sample|big|search] [--src CHECKOUT]

Every workload runs in a child process (wall clock; CPU and peak RSS from `os.wait4`), alternately
with its peer so that a ratio holds on a loaded machine; each figure is the median of the runs.
Workloads: classify big.log against the grep a user would run instead; analyze of the shipped
sample and of big-session.jsonl against `jq -c .message`; index of corpus/; the search CLI
against `rg -F` over the same raw sources.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import Run, _machine, measure  # the sibling bench's child-process timer

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
SAMPLE = ROOT / "sample_logs" / "sglang-sm120" / "session.jsonl"
NAIVE_GREP = "error|fatal|exception|traceback|killed"  # what a user greps a server log for
QUERIES = ["CUDA error: out of memory", "undefined symbol", "NCCL WARN", "no kernel image is available",
           "ModuleNotFoundError", "Connection refused", "illegal memory access"]
MB = 1_000_000


def med(runs: list[Run], what: str = "wall") -> float:
    return statistics.median(getattr(r, what) for r in runs)


# Children run as an installed copy does: with bytecode caches. PYTHONDONTWRITEBYTECODE (set in
# some shells) made every call recompile ~150 edited modules: +0.3 s a call, measured here.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def pair(ours: list[str], peer: list[str], runs: int) -> tuple[list[Run], list[Run]]:
    """Both commands `runs` times, alternately, after one warm-up of each (page cache, bytecode)."""
    measure(ours, env=ENV)
    measure(peer)
    a: list[Run] = []
    b: list[Run] = []
    for _ in range(runs):
        a.append(measure(ours, env=ENV))
        b.append(measure(peer))
    return a, b


class Speed:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.ls = [str(Path(sys.executable).with_name("logsleuth"))]
        self.rows: list[tuple[str, str, str]] = []  # (ratio line, detail, target)

    def add(self, ratio: str, detail: str, target: str) -> None:
        self.rows.append((ratio, detail, target))
        print(f"{ratio:<58} {target:<28} {detail}", flush=True)

    def classify(self) -> None:
        log = DATA / "big.log"
        size = log.stat().st_size
        ours, rg = pair([*self.ls, "classify", str(log), "-O", "json"],
                        ["rg", "-c", "-i", NAIVE_GREP, str(log)], self.args.big_runs)
        w, p = med(ours), med(rg)
        self.add(f"classify 256 MiB log / rg -c -i: {w / p:.1f}×", f"{w:.2f} s vs {p:.2f} s; "
                 f"{size / w / 1e9:.3f} GB/s; CPU {med(ours, 'cpu'):.2f} s vs {med(rg, 'cpu'):.2f} s; "
                 f"RSS {max(r.rss_mb for r in ours):.0f} MB", "≤ 2× rg, ≥ 1 GB/s")

    def analyze_sample(self) -> None:
        ours, jq = pair([*self.ls, "analyze", str(SAMPLE), "-o", os.devnull],
                        ["jq", "-c", ".message", str(SAMPLE)], self.args.runs)
        w, p = med(ours), med(jq)
        self.add(f"analyze 216 KB sample / jq -c .message: {w / p:.1f}×",
                 f"{w:.2f} s vs {p:.3f} s; CPU {med(ours, 'cpu'):.2f} s", "≤ 0.5 s")

    def analyze_big(self) -> None:
        sess = DATA / "big-session.jsonl"
        size = sess.stat().st_size
        ours, jq = pair([*self.ls, "analyze", str(sess), "-o", os.devnull],
                        ["jq", "-c", ".message", str(sess)], self.args.big_runs)
        w, p = med(ours), med(jq)
        self.add(f"analyze {size / MB:.0f} MB session / jq -c .message: {w / p:.2f}×",
                 f"{w:.1f} s vs {p:.1f} s; {size / w / MB:.1f} MB/s; CPU {med(ours, 'cpu'):.1f} s vs "
                 f"{med(jq, 'cpu'):.1f} s; RSS {max(r.rss_mb for r in ours):.0f} MB",
                 "≥ 50 MB/s")

    def index_and_search(self) -> None:
        corpus = DATA / "corpus"
        files = [p for p in corpus.iterdir() if p.is_file()]
        db = Path(tempfile.mkdtemp(prefix="speed-index-"))
        try:
            r = measure([*self.ls, "index", str(corpus), "--db", str(db)], env=ENV)
            self.add(f"index {len(files)} sessions: {len(files) / r.wall:.1f} sessions/s",
                     f"{r.wall:.1f} s, RSS {r.rss_mb:.0f} MB, rc {r.rc}", "sessions/s, RSS")
            ours: list[Run] = []
            rg: list[Run] = []
            for q in QUERIES * self.args.runs:
                a, b = pair([*self.ls, "search", q, "--db", str(db)], ["rg", "-F", "-e", q, str(corpus)], 1)
                ours += a
                rg += b
            w, p = med(ours), med(rg)
            self.add(f"search CLI / rg -F over corpus/: {w / p:.2f}×",
                     f"p50 {w * 1000:.0f} ms vs {p * 1000:.0f} ms", "≤ 0.33× rg")
        finally:
            shutil.rmtree(db, ignore_errors=True)

    def report(self) -> None:
        load = os.getloadavg()
        print(f"\nmachine: {_machine()}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        print("| ratio | target | detail |\n|---|---|---|")
        for ratio, detail, target in self.rows:
            print(f"| {ratio} | {target} | {detail} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs of each small workload (median)")
    ap.add_argument("--big-runs", type=int, default=3, help="runs of each big workload (median)")
    ap.add_argument("--src", type=Path, help="measure another checkout (its src/ goes first on PYTHONPATH)")
    ap.add_argument("--only", choices=["classify", "sample", "big", "search"], action="append")
    args = ap.parse_args()
    for tool in ("rg", "jq"):
        if not shutil.which(tool):
            print(f"speed: {tool} is not installed (apt-get install ripgrep jq)")
            return 2
    if not (DATA / "big.log").is_file():
        print(f"speed: no inputs under {DATA}: run bench/generate.py first (see --help)")
        return 2
    if args.src:
        ENV["PYTHONPATH"] = str(args.src.resolve() / "src")
    s = Speed(args)
    steps = {"classify": s.classify, "sample": s.analyze_sample, "big": s.analyze_big,
             "search": s.index_and_search}
    for name in args.only or list(steps):
        steps[name]()
    s.report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
