"""Shared helpers for the JSON-shaped readers (gemini, openai-messages): tolerant, position-aware
scanning of a JSON document, JSONL record iteration, and per-line accounting.

Readers of whole JSON documents still need a line number for every message (provenance) and must
keep what precedes a truncation or a malformed element, so documents are walked element by element
with `json.JSONDecoder.raw_decode` (the C scanner) instead of one `orjson.loads`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReportBuilder, iter_lines, session_from_path, transcript
from logsleuth.ingest.tools import is_shell
from logsleuth.model import Transcript

MAX_RECORD_BYTES = 16 * 1024 * 1024  # a JSONL record larger than this is skipped as a runaway line
_WS = re.compile(r"[ \t\n\r]*")


def bounded_int(literal: str) -> int | float:
    """A JSON integer literal as `json` reads it, except one past Python's 4300-digit limit for
    `int()` (a mutated or hostile file): a float (inf), not a ValueError that drops the document."""
    return int(literal) if len(literal) <= 4000 else float(literal)


DECODER = json.JSONDecoder(parse_int=bounded_int)  # the stdlib decoder every reader uses
_DECODER = DECODER
_EXIT_CODE = re.compile(r"^\s*(?:Exit Code|Exit code|exit code|exit_code|Exit status)\s*[:=]\s*(-?\d{1,20})\b", re.M)


# ---------------------------------------------------------------------------------------------
# per-line accounting


class LineLedger:
    """What happened to every physical line: used > skipped > ignored, one skip entry per line.

    A document can put several messages on one line (minified JSON), so lines are classified once
    each at the end; that keeps `lines == used + ignored + skipped` true by construction.
    """

    _IGNORED, _USED, _SKIPPED = 0, 1, 2

    def __init__(self, lines: int = 0):
        self._state = bytearray(lines + 1)  # index 0 unused: lines are 1-based
        self._reasons: dict[int, list[str]] = {}

    @property
    def lines(self) -> int:
        return len(self._state) - 1

    def grow(self, lines: int) -> None:
        if lines > self.lines:
            self._state.extend(bytes(lines - self.lines))

    def use(self, first: int, last: int | None = None) -> None:
        last = first if last is None else last
        self.grow(last)
        for n in range(first, last + 1):
            if self._state[n] != self._SKIPPED:
                self._state[n] = self._USED

    def skip(self, line: int, reason: str) -> None:
        self.grow(line)
        self._state[line] = self._SKIPPED
        self._reasons.setdefault(line, []).append(reason)

    def is_skipped(self, line: int) -> bool:
        return line <= self.lines and self._state[line] == self._SKIPPED

    def apply(self, report: ReportBuilder) -> None:
        report.lines = self.lines
        report.used = self._state.count(self._USED)
        for line in sorted(self._reasons):
            reasons = self._reasons[line]
            report.skip(line, reasons[0] if len(reasons) == 1 else f"{len(reasons)} bad records: {reasons[0]}")
        report.ignored = report.lines - report.used - len(report.skipped)


# ---------------------------------------------------------------------------------------------
# JSON documents


def decode_text(raw: bytes) -> tuple[str, list[int]]:
    """Decode UTF-8 with replacement; also return the 1-based lines that held invalid bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        bad: list[int] = []
        pos = 0
        while True:
            try:
                raw[pos:].decode("utf-8")
                break
            except UnicodeDecodeError as exc:
                at = pos + exc.start
                line = raw.count(b"\n", 0, at) + 1
                if not bad or bad[-1] != line:
                    bad.append(line)
                pos = at + max(1, exc.end - exc.start)
        text = raw.decode("utf-8", "replace")
        return text.lstrip("\ufeff"), bad
    return text.lstrip("\ufeff"), []


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


