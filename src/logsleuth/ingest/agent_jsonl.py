"""Streaming JSONL records for the agent-transcript readers (Claude Code, Codex).

One line in memory at a time, every line counted exactly once in the report: blank lines are
ignored, lines that are not JSON (malformed, truncated, over-long) are skipped with a reason,
and everything else is handed to the reader, which must count it as used, ignored or skipped.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO, Any

import orjson

from logsleuth.ingest.base import HEAD_BYTES, ReportBuilder

CHUNK_BYTES = 1 << 20
# A line longer than this is dropped unread (a runaway binary blob, not a transcript record).
MAX_LINE_BYTES = 64 << 20


class BadRecord(ValueError):
    """A JSON record a reader cannot use; the message becomes the skip reason."""


def iter_raw_lines(f: IO[bytes]) -> Iterator[tuple[int, bytes | None, bool, str]]:
    """Yield (1-based line, bytes or None when unusable, ended with a newline, error).

    Reads fixed-size chunks rather than `readline` because zstandard's stream reader has no
    line iteration, and so that an endless line never has to fit in memory. A stream that
    breaks mid-way (corrupt gzip/zstd) ends with one final line carrying the error.
    """
    buf = bytearray()
    n = 0
    overlong = False
    # read1 returns what one decompression step yields: a corrupt tail loses only itself
    read = getattr(f, "read1", None) or f.read
    while True:
        try:
            chunk = read(CHUNK_BYTES)
        except io.UnsupportedOperation:
            if read == f.read:
                raise
            read = f.read
            continue
        except Exception as exc:  # corrupt compressed data: keep what was read
            yield n + 1, None, False, f"unreadable input ({type(exc).__name__}: {exc})"
            return
        if not chunk:
            break
        start = 0
        while True:
            i = chunk.find(b"\n", start)
            if i < 0:
                if not overlong:
                    buf += chunk[start:]
                    if len(buf) > MAX_LINE_BYTES:
                        overlong = True
                        buf.clear()
                break
            n += 1
            if overlong or len(buf) + (i - start) > MAX_LINE_BYTES:
                yield n, None, True, f"line longer than {MAX_LINE_BYTES >> 20} MiB"
            elif buf:
                buf += chunk[start:i]
                yield n, _chomp(bytes(buf)), True, ""
            else:
                yield n, _chomp(chunk[start:i]), True, ""
            buf.clear()
            overlong = False
            start = i + 1
    if overlong:
        yield n + 1, None, False, f"line longer than {MAX_LINE_BYTES >> 20} MiB"
    elif buf:
        yield n + 1, _chomp(bytes(buf)), False, ""


def _chomp(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


def loads(raw: bytes) -> Any:
    """Parse one JSON line; invalid UTF-8 is replaced (U+FFFD) rather than losing the record."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.decode("utf-8", "replace")
        if "\ufffd" not in text:
            raise
        return orjson.loads(text)


def iter_records(f: IO[bytes], report: ReportBuilder, source: str = "") -> Iterator[tuple[int, bytes, Any]]:
    """Yield (line, raw bytes, parsed value) for every JSON line; count the lines that are not."""
    for n, raw, terminated, error in iter_raw_lines(f):
        report.lines += 1
        if raw is None:
            report.skip(n, error, source)
            continue
        if not raw.strip():
            report.ignored += 1
            continue
        try:
            value = loads(raw)
        except orjson.JSONDecodeError as exc:
            where = "invalid JSON" if terminated else "invalid JSON (truncated last line)"
            report.skip(n, f"{where}: {exc}", source)
            continue
        yield n, raw, value


def head_records(head: bytes, limit: int = 5) -> list[dict[str, Any]]:
    """The first complete JSON-object lines of a probe's head (for cheap sniffing)."""
    pieces = head.split(b"\n")
    if len(head) >= HEAD_BYTES:
        pieces = pieces[:-1]  # the last piece may be cut off by the head limit
    out: list[dict[str, Any]] = []
    for piece in pieces:
        if piece.lstrip(b" \t\r")[:1] != b"{":  # only an object is kept: no parse (and no exception) for a log line
            continue
        try:
            value = orjson.loads(piece)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
            if len(out) >= limit:
                break
    return out


def compact_json(value: Any) -> str:
    """Tool input as one short, deterministic line."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


def block_text(value: Any) -> str:
    """Text of a tool output: a string, or the text parts of a list of content blocks."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for block in value:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, dict) and block.get("type") == "tool_reference" and isinstance(block.get("tool_name"), str):
                parts.append(f"tool: {block['tool_name']}")  # ToolSearch's answer (Claude Code 2.1): the tool it loaded
        return "\n".join(parts)
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    raise BadRecord(f"tool output is {type(value).__name__}, expected text or content blocks")


def type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__
