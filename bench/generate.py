"""Seeded generator of large benchmark inputs, built from the project's own error texts and sessions.

    python bench/generate.py [--size 1G] [--session-size 200M] [--corpus-size 1G] [--seed 7] [--out bench/data]

Writes (git-ignored) under bench/data/:
    big.log                  a plain server/build log: benign timestamped lines (SGLang, vLLM, uvicorn,
                             ninja, pip shapes) with error blocks from the real texts spliced in
    big-session.jsonl        one Claude Code session: the sample session's story replayed as "acts"
                             (ids rewritten, clock moved on) with tool outputs padded by log lines and
                             error blocks
    big-opencode.json        the same for the opencode export
    corpus/                  200 sessions of mixed formats (Claude Code, Codex, opencode, plain logs)
    small.log                a small log for the start-up workload

Error texts: sample_logs/*/*.log paragraphs, every `match` example of patterns/**.yaml and, when
present, the `log` field of ../shared/corpus/cuda_errors_dev.jsonl. Same seed, same bytes.
"""

from __future__ import annotations

import argparse
import copy
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import yaml

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus" / "cuda_errors_dev.jsonl"
DATA = ROOT / "bench" / "data"
BLOCK_EVERY = 2000  # on average one error block per this many benign log lines
# keys whose string values identify a record: rewritten per act so that dedupe keeps every copy
ID_KEYS = frozenset({
    "uuid", "parentUuid", "id", "tool_use_id", "messageId", "requestId", "leafUuid", "messageID",
    "callID", "parentID", "call_id",
})


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kKmMgG]?)i?[bB]?", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (use e.g. 200M, 1G)")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()])


# ---------------------------------------------------------------------------------------------
# source texts


@dataclass(frozen=True)
class Sources:
    blocks: tuple[str, ...]  # error texts (one or more lines each)
    logs: tuple[str, ...]  # whole sample logs (stories of their own)
    claude: tuple[bytes, ...]  # sample Claude Code sessions (raw JSONL)
    codex: tuple[bytes, ...]
    opencode: bytes


def load_sources() -> Sources:
    blocks: list[str] = []
    logs = [p.read_text() for p in sorted(SAMPLES.glob("*/*.log"))]
    for text in logs:
        blocks += [b for b in re.split(r"\n\s*\n", text) if re.search(r"[Ee]rror|Traceback|FAILED|Killed", b)]
    for path in sorted((ROOT / "patterns").rglob("*.yaml")):
        if any(part.startswith("_") for part in path.relative_to(ROOT / "patterns").parts[:-1]):
            continue  # _meta/, _facts/: not error patterns
        data = yaml.safe_load(path.read_text()) or {}
        for ex in (data.get("examples") or {}).get("match") or []:
            text = ex.get("text") if isinstance(ex, dict) else ex
            if isinstance(text, str) and text.strip():
                blocks.append(text.rstrip("\n"))
    if SHARED_CORPUS.is_file():
        for line in SHARED_CORPUS.read_bytes().splitlines():
            rec = orjson.loads(line)
            if isinstance(rec.get("log"), str):
                blocks.append(rec["log"].rstrip("\n"))
    return Sources(
        blocks=tuple(blocks),
        logs=tuple(logs),
        claude=tuple(p.read_bytes() for p in sorted(SAMPLES.glob("*/session.jsonl"))),
        codex=tuple(p.read_bytes() for p in sorted(SAMPLES.glob("*/rollout-*.jsonl"))),
        opencode=(SAMPLES / "sglang-sm120" / "opencode-export.json").read_bytes(),
    )


# ---------------------------------------------------------------------------------------------
# benign log lines


