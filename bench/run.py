"""Benchmarks: logsleuth's speed and memory side by side with ripgrep and jq on the same work.

    python bench/run.py                    # full sizes (1 GiB log, 200 MB session, 1 GiB corpus)
    python bench/run.py --smoke            # a few MB, one run: checks that the bench works (CI)
    python bench/run.py --size 256M --session-size 50M --corpus-size 256M --runs 3
    python bench/run.py --src /tmp/before  # measure another checkout (its src/ and patterns/)

Prints a table and writes bench/results.md (`--results`). Each workload runs in child processes;
wall time by the clock, CPU time and peak RSS from `os.wait4` of that child. Peers run
alternately with logsleuth so that a ratio holds on a busy machine. rg and jq are skipped (and
said so) when they are not installed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # the sibling module (also a script)

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000
RG_BUDGET_S = 90.0  # a peer slower than this per run is run once


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    rc: int


@dataclass
class Series:
    runs: list[Run] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.runs)

    def wall(self) -> tuple[float, float, float]:
        w = [r.wall for r in self.runs]
        return statistics.median(w), min(w), max(w)

    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    def rss(self) -> float:
        return max(r.rss_mb for r in self.runs)


def measure(cmd: Sequence[str], out: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """Run one command; wall clock, and CPU time and peak RSS of that child (os.wait4)."""
    with open(out, "wb") if out else open(os.devnull, "wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode)


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.data: Path = args.data
        self.rows: list[dict[str, str]] = []
        self.notes: list[str] = []
        self.env = dict(os.environ)
        if args.src:
            self.env["PYTHONPATH"] = str(Path(args.src).resolve() / "src")
        self.ls = [sys.executable, "-m", "logsleuth"]
        self.rg = shutil.which("rg")
        self.jq = shutil.which("jq")

    # -- helpers ------------------------------------------------------------------------------

    def lsrun(self, *argv: str, out: Path | None = None) -> Run:
        return measure([*self.ls, *argv], out, self.env)

    def row(self, workload: str, tool: str, s: Series, size: float | None, unit: str = "MB/s",
            extra: str = "") -> None:
        if not s.ok:
            self.rows.append({"workload": workload, "tool": tool, "runs": "0", "median s": "skipped",
                              "min–max s": "", "cpu s": "", "throughput": "", "peak RSS MB": "", "note": extra})
            return
        med, lo, hi = s.wall()
        thr = ""
        if size:
            rate = size / med
            thr = f"{rate / 1000:.2f} GB/s" if unit == "GB/s" else f"{rate:.1f} MB/s"
        self.rows.append({
            "workload": workload, "tool": tool, "runs": str(len(s.runs)), "median s": f"{med:.3f}",
            "min–max s": f"{lo:.3f}–{hi:.3f}", "cpu s": f"{s.cpu():.2f}", "throughput": thr,
            "peak RSS MB": f"{s.rss():.0f}", "note": extra,
        })
        print(f"  {workload:28s} {tool:34s} median {med:8.3f}s  {thr:>12s}  rss {s.rss():7.0f} MB  {extra}", flush=True)

    def alternate(self, ours: list[str], peer: list[str] | None, runs: int, out: Path) -> tuple[Series, Series]:
        """ours, peer, ours, peer…; a peer slower than RG_BUDGET_S per run is run once."""
        a, b = Series(), Series()
        for i in range(runs):
            a.runs.append(measure([*self.ls, *ours], out.with_suffix(".ls.out"), self.env))
            if peer is not None and (i == 0 or b.runs[-1].wall < RG_BUDGET_S):
                b.runs.append(measure(peer, out.with_suffix(".peer.out")))
        return a, b

    # -- workloads ----------------------------------------------------------------------------

    def classify(self, log: Path, label: str = "classify big.log") -> Series:
        size = log.stat().st_size
        pats = self.data / "patterns.rg"
        lits = self.data / "literals.txt"
        exported = self.lsrun("patterns", "export", "--rg", out=pats)
        _write_literals(lits, self)
        rg_cmd = [self.rg, "-f", str(pats), str(log)] if self.rg and exported.rc == 0 else None
        ours, peer = self.alternate(["classify", str(log)], rg_cmd, self.args.runs, self.data / "classify")
        if rg_cmd is not None:
            check = subprocess.run([self.rg, "-f", str(pats), "--count", str(generate.SAMPLES / "sglang-sm120" / "server.log")],
                                   capture_output=True, text=True)
            if check.returncode == 2:
                self.notes.append(f"rg rejected the exported patterns: {check.stderr.strip()[:300]}")
        ratio = f"logsleuth/rg = {ours.wall()[0] / peer.wall()[0]:.3f}" if ours.ok and peer.ok else ""
        self.row(label, "logsleuth classify", ours, size / MB, "GB/s")
        self.row(label, f"rg -f patterns.rg ({_count_lines(pats)} regexes)", peer, size / MB, "GB/s", ratio)
        if self.rg:
            fixed = Series([measure([self.rg, "-F", "-f", str(lits), str(log)], self.data / "rg-literals.out")
                            for _ in range(self.args.runs)])
            ratio_f = f"logsleuth/rg-F = {ours.wall()[0] / fixed.wall()[0]:.1f}" if ours.ok else ""
            self.row(label, f"rg -F -f literals ({_count_lines(lits)} prefilter literals)", fixed, size / MB, "GB/s", ratio_f)
        return ours

    def analyze(self, session: Path, label: str, peer: bool = True) -> Series:
        size = session.stat().st_size
        jq_cmd = [self.jq, "-c", ".", str(session)] if (self.jq and peer) else None
        ours, theirs = self.alternate(["analyze", str(session), "-o", os.devnull], jq_cmd, self.args.runs,
                                      self.data / "analyze")
        note = f"peak RSS / input = {ours.rss() / (size / 2**20):.2f}" if ours.ok else ""
        self.row(label, "logsleuth analyze -o /dev/null", ours, size / MB, extra=note)
        if peer:
            ratio = f"logsleuth/jq = {ours.wall()[0] / theirs.wall()[0]:.2f}" if ours.ok and theirs.ok else ""
            self.row(label, "jq -c . > /dev/null", theirs, size / MB, extra=ratio)
        return ours

    def index_search(self, corpus: Path) -> None:
        size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
        db = self.data / "index-db"
        runs = Series()
        for _ in range(max(1, min(self.args.runs, 2))):
            shutil.rmtree(db, ignore_errors=True)
            runs.runs.append(self.lsrun("index", str(corpus), "--db", str(db)))
        if any(r.rc != 0 for r in runs.runs) or not (db / "files.parquet").exists():
            self.notes.append("`logsleuth index` failed or wrote no index; search not measured")
            self.row("index corpus/", "logsleuth index", Series(), None)
            return
        self.row(f"index corpus/ ({len(list(corpus.iterdir()))} sessions)", "logsleuth index", runs, size / MB)
        self.search(db, corpus, size)

    def search(self, db: Path, corpus: Path, size: float) -> None:
        """CLI search side by side with rg, then in process, over the index at `db` of `corpus`."""
        queries = _queries(self.args.queries, self.args.seed)
        (self.data / "queries.json").write_text(json.dumps(queries, indent=1))
        cli, rg = self.search_cli(db, corpus, queries)
        self.row("search (CLI, per query)", "logsleuth search", cli, None,
                 extra=f"p50 {_pct(cli, 50) * 1000:.0f} ms, p95 {_pct(cli, 95) * 1000:.0f} ms wall; "
                       f"CPU p50 {_pct(cli, 50, 'cpu') * 1000:.0f} ms, p95 {_pct(cli, 95, 'cpu') * 1000:.0f} ms")
        inproc = self._search_in_process(db, queries)
        if inproc:
            lat = sorted(inproc)
            p50, p95 = _q(lat, 50), _q(lat, 95)
            self.rows.append({"workload": "search (in process, per query)", "tool": "logsleuth.search.engine.search",
                              "runs": str(len(lat)), "median s": f"{p50:.4f}", "min–max s": f"{lat[0]:.4f}–{lat[-1]:.4f}",
                              "cpu s": "", "throughput": "", "peak RSS MB": "",
                              "note": f"p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"})
            print(f"  search in process: p50 {p50 * 1000:.1f} ms p95 {p95 * 1000:.1f} ms", flush=True)
        if rg.ok:
            ratio = (f"search(CLI) is {_pct(rg, 50) / _pct(cli, 50):.2f}× as fast as rg at p50 wall, "
                     f"{_pct(rg, 50, 'cpu') / _pct(cli, 50, 'cpu'):.2f}× in CPU time")
            if inproc:
                ratio += f", search(in process) {_pct(rg, 50) / _q(sorted(inproc), 50):.2f}×"
            self.row("rg -F query over raw corpus/", "rg -F", rg, size * self.args.rg_repeat / MB,
                     extra=f"p50 {_pct(rg, 50) * 1000:.0f} ms, p95 {_pct(rg, 95) * 1000:.0f} ms wall; "
                           f"CPU p50 {_pct(rg, 50, 'cpu') * 1000:.0f} ms; {ratio}")

    def search_cli(self, db: Path, corpus: Path, queries: list[str]) -> tuple[Series, Series]:
        """`logsleuth search Q --db DB` and `rg -F Q corpus/`, alternately, query by query (a ratio
        that holds on a busy machine), after one warm-up of each (page cache, a stale sidecar's
        rebuild). The console script runs as installed: with its modules' bytecode (this
        environment may set PYTHONDONTWRITEBYTECODE, which makes every start compile them)."""
        exe = Path(sys.executable).with_name("logsleuth")
        cmd = [str(exe)] if exe.exists() and not self.args.src else self.ls
        env = {k: v for k, v in self.env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(self.data / "pycache")
        measure([*cmd, "search", queries[0], "--db", str(db)], env=env)
        if self.rg:
            measure([self.rg, "-F", "-e", queries[0], str(corpus)])
        lean_before = _sidecar_current(db, self.env)
        cli, rg = Series(), Series()
        for q in queries:
            cli.runs.append(measure([*cmd, "search", q, "--db", str(db)], self.data / "search.out", env))
            if self.rg:
                rg.runs.append(measure([self.rg, "-F", "-e", _rg_query(q), *[str(corpus)] * self.args.rg_repeat],
                                       self.data / "rg-search.out"))
        if not (lean_before and _sidecar_current(db, self.env)):
            self.notes.append("the search sidecar was stale during the CLI search runs (pattern files edited?): "
                              "those searches took the full path")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        self.notes.append(f"search: {len(queries)} queries, CLI and rg alternately; load average after them {load:.1f}")
        return cli, rg

    def _search_in_process(self, db: Path, queries: list[str]) -> list[float]:
        code = (
            "import json,sys,time\n"
            "from logsleuth.index.patterns import library\n"
            "from logsleuth.search import engine as s\n"
            "qs=json.load(open(sys.argv[1])); lib=library(()); out=[]\n"
            "s.search(qs[0], db=sys.argv[2], files=[], category=None, since=None, limit=10, lib=lib)\n"
            "for q in qs:\n"
            "    t=time.perf_counter(); s.search(q, db=sys.argv[2], files=[], category=None, since=None, limit=10, lib=lib)\n"
            "    out.append(time.perf_counter()-t)\n"
            "print(json.dumps(out))\n"
        )
        proc = subprocess.run([sys.executable, "-c", code, str(self.data / "queries.json"), str(db)],
                              capture_output=True, text=True, env=self.env)
        if proc.returncode != 0:
            self.notes.append(f"in-process search failed: {proc.stderr.strip().splitlines()[-1:]}")
            return []
        return [float(x) for x in json.loads(proc.stdout)]

    def startup(self, small: Path) -> None:
        runs = 1 if self.args.smoke else max(3, self.args.runs)
        self.row("start-up", "logsleuth --help", Series([self.lsrun("--help") for _ in range(runs)]), None)
        self.row("start-up", "logsleuth classify small.log", Series([self.lsrun("classify", str(small)) for _ in range(runs)]), None)
        for argv in (["classify", str(small)], ["search", "CUDA error: out of memory", "--db", str(self.data / "index-db")]):
            proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "logsleuth", *argv],
                                  capture_output=True, text=True, env=self.env)
            spacy = any(line.split("|")[-1].strip() == "spacy" for line in proc.stderr.splitlines())
            self.notes.append(f"`logsleuth {argv[0]}` imports spaCy: {'YES' if spacy else 'no'} (python -X importtime)")

    def scaling(self, log: Path, session: Path) -> None:
        """1×, 2×, 4×: prefixes of the full inputs cut on record boundaries."""
        for kind, src in (("classify", log), ("analyze", session)):
            full = src.stat().st_size
            times: list[tuple[int, float, float]] = []
            for part in (4, 2, 1):
                path = self.data / f"scale-{kind}-{part}{src.suffix}"
                _prefix(src, path, full // part)
                argv = ["classify", str(path)] if kind == "classify" else ["analyze", str(path), "-o", os.devnull]
                s = Series([self.lsrun(*argv) for _ in range(self.args.runs)])
                times.append((path.stat().st_size, s.wall()[0], s.rss()))
                path.unlink()
            base = times[0]
            for size, t, rss in times:
                self.rows.append({"workload": f"scaling {kind}", "tool": f"{size / base[0]:.0f}× ({size / MB:.0f} MB)",
                                  "runs": str(self.args.runs), "median s": f"{t:.3f}", "min–max s": "", "cpu s": "",
                                  "throughput": f"{size / MB / t:.1f} MB/s", "peak RSS MB": f"{rss:.0f}",
                                  "note": f"time growth {t / base[1]:.2f}× for {size / base[0]:.1f}× input"
                                          + _rss_note(size, rss, base)})
                print(f"  scaling {kind} {size / MB:8.0f} MB {t:8.3f}s growth {t / base[1]:.2f}× rss {rss:.0f} MB", flush=True)


def _sidecar_current(db: Path, env: dict[str, str]) -> bool:
    code = "import sys; from pathlib import Path; from logsleuth.index import sidecar as s; print(s.is_current(Path(sys.argv[1])))"
    out = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, env=env)
    return out.stdout.strip() == "True"


def _rss_note(size: int, rss: float, base: tuple[int, float, float]) -> str:
    """Peak RSS per input byte, and past the 1× input, the RSS each further MB of input costs
    (what is fixed — interpreter, libraries, compiled patterns — and what grows with the input)."""
    note = f"; peak RSS / input {rss * MB / size:.2f}"
    if size > base[0]:
        note += f", +{(rss - base[2]) / ((size - base[0]) / MB):.2f} MB RSS per MB of input above 1×"
    return note


def _write_literals(path: Path, bench: Bench) -> None:
    code = ("from logsleuth.library import load_library\n"
            "print('\\n'.join(sorted({l for p in load_library([]).patterns for l in p.prefilter})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=bench.env)
    path.write_text(out.stdout)


def _count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip()) if path.exists() else 0


def _queries(n: int, seed: int) -> list[str]:
    """Error lines from the texts the corpus was built from (so that they occur in it)."""
    import random

    src = generate.load_sources()
    lines = sorted({ln.strip() for b in src.blocks for ln in b.splitlines()
                    if 20 <= len(ln.strip()) <= 200 and any(w in ln for w in ("Error", "error", "failed", "FAILED", "fatal"))})
    rng = random.Random(seed)
    return rng.sample(lines, min(n, len(lines)))


def _rg_query(q: str) -> str:
    return q


def _q(sorted_values: list[float], pct: int) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(pct / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def _pct(s: Series, pct: int, what: str = "wall") -> float:
    """A percentile of the runs' wall-clock (`wall`) or CPU (`cpu`: user + system of the child) time."""
    return _q(sorted(getattr(r, what) for r in s.runs), pct)


