"""Crafted lines through every command (issue 35): one 80,000- and one 1,000,000-character line of
each shape (minified JSON, base64, a long URL, a path run, a grep-like head, a flag run) as a text
log; prints the seconds per command. A stall shows as a row far above the others.

    python bench/crafted_lines.py [SIZE…]
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPES = {
    "json": lambda n: ('{"a":' * (n // 10) + '"x"' + "}" * (n // 10))[:n],
    "base64": lambda n: base64.b64encode(os.urandom(n * 3 // 4)).decode()[:n],
    "url": lambda n: ("https://h.example/" + "a/b?c=d&" * n)[:n],
    "path": lambda n: ("/usr/lib/" + "ab/" * n)[:n],
    "grep": lambda n: ("x" * n)[: n - 20] + ".py:12: error",
    "flags": lambda n: ("mysql" + " -p" * n)[:n],
}
COMMANDS = (["events"], ["classify"], ["graph"], ["analyze"], ["explain", "-m", "1"])


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print("| shape | size | " + " | ".join(" ".join(c) for c in COMMANDS) + " |")
        print("|---|---:|" + "---:|" * len(COMMANDS))
        for name, make in SHAPES.items():
            for n in sizes:
                path = Path(tmp) / f"{name}-{n}.log"
                path.write_text("RuntimeError: CUDA error: out of memory\n" + make(n) + "\nok\n")
                cells = []
                for cmd in COMMANDS:
                    start = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "logsleuth", *cmd, str(path)], capture_output=True,
                                   timeout=600, check=False)
                    cells.append(f"{time.perf_counter() - start:.2f}")
                print(f"| {name} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [80_000, 1_000_000])
