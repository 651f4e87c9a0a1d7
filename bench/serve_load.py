"""Load benchmark of `logsleuth serve`: 200 concurrent clients while postmortems render (#35).

    python bench/serve_load.py                         # 3 runs of 20 s, 200 clients, this checkout
    python bench/serve_load.py --src /tmp/before       # the same against another checkout's src/
    python bench/serve_load.py --runs 1 --seconds 5 --clients 20      # a quick look

Indexes the shipped samples (sample_logs/) and tests/real_sessions/ into DATA/db (kept: built
once), starts a real `logsleuth serve --port 0` process, and reads what to ask from its own API
(sessions, their failures, fingerprints). Then, per run: CLIENTS clients, each on its own
keep-alive connection, ask one page or API answer at a time and wait THINK s on average
(uniform 0..2×THINK, a person searching as they type) before the next; FRESH of the searches
carry a word never asked before (a new query: no cache can answer it). Beside them one client
asks for postmortems one after the other, cycling through every session, so that each is
rendered anew while the others are measured (more sessions than serve keeps rendered).

The clients speak HTTP/1.1 over asyncio streams (not httpx: on a 2-core machine the load
generator's own CPU would be measured as the server's latency). Latency is from sending a
request to its last byte. Prints p50/p95/p99/max per run and per kind of request, errors, the
postmortems rendered during the run, and the load average (other processes on a shared machine
show up there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "serve-load"
INPUTS = (ROOT / "sample_logs", ROOT / "tests" / "real_sessions")


@dataclass
class Tally:
    """Latencies (seconds) by kind of request, and what went wrong."""

    by_kind: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    cpu: tuple[float, float, float] = (0.0, 0.0, 0.0)  # CPU seconds of the server, its workers, the clients

    def add(self, kind: str, seconds: float) -> None:
        self.by_kind.setdefault(kind, []).append(seconds)

    def fail(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def all(self) -> list[float]:
        return [v for k, vs in self.by_kind.items() if k != "postmortem" for v in vs]


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


class Conn:
    """One keep-alive HTTP/1.1 connection (reopened when the server closes it)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, bytes]:
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                return await self._get(path)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _get(self, path: str) -> tuple[int, bytes]:
        assert self.reader is not None and self.writer is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                body += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readuntil(b"\r\n")
        else:
            body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection") == "close":
            self.close()
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Plan:
    """What the clients ask: search texts and the pages of sessions and fingerprints."""

    texts: list[str]
    sessions: list[tuple[str, str]]
    fingerprints: list[tuple[str, str]]

    def request(self, rng: random.Random, fresh: float, typing: float = 0.5) -> tuple[str, str]:
        """(kind, path) of one request, drawn as a search-heavy team would ask."""
        roll = rng.random()
        if roll < 0.70:
            text = rng.choice(self.texts)
            if rng.random() < typing:  # as you type: a prefix of it
                text = text[: rng.randint(4, max(4, len(text)))]
            if rng.random() < fresh:
                text += f" w{rng.getrandbits(40):x}"
            route = rng.choices(("/search/results", "/api/search", "/"), (4, 2, 1))[0]
            return route.strip("/").split("/")[-1] or "home", f"{route}?q={quote(text, safe='')}"
        if roll < 0.80:
            return "sessions", rng.choice(("/sessions", "/api/sessions"))
        if roll < 0.90:
            s, src = rng.choice(self.sessions)
            return "session", "/session?" + urlencode({"session": s, "source": src})
        pattern, fp = rng.choice(self.fingerprints)
        return "fingerprint", f"/fp/{quote(pattern, safe='')}/{quote(fp, safe='')}"


async def make_plan(port: int) -> Plan:
    conn = Conn(port)
    status, body = await conn.get("/api/sessions")
    assert status == 200, (status, body[:200])
    sessions = [(r["session"], r["source"]) for r in json.loads(body)["sessions"]]
    texts: set[str] = set()
    fps: set[tuple[str, str]] = set()
    for s, src in sessions:
        status, body = await conn.get("/api/session?" + urlencode({"session": s, "source": src}))
        for f in json.loads(body).get("findings", []):
            if f.get("text"):
                texts.add(f["text"].strip()[:160])
            if f.get("pattern") and f.get("fingerprint"):
                fps.add((f["pattern"], f["fingerprint"]))
    conn.close()
    return Plan(sorted(texts), sessions, sorted(fps))


async def client(port: int, plan: Plan, rng: random.Random, think: float, fresh: float, typing: float,
                 until: float, record_from: float, tally: Tally) -> None:
    conn = Conn(port)
    await asyncio.sleep(rng.uniform(0, 2 * think))  # clients start spread, as people do
    while time.monotonic() < until:
        kind, path = plan.request(rng, fresh, typing)
        t0 = time.monotonic()
        try:
            status, _ = await conn.get(path)
        except (OSError, asyncio.IncompleteReadError) as exc:
            tally.fail(type(exc).__name__)
            conn.close()
            continue
        took = time.monotonic() - t0
        if t0 >= record_from:
            tally.add(kind, took)
            if status != 200:
                tally.fail(f"HTTP {status}")
        await asyncio.sleep(rng.uniform(0, 2 * think))
    conn.close()


async def postmortems(port: int, plan: Plan, until: float, record_from: float, tally: Tally) -> None:
    """One after the other, every session in turn: each is rendered anew."""
    conn = Conn(port)
    turn = 0
    while time.monotonic() < until:
        s, src = plan.sessions[turn % len(plan.sessions)]
        turn += 1
        t0 = time.monotonic()
        try:
            status, _ = await conn.get("/session/report?" + urlencode({"session": s, "source": src}))
        except (OSError, asyncio.IncompleteReadError):
            tally.fail("postmortem: connection")
            conn.close()
            continue
        if t0 >= record_from:
            tally.add("postmortem", time.monotonic() - t0)
            if status != 200:
                tally.fail(f"postmortem HTTP {status}")
    conn.close()