def _prefix(src: Path, dest: Path, size: int) -> None:
    """The first `size` bytes of `src`, cut after a newline (JSONL and logs stay whole records)."""
    with open(src, "rb") as f, open(dest, "wb") as out:
        left = size
        while left > 0:
            block = f.read(min(left, 1 << 24))
            if not block:
                break
            out.write(block)
            left -= len(block)
        out.write(f.readline())


def _machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")), "")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"load average at start {load[0]:.1f}")


def write_results(bench: Bench, path: Path, sizes: str, elapsed: float) -> None:
    cols = ["workload", "tool", "runs", "median s", "min–max s", "cpu s", "throughput", "peak RSS MB", "note"]
    lines = [
        "## Measured figures",
        "",
        f"Machine: {_machine()}. Inputs: {sizes}. Command: `python bench/run.py {' '.join(sys.argv[1:])}` "
        f"({elapsed:.0f} s).",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---" for _ in cols) + "|",
    ]
    for r in bench.rows:
        lines.append("| " + " | ".join(r.get(c, "").replace("|", "\\|") for c in cols) + " |")
    if bench.notes:
        lines += ["", *(f"- {n}" for n in bench.notes)]
    path.parent.mkdir(parents=True, exist_ok=True)
    marker = "<!-- figures -->"
    body = "\n".join(lines) + "\n"
    old = path.read_text() if path.exists() else ""
    # the hand-written analysis above the marker stays; the figures below it are replaced
    head = old.split(marker)[0] if marker in old else "# Benchmarks\n\n"
    path.write_text(head + marker + "\n" + body)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true", help="tiny inputs, one run (for CI)")
    ap.add_argument("--size", type=generate.parse_size, default=None, help="big.log (default 1G)")
    ap.add_argument("--session-size", type=generate.parse_size, default=None, help="big-session.jsonl (default 200M)")
    ap.add_argument("--corpus-size", type=generate.parse_size, default=None, help="corpus/ (default 1G)")
    ap.add_argument("--sessions", type=int, default=None, help="sessions in corpus/ (default 200)")
    ap.add_argument("--runs", type=int, default=None, help="runs per measurement (default 3)")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--data", type=Path, default=None, help="where inputs go (default bench/data)")
    ap.add_argument("--results", type=Path, default=None, help="default bench/results.md")
    ap.add_argument("--only", default="classify,analyze,index,startup,scaling",
                    help="comma-separated workloads")
    ap.add_argument("--src", default=None, help="measure another checkout (its src/ and patterns/)")
    ap.add_argument("--search-db", type=Path, default=None,
                    help="only the search workload, over this existing index (with --search-corpus, its raw inputs)")
    ap.add_argument("--search-corpus", type=Path, default=None)
    ap.add_argument("--rg-repeat", type=int, default=1,
                    help="rg searches the corpus this many times in one run (the peer of an index of N copies of it)")
    args = ap.parse_args(argv)
    if args.search_db is not None:
        return _search_only(args)
    smoke = args.smoke
    args.size = args.size or (4 * 2**20 if smoke else 2**30)
    args.session_size = args.session_size or (2 * 2**20 if smoke else 200 * 2**20)
    args.corpus_size = args.corpus_size or (2 * 2**20 if smoke else 2**30)
    args.sessions = args.sessions or (8 if smoke else 200)
    args.runs = args.runs or (1 if smoke else 3)
    if smoke:
        args.queries = min(args.queries, 3)
    tmp = None
    if args.data is None:
        if smoke:
            tmp = tempfile.TemporaryDirectory(prefix="logsleuth-bench-")
            args.data = Path(tmp.name)
        else:
            args.data = generate.DATA
    if args.results is None:
        args.results = args.data / "results.md" if smoke else ROOT / "bench" / "results.md"
    only = set(args.only.split(","))
    start = time.perf_counter()
    print(f"generating inputs under {args.data} …", flush=True)
    # in a child process: a child's peak RSS counts the memory of the process it was forked from,
    # so the bench itself stays small
    subprocess.run([sys.executable, str(Path(generate.__file__)), "--out", str(args.data), "--size", str(args.size),
                    "--session-size", str(args.session_size), "--corpus-size", str(args.corpus_size),
                    "--seed", str(args.seed), "--sessions", str(args.sessions)], check=True, stdout=subprocess.DEVNULL)
    paths = generate.paths_under(args.data)
    bench = Bench(args)
    if not bench.rg:
        bench.notes.append("ripgrep (rg) not installed: rg comparisons skipped")
    if not bench.jq:
        bench.notes.append("jq not installed: jq comparison skipped")
    if "classify" in only:
        bench.classify(paths["log"])
    if "analyze" in only:
        bench.analyze(paths["session"], "analyze big-session.jsonl")
        if not smoke:
            bench.analyze(paths["opencode"], "analyze big-opencode.json", peer=False)
    if "index" in only:
        bench.index_search(paths["corpus"])
    if "startup" in only:
        bench.startup(paths["small"])
    if "scaling" in only and not smoke:
        bench.scaling(paths["log"], paths["session"])
    sizes = (f"big.log {paths['log'].stat().st_size / MB:.0f} MB, big-session.jsonl "
             f"{paths['session'].stat().st_size / MB:.0f} MB, big-opencode.json {paths['opencode'].stat().st_size / MB:.0f} MB, "
             f"corpus/ {args.sessions} sessions {sum(p.stat().st_size for p in paths['corpus'].rglob('*') if p.is_file()) / MB:.0f} MB")
    write_results(bench, args.results, sizes, time.perf_counter() - start)
    print(f"results: {args.results}")
    if tmp is not None:
        tmp.cleanup()
    return 0


def _search_only(args: argparse.Namespace) -> int:
    """`--search-db DB --search-corpus DIR`: CLI search (and rg over DIR) against an index built
    before (a 1 GB index takes minutes to build; the queries are the generator's, as always)."""
    corpus = args.search_corpus
    if corpus is None or not corpus.is_dir() or not (args.search_db / "files.parquet").exists():
        raise SystemExit("--search-db needs an index (files.parquet) and --search-corpus its inputs")
    args.runs = args.runs or 1
    args.data = args.data or Path(tempfile.mkdtemp(prefix="logsleuth-bench-search-"))
    args.data.mkdir(parents=True, exist_ok=True)
    args.results = args.results or args.data / "results.md"
    start = time.perf_counter()
    bench = Bench(args)
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    bench.search(args.search_db, corpus, size)
    sizes = f"index {args.search_db} of {size / MB:.0f} MB ({len(list(corpus.iterdir()))} inputs)"
    if args.rg_repeat > 1:
        sizes += f"; rg reads that corpus {args.rg_repeat}× per run ({args.rg_repeat * size / MB:.0f} MB, page cache)"
    write_results(bench, args.results, sizes, time.perf_counter() - start)
    print(f"results: {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
