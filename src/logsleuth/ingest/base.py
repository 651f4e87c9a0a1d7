"""What every reader shares: the input probe, line iteration, the event sink and the report builder."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import gzip
import io
import os
import re
import stat
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import polars as pl

from logsleuth.errors import InputError, Location, shown_path
from logsleuth.ingest.tools import ToolCall, join_values, normalise
from logsleuth.model import CALL_SCHEMA, EVENT_SCHEMA, IngestReport, Kind, Role, Skipped, Transcript

HEAD_BYTES = 64 * 1024
# iter_lines never holds more of one line than this (readers skip such lines as overlong)
MAX_LINE_BYTES = 16 * 1024 * 1024
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # the event table's integer columns
# terminal colour and control sequences (CSI, OSC, two-byte escapes): in the syntax of both
# Python's `re` and Rust's regex (the plain-text reader strips them in polars)
ANSI = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
_ANSI_RE = re.compile(ANSI)
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Probe:
    """An input as readers see it: where it is, its first bytes, and a way to open it decompressed.

    `display` is the path exactly as the user gave it (relative stays relative): it becomes the
    `source` column, so reports never leak absolute paths the user did not type.
    """

    display: str
    path: Path | None  # None for stdin (then `spool` holds the bytes)
    is_dir: bool
    head: bytes  # decompressed first bytes ("" for directories)
    compression: str | None = None  # "gzip" | "zstd" | None
    spool: Any = None  # a seekable file holding stdin
    encoding: str | None = None  # "utf-16" | "utf-32" (from a byte-order mark): read as UTF-8
    nul_head: int = 0  # NUL bytes at the file's head, skipped (a log truncated by `logrotate copytruncate`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "display", shown_path(self.display))

    @property
    def name(self) -> str:
        """File name without compression suffix (for detection by name)."""
        if self.path is None:
            return "-"
        name = shown_path(self.path.name)
        for suffix in (".gz", ".zst"):
            if self.compression and name.endswith(suffix):
                return name[: -len(suffix)]
        return name

    def open(self) -> IO[bytes]:
        """Open the (decompressed) byte stream from the start."""
        if self.is_dir:
            raise InputError("is a directory", Location(self.display))
        if self.spool is not None:
            self.spool.seek(0)
            raw: IO[bytes] = _NoClose(self.spool)  # type: ignore[assignment]
        else:
            assert self.path is not None
            raw = open(self.path, "rb")  # noqa: SIM115 - returned to caller
            if self.nul_head:
                raw.seek(self.nul_head)
        if self.compression is None:
            return raw if self.encoding is None else _utf8_of(raw, self.encoding)
        from logsleuth.ingest.bounds import bounded

        size = self.spool.seek(0, 2) if self.spool is not None else (self.path.stat().st_size if self.path else None)
        if self.spool is not None:
            self.spool.seek(0)
        if self.compression == "gzip":
            out = bounded(gzip.GzipFile(fileobj=raw), self.display, size)  # a bomb stops at the bound
        else:
            import zstandard

            # buffered: readers iterate lines
            out = bounded(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True), self.display, size)
        return out if self.encoding is None else _utf8_of(out, self.encoding)


# byte-order marks of the encodings a Windows tool may write a log in (PowerShell 5's `>` writes
# UTF-16): such a file is text, not binary; UTF-32's marks first (FF FE 00 00 starts with FF FE)
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def _encoding_of(first: bytes) -> str | None:
    return next((enc for bom, enc in _BOMS if first.startswith(bom)), None)


class _Utf8(io.RawIOBase):
    """A UTF-16/32 stream as UTF-8 bytes, decoded as it is read (the mark consumed, bad units
    replaced): readers and line numbers see the text the file holds."""

    def __init__(self, raw: IO[bytes], encoding: str):
        self._text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
        self._buf = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._buf:
            chunk = self._text.read(1 << 16)
            if not chunk:
                return 0
            self._buf = chunk.encode("utf-8", "replace")
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        self._text.close()
        super().close()


def _utf8_of(raw: IO[bytes], encoding: str) -> IO[bytes]:
    return io.BufferedReader(_Utf8(raw, encoding), 1 << 16)


class _NoClose(io.BufferedIOBase):
    """Wraps the stdin spool so that closing a reader does not close the spool."""

    def __init__(self, f: Any):
        self._f = f

    def read(self, n: int | None = -1) -> bytes:
        return bytes(self._f.read(n))

    def read1(self, n: int = -1) -> bytes:  # what a TextIOWrapper reads with (a UTF-16 stdin)
        return bytes(self._f.read(n))

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        return bytes(self._f.readline(size))

    def close(self) -> None:  # the spool outlives every reader
        pass


def make_probe(arg: str) -> Probe:
    """Build the probe for a command-line argument: a path, a folder, or `-` for stdin."""
    if arg == "-":
        import sys

        from logsleuth.ingest.bounds import spool_stream

        spool = spool_stream(sys.stdin.buffer, "-")  # read once, bounded (an endless stdin is refused)
        first = spool.read(4)
        spool.seek(0)
        comp = _compression_of(first)
        probe = Probe(display="-", path=None, is_dir=False, head=b"", compression=comp, spool=spool)
        return _with_head(probe)
    if not arg:  # Path("") is the current folder: an empty argument (`"$UNSET"`) must not read it
        raise InputError("empty path", Location("''"), "give a file, a folder or - for stdin")
    path = Path(arg)
    try:  # one stat, not three (exists, is_dir, is_file): a folder walk probes every file
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file or directory", Location(arg), "check the path") from None
    except PermissionError as exc:  # a folder on the way cannot be searched
        raise InputError("permission denied", Location(arg), "check the permissions of its folders") from exc
    except OSError as exc:  # a name too long, a symlink loop, a broken mount, …
        if exc.errno == errno.ELOOP:
            raise InputError("no such file or directory", Location(arg), "check the path") from None
        raise InputError(f"cannot access: {exc.strerror or exc}", Location(arg)) from exc
    if stat.S_ISDIR(mode):
        if not os.access(path, os.R_OK | os.X_OK):
            raise InputError("permission denied", Location(arg))
        return Probe(display=arg, path=path, is_dir=True, head=b"")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/urandom would be read to the size bound first
        raise InputError("a device, not a file", Location(arg),
                         "to read from it, pipe a bounded part: `head -c 100M DEVICE | logsleuth … -`")
    if not stat.S_ISREG(mode):  # a FIFO, a socket: read once (opening twice would block), bounded
        return _stream_probe(arg, path)
    nul_head = 0
    try:
        with open(path, "rb") as f:
            first = f.read(HEAD_BYTES)
            if first[:1] == b"\x00":
                nul_head, first = skip_nul_head(f, first)
    except PermissionError as exc:
        raise InputError("permission denied", Location(arg), "check the file's permissions") from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", Location(arg)) from exc
    compression = _compression_of(first)
    if compression is None and _encoding_of(first) is None:  # the head is the bytes read: no second open
        return Probe(display=arg, path=path, is_dir=False, head=first, compression=None, nul_head=nul_head)
    return _with_head(Probe(display=arg, path=path, is_dir=False, head=b"", compression=compression))


FIFO_WAIT_S = 10.0  # how long a FIFO may stay silent at open before it is refused (no writer)


def _open_fifo(arg: str, path: Path) -> int:
    """A blocking descriptor of the FIFO once something is written to it (or its writer closed it);
    refused with a located line after FIFO_WAIT_S of silence: a FIFO without a writer blocks forever."""
    import select

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    if not poller.poll(int(FIFO_WAIT_S * 1000)):
        os.close(fd)
        raise InputError(f"a FIFO that nothing wrote to in {FIFO_WAIT_S:.0f} s (no writer?)", Location(arg),
                         "start its writer first, or pipe the input into `-`")
    os.set_blocking(fd, True)
    return fd


def skip_nul_head(f: IO[bytes], first: bytes) -> tuple[int, bytes]:
    """(how many NUL bytes start the file, the HEAD_BYTES after them): what `copytruncate` or a
    crash leaves at a log's head is skipped, not taken for a binary file. Sparse holes are jumped."""
    pos = 0  # the offset of `first` in the file
    while first and not first.strip(b"\x00"):
        pos = f.tell()
        with contextlib.suppress(OSError):  # ENXIO: no data past `pos`; read on
            pos = os.lseek(f.fileno(), pos, os.SEEK_DATA)
            f.seek(pos)
        first = f.read(HEAD_BYTES)
    skipped = pos + len(first) - len(first.lstrip(b"\x00"))
    f.seek(skipped)
    return skipped, f.read(HEAD_BYTES)


