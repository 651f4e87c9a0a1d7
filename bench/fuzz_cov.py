"""The long coverage-guided fuzzing run (tests/robustness_covfuzz.py) over every reader and the
whole analysis.

    python bench/fuzz_cov.py --budget 600 --seed 1 --out /tmp/fuzz-crashes

Prints the cases run per target, how much each corpus grew (inputs that reached new code), every
distinct failure (exception, message head, innermost logsleuth frame) and the slow cases; writes
one reproducer per failure to --out; exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from robustness_covfuzz import fuzz


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=600.0, help="seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slow", type=float, default=10.0, help="a case slower than this (s) is a failure")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "logsleuth-fuzz-cov")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        rep = fuzz(args.budget, Path(scratch) / "case", seed=args.seed, slow_s=args.slow)
    print(f"{rep.cases} cases in {args.budget:.0f} s")
    for target, n in sorted(rep.per_target.items()):
        print(f"  {target:28} {n:6} cases, corpus +{rep.corpus_growth.get(target, 0)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for i, (sig, (target, data)) in enumerate(sorted(rep.failures.items())):
        path = args.out / f"crash-{i}-{target.replace(':', '_')}.bin"
        path.write_bytes(data)
        print(f"FAIL {target}: {sig} -> {path}")
    for i, (target, took, data) in enumerate(rep.slow):
        path = args.out / f"slow-{i}-{target.replace(':', '_')}.bin"
        path.write_bytes(data)
        print(f"SLOW {target}: {took:.1f} s on {len(data)} bytes -> {path}")
    return 1 if rep.failures or rep.slow else 0


if __name__ == "__main__":
    sys.exit(main())
