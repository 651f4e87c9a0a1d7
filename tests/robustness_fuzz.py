"""Fuzzing strategies and checks shared by tests/test_robustness_fuzz.py and bench/fuzz_long.py.

Every case starts from valid records of one format (the ingest fixtures, or small seeds below) and
mutates them: truncation, reordered keys, wrong types, nulls, huge strings, deep nesting, NUL
bytes, lone surrogates, invalid UTF-8, CRLF, ANSI noise, raw garbage lines. A case is one input
file (or folder, for opencode storage) written to a scratch directory; `check_case` reads it with
the forced reader and through auto-detection and asserts the ingest contract: no exception except
a clean InputError, a balanced report, sane line numbers, a valid event table.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from logsleuth import ingest
from logsleuth.errors import InputError
from logsleuth.ingest.detect import format_names
from logsleuth.model import EVENT_SCHEMA, Transcript

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ingest"

# -- seeds: valid records of each format ----------------------------------------------------------


def _jsonl(path: Path) -> list[Any]:
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


_GEMINI_MESSAGES: list[dict[str, Any]] = [
    {"id": "m1", "timestamp": "2026-01-05T10:00:00Z", "type": "user", "content": "vllm fails: no kernel image"},
    {
        "id": "m2", "timestamp": "2026-01-05T10:00:05Z", "type": "gemini", "content": "Checking the toolkit.",
        "thoughts": [{"subject": "Arch", "description": "sm_120 needs CUDA 12.8", "timestamp": "2026-01-05T10:00:04Z"}],
        "toolCalls": [{
            "id": "c1", "name": "run_shell_command", "args": {"command": "nvcc --version"}, "status": "success",
            "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                             "response": {"output": "Cuda compilation tools, release 12.4\nExit Code: 0"}}}],
            "timestamp": "2026-01-05T10:00:06Z",
        }],
    },
    {"id": "m3", "timestamp": "2026-01-05T10:00:09Z", "type": "error", "content": "API error 429"},
    {"id": "m4", "timestamp": "2026-01-05T10:00:10Z", "type": "info", "content": "Request cancelled."},
]
GEMINI_DOC: dict[str, Any] = {
    "sessionId": "5e1f0c2a-1111-4222-8333-944445555666", "projectHash": "ab" * 32,
    "startTime": "2026-01-05T10:00:00Z", "lastUpdated": "2026-01-05T10:00:10Z", "messages": _GEMINI_MESSAGES,
}
GEMINI_JSONL: list[Any] = [
    {"sessionId": "5e1f0c2a-1111-4222-8333-944445555666", "projectHash": "ab" * 32, "startTime": "2026-01-05T10:00:00Z"},
    *_GEMINI_MESSAGES,
    {"$set": {"lastUpdated": "2026-01-05T10:00:11Z"}},
    {"$rewindTo": "m4"},
]
OPENAI_MESSAGES: list[Any] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "pip install flash-attn fails with nvcc not found"},
    {"role": "assistant", "content": None, "reasoning_content": "Check CUDA_HOME.",
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "bash", "arguments": "{\"command\": \"which nvcc\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "which: no nvcc in PATH\nexit code: 1"},
    {"role": "assistant", "content": [{"type": "text", "text": "Install the CUDA toolkit first."}]},
]
AIDER_LINES = [
    "# aider chat started at 2026-01-05 10:00:00",
    "",
    "#### why does torch say CUDA is unavailable?",
    "",
    "Let me check the driver.",
    "",
    "```bash",
    "nvidia-smi",
    "```",
    "",
    "#### /run nvidia-smi",
    "",
    "> NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    "> Add the output to the chat? (Y)es/(n)o [Yes]: y",
    "",
    "The driver module is not loaded.",
]
TEXT_LINES = [
    "2026-01-05 10:00:00 INFO starting server on 0.0.0.0:8000",
    "Traceback (most recent call last):",
    '  File "/opt/venv/lib/python3.12/site-packages/vllm/worker.py", line 12, in <module>',
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "ptxas fatal   : Unsupported .version 9.2; current version is '9.0'",
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "INFO:     Application startup complete.",
]


@dataclass(frozen=True)
class Fmt:
    """A format under test: its reader name, the file name to write, and how cases are built."""

    name: str
    filename: str
    shape: str  # jsonl | document | lines | storage | db
    seeds: Callable[[], list[Any]]  # records (jsonl/db/storage), [doc] (document) or lines (lines)


def _export_doc() -> list[Any]:
    return [json.loads((FIXTURES / "opencode" / "export.json").read_text(encoding="utf-8"))]


FORMATS: tuple[Fmt, ...] = (
    Fmt("claude-code", "session.jsonl", "jsonl", lambda: _jsonl(FIXTURES / "claude_code" / "session.jsonl")),
    Fmt("codex", "rollout-2026-03-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl", "jsonl",
        lambda: _jsonl(next((FIXTURES / "codex").glob("rollout-2026*.jsonl")))
        + _jsonl(next((FIXTURES / "codex").glob("rollout-2025*.jsonl")))),
    Fmt("opencode-run", "run.jsonl", "jsonl", lambda: _jsonl(FIXTURES / "opencode" / "run.jsonl")),
    Fmt("opencode-export", "export.json", "document", _export_doc),
    Fmt("opencode-db", "opencode.db", "db", _export_doc),
    Fmt("opencode-storage", "storage", "storage", _export_doc),
    Fmt("gemini", "session-2026-01-05T10-00-5e1f0c2a.json", "document", lambda: [GEMINI_DOC]),
    Fmt("gemini", "session-2026-01-05T10-00-5e1f0c2a.jsonl", "jsonl", lambda: list(GEMINI_JSONL)),
    Fmt("openai-messages", "messages.json", "document", lambda: [{"id": "conv-1", "messages": OPENAI_MESSAGES}]),
    Fmt("openai-messages", "messages.jsonl", "jsonl", lambda: list(OPENAI_MESSAGES)),
    Fmt("aider", ".aider.chat.history.md", "lines", lambda: list(AIDER_LINES)),
    Fmt("text", "server.log", "lines", lambda: list(TEXT_LINES)),
)


def fmt_id(f: Fmt) -> str:
    return f"{f.name}:{f.shape}" if f.shape in ("jsonl", "document") else f.name


def available(f: Fmt) -> bool:
    """Readers still being written are absent from the registry: their cases skip."""
    return f.name in format_names()


# -- object-level mutations ------------------------------------------------------------------------

DEEP = "\u2063deep-nest-{}\u2063"  # a marker string replaced by deep nesting after serialisation
NASTY_STRINGS = (
    "", " ", "\x00", "a\x00b", "\ud800", "x\udfffy", "\x1b[31mred\x1b[0m", "\r\n", "\u2028\u2029",
    "\ufeff", "<script>alert(1)</script>", "💥" * 3, "-1", "1e999", "null", "{", "\\", "%s%n",
)
_WRONG = (None, True, False, 0, -1, 2**63, -(2**64), 1.5, float("1e308"), "", "x", [], {}, [None], {"": None})


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    return obj


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def _shuffle_keys(obj: Any, rnd: random.Random) -> Any:
    if isinstance(obj, dict):
        items = list(obj.items())
        rnd.shuffle(items)
        return {k: _shuffle_keys(v, rnd) for k, v in items}
    if isinstance(obj, list):
        return [_shuffle_keys(v, rnd) for v in obj]
    return obj


@st.composite
def mutated_object(draw: st.DrawFn, seed: Any, huge_max: int = 300_000) -> tuple[Any, dict[str, int]]:
    """A deep copy of `seed` with 0-4 structural mutations; returns (object, deep-nesting markers)."""
    obj = json.loads(json.dumps(seed))
    deep: dict[str, int] = {}
    for _ in range(draw(st.integers(0, 4))):
        paths = _paths(obj)
        path = paths[draw(st.integers(0, len(paths) - 1))]
        op = draw(st.sampled_from(("wrong", "null", "huge", "deep", "nasty", "drop", "shuffle", "text")))
        if op == "wrong":
            obj = _set(obj, path, json.loads(json.dumps(draw(st.sampled_from(_WRONG)))))
        elif op == "null":
            obj = _set(obj, path, None)
        elif op == "huge":
            obj = _set(obj, path, draw(st.sampled_from("xA\n é")) * draw(st.integers(1_000, huge_max)))
        elif op == "deep":
            marker = DEEP.format(len(deep))
            deep[marker] = draw(st.sampled_from((100, 1_000, 1_100, 20_000, 200_000)))
            obj = _set(obj, path, marker)
        elif op == "nasty":
            obj = _set(obj, path, draw(st.sampled_from(NASTY_STRINGS)))
        elif op == "drop" and path:
            parent = _get(obj, path[:-1])
            del parent[path[-1]]
        elif op == "shuffle":
            obj = _shuffle_keys(obj, random.Random(draw(st.integers(0, 2**16))))
        elif op == "text":
            obj = _set(obj, path, draw(st.text(max_size=40)))
    return obj, deep


def serialise(obj: Any, deep: dict[str, int], indent: int | None) -> bytes:
    # ensure_ascii keeps lone surrogates as \udXXX escapes (the way a broken writer would emit them)
    raw = json.dumps(obj, indent=indent, ensure_ascii=True).encode()
    for marker, depth in deep.items():
        quoted = json.dumps(marker, ensure_ascii=True).encode()
        nest = b'{"a":' * (depth // 2) + b"[" * (depth - depth // 2) + b"1" + b"]" * (depth - depth // 2)
        raw = raw.replace(quoted, nest + b"}" * (depth // 2))
    return raw


# -- byte-level mutations --------------------------------------------------------------------------

NOISE = (
    b"\x00", b"\x00\x00\x00\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xfe\xff",
    b"\x1b[31m", b"\x1b[0m", b"\x1b]0;title\x07", b"\x1b[2K\r", b"\r", b"\r\n", b"\n", b"\t", b"\\",
    b'"', b"{", b"}", b"]", b"\\u0000", b"\\ud800", b"\xef\xbb\xbf", b"\x08\x08",
)


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(("insert", "truncate", "delete", "flip")))
        at = draw(st.integers(0, len(data)))
        if op == "insert":
            data = data[:at] + draw(st.sampled_from(NOISE) | st.binary(max_size=8)) + data[at:]
        elif op == "truncate":
            data = data[:at]
        elif op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 16)):]
        elif op == "flip" and at < len(data):
            data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1:]
    return data


GARBAGE_LINES = st.sampled_from(
    (b"", b"   ", b"\x00" * 64, b"\xff\xfe\x00garbage", b"not json at all", b"[1,2,3]", b"null", b"42", b'"str"',
     b"{}", b'{"type":null}', b"\x1b[1m\x1b[31mERROR\x1b[0m", b"{" * 3000)
) | st.binary(max_size=64)


@st.composite
def jsonl_case(draw: st.DrawFn, seeds: list[Any], huge_max: int = 300_000) -> bytes:
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(GARBAGE_LINES))
            continue
        obj, deep = draw(mutated_object(draw(st.sampled_from(seeds)), huge_max))
        raw = serialise(obj, deep, None)
        if draw(st.integers(0, 3)) == 0:
            raw = draw(mutated_bytes(raw))
        lines.append(raw)
    sep = draw(st.sampled_from((b"\n", b"\r\n")))
    data = sep.join(lines)
    if lines and draw(st.booleans()):
        data += sep
    return data


@st.composite
def document_case(draw: st.DrawFn, seeds: list[Any], huge_max: int = 300_000) -> bytes:
    obj, deep = draw(mutated_object(seeds[0], huge_max))
    data = serialise(obj, deep, draw(st.sampled_from((None, 2))))
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    return draw(mutated_bytes(data))


@st.composite
def lines_case(draw: st.DrawFn, seeds: list[Any], huge_max: int = 300_000) -> bytes:
    picked = draw(st.lists(st.sampled_from(seeds), max_size=20))
    lines = [ln.encode() for ln in picked]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(lines)))
        extra = draw(GARBAGE_LINES | st.text(max_size=60).map(lambda s: s.encode("utf-8", "surrogatepass")))
        if draw(st.integers(0, 5)) == 0:
            extra = b"x" * draw(st.integers(1_000, huge_max))
        lines.insert(at, extra)
    data = draw(st.sampled_from((b"\n", b"\r\n"))).join(lines)
    return draw(mutated_bytes(data))


@st.composite
def db_rows(draw: st.DrawFn, seeds: list[Any], huge_max: int = 300_000) -> list[tuple[str, str, str, bytes | str | None]]:
    """Rows (table, id, parent id, data) built from the export's messages and parts, mutated."""
    doc = seeds[0]
    rows: list[tuple[str, str, str, bytes | str | None]] = []
    for msg in doc["messages"]:
        mid = msg["info"]["id"]
        items = [("message", mid, msg["info"]["sessionID"], msg["info"])]
        items += [("part", p["id"], mid, p) for p in msg["parts"]]
        for table, ident, parent, obj in items:
            if draw(st.integers(0, 3)) == 0:
                obj, deep = draw(mutated_object(obj, huge_max))
                data: bytes | str | None = serialise(obj, deep, None)
                if draw(st.integers(0, 2)) == 0:
                    data = draw(mutated_bytes(data)) if isinstance(data, bytes) else data
                if draw(st.integers(0, 9)) == 0:
                    data = None
            else:
                data = json.dumps(obj)
            rows.append((table, ident, parent, data))
    return rows


