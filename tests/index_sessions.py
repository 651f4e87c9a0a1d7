"""Tiny Claude Code sessions with real error texts, for the index and search tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

FIXTURE_PATTERNS = Path(__file__).resolve().parent / "fixtures" / "patterns"

PTXAS = "ptxas /tmp/x.ptx, line 9; fatal   : Unsupported .version 9.2; current version is '9.0'"
PTXAS_OTHER = "ptxas /tmp/y.ptx, line 3; fatal   : Unsupported .version 8.8; current version is '8.5'"
NVRTC = "ImportError: libnvrtc.so.13: cannot open shared object file: No such file or directory"
READY = "The server is fired up and ready to roll!"
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000"

Step = tuple[str, str, bool]  # (command, output, is_error)


def claude_session(session: str, start: str, steps: Sequence[Step], goal: str = "start the sglang server") -> str:
    """A Claude Code JSONL transcript: a user goal, then one Bash call and its result per step."""
    t0 = datetime.fromisoformat(start).replace(tzinfo=UTC)
    n = 0

    def rec(kind: str, message: dict[str, object], **extra: object) -> str:
        nonlocal n
        n += 1
        ts = (t0 + timedelta(seconds=10 * n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        base = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/w",
                "sessionId": session, "version": "2.1.39", "uuid": f"{session}-{n}", "timestamp": ts,
                "type": kind, "message": message, **extra}
        return json.dumps(base)

    lines = [rec("user", {"role": "user", "content": goal})]
    for i, (command, output, is_error) in enumerate(steps):
        call = f"toolu_{session}_{i}"
        lines.append(rec("assistant", {"model": "m", "id": f"msg_{session}_{i}", "type": "message",
                                       "role": "assistant",
                                       "content": [{"type": "tool_use", "id": call, "name": "Bash",
                                                    "input": {"command": command}}]}))
        body = f"Exit code 1\n{output}" if is_error else output
        lines.append(rec("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": body, "is_error": is_error}]}))
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def ptxas_fixed(session: str = "sess-ptxas", start: str = "2026-01-10T09:00:00") -> str:
    """ptxas too old -> install a newer nvcc -> the server starts: fixed, and it held."""
    return claude_session(session, start, [
        (LAUNCH, f"Compiling kernels...\n{PTXAS}\nRuntimeError: ptxas failed", True),
        ('uv pip install "nvidia-cuda-nvcc-cu12>=12.9"',
         "Resolved 1 package in 0.5s\nInstalled 1 package in 1.2s\n + nvidia-cuda-nvcc-cu12==12.9.86", False),
        (LAUNCH, f"INFO loading weights\n{READY}", False),
    ])


def nvrtc_fixed(session: str = "sess-nvrtc", start: str = "2026-01-12T09:00:00") -> str:
    """libnvrtc.so.13 missing -> LD_LIBRARY_PATH -> the server starts."""
    return claude_session(session, start, [
        (LAUNCH, f"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n{NVRTC}", True),
        ("export LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib64:$LD_LIBRARY_PATH", "", False),
        (LAUNCH, READY, False),
    ])


def ptxas_catch22(session: str = "sess-c22", start: str = "2026-01-15T09:00:00") -> str:
    """ptxas too old -> nvcc<13.1 cures it but libnvrtc.so.13 appears -> back to 13.2 -> ptxas again."""
    return claude_session(session, start, [
        (LAUNCH, PTXAS, True),
        ('uv pip install "nvidia-cuda-nvcc<13.1"',
         "Installed 1 package in 1s\n - nvidia-cuda-nvcc==13.2.51\n + nvidia-cuda-nvcc==13.0.88", False),
        (LAUNCH, f"Traceback (most recent call last):\n{NVRTC}", True),
        ('uv pip install "nvidia-cuda-nvcc==13.2.51"',
         "Installed 1 package in 1s\n - nvidia-cuda-nvcc==13.0.88\n + nvidia-cuda-nvcc==13.2.51", False),
        (LAUNCH, PTXAS, True),
    ])


def other_ptxas(session: str = "sess-other", start: str = "2025-12-01T09:00:00") -> str:
    """The same pattern with other versions (another fingerprint), never fixed."""
    return claude_session(session, start, [(LAUNCH, PTXAS_OTHER, True)])


def small_session(session: str, errors: int, start: str = "2026-02-01T09:00:00") -> str:
    """`errors` distinct failures then success: `errors` + 1 findings, for the crash test."""
    steps: list[Step] = []
    for i in range(errors):
        steps.append((LAUNCH, f"ImportError: libfoo{i}.so.1: cannot open shared object file: No such file or directory", True))
        steps.append((f"export LD_LIBRARY_PATH=/opt/foo{i}/lib", "", False))
    steps.append((LAUNCH, READY, False))
    return claude_session(session, start, steps)


def write_corpus(root: Path, *, flat: bool = False) -> Path:
    """The index and search tests' corpus: two sessions in a/, two in b/ (or all four in root when
    `flat`): a fix that held, one that did not, a catch-22, an unrelated ptxas error."""
    a, b = (root, root) if flat else (root / "a", root / "b")
    write(a / "ptxas.jsonl", ptxas_fixed())
    write(a / "nvrtc.jsonl", nvrtc_fixed())
    write(b / "c22.jsonl", ptxas_catch22())
    write(b / "other.jsonl", other_ptxas())
    return root