class LogLines:
    """Benign server/build lines with a clock that moves forward; error blocks now and then."""

    def __init__(self, rng: random.Random, sources: Sources, start: datetime):
        self.rng = rng
        self.sources = sources
        self.t = start
        self._stamp = ""
        self._left = 0
        self._makers: list[Callable[[], str]] = [
            self._decode, self._decode, self._decode, self._prefill, self._http, self._http, self._vllm,
            self._ninja, self._pip, self._jit,
        ]

    def _tick(self) -> str:
        if self._left <= 0:  # a new second every few lines: one strftime per second, not per line
            self.t += timedelta(seconds=1)
            self._stamp = self.t.strftime("%Y-%m-%d %H:%M:%S")
            self._left = self.rng.randint(5, 40)
        self._left -= 1
        return self._stamp

    def _decode(self) -> str:
        r = self.rng
        return (f"[{self._tick()} TP{r.randint(0, 7)}] Decode batch. #running-req: {r.randint(1, 256)}, "
                f"#token: {r.randint(1000, 900000)}, token usage: 0.{r.randint(1, 99):02d}, cuda graph: True, "
                f"gen throughput (token/s): {r.uniform(100, 9000):.2f}, #queue-req: {r.randint(0, 90)}")

    def _prefill(self) -> str:
        r = self.rng
        return (f"[{self._tick()} TP{r.randint(0, 7)}] Prefill batch. #new-seq: {r.randint(1, 32)}, "
                f"#new-token: {r.randint(16, 8192)}, #cached-token: {r.randint(0, 4096)}, token usage: "
                f"0.{r.randint(1, 99):02d}, #running-req: {r.randint(0, 256)}, #queue-req: {r.randint(0, 90)}")

    def _http(self) -> str:
        r = self.rng
        return (f"[{self._tick()}] INFO:     10.1.{r.randint(0, 255)}.{r.randint(1, 254)}:{r.randint(30000, 65000)}"
                f' - "POST /generate HTTP/1.1" 200 OK')

    def _vllm(self) -> str:
        r = self.rng
        return (f"INFO {self._tick()[5:]} [metrics.py:455] Avg prompt throughput: {r.uniform(0, 9000):.1f} tokens/s, "
                f"Avg generation throughput: {r.uniform(0, 3000):.1f} tokens/s, Running: {r.randint(0, 256)} reqs, "
                f"Swapped: 0 reqs, Pending: {r.randint(0, 40)} reqs, GPU KV cache usage: {r.uniform(0, 99):.1f}%")

    def _ninja(self) -> str:
        r = self.rng
        n = r.randint(1, 2239)
        return (f"[{n}/2239] Building CUDA object csrc/CMakeFiles/kernels.dir/attention/"
                f"paged_attention_v{r.randint(1, 2)}_{r.randint(0, 999):03d}.cu.o")

    def _pip(self) -> str:
        r = self.rng
        pkg = r.choice(["numpy", "torch", "triton", "einops", "safetensors", "transformers", "sentencepiece"])
        return f"Requirement already satisfied: {pkg} in /root/venv/lib/python3.12/site-packages ({r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)})"

    def _jit(self) -> str:
        return (f"{self._tick()},412 - INFO - flashinfer.jit: Loading JIT ops: batch_prefill_with_kv_cache_dtype_q_bf16"
                f"_head_dim_qk_{self.rng.choice((64, 128, 256))}")

    def lines(self, n: int, block_every: int = BLOCK_EVERY) -> Iterator[str]:
        rng, makers, blocks = self.rng, self._makers, self.sources.blocks
        for _ in range(n):
            if rng.randrange(block_every) == 0:
                yield rng.choice(blocks)
            else:
                yield rng.choice(makers)()

    def text(self, nbytes: int, block_every: int = BLOCK_EVERY) -> str:
        out: list[str] = []
        size = 0
        for line in self.lines(1 << 62, block_every):
            out.append(line)
            size += len(line) + 1
            if size >= nbytes:
                break
        return "\n".join(out)


def write_log(path: Path, size: int, seed: int, sources: Sources, block_every: int = BLOCK_EVERY) -> None:
    rng = random.Random(seed)
    gen = LogLines(rng, sources, datetime(2026, 3, 14, 10, 0, 0, tzinfo=UTC))
    written = 0
    with _atomic(path) as f:
        if size > 64 * 1024:  # a real story at the start: the sample logs, as they were
            for text in sources.logs:
                data = text.encode()
                f.write(data if data.endswith(b"\n") else data + b"\n")
                written += len(data) + 1
        while written < size:
            data = (gen.text(min(1 << 20, size - written), block_every) + "\n").encode()
            f.write(data)
            written += len(data)


# ---------------------------------------------------------------------------------------------
# JSON sessions: replay a sample story as "acts" with fresh ids and a moving clock