def case_strategy(f: Fmt, huge_max: int = 300_000) -> st.SearchStrategy[Any]:
    seeds = f.seeds()
    if f.shape == "jsonl":
        return jsonl_case(seeds, huge_max)
    if f.shape == "document":
        return document_case(seeds, huge_max)
    if f.shape == "lines":
        return lines_case(seeds, huge_max)
    return db_rows(seeds, huge_max)  # db and storage share the (table, id, parent, data) rows


# -- writing a case --------------------------------------------------------------------------------


def write_case(f: Fmt, case: Any, scratch: Path) -> Path:
    """Write the case under `scratch` (emptied first); return the path to read."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    target = scratch / f.filename
    if f.shape in ("jsonl", "document", "lines"):
        target.write_bytes(case)
    elif f.shape == "db":
        _write_db(target, case)
    else:
        _write_storage(target, case)
    return target


def _write_db(path: Path, rows: list[tuple[str, str, str, Any]]) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE session (id text PRIMARY KEY, time_created integer);"
        "CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text);"
        "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, data text);"
    )
    sessions = {parent for table, _, parent, _ in rows if table == "message"}
    conn.executemany("INSERT INTO session VALUES (?, 0)", [(s,) for s in sorted(sessions)])
    for i, (table, ident, parent, data) in enumerate(rows):
        if table == "message":
            conn.execute("INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?)", (ident, parent, i, data))
        else:
            conn.execute("INSERT OR REPLACE INTO part VALUES (?, ?, 's', ?, ?)", (ident, parent, i, data))
    conn.commit()
    conn.close()


def _write_storage(root: Path, rows: list[tuple[str, str, str, Any]]) -> None:
    for table, ident, parent, data in rows:
        folder = root / table / parent
        folder.mkdir(parents=True, exist_ok=True)
        blob = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else (data or b"")
        (folder / f"{ident}.json").write_bytes(blob)
    (root / "session" / "proj").mkdir(parents=True, exist_ok=True)


# -- the contract ----------------------------------------------------------------------------------


def physical_lines(path: Path) -> int:
    if path.is_dir() or path.suffix == ".db":
        return 0
    data = path.read_bytes()
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def check_transcript(t: Transcript, path: Path) -> None:
    r = t.report
    assert r.lines == r.used + r.ignored + len(r.skipped), r
    assert min(r.lines, r.used, r.ignored) >= 0, r
    assert r.events == t.events.height
    assert dict(t.events.schema) == EVENT_SCHEMA
    bound = max(physical_lines(path), r.lines)
    for s in r.skipped:
        assert s.reason, s
        assert 0 <= s.line <= bound + 1, (s, bound)
    if t.events.height:
        lines = t.events["line"]
        assert lines.min() >= 1 and lines.max() <= bound + 1, (lines.min(), lines.max(), bound)  # type: ignore[operator]
        for _sess, seqs in t.events.group_by("session").agg("seq").iter_rows():
            assert sorted(seqs) == list(range(len(seqs)))
        for text in t.events["text"]:
            assert "\x00" not in text
            text.encode("utf-8")  # no lone surrogates reach the table


def check_case(f: Fmt, path: Path) -> str:
    """Read `path` forced and auto-detected; return the outcomes ("events"/"input-error"), or raise."""
    outcomes = []
    for fmt in (f.name, None):
        try:
            t = ingest.read(str(path), fmt)
        except InputError as exc:
            line = exc.one_line()
            assert "\n" not in line and line.strip()
            assert exc.location is not None and str(path) in str(exc.location), line
            if fmt is not None and f.shape in ("jsonl", "lines") and "decompress" not in line:
                # a line-based reader reports bad lines; it never rejects a file it was told to read
                # (unless the mutation made it look compressed: then there are no lines at all)
                raise AssertionError(f"forced {f.name} raised {line}") from exc
            outcomes.append("input-error")
            continue
        check_transcript(t, path)
        outcomes.append("events" if t.events.height else "no-events")
    return "/".join(outcomes)


def scratch_dir(base: Path) -> Path:
    return base / f"case-{os.getpid()}"


# -- the classifier --------------------------------------------------------------------------------

_CLASSIFY_LINES = (
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "ptxas fatal   : Unsupported .version 9.2; current version is '9.0'",
    "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "Traceback (most recent call last):",
    "INFO:     Application startup complete.",
    "a" * 5000 + "!",
)
_EVENT_TEXT = st.lists(
    st.sampled_from(_CLASSIFY_LINES) | st.sampled_from(NASTY_STRINGS) | st.text(max_size=80)
    | st.integers(1, 200_000).map(lambda n: "(" * n),
    max_size=6,
).map("\n".join)
CLASSIFIER_ROWS = st.lists(st.tuples(st.sampled_from(("log", "tool", "assistant")), _EVENT_TEXT), max_size=12)


def check_classifier(rows: list[tuple[str, str]], library: Any) -> int:
    """Classify random events; every finding must point into the event it came from. Returns #findings."""
    from logsleuth.classify import classify
    from logsleuth.ingest.base import EventSink

    sink = EventSink("s", "fuzz.log")
    for i, (role, text) in enumerate(rows):
        kind = {"log": "log", "tool": "tool_result", "assistant": "text"}[role]
        sink.add(line=1000 * i + 1, role=role, kind=kind, text=text, is_error=(i % 2 == 0), exit_code=i % 3)
    result = classify(sink.frame(), library)
    for f in result.findings:
        _, text = rows[f.seq]
        first = 1000 * f.seq + 1
        assert first <= f.line <= first + text.count("\n"), (f.line, f.seq)
    assert result.primary is None or result.primary in result.findings
    return len(result.findings)