def _stream_probe(arg: str, path: Path) -> Probe:
    from logsleuth.ingest.bounds import spool_stream

    try:
        fd = _open_fifo(arg, path)
        with os.fdopen(fd, "rb") as f:
            spool = spool_stream(f, arg)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", Location(arg)) from exc
    first = spool.read(4)
    spool.seek(0)
    return _with_head(Probe(display=arg, path=path, is_dir=False, head=b"", compression=_compression_of(first), spool=spool))


def _compression_of(first: bytes) -> str | None:
    if first.startswith(_GZIP_MAGIC):
        return "gzip"
    if first.startswith(_ZSTD_MAGIC):
        return "zstd"
    return None


def _with_head(probe: Probe) -> Probe:
    try:
        with probe.open() as f:
            head = f.read(HEAD_BYTES)
        if probe.encoding is None and (enc := _encoding_of(head)) is not None:  # text of a wider encoding
            probe = dataclasses.replace(probe, encoding=enc)
            with probe.open() as f:
                head = f.read(HEAD_BYTES)
    except Exception as exc:
        if probe.compression and is_decompression_error(exc):
            raise InputError(f"cannot decompress ({probe.compression}): {exc}", Location(probe.display)) from exc
        if isinstance(exc, OSError):
            raise InputError(f"cannot read: {exc.strerror or exc}", Location(probe.display)) from exc
        raise
    return dataclasses.replace(probe, head=head)


