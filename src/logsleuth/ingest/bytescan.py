"""Which lines of a chunk of raw bytes hold one of many needles: Hyperscan over the bytes.

`logscan` needs, per line of a 1 GB log, whether it holds one of ~200 literals or an error word.
A Rust regex over every line (polars) was a quarter of `classify`'s time; Hyperscan scans the raw
chunk at ~1.7 GB/s (measured here on the bench log) and reports the few matches, which are mapped
to lines by their byte offsets.

The answer is a superset of the polars test on the cleaned lines, or no answer (None, and the
caller runs the polars test):
- a chunk holding ESC, CR or NUL is cleaned before its lines are tested (colours stripped, carriage
  returns drawn, NULs removed), so raw bytes would not say the same: no answer;
- a chunk whose line lengths do not add up to its size (invalid UTF-8 became U+FFFD) cannot map
  offsets to lines: no answer;
- a chunk with a match every other line is cheaper for polars (one Python callback per match): no
  answer past `MAX_HITS_PER_LINE`;
- Hyperscan's `\\b` is ASCII, Rust's Unicode: with a letter on one side (the words are ASCII), an
  ASCII boundary exists wherever a Unicode one does, so it finds more lines, never fewer.
Without the `hyperscan` package (no wheel for the platform) `compile_scanner` returns None.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

MAX_HITS_PER_LINE = 0.5  # past one match in 2 lines, polars' vectorised test is cheaper (measured: 206k matches in 2M lines of the bench log, 0.39 s with the callbacks, 1.13 s in polars)


class ByteScanner:
    def __init__(self, db: Any, hyperscan: Any):
        self._db = db
        self._hs = hyperscan
        self._local = threading.local()  # a Hyperscan scratch may not be shared by threads

    def line_hits(self, data: bytes, lines: pl.Series) -> np.ndarray | None:
        """Per line of `data` (as split into `lines`, blank = null): holds a needle? None: ask polars."""
        if b"\x1b" in data or b"\r" in data or b"\x00" in data:
            return None
        n = lines.len()
        ends = np.cumsum(lines.str.len_bytes().fill_null(0).to_numpy().astype(np.int64) + 1)
        if n and ends[-1] - (0 if data.endswith(b"\n") else 1) != len(data):
            return None  # replaced bytes: offsets no longer map to lines
        limit = max(16, int(n * MAX_HITS_PER_LINE))
        offsets: list[int] = []

        def on_match(_id: int, _start: int, end: int, _flags: int, _ctx: Any) -> bool:
            offsets.append(end)
            return len(offsets) > limit  # True stops the scan

        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._db)
        try:
            self._db.scan(data, match_event_handler=on_match, scratch=scratch)
        except self._hs.ScanTerminated:
            return None
        hits = np.zeros(n, bool)
        if offsets:
            # a match ending at byte `end` lies on the line whose end (exclusive, newline included) is past end - 1
            hits[np.searchsorted(ends, np.asarray(offsets, dtype=np.int64) - 1, side="right")] = True
        return hits


def compile_scanner(needles: Sequence[str], regexes: Sequence[str] = ()) -> ByteScanner | None:
    """A scanner for lines holding any needle or matching any regex (each line-local, Hyperscan
    syntax), or None when Hyperscan is missing or rejects a pattern."""
    try:
        import hyperscan
    except ImportError:
        return None
    exprs = [re.escape(n).encode() for n in needles if n and "\n" not in n] + [r.encode() for r in regexes]
    if len(exprs) != len(needles) + len(regexes) or not exprs:
        return None  # a needle across lines cannot be mapped to one line
    db = _cached(hyperscan, exprs)
    if db is None:
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        try:
            db.compile(expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs),
                       flags=[0] * len(exprs))
        except hyperscan.error:
            return None
        _store(hyperscan, exprs, db)
    return ByteScanner(db, hyperscan)


# ---------------------------------------------------------------- the compiled database, on disk
# Compiling the library's ~200 needles and regexes took ~0.3 s of every classify of a big log. The
# database is kept in the cache folder, keyed by its expressions (they come from the pattern files)
# and Hyperscan's version; one that does not load (another CPU's, truncated) is compiled again.

DB_KEEP = 8  # compiled databases kept (one per pattern-library edit)


def _db_path(hyperscan: Any, exprs: Sequence[bytes]) -> Path:
    from logsleuth.cachedir import cache_dir

    key = hashlib.sha256(repr((getattr(hyperscan, "__version__", "?"), platform.machine(), list(exprs))).encode())
    return cache_dir() / f"hyperscan-{key.hexdigest()[:32]}.db"


def _cached(hyperscan: Any, exprs: Sequence[bytes]) -> Any:
    """The database compiled before for `exprs`, or None."""
    try:
        return hyperscan.loadb(_db_path(hyperscan, exprs).read_bytes(), hyperscan.HS_MODE_BLOCK)
    except Exception:  # missing, truncated, another platform's: compile it
        return None


def _store(hyperscan: Any, exprs: Sequence[bytes], db: Any) -> None:
    """Keep `db` for the next call (the newest DB_KEEP kept); a cache that cannot be written is skipped."""
    dest = _db_path(hyperscan, exprs)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(hyperscan.dumpb(db))
        os.replace(tmp, dest)
        old = sorted(dest.parent.glob("hyperscan-*.db"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for p in old[DB_KEEP:]:
            p.unlink()
    except Exception:  # read-only home, full disk: the cache is only an optimisation
        with contextlib.suppress(OSError):
            tmp.unlink()
