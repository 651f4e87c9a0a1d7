"""The long fuzzing run: the strategies of tests/test_robustness_fuzz.py with a big example count.

    python bench/fuzz_long.py                      # 100k examples over every reader + the classifier
    python bench/fuzz_long.py --examples 20000 --jobs 2 --budget 600

Examples are random (not derandomized like the test run). A failing example does not stop the run:
each distinct failure (exception type, message head, innermost logsleuth frame) is counted and one
reproducer per failure is written to --out. Prints, per target, the examples run and the outcomes,
then the total; exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, Phase, given, settings

from robustness_fuzz import (
    CLASSIFIER_ROWS,
    FORMATS,
    available,
    case_strategy,
    check_case,
    check_classifier,
    fmt_id,
    write_case,
)

CHUNK = 250  # examples per hypothesis run; each run draws fresh random seeds
TARGETS = [fmt_id(f) for f in FORMATS] + ["classifier"]


def _failure_key(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/logsleuth/" in f.filename]
    where = f"{frames[-1].filename.rsplit('/src/', 1)[-1]}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''} @ {where}"


def run_target(target: str, examples: int, deadline: float, out: Path) -> dict[str, Any]:
    """Run one target until `examples` examples or the wall-clock deadline."""
    outcomes: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    scratch = Path(tempfile.mkdtemp(prefix=f"fuzz-{target.replace(':', '-')}-"))
    fmt = next((f for f in FORMATS if fmt_id(f) == target), None)
    library: Any = None
    if fmt is None:
        from logsleuth.library import load_library

        library = load_library([])
        strategy = CLASSIFIER_ROWS
    elif not available(fmt):
        return {"target": target, "examples": 0, "outcomes": {"skipped: reader not registered": 1}, "failures": {}}
    else:
        strategy = case_strategy(fmt)

    def body(case: Any) -> None:
        try:
            if fmt is None:
                outcomes["findings" if check_classifier(case, library) else "no-findings"] += 1
            else:
                outcomes[check_case(fmt, write_case(fmt, case, scratch / "case"))] += 1
        except Exception as exc:  # record and go on: the long run counts distinct failures
            key = _failure_key(exc)
            if key not in failures:
                (out / f"{target.replace(':', '-')}-{len(failures)}.txt").write_text(
                    f"{key}\n\n{''.join(traceback.format_exception(exc))}\n\ncase: {case!r}"[:200_000]
                )
            failures[key] += 1
            outcomes["FAILED"] += 1

    done = 0
    while done < examples and time.monotonic() < deadline:
        n = min(CHUNK, examples - done)
        before = sum(outcomes.values())
        run = settings(
            max_examples=n, deadline=None, database=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )(given(case=strategy)(body))
        run()
        done += sum(outcomes.values()) - before
    shutil.rmtree(scratch, ignore_errors=True)
    return {"target": target, "examples": done, "outcomes": dict(outcomes), "failures": dict(failures)}


def _worker(args: tuple[str, int, float, float, str]) -> dict[str, Any]:
    target, examples, share, deadline, out = args
    # each target gets its fair share of the wall clock, so that a slow one cannot starve the rest
    return run_target(target, examples, min(deadline, time.monotonic() + share), Path(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=100_000, help="total examples over all targets")
    ap.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds for the whole run")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--targets", nargs="*", default=TARGETS, choices=TARGETS)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "logsleuth-fuzz"),
                    help="where reproducers of failures go")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    per = max(1, args.examples // len(args.targets))
    start = time.monotonic()
    deadline = start + args.budget
    share = args.budget * args.jobs / len(args.targets)
    jobs = [(t, per, share, deadline, str(out)) for t in args.targets]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(_worker, jobs, chunksize=1)
    else:
        results = [_worker(j) for j in jobs]
    total = sum(r["examples"] for r in results)
    failed = sum(sum(r["failures"].values()) for r in results)
    for r in results:
        print(f"{r['target']:26} {r['examples']:7d} examples  {dict(sorted(r['outcomes'].items()))}")
        for key, count in sorted(r["failures"].items()):
            print(f"    FAILURE x{count}: {key}")
    took = time.monotonic() - start
    print(f"total: {total} examples in {took:.0f} s, {failed} failing examples, "
          f"{sum(len(r['failures']) for r in results)} distinct failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
