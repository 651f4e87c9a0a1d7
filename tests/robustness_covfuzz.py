"""A coverage-guided fuzzer over every reader and the whole analysis (smoke: tests/
test_robustness_covfuzz.py; long run: bench/fuzz_cov.py).

The corpus starts from the real fixtures under tests/fixtures/ingest (and the inline seeds of
robustness_fuzz.py). Each round picks a corpus entry, mutates its bytes (splice, insert noise,
delete, duplicate, flip, truncate, a long run of one hostile token), writes it under the format's
file name and runs it through the ingest contract (`check_case`) and, when it reads, the whole
analysis (classify, actions, link, the markdown and JSON renderers, masking). Coverage is the set
of (file, previous line, line) edges in logsleuth's own code, traced with `sys.settrace`; an input
that reaches a new edge joins the corpus (the AFL loop, in Python). A failure is any exception but
a clean InputError, or a case slower than `slow_s` (a super-linear path).
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from robustness_fuzz import FIXTURES, FORMATS, NOISE, Fmt, available, check_case, fmt_id, write_case

_PKG = str(Path(__file__).resolve().parent.parent / "src" / "logsleuth")
HOSTILE = (b"\x1b[", b"\x1b]0;", b"\\", b"{", b"[", b'"', b"\\u00", b"9" * 40, b"\r", b"'", b"$(", b"`")

# the real fixtures per format (files of that format; folder formats keep the inline seeds)
_FIXTURE_GLOBS = {
    "claude-code": ("claude_code/*.jsonl",),
    "codex": ("codex/*.jsonl",),
    "opencode-run": ("opencode/run*.jsonl",),
    "opencode-export": ("opencode/export*.json",),
    "gemini": ("gemini/*.json", "gemini/*.jsonl"),
    "openai-messages": ("openai/*.json", "openai/*.jsonl"),
    "aider": ("aider/*.md",),
    "text": ("plaintext/*.log", "plaintext/*.txt"),
}


def _seed_bytes(f: Fmt) -> list[bytes]:
    import json

    seeds = f.seeds()
    if f.shape == "lines":
        own = ["\n".join(seeds).encode() + b"\n"]
    elif f.shape == "jsonl":
        own = [b"\n".join(json.dumps(r).encode() for r in seeds) + b"\n"]
    else:
        own = [json.dumps(seeds[0], indent=1).encode()]
    if f.shape in ("db", "storage"):
        return own
    ext = f.filename.rsplit(".", 1)[-1]
    files = [p for g in _FIXTURE_GLOBS.get(f.name, ()) for p in sorted(FIXTURES.glob(g)) if p.name.endswith(ext)]
    return own + [p.read_bytes() for p in files if p.stat().st_size < 256 * 1024]


def mutate(data: bytes, rnd: random.Random, corpus: list[bytes]) -> bytes:
    for _ in range(rnd.randint(1, 4)):
        at = rnd.randint(0, len(data))
        op = rnd.randrange(7)
        if op == 0:
            data = data[:at] + rnd.choice(NOISE) + data[at:]
        elif op == 1:
            data = data[:at] + data[at + rnd.randint(1, 64):]
        elif op == 2 and data:  # duplicate a slice (repeats records, nests structures)
            end = min(len(data), at + rnd.randint(1, 256))
            data = data[:end] + data[at:end] + data[end:]
        elif op == 3 and data:
            i = rnd.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1:]
        elif op == 4:
            data = data[:at]
        elif op == 5:  # splice another corpus entry in
            other = rnd.choice(corpus)
            j = rnd.randint(0, len(other))
            data = data[:at] + other[j : j + rnd.randint(1, 512)] + data[at:]
        else:  # a long run of one hostile token (escape runs, deep nesting, huge numbers)
            data = data[:at] + rnd.choice(HOSTILE) * rnd.choice((10, 1000, 20_000)) + data[at:]
    return data


class Coverage:
    """Edges (file, previous line, line) in logsleuth's own code."""

    def __init__(self) -> None:
        self.edges: set[tuple[str, int, int]] = set()
        self._new: set[tuple[str, int, int]] = set()
        self._last: dict[int, int] = {}  # frame -> its previous line

    def _local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            key = (frame.f_code.co_filename, self._last.get(id(frame), 0), frame.f_lineno)
            self._last[id(frame)] = frame.f_lineno
            if key not in self.edges:
                self._new.add(key)
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call" and frame.f_code.co_filename.startswith(_PKG):
            return self._local
        return None

    def run(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """fn()'s result and how many new edges it reached (recorded)."""
        self._new = set()
        self._last = {}
        sys.settrace(self._global)
        try:
            result = fn()
        finally:
            sys.settrace(None)
        self.edges |= self._new
        return result, len(self._new)


def run_case(f: Fmt, data: bytes, scratch: Path) -> str:
    """The ingest contract, then (when it reads) the whole analysis and its renderers."""
    path = write_case(f, _as_case(f, data), scratch)
    outcome = check_case(f, path)
    if outcome.startswith("events"):
        from logsleuth.analysis import analyze
        from logsleuth.errors import InputError
        from logsleuth.render import postmortem

        try:
            an = analyze(str(path), f.name, [], with_reasoning=False)
        except InputError:
            return outcome
        postmortem.render_markdown(an)
        postmortem.analysis_document(an)
    return outcome


def _as_case(f: Fmt, data: bytes) -> Any:
    if f.shape not in ("db", "storage"):
        return data
    import json

    try:  # the mutated export document becomes rows; unreadable ones become one raw row
        doc = json.loads(data)
        rows = []
        for msg in doc["messages"]:
            mid = msg["info"]["id"]
            rows.append(("message", str(mid), str(msg["info"]["sessionID"]), json.dumps(msg["info"])))
            rows += [("part", str(p["id"]), str(mid), json.dumps(p)) for p in msg["parts"]]
        return rows
    except Exception:
        return [("message", "msg_x", "ses_x", data), ("part", "prt_x", "msg_x", data)]


@dataclass
class Report:
    cases: int = 0
    per_target: dict[str, int] = field(default_factory=dict)
    corpus_growth: dict[str, int] = field(default_factory=dict)
    failures: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # signature -> (target, input)
    slow: list[tuple[str, float, bytes]] = field(default_factory=list)  # (target, seconds, input)


def _signature(exc: BaseException) -> str:
    frames = [fr for fr in traceback.extract_tb(exc.__traceback__) if "logsleuth" in fr.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__}: {str(exc)[:80]} @ {where}"


def fuzz(budget_s: float, scratch: Path, seed: int = 0, slow_s: float = 10.0,
         targets: tuple[Fmt, ...] | None = None, min_cases: int = 0) -> Report:
    """Round-robin over the targets until the budget is spent, and at least `min_cases` cases were
    run (a smoke run on a loaded machine still does its cases; the time only bounds the rest)."""
    rnd = random.Random(seed)
    fmts = [f for f in (targets or FORMATS) if available(f)]
    cov = Coverage()
    corpora = {fmt_id(f): _seed_bytes(f) for f in fmts}
    start = {k: len(v) for k, v in corpora.items()}
    rep = Report()
    for f in fmts:  # the seeds' coverage first (not in the budget): growth then means new behaviour
        for data in corpora[fmt_id(f)]:
            cov.run(lambda f=f, data=data: run_case(f, data, scratch))
    deadline = time.monotonic() + budget_s
    i = 0
    while time.monotonic() < deadline or i < min_cases:
        f = fmts[i % len(fmts)]
        i += 1
        key = fmt_id(f)
        data = mutate(rnd.choice(corpora[key]), rnd, corpora[key])
        t0 = time.monotonic()
        try:
            _, new = cov.run(lambda f=f, data=data: run_case(f, data, scratch))
        except Exception as exc:
            rep.failures.setdefault(_signature(exc), (key, data))
            new = 0
        took = time.monotonic() - t0
        if took > slow_s:
            rep.slow.append((key, took, data))
        if new:
            corpora[key].append(data)
        rep.cases += 1
        rep.per_target[key] = rep.per_target.get(key, 0) + 1
    rep.corpus_growth = {k: len(v) - start[k] for k, v in corpora.items()}
    return rep
