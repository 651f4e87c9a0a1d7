"""Time and peak memory of `logsleuth analyze` on adversarial inputs at two sizes: the ratio
says whether the cost grows linearly (about the size ratio) or worse.

    python bench/adversarial_scaling.py [--small N] [--factor K]

Inputs (generated in a temp folder, nothing kept):
- reused-ids: an OpenAI-messages transcript whose every call has the id `call_0`;
- distinct-failures: a Claude Code session of N commands, each failing with its own error;
- repeated-failure: a plain log alternating one OOM line and one pip success line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def reused_ids(path: Path, n: int) -> None:
    with path.open("w") as f:
        f.write(json.dumps({"role": "user", "content": "fix the install"}) + "\n")
        for i in range(n):
            call = {"id": "call_0", "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": f"pip install torch=={i % 50}.0"})}}
            f.write(json.dumps({"role": "assistant", "content": None, "tool_calls": [call]}) + "\n")
            f.write(json.dumps({"role": "tool", "tool_call_id": "call_0", "content": f"Successfully installed torch-{i % 50}.0"}) + "\n")


def distinct_failures(path: Path, n: int) -> None:
    errs = ["ModuleNotFoundError: No module named 'mod{i}'", "ImportError: libcudart.so.{i}: cannot open shared object file",
            "nvcc fatal   : Unsupported gpu architecture 'compute_{i}'"]
    base = {"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    with path.open("w") as f:
        f.write(json.dumps({**base, "type": "user", "uuid": "u0", "message": {"role": "user", "content": "make it work"}}) + "\n")
        for i in range(n):
            f.write(json.dumps({**base, "type": "assistant", "uuid": f"a{i}", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"pip install p{i} && python run{i}.py"}}]}}) + "\n")
            f.write(json.dumps({**base, "type": "user", "uuid": f"u{i + 1}", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{i}", "content": errs[i % 3].format(i=i), "is_error": True}]}}) + "\n")


def repeated_failure(path: Path, n: int) -> None:
    with path.open("w") as f:
        for _ in range(n):
            f.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\nSuccessfully installed pkg-1.0\n")


CASES: dict[str, tuple[str, Callable[[Path, int], None]]] = {
    "reused-ids": ("jsonl", reused_ids),
    "distinct-failures": ("jsonl", distinct_failures),
    "repeated-failure": ("log", repeated_failure),
}


_CHILD = ("import resource, sys; from logsleuth.cli import main; code = main(sys.argv[1:]); "
          "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(code)")


def measure(path: Path) -> tuple[float, int]:
    """(seconds, peak RSS in MB) of one `logsleuth analyze` run in a fresh child process."""
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _CHILD, "analyze", str(path), "-o", os.devnull],
                          check=True, capture_output=True, text=True)
    return time.monotonic() - t0, int(done.stdout.split()[-1]) // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=2000, help="records of the small input")
    ap.add_argument("--factor", type=int, default=4, help="the large input is this many times the small one")
    args = ap.parse_args()
    print(f"| input | n | s | peak MB | n x{args.factor} | s | peak MB | time ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (ext, make) in CASES.items():
            row = []
            for n in (args.small, args.small * args.factor):
                path = Path(tmp) / f"{name}-{n}.{ext}"
                make(path, n)
                row.append((n, *measure(path)))
            (n1, s1, m1), (n2, s2, m2) = row
            print(f"| {name} | {n1} | {s1:.1f} | {m1} | {n2} | {s2:.1f} | {m2} | {s2 / s1:.1f} |")


if __name__ == "__main__":
    main()
