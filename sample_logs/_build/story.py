"""One format-neutral story definition; every writer renders the same items.

An *event* (what `logsleuth events` lists) is one user text, one reasoning block, one
assistant text, one tool call or one tool result. `events()` enumerates them exactly in the
order every reader must produce them, so the seqs in case.yaml are right by construction.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta


@dataclass
class Call:
    """One tool call and its result."""

    command: str  # shell command exactly as issued (or a path for file tools)
    output: str = ""
    exit_code: int = 0
    duration: float = 1.5  # seconds between call and result
    description: str = ""
    tool: str = "bash"  # bash | edit | read
    status: str = "ok"  # ok | timeout | rejected | sibling_error | tool_error
    timeout_ms: int | None = None
    edit: dict[str, str] | None = None  # file_path, old_string, new_string, original
    key: str = ""

    @property
    def failed(self) -> bool:
        return self.status != "ok" or self.exit_code != 0


@dataclass
class Turn:
    """One assistant response: optional reasoning, optional text, then its tool calls."""

    at: float  # seconds after the story start
    thinking: str | None = None
    text: str | None = None
    calls: list[Call] = field(default_factory=list)
    key: str = ""
    thought_subject: str = ""  # Gemini records a subject line per thought


@dataclass
class User:
    at: float
    text: str
    key: str = ""
    interrupt: bool = False  # Claude Code's "[Request interrupted by user for tool use]"


Item = User | Turn


@dataclass(frozen=True)
class Ev:
    seq: int
    role: str
    kind: str
    key: str
    text: str
    ts: datetime


def ts_of(start: datetime, at: float) -> datetime:
    return start + timedelta(seconds=at)


def turn_times(start: datetime, turn: Turn) -> dict[str, datetime]:
    """Timestamps of a turn's parts: reasoning, text, each call and each result."""
    t = ts_of(start, turn.at)
    out = {"reasoning": t}
    t_text = t + timedelta(seconds=4.2 if turn.thinking else 0.0)
    out["text"] = t_text
    t_call = t_text + timedelta(seconds=1.1 if turn.text else 0.0)
    for i in range(len(turn.calls)):
        out[f"call{i}"] = t_call + timedelta(seconds=0.35 * i)
    last = t_call
    for i, c in enumerate(turn.calls):
        done = out[f"call{i}"] + timedelta(seconds=c.duration)
        last = max(last, done)
        out[f"result{i}"] = done
    out["end"] = last
    return out


class Script:
    """A story's items in time order; `clock` is where the last one ended (seconds after start)."""

    def __init__(self, start: datetime, first: User):
        self.start = start
        self.items: list[Item] = [first]
        self.clock = 0.0

    def turn(self, gap: float, key: str, calls: list[Call], thinking: str | None = None,
             text: str | None = None) -> Turn:
        """A turn `gap` seconds after the previous one ended; its calls get keys from `key`."""
        for i, c in enumerate(calls):
            c.key = c.key or (key if len(calls) == 1 else f"{key}.{i}")
        t = Turn(at=self.clock + gap, thinking=thinking, text=text, calls=calls, key=key)
        self.items.append(t)
        self.clock = (turn_times(self.start, t)["end"] - self.start).total_seconds()
        return t


def events(items: list[Item], start: datetime) -> list[Ev]:
    """The event table every reader must produce for this story (Claude/opencode/Codex order)."""
    evs: list[Ev] = []

    def add(role: str, kind: str, key: str, text: str, ts: datetime) -> None:
        evs.append(Ev(len(evs), role, kind, key, text, ts))

    prev_end = start - timedelta(seconds=1)
    for it in items:
        if isinstance(it, User):
            t = ts_of(start, it.at)
            assert t > prev_end, f"user item {it.key} overlaps the previous turn"
            add("user", "text", it.key, it.text, t)
            prev_end = t
            continue
        tt = turn_times(start, it)
        assert tt["reasoning"] > prev_end, f"turn {it.key} starts before the previous one ended"
        if it.thinking:
            add("assistant", "reasoning", f"{it.key}:reasoning", it.thinking, tt["reasoning"])
        if it.text:
            add("assistant", "text", f"{it.key}:text", it.text, tt["text"])
        for i, c in enumerate(it.calls):
            add("assistant", "tool_call", f"{c.key}:call", c.command, tt[f"call{i}"])
        for i, c in enumerate(it.calls):
            add("tool", "tool_result", f"{c.key}:result", c.output, tt[f"result{i}"])
        prev_end = tt["end"]
    return evs


def seq_of(evs: list[Ev], key: str) -> int:
    for e in evs:
        if e.key == key:
            return e.seq
    raise KeyError(key)


# --- deterministic identifiers -------------------------------------------------------------

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def b62(*parts: object, n: int = 22) -> str:
    num = int.from_bytes(digest(*parts), "big")
    out = []
    for _ in range(n):
        num, r = divmod(num, 62)
        out.append(_B62[r])
    return "".join(out)


def hexid(*parts: object, n: int = 16) -> str:
    return digest(*parts).hex()[:n]


def uid(*parts: object) -> str:
    return str(uuid.UUID(bytes=digest(*parts)[:16], version=4))


def signature(*parts: object, n: int = 240) -> str:
    """An opaque base64 blob shaped like a thinking signature / encrypted reasoning."""
    raw = b"".join(digest(*parts, i) for i in range(n // 32 + 1))[: n * 3 // 4]
    return base64.b64encode(raw).decode()


def iso_ms(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def epoch_ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)