class LineIndex:
    """Character offset -> 1-based line; cheap for increasing offsets (the scan order)."""

    def __init__(self, text: str):
        self.text = text
        self._pos = 0
        self._line = 1

    def line(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 1
        self._line += self.text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line


@dataclass
class Element:
    """One decoded element of the scanned array, or the reason it could not be decoded."""

    value: Any
    first: int  # first line
    last: int  # last line
    error: str | None = None


@dataclass
class Scanned:
    """A JSON document walked member by member: top-level scalars and the elements of one array."""

    kind: str  # "object" | "array" | "other"
    members: dict[str, Any] = field(default_factory=dict)  # top-level members except the array
    elements: list[Element] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # (line, reason) outside elements
    found_array: bool = False


def _ws(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m else pos


def _short(exc: json.JSONDecodeError) -> str:
    return f"malformed JSON ({exc.msg})"


def scan_document(text: str, array_key: str | None) -> Scanned:
    """Walk a JSON document. A top-level array is scanned element by element; for a top-level
    object, the member named `array_key` is. Truncation or a malformed element never raises: what
    decoded before it is kept, and pretty-printed arrays resynchronise on the next sibling element."""
    idx = LineIndex(text)
    pos = _ws(text, 0)
    if pos >= len(text):
        return Scanned("other")
    if text[pos] == "[":
        out = Scanned("array", found_array=True)
        _scan_array(text, pos, idx, out)
        return out
    if text[pos] != "{":
        out = Scanned("other")
        out.errors.append((idx.line(pos), "not a JSON object or array"))
        return out
    out = Scanned("object")
    pos = _ws(text, pos + 1)
    while pos < len(text):
        if text[pos] == "}":
            return out
        try:
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _ws(text, pos)
            if not isinstance(key, str) or text[pos : pos + 1] != ":":
                raise json.JSONDecodeError("expected a member name", text, pos)
            pos = _ws(text, pos + 1)
            if key == array_key and text[pos : pos + 1] == "[":
                out.found_array = True
                pos = _scan_array(text, pos, idx, out)
                if pos < 0:
                    return out
            else:
                out.members[key], pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            out.errors.append((idx.line(min(exc.pos, len(text) - 1)), _truncated_or(exc, text)))
            return out
        except RecursionError:
            out.errors.append((idx.line(pos), "JSON nested too deeply"))
            return out
        pos = _ws(text, pos)
        if text[pos : pos + 1] == ",":
            pos = _ws(text, pos + 1)
        elif text[pos : pos + 1] != "}":
            out.errors.append((idx.line(min(pos, len(text) - 1)), "truncated JSON document"))
            return out
    out.errors.append((idx.line(max(0, len(text) - 1)), "truncated JSON document"))
    return out


def _truncated_or(exc: json.JSONDecodeError, text: str) -> str:
    # a document cut short does not end with its closing bracket; a malformed one does
    if exc.pos >= len(text.rstrip()) - 1 or not text.rstrip().endswith(("]", "}")):
        return "truncated JSON document"
    return _short(exc)


def _scan_array(text: str, pos: int, idx: LineIndex, out: Scanned) -> int:
    """Scan the array at `pos` into out.elements; return the offset after `]`, or -1 when cut short."""
    pos = _ws(text, pos + 1)
    n = len(text)
    while pos < n:
        if text[pos] == "]":
            return pos + 1
        start = pos
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError) as exc:
            first = idx.line(start)
            reason = _truncated_or(exc, text) if isinstance(exc, json.JSONDecodeError) else "JSON nested too deeply"
            resume = _resync(text, start)
            if resume < 0:
                out.elements.append(Element(None, first, count_lines(text), reason))
                return -1
            out.elements.append(Element(None, first, idx.line(resume) - 1, reason))
            pos = resume
            continue
        out.elements.append(Element(value, idx.line(start), idx.line(max(start, pos - 1))))
        pos = _ws(text, pos)
        if text[pos : pos + 1] == ",":
            pos = _ws(text, pos + 1)
        elif text[pos : pos + 1] != "]":
            if pos >= n:
                out.errors.append((idx.line(n - 1), "truncated JSON document"))
            else:
                out.errors.append((idx.line(pos), "malformed JSON (expected ',' or ']')"))
            return -1
    out.errors.append((idx.line(max(0, n - 1)), "truncated JSON document"))
    return -1


def _resync(text: str, start: int) -> int:
    """Offset of the next sibling of a malformed pretty-printed element (same indent), or -1."""
    line_start = text.rfind("\n", 0, start) + 1
    indent = text[line_start:start]
    if indent.strip():  # minified: no reliable sibling boundary
        return -1
    needle = "\n" + indent + text[start]
    found = text.find(needle, start + 1)
    return -1 if found < 0 else found + 1 + len(indent)


# ---------------------------------------------------------------------------------------------
# JSONL


def iter_jsonl(f: IO[bytes], ledger: LineLedger) -> Iterator[tuple[int, Any]]:
    """Yield (line, decoded value) for every well-formed JSONL record; blank lines are left
    ignored, and unreadable lines are skipped in the ledger with their reason."""
    for n, raw in iter_lines(f):
        ledger.grow(n)
        if not raw.strip():
            continue
        if len(raw) > MAX_RECORD_BYTES:
            ledger.skip(n, f"line too long ({len(raw)} bytes)")
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            ledger.skip(n, f"invalid UTF-8 at byte {exc.start}")
            continue
        try:
            yield n, orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            ledger.skip(n, f"malformed JSON ({str(exc).split(':')[0]})")


def first_record(head: bytes) -> Any:
    """The first JSONL record of the probe head, decoded; None when it is not complete JSON."""
    for raw in head.split(b"\n"):
        if raw.strip():
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                return None
    return None


def first_element(head: bytes, array_key: str | None) -> tuple[str, dict[str, Any], Any]:
    """Cheap structural peek at a JSON document head: (kind, top-level members seen before the
    array, its first element or None). Works on a truncated head (only what precedes is decoded)."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    pos = _ws(text, 0)
    if text[pos : pos + 1] == "[":
        return "array", {}, _peek_first(text, pos)
    if text[pos : pos + 1] != "{":
        return "other", {}, None
    members: dict[str, Any] = {}
    pos = _ws(text, pos + 1)
    try:
        while pos < len(text) and text[pos] != "}":
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _ws(text, pos)
            if text[pos : pos + 1] != ":":
                break
            pos = _ws(text, pos + 1)
            if key == array_key and text[pos : pos + 1] == "[":
                return "object", members, _peek_first(text, pos)
            members[key], pos = _DECODER.raw_decode(text, pos)
            pos = _ws(text, pos)
            if text[pos : pos + 1] == ",":
                pos = _ws(text, pos + 1)
    except json.JSONDecodeError:
        pass
    return "object", members, None


def _peek_first(text: str, pos: int) -> Any:
    pos = _ws(text, pos + 1)
    try:
        value, _ = _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        return None
    return value


# ---------------------------------------------------------------------------------------------
# small shared normalisers


def shell_or_json(name: str, args: Any) -> str:
    """A call's text: a shell tool's `command` string, else its arguments as compact JSON."""
    if is_shell(name) and isinstance(args, dict) and isinstance(args.get("command"), str):
        return str(args["command"])
    return compact_json(args if args is not None else {})


def compact_json(value: Any) -> str:
    """Deterministic compact JSON (sorted keys) for tool arguments that are not a shell command."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def exit_code_in(text: str) -> int | None:
    """An `Exit Code: N` style line in tool output (gemini run_shell_command and many wrappers)."""
    m = _EXIT_CODE.search(text)
    if not m:
        return None
    try:
        return int(m.group(1))
    except ValueError:
        return None


def str_or(value: Any, default: str | None = None) -> str | None:
    """`value` when it is a string, else `default` (records from the wild have wrong types)."""
    return value if isinstance(value, str) else default


def as_str(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    return compact_json(value)


def looks_like_jsonl(text: str, single: Any = None) -> bool:
    """One JSON value per line rather than one (pretty-printed) document.

    Several of the first lines must each parse on their own (a bad first line — truncated,
    nested too deeply — must not turn a log into a broken document). A lone line counts as JSONL
    only when `single(record)` says it is a bare record of the log.
    """
    lines = [ln for ln in text.strip().splitlines()[:8] if ln.strip()]
    parsed = []
    for ln in lines:
        try:
            parsed.append(orjson.loads(ln))
        except orjson.JSONDecodeError:
            continue
    if len(lines) > 1:
        return len(parsed) >= max(1, min(2, len(lines) - 1))
    return bool(parsed) and single is not None and bool(single(parsed[0]))


def read_each_jsonl(probe: Probe, fmt: str,
                    make_feed: Callable[[EventSink, LineLedger, str], Callable[[int, Any], None]]) -> Transcript:
    """The frame of a reader of JSONL fed one record at a time: `make_feed(sink, ledger, session)`
    gives the function each (line, record) goes to; the session is named from the file until a record says."""
    ledger = LineLedger()
    sid = session_from_path(probe.display)
    sink = EventSink(sid, probe.display)
    feed = make_feed(sink, ledger, sid)
    with probe.open() as f:
        for n, rec in iter_jsonl(f, ledger):
            feed(n, rec)
    report = ReportBuilder(probe.display, fmt)
    ledger.apply(report)
    return transcript(sink, report)


def read_json_or_jsonl(
    probe: Probe,
    fmt: str,
    is_jsonl: Callable[[str], bool],
    read_lines: Callable[[bytes, EventSink, LineLedger], None],
    read_document: Callable[[str, list[int], EventSink, LineLedger], None],
) -> Transcript:
    """The shared frame of the readers whose files are either one JSON document or JSONL."""
    with probe.open() as f:
        raw = f.read()
    report = ReportBuilder(probe.display, fmt)
    sink = EventSink(session_from_path(probe.display), probe.display)
    text, bad_lines = decode_text(raw)
    if is_jsonl(text):
        ledger = LineLedger()
        read_lines(raw, sink, ledger)
    else:
        ledger = LineLedger(count_lines(text))
        read_document(text, bad_lines, sink, ledger)
    ledger.apply(report)
    return transcript(sink, report)