def _rewrite(obj: Any, suffix: str, shift: timedelta, session: str | None) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in ("sessionId", "sessionID") and isinstance(v, str):
                out[k] = v if session is None else session  # one session across all acts
            elif k in ID_KEYS and isinstance(v, str) and v:
                out[k] = v + suffix
            elif k == "timestamp" and isinstance(v, str):
                out[k] = _shift_iso(v, shift)
            elif k in ("created", "completed", "start", "end", "updated") and isinstance(v, int):
                out[k] = v + int(shift.total_seconds() * 1000)
            else:
                out[k] = _rewrite(v, suffix, shift, session)
        return out
    if isinstance(obj, list):
        return [_rewrite(v, suffix, shift, session) for v in obj]
    return obj


def _shift_iso(value: str, shift: timedelta) -> str:
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return (dt + shift).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{(dt + shift).microsecond // 1000:03d}Z"


def _pad(text: str, gen: LogLines, nbytes: int) -> str:
    """Tool output grown by benign log lines (and the occasional error block) before its tail."""
    if nbytes <= 0:
        return text
    return gen.text(nbytes, block_every=400) + "\n" + text


def claude_acts(raw: bytes, rng: random.Random, gen: LogLines, session: str | None, pad: int) -> Iterator[bytes]:
    """One act after another: the session's records, ids suffixed per act, tool results padded."""
    records = [orjson.loads(line) for line in raw.splitlines() if line.strip()]
    act = 0
    while True:
        shift = timedelta(hours=2 * act)
        suffix = f"-a{act}" if act else ""
        for rec in records:
            rec = _rewrite(rec, suffix, shift, session)  # always a fresh copy: padding mutates it
            msg = rec.get("message") if rec.get("type") == "user" else None
            if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for block in msg["content"]:
                    if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                        block["content"] = _pad(block["content"], gen, rng.randint(0, 2 * pad))
            yield orjson.dumps(rec)
        act += 1


def codex_acts(raw: bytes, rng: random.Random, gen: LogLines, pad: int) -> Iterator[bytes]:
    records = [orjson.loads(line) for line in raw.splitlines() if line.strip()]
    act = 0
    while True:
        shift = timedelta(hours=2 * act)
        for rec in records:
            if act and rec.get("type") == "session_meta":
                continue  # one header per file
            rec = _rewrite(rec, f"-a{act}" if act else "", shift, None)
            payload = rec.get("payload")
            if isinstance(payload, dict) and payload.get("type") == "function_call_output" and isinstance(payload.get("output"), str):
                payload["output"] = _pad(payload["output"], gen, rng.randint(0, 2 * pad))
            yield orjson.dumps(rec)
        act += 1


def write_jsonl(path: Path, acts: Iterator[bytes], size: int) -> None:
    written = 0
    with _atomic(path) as f:
        for line in acts:
            f.write(line + b"\n")
            written += len(line) + 1
            if written >= size:
                return


def write_opencode(path: Path, raw: bytes, size: int, seed: int, sources: Sources, session: str | None = None,
                   pad: int = 4000) -> None:
    rng = random.Random(seed)
    gen = LogLines(rng, sources, datetime(2026, 3, 14, 10, 0, 0, tzinfo=UTC))
    doc = orjson.loads(raw)
    info = _rewrite(doc["info"], "", timedelta(0), None)
    if session is not None:
        info["id"] = session
    out: list[Any] = []
    written, act = len(raw) // 10, 0
    while written < size:
        shift = timedelta(hours=2 * act)
        for msg in doc["messages"]:
            m = _rewrite(copy.deepcopy(msg), f"-a{act}" if act else "", shift, info["id"])
            for part in m.get("parts", []):
                state = part.get("state") if part.get("type") == "tool" else None
                if isinstance(state, dict) and isinstance(state.get("output"), str):
                    state["output"] = _pad(state["output"], gen, rng.randint(0, 2 * pad))
            data = orjson.dumps(m)
            written += len(data) + 2
            out.append(m)
            if written >= size:
                break
        act += 1
    with _atomic(path) as f:
        f.write(orjson.dumps({"info": info, "messages": out}, option=orjson.OPT_INDENT_2))


# ---------------------------------------------------------------------------------------------
# corpus of many sessions


def write_corpus(folder: Path, total: int, sessions: int, seed: int, sources: Sources) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    weights = [rng.lognormvariate(0, 0.8) for _ in range(sessions)]
    scale = total / sum(weights)
    for i, w in enumerate(weights):
        size = max(20_000, int(w * scale))
        kind = ("claude", "claude", "claude", "codex", "opencode", "log")[i % 6]
        sub_seed = rng.getrandbits(32)
        sub = random.Random(sub_seed)
        gen = LogLines(sub, sources, datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=i))
        sid = f"{sub.getrandbits(32):08x}-bench-{i:03d}"
        pad = max(500, size // 400)
        if kind == "claude":
            raw = sources.claude[i % len(sources.claude)]
            write_jsonl(folder / f"s{i:03d}-{sid}.jsonl", claude_acts(raw, sub, gen, sid, pad), size)
        elif kind == "codex":
            raw = sources.codex[i % len(sources.codex)]
            write_jsonl(folder / f"rollout-2026-01-01T00-00-00-{sid}.jsonl", codex_acts(raw, sub, gen, pad), size)
        elif kind == "opencode":
            write_opencode(folder / f"s{i:03d}-opencode-{sid}.json", sources.opencode, size, sub_seed, sources,
                           session=f"ses_{sid}", pad=pad)
        else:
            write_log(folder / f"s{i:03d}-server-{sid}.log", size, sub_seed, sources, block_every=300)


# ---------------------------------------------------------------------------------------------


class _atomic:
    """Write to `path.tmp`, rename on success: a killed run never leaves a half file behind."""

    def __init__(self, path: Path):
        self.path = path
        self.tmp = path.with_name(path.name + ".tmp")

    def __enter__(self) -> BinaryIO:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(self.tmp, "wb")
        return self.f

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.f.close()
        if exc_type is None:
            self.tmp.replace(self.path)
        else:
            self.tmp.unlink(missing_ok=True)


def paths_under(out: Path) -> dict[str, Path]:
    return {
        "log": out / "big.log",
        "session": out / "big-session.jsonl",
        "opencode": out / "big-opencode.json",
        "corpus": out / "corpus",
        "small": out / "small.log",
    }


def generate(out: Path, size: int, session_size: int, corpus_size: int, seed: int, sessions: int = 200,
             what: tuple[str, ...] = ("log", "session", "opencode", "corpus", "small")) -> dict[str, Path]:
    """Write the inputs (skipping any already present with the same parameters); return their paths."""
    sources = load_sources()
    paths = paths_under(out)
    stamp = out / ".params"
    params = f"{size} {session_size} {corpus_size} {seed} {sessions}\n"
    fresh = stamp.is_file() and stamp.read_text() == params
    out.mkdir(parents=True, exist_ok=True)
    if not fresh:
        stamp.unlink(missing_ok=True)
    if "log" in what and not (fresh and paths["log"].is_file()):
        write_log(paths["log"], size, seed, sources)
    if "small" in what and not (fresh and paths["small"].is_file()):
        write_log(paths["small"], 64 * 1024, seed + 1, sources)
    if "session" in what and not (fresh and paths["session"].is_file()):
        rng = random.Random(seed + 2)
        gen = LogLines(rng, sources, datetime(2026, 3, 14, 10, 0, 0, tzinfo=UTC))
        raw = (SAMPLES / "sglang-sm120" / "session.jsonl").read_bytes()
        write_jsonl(paths["session"], claude_acts(raw, rng, gen, None, 4000), session_size)
    if "opencode" in what and not (fresh and paths["opencode"].is_file()):
        write_opencode(paths["opencode"], sources.opencode, session_size, seed + 3, sources)
    if "corpus" in what and not (fresh and paths["corpus"].is_dir()):
        import shutil

        shutil.rmtree(paths["corpus"], ignore_errors=True)
        write_corpus(paths["corpus"], corpus_size, sessions, seed + 4, sources)
    stamp.write_text(params)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=parse_size, default=parse_size("1G"), help="big.log size (default 1G)")
    ap.add_argument("--session-size", type=parse_size, default=parse_size("200M"))
    ap.add_argument("--corpus-size", type=parse_size, default=parse_size("1G"))
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=DATA)
    args = ap.parse_args(argv)
    paths = generate(args.out, args.size, args.session_size, args.corpus_size, args.seed, args.sessions)
    for name, p in paths.items():
        print(f"{name}: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
