"""Benchmark of the team search: index build, CLI search beside `rg -F`, and `serve`'s /api/search.

    python bench/search_serve.py                              # the 1 GB / 200-session corpus
    python bench/search_serve.py --corpus-size 10G --sessions 2000 --data bench/data/search-10g
    python bench/search_serve.py --no-build --results /tmp/r.md    # over the index built before

Generates the corpus when missing (bench/generate.py, same seed as bench/run.py's), indexes it
(timed; `--no-build` keeps DATA/db), then runs the 20 queries of bench/run.py alternately as the
console script `logsleuth search Q --db DB` (run as installed: bytecode cached) and `rg -F Q
corpus/` (wall clock and CPU time of each child process, bench/run.py's `measure`), then starts
`logsleuth serve` and times /api/search over HTTP (each query 3 times after one warm-up round).
Prints the figures, and writes them to `--results` when given (bench/results-search.md holds
hand-written analysis: paste the table there).
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
    ap.add_argument("--results", type=Path, default=None)
    ap.add_argument("--no-build", action="store_true", help="search the index already in DATA/db")
    args = ap.parse_args(argv)
    corpus, db = args.data / "corpus", args.data / "db"
    if not corpus.is_dir():
        print(f"generating {corpus} …", flush=True)
        generate.write_corpus(corpus, args.corpus_size, args.sessions, args.seed + 4, generate.load_sources())
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    build = None
    if not (args.no_build and (db / "files.parquet").exists()):
        shutil.rmtree(db, ignore_errors=True)
        build, rc = wall([sys.executable, "-m", "logsleuth", "index", str(corpus), "--db", str(db)])
        if rc != 0:
            raise SystemExit("index failed")
        print(f"index: {build:.1f} s for {size / 1e6:.0f} MB", flush=True)
    queries = bench_run._queries(args.queries, args.seed)
    rg = shutil.which("rg")
    exe = Path(sys.executable).with_name("logsleuth")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "logsleuth"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode kept
    env["PYTHONPYCACHEPREFIX"] = str(args.data / "pycache")
    runs: list[bench_run.Run] = []
    peers: list[bench_run.Run] = []
    bench_run.measure([*cmd, "search", queries[0], "--db", str(db)], env=env)  # page cache, like rg's
    for q in queries:
        runs.append(bench_run.measure([*cmd, "search", q, "--db", str(db)], env=env))
        if rg:
            peers.append(bench_run.measure([rg, "-F", "-e", q, str(corpus)]))
    cli, peer = [r.wall for r in runs], [r.wall for r in peers]
    cpu, peer_cpu = [r.cpu for r in runs], [r.cpu for r in peers]
    load = os.getloadavg()[0]
    api = api_latencies(db, queries, args.rounds)
    lines = [
        "# Search and serve benchmark (bench/search_serve.py)",
        "",
        f"Corpus: {len(list(corpus.iterdir()))} sessions, {size / 1e6:.0f} MB; {len(queries)} queries (bench/run.py's); "
        f"machine: {os.cpu_count()} cores, load average after the CLI runs {load:.1f}, at the end "
        f"{os.getloadavg()[0]:.1f}.",
        "",
        "| measure | p50 | p95 | note |",
        "|---|---|---|---|",
    ]
    if build is not None:
        lines.append(f"| `logsleuth index` (build from scratch) | {build:.1f} s | | {size / 1e6 / build:.1f} MB/s |")
    lines += [
        f"| `logsleuth search Q` (CLI, wall clock) | {pct(cli, 50) * 1000:.0f} ms | {pct(cli, 95) * 1000:.0f} ms | |",
        f"| `logsleuth search Q` (CLI, CPU time) | {pct(cpu, 50) * 1000:.0f} ms | {pct(cpu, 95) * 1000:.0f} ms | |",
    ]
    if peer:
        lines.append(f"| `rg -F Q corpus/` (wall clock) | {pct(peer, 50) * 1000:.0f} ms | {pct(peer, 95) * 1000:.0f} ms | "
                     f"search is {pct(peer, 50) / pct(cli, 50):.2f}× as fast as rg at p50 |")
        lines.append(f"| `rg -F Q corpus/` (CPU time) | {pct(peer_cpu, 50) * 1000:.0f} ms | "
                     f"{pct(peer_cpu, 95) * 1000:.0f} ms | search takes 1/{pct(peer_cpu, 50) / pct(cpu, 50):.2f} of rg's CPU at p50 |")
    lines.append(f"| `GET /api/search?q=Q` (serve, HTTP) | {pct(api, 50) * 1000:.1f} ms | {pct(api, 95) * 1000:.1f} ms | "
                 f"{len(api)} requests |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.results is not None:
        args.results.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