def is_decompression_error(exc: BaseException) -> bool:
    """What gzip / zstandard raise on a corrupt or truncated stream (zstandard imported lazily)."""
    return isinstance(exc, (EOFError, OSError, zlib.error)) or type(exc).__name__ == "ZstdError"


def iter_lines(f: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line without the line ending). Streams: one line in memory at a time.

    A line longer than `max_bytes` comes back as its first `max_bytes + 1` bytes, so that
    `len(line) > limit` tells a reader it is overlong; the rest of it is skipped unread, so that a
    runaway line (a 200 MB blob, a binary file without newlines) never has to fit in memory.
    """
    n = 0
    readline = f.readline
    while raw := readline(max_bytes + 1):
        n += 1
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            while (rest := readline(1 << 20)) and not rest.endswith(b"\n"):
                pass
            yield n, raw
            continue
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield n, raw


def parse_ts(value: Any) -> datetime | None:
    """Normalise an ISO-8601 string, epoch seconds/milliseconds or datetime to aware UTC; None if unusable."""
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        if isinstance(value, (int, float)):
            secs = value / 1000.0 if value > 1e11 else float(value)
            return datetime.fromtimestamp(secs, tz=UTC)
        if isinstance(value, str) and value:
            s = value.strip()
            if s.endswith("Z"):
                s = s[:-1] + "+00:00"
            dt = datetime.fromisoformat(s)
            return dt.astimezone(UTC) if dt.tzinfo else dt.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


_BASE_COLUMNS = tuple(c for c in EVENT_SCHEMA if c not in CALL_SCHEMA)


class EventSink:
    """Accumulates events column by column (cheap for millions of rows) and assigns `seq` per session.
    A tool call is normalised here (ingest/tools.py), once, whatever reader adds it."""

    # Python strings cost about twice their polars form: every this many characters of text the
    # columns so far become a polars part, so a 200 MB transcript never holds all its texts twice
    FLUSH_CHARS = 32 * 1024 * 1024

    def __init__(self, session: str, source: str):
        self.session = session
        self.source = source
        self._cols: dict[str, list[Any]] = {c: [] for c in _BASE_COLUMNS}
        self._calls: list[tuple[int, ToolCall]] = []  # (row in _cols, the call normalised): few rows are calls
        self._seq: dict[str, int] = {}
        # (session, call id as read) -> (calls that used it, the ids given to its calls still
        # waiting for a result, oldest first; the id its latest call was given)
        self._ids: dict[tuple[str, str], tuple[int, deque[str], str]] = {}
        self._parts: list[pl.DataFrame] = []
        self._flushed = 0  # rows in _parts
        self._chars = 0  # text characters in _cols

    def __len__(self) -> int:
        return self._flushed + len(self._cols["line"])

    def add(
        self,
        *,
        line: int,
        role: Role | str,
        kind: Kind | str,
        text: str,
        ts: Any = None,
        tool: str | None = None,
        call_id: str | None = None,
        is_error: bool | None = None,
        exit_code: int | None = None,
        session: str | None = None,
        source: str | None = None,
    ) -> None:
        sess = one_line_id(session or self.session)
        seq = self._seq.get(sess, 0)
        self._seq[sess] = seq + 1
        c = self._cols
        c["session"].append(sess)
        c["source"].append(source or self.source)
        c["line"].append(line)
        c["seq"].append(seq)
        c["ts"].append(parse_ts(ts))
        c["role"].append(str(role))
        c["kind"].append(str(kind))
        c["tool"].append(tool)
        c["call_id"].append(self._call_id(sess, str(kind), call_id))
        clean = text.replace("\x00", "") if text else ""
        if "\x1b" in clean:  # coloured tool output: `PASSWORD\x1b[0m: X` hid the value from masking and patterns
            clean = _ANSI_RE.sub("", clean)
        c["text"].append(clean)
        self._chars += len(clean)
        if str(kind) == Kind.TOOL_CALL:
            call = normalise(tool, clean)
            self._calls.append((len(c["text"]) - 1, call))
            self._chars += len(call.command or "") + len(call.added or "") + len(call.removed or "")
        c["is_error"].append(is_error if isinstance(is_error, bool) else None)
        c["exit_code"].append(
            exit_code
            if isinstance(exit_code, int) and not isinstance(exit_code, bool) and _INT64_MIN <= exit_code <= _INT64_MAX
            else None
        )
        if self._chars >= self.FLUSH_CHARS:
            self._flush()

    def _call_id(self, sess: str, kind: str, call_id: str | None) -> str | None:
        """A call id unique in its session: a reused one (an OpenAI `call_0` per turn, a local
        server's `call_0` for each of a turn's parallel calls, a Codex id replayed) becomes `id~2`,
        `id~3`…; a result takes the id of the oldest call still waiting for one, else of the
        latest (a call's second result). Every later step pairs a call with its result by id;
        with reuse, the pairing was every call with every result (wrong, and quadratic)."""
        if call_id is None:
            return None
        key = (sess, call_id)
        hit = self._ids.get(key)
        if kind == Kind.TOOL_CALL:
            n = hit[0] + 1 if hit else 1
            given = call_id if n == 1 else f"{call_id}~{n}"
            waiting = hit[1] if hit else deque()
            waiting.append(given)
            self._ids[key] = (n, waiting, given)
            return given
        if hit is None:
            return call_id
        return hit[1].popleft() if hit[1] else hit[2]

    def _flush(self) -> None:
        part = self._part()
        self._parts.append(part)
        self._flushed += part.height
        self._cols = {c: [] for c in _BASE_COLUMNS}
        self._calls = []
        self._chars = 0

    def _part(self) -> pl.DataFrame:
        cols = {**self._cols, **self._call_columns()}
        try:
            return pl.DataFrame(cols, schema=EVENT_SCHEMA)
        except UnicodeEncodeError:
            # a lone surrogate (`"\ud800"` decoded by the json module) cannot become UTF-8: replace
            # it with U+FFFD rather than lose the input; checked only on failure, so the usual
            # path costs nothing
            for col, dtype in EVENT_SCHEMA.items():
                if dtype == pl.Utf8:
                    cols[col] = [_valid_utf8(v) for v in cols[col]]
            return pl.DataFrame(cols, schema=EVENT_SCHEMA)

    def _call_columns(self) -> dict[str, list[Any]]:
        n = len(self._cols["line"])
        cols: dict[str, list[Any]] = {c: [None] * n for c in CALL_SCHEMA}
        for i, call in self._calls:
            cols["tool_kind"][i] = call.kind.value
            cols["command"][i] = call.command
            cols["paths"][i] = join_values(call.kind, call.paths)
            cols["changes"][i] = join_values(call.kind, call.changes)
            cols["added"][i] = call.added
            cols["removed"][i] = call.removed
            cols["background"][i] = call.background
        return cols

    def frame(self) -> pl.DataFrame:
        if not self._parts:
            return self._part()
        return pl.concat([*self._parts, self._part()], rechunk=False)


def _valid_utf8(value: str | None) -> str | None:
    if value is None:
        return None
    return _SURROGATE.sub("\ufffd", value)


_SURROGATE = re.compile("[\ud800-\udfff]")


class ReportBuilder:
    """Counts what happened to every input line, so that lines == used + ignored + skipped."""

    def __init__(self, source: str, fmt: str):
        self.source = source
        self.format = fmt
        self.lines = 0
        self.used = 0
        self.ignored = 0
        self.skipped: list[Skipped] = []

    def skip(self, line: int, reason: str, source: str = "") -> None:
        self.skipped.append(Skipped(line, reason[:200], source))

    def finish(self, events: int, parts: tuple[IngestReport, ...] = ()) -> IngestReport:
        return IngestReport(
            source=self.source,
            format=self.format,
            lines=self.lines,
            events=events,
            used=self.used,
            ignored=self.ignored,
            skipped=tuple(self.skipped),
            parts=parts,
        )


def transcript(sink: EventSink, report: ReportBuilder) -> Transcript:
    frame = sink.frame()
    return Transcript(frame, report.finish(frame.height))


def session_from_path(display: str) -> str:
    """A session id derived from the file name when the format carries none."""
    name = Path(display).name if display != "-" else "stdin"
    for suffix in (".gz", ".zst", ".jsonl", ".json", ".log", ".txt", ".md", ".db"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return one_line_id(name) or "session"


_ID_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def one_line_id(value: str) -> str:
    """A session id as one line of text: control characters (a newline, an escape) become a
    space. Ids are put into headings, code spans and table cells: a newline in one ended the
    code span and made the rest of it a heading of the report."""
    if not _ID_CONTROLS.search(value):
        return value
    return _ID_CONTROLS.sub(" ", _ANSI_RE.sub("", value)).strip() or "session"


@dataclass(frozen=True)
class ReaderSpec:
    """One input format: a cheap `sniff` on the probe (first bytes, name, folder layout) and `read`.

    The one reader contract: every module in detect.READER_MODULES lists its specs in `READERS`;
    `read` returns a Transcript whose report accounts for every line (`IngestReport.balanced`)."""

    name: str
    sniff: Callable[[Probe], bool]
    read: Callable[[Probe], Transcript]
    description: str = ""
    dirs: bool = False  # True when `sniff` may accept a folder (a storage folder, a session folder)


# what an agent's harness writes into the user's turn (Claude Code's tags and notes)
_HARNESS = ("<task-notification>", "<system-reminder>", "<command-", "<local-command-stdout>",
            "<local-command-stderr>", "[Request interrupted",
            "Caveat: The messages below were generated by the user while running local commands")


def harness_text(text: str) -> bool:
    """Text in the user's turn that the harness wrote, not the user: a background task's
    notification, a reminder, a slash command's echo. It is never a request or a follow-up."""
    return text.lstrip().startswith(_HARNESS)