async def one_run(port: int, plan: Plan, args: argparse.Namespace, seed: int) -> Tally:
    tally = Tally()
    start = time.monotonic()
    record_from, until = start + args.warmup, start + args.warmup + args.seconds
    rng = random.Random(seed)
    tasks = [client(port, plan, random.Random(rng.getrandbits(64)), args.think, args.fresh, args.typing, until,
                    record_from, tally)
             for _ in range(args.clients)]
    if args.postmortems:
        tasks.append(postmortems(port, plan, until, record_from, tally))
    await asyncio.gather(*tasks, cpu_window(args.pid, record_from, until, tally))
    return tally


async def cpu_window(pid: int, start: float, end: float, tally: Tally) -> None:
    """The server's and its workers' CPU seconds between `start` and `end` (monotonic)."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    before, mine = cpu_seconds(pid), os.times()
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    after, now = cpu_seconds(pid), os.times()
    workers = sum(t - before[1].get(c, 0.0) for c, t in after[1].items())  # a worker replaced meanwhile: its part lost
    tally.cpu = (after[0] - before[0], workers, now.user + now.system - mine.user - mine.system)


def cpu_seconds(pid: int) -> tuple[float, dict[int, float]]:
    """(CPU seconds of the process `pid`, of each of its child processes now running): user + system."""
    tick = os.sysconf("SC_CLK_TCK")

    def of(p: int) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / tick

    children = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        children += [int(c) for c in task.read_text().split()]
    return of(pid), {c: of(c) for c in children}


def build_index(db: Path, env: dict[str, str]) -> None:
    if (db / "files.parquet").is_file():
        return
    print(f"indexing {', '.join(str(p.relative_to(ROOT)) for p in INPUTS)} into {db} …", flush=True)
    subprocess.run([sys.executable, "-m", "logsleuth", "index", *map(str, INPUTS), "--db", str(db), "--origin", "bench"],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_server(db: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "serve", "--db", str(db), "--port", "0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if "http://" not in line:
        proc.kill()
        raise SystemExit(f"serve did not start: {line}{proc.stderr.read()[-2000:]}")
    return proc, int(line.split("http://", 1)[1].split()[0].rsplit(":", 1)[1].rstrip("/)"))


def report(run: int, tally: Tally, seconds: float, load: tuple[float, float], cpu: tuple[float, float, float]) -> str:
    def ms(v: float) -> str:
        return f"{v * 1000:.0f}" if v >= 0.1 else f"{v * 1000:.1f}"

    every = tally.all()
    rows = [f"run {run}: {len(every)} requests in {seconds:.0f} s ({len(every) / seconds:.0f}/s), "
            f"p50 {ms(pct(every, 50))} ms, p95 {ms(pct(every, 95))} ms, p99 {ms(pct(every, 99))} ms, "
            f"max {ms(max(every, default=0))} ms; load average {load[0]:.2f} before, {load[1]:.2f} after; "
            f"errors: {tally.errors or 'none'}",
            f"    CPU in the measured {seconds:.0f} s: server {cpu[0]:.1f} s ({cpu[0] / max(1, len(every)) * 1000:.2f} ms a "
            f"request), postmortem workers {cpu[1]:.1f} s, these clients {cpu[2]:.1f} s"]
    for kind in sorted(tally.by_kind):
        vs = tally.by_kind[kind]
        rows.append(f"    {kind:<12} n={len(vs):<6} p50 {ms(pct(vs, 50)):>6} ms  p95 {ms(pct(vs, 95)):>6} ms  "
                    f"p99 {ms(pct(vs, 99)):>6} ms  max {ms(max(vs)):>6} ms")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=ROOT, help="the checkout whose src/ is served (default: this one)")
    ap.add_argument("--data", type=Path, default=DATA, help="where the index is built (kept between runs)")
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a client waits between requests")
    ap.add_argument("--fresh", type=float, default=0.1, help="share of searches with a query never asked before")
    ap.add_argument("--typing", type=float, default=0.5, help="share of searches that are a prefix (as you type)")
    ap.add_argument("--seconds", type=float, default=20.0, help="measured seconds per run")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (clients ramp up)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-postmortems", dest="postmortems", action="store_false", help="no postmortem client")
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args(argv)
    extra = os.environ.get("PYTHONPATH")  # kept after the checkout's src/ (packages tried beside it)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(args.src.resolve() / "src"), *([extra] if extra else [])])}
    db = args.data / "db"
    build_index(db, env)
    proc, port = start_server(db, env)
    args.pid = proc.pid
    try:
        plan = asyncio.run(make_plan(port))
        print(f"serve (pid {proc.pid}, port {port}, code from {env['PYTHONPATH']}): "
              f"{len(plan.sessions)} sessions, {len(plan.texts)} search texts, {len(plan.fingerprints)} fingerprints; "
              f"{args.clients} clients, think {args.think:g} s, fresh {args.fresh:g}, typing {args.typing:g}, "
              f"postmortems {'on' if args.postmortems else 'off'}; {os.cpu_count()} cores", flush=True)
        for run in range(1, args.runs + 1):
            before = os.getloadavg()[0]
            tally = asyncio.run(one_run(port, plan, args, args.seed + run))
            print(report(run, tally, args.seconds, (before, os.getloadavg()[0]), tally.cpu), flush=True)
    finally:
        proc.terminate()
        proc.wait(20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
