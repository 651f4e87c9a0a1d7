"""Bounds on what an input may make a reader hold or read: decompressed size and ratio, and
streams (stdin, a FIFO, a device) read once into a spool of bounded size.

A 90 KB `.zst` can expand to 1 GB of log lines (a "zip bomb"); `/dev/zero` or `yes |` never ends.
Neither is an error of the reader: the input is refused with a located error naming the bound and
how to raise it (`logsleuth --max-input 8G …` or LOGSLEUTH_MAX_INPUT).
"""

from __future__ import annotations

import io
import os
import re
from typing import IO, Any

from logsleuth.errors import InputError, Location

MAX_INPUT_ENV = "LOGSLEUTH_MAX_INPUT"
DEFAULT_MAX_INPUT = 2 * 1024**3  # bytes a stream or a decompressed file may yield
MAX_RATIO = 1000  # decompressed / compressed; real logs compress 5-50x, zstd of repeated lines ~300x
RATIO_FLOOR = 64 * 1024**2  # the ratio is judged only past this much output (tiny files compress oddly)
_SIZE = re.compile(r"\s*(\d{1,15})\s*([kmgt]?)i?b?\s*", re.IGNORECASE)


def parse_size(text: str) -> int | None:
    """'8G' / '512m' / '1000000' -> bytes; None when it is not a size."""
    m = _SIZE.fullmatch(text)
    if not m:
        return None
    size: int = int(m.group(1)) << (10 * "_kmgt".index(m.group(2).lower() or "_"))
    return size


def max_input() -> int:
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    size = parse_size(raw) if raw else None
    return size if size else DEFAULT_MAX_INPUT


def _too_big(display: str, what: str) -> InputError:
    limit = max_input()
    return InputError(
        f"{what} (limit {limit // 1024**2} MiB)",
        Location(display),
        f"raise it with `logsleuth --max-input {max(2, 2 * limit // 1024**3)}G …` if you trust the input",
    )


class Bounded(io.RawIOBase):
    """A decompressed stream that stops with a located error past the size or ratio bound."""

    def __init__(self, inner: Any, display: str, compressed: int | None):
        self.inner = inner
        self.display = display
        self.compressed = compressed
        self.limit = max_input()
        # a limit the user set is trusted: the ratio check only guards the default
        self.ratio = None if os.environ.get(MAX_INPUT_ENV, "").strip() else MAX_RATIO
        self.out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        # read1: what is decoded so far, so that a stream damaged further on still yields every
        # line before the damage (readers keep those and skip the rest)
        data = self.inner.read1(len(b)) if hasattr(self.inner, "read1") else self.inner.read(len(b))
        n = len(data)
        b[:n] = data
        self.out += n
        if self.out > self.limit:
            raise _too_big(self.display, "decompresses to more than the input limit")
        if self.ratio and self.compressed and self.out > RATIO_FLOOR and self.out > self.ratio * self.compressed:
            raise _too_big(self.display, f"decompresses more than {self.ratio}x (a decompression bomb?)")
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


def bounded(inner: Any, display: str, compressed: int | None) -> IO[bytes]:
    """`inner` (a decompressing stream) behind the bounds, buffered (readers iterate lines)."""
    return io.BufferedReader(Bounded(inner, display, compressed), 1 << 16)


def spool_stream(f: IO[bytes], display: str) -> Any:
    """Read a stream (stdin, a FIFO, a device) once into a spool, at most `max_input()` bytes."""
    import tempfile

    limit = max_input()
    spool = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)  # noqa: SIM115
    total = 0
    while chunk := f.read(1 << 20):
        total += len(chunk)
        if total > limit:
            spool.close()
            raise _too_big(display, "stream longer than the input limit")
        spool.write(chunk)
    spool.seek(0)
    return spool
