"""Benchmark of the team search: index build, CLI search beside `rg -F`, and `serve`'s /api/search.

    python bench/search_serve.py                              # the 1 GB / 200-session corpus
    python bench/search_serve.py --corpus-size 10G --sessions 2000 --data bench/data/search-10g

Generates the corpus when missing (bench/generate.py, same seed as bench/run.py's), indexes it
(timed), then runs the 20 queries of bench/run.py alternately as `logsleuth search Q --db DB` and
`rg -F Q corpus/` (wall clock of each child process), then starts `logsleuth serve` and times
/api/search over HTTP (each query 3 times after one warm-up round). Prints the figures and writes
them to bench/results-search.md (`--results`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate
import run as bench_run

ROOT = Path(__file__).resolve().parent.parent


def wall(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    return time.perf_counter() - start, rc


def pct(values: list[float], p: int) -> float:
    return bench_run._q(sorted(values), p)


def api_latencies(db: Path, queries: list[str], rounds: int) -> list[float]:
    port = bench_run_free_port()
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "serve", "--db", str(db), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        conn = None
        for _ in range(300):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/api/sessions")
                conn.getresponse().read()
                break
            except OSError:
                conn = None
                time.sleep(0.1)
        if conn is None:
            raise RuntimeError("serve did not start")
        out: list[float] = []
        for r in range(rounds + 1):
            for q in queries:
                t = time.perf_counter()
                conn.request("GET", "/api/search?q=" + urllib.parse.quote(q))
                body = conn.getresponse().read()
                if r:  # round 0 warms the process up (imports, the first loads)
                    out.append(time.perf_counter() - t)
                json.loads(body)
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def bench_run_free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=generate.DATA / "search-1g")
    ap.add_argument("--corpus-size", type=generate.parse_size, default=generate.parse_size("1G"))
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of /api/search queries")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results-search.md")
    args = ap.parse_args(argv)
    corpus, db = args.data / "corpus", args.data / "db"
    if not corpus.is_dir():
        print(f"generating {corpus} …", flush=True)
        generate.write_corpus(corpus, args.corpus_size, args.sessions, args.seed + 4, generate.load_sources())
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    shutil.rmtree(db, ignore_errors=True)
    build, rc = wall([sys.executable, "-m", "logsleuth", "index", str(corpus), "--db", str(db)])
    if rc != 0:
        raise SystemExit("index failed")
    print(f"index: {build:.1f} s for {size / 1e6:.0f} MB", flush=True)
    queries = bench_run._queries(args.queries, args.seed)
    rg = shutil.which("rg")
    cli: list[float] = []
    peer: list[float] = []
    wall([sys.executable, "-m", "logsleuth", "search", queries[0], "--db", str(db)])  # page cache, like rg's
    for q in queries:
        cli.append(wall([sys.executable, "-m", "logsleuth", "search", q, "--db", str(db)])[0])
        if rg:
            peer.append(wall([rg, "-F", "-e", q, str(corpus)])[0])
    api = api_latencies(db, queries, args.rounds)
    lines = [
        "# Search and serve benchmark (bench/search_serve.py)",
        "",
        f"Corpus: {len(list(corpus.iterdir()))} sessions, {size / 1e6:.0f} MB; {len(queries)} queries (bench/run.py's); "
        f"machine: {os.cpu_count()} cores, load average at the end {os.getloadavg()[0]:.1f}.",
        "",
        "| measure | p50 | p95 | note |",
        "|---|---|---|---|",
        f"| `logsleuth index` (build from scratch) | {build:.1f} s | | {size / 1e6 / build:.1f} MB/s |",
        f"| `logsleuth search Q` (CLI, wall clock) | {pct(cli, 50) * 1000:.0f} ms | {pct(cli, 95) * 1000:.0f} ms | |",
    ]
    if peer:
        lines.append(f"| `rg -F Q corpus/` | {pct(peer, 50) * 1000:.0f} ms | {pct(peer, 95) * 1000:.0f} ms | "
                     f"search is {pct(peer, 50) / pct(cli, 50):.2f}× as fast as rg at p50 |")
    lines.append(f"| `GET /api/search?q=Q` (serve, HTTP) | {pct(api, 50) * 1000:.1f} ms | {pct(api, 95) * 1000:.1f} ms | "
                 f"{len(api)} requests |")
    text = "\n".join(lines) + "\n"
    print(text)
    args.results.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
