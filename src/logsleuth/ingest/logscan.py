"""The candidate records of a plain text log: what `classify` needs from a 1 GB log, cheaply.

Classifying a log needs only the records that hold a pattern's prefilter literal or an
error-looking word; every other record only has to be counted (it moves the `seq` numbers and
the ingest report). So this reader runs the per-line work of `plaintext.read` — split, line
classes, record marks — but builds records (join lines, strip and parse timestamps) only for
the records one of whose lines passes a single regex over the needles. Everything else about the
result is the same as `plaintext.read` gives: the same chunks, the same carry of the last
record into the next chunk, the same `line`/`seq`/`ts`/`text` of every record it returns, and
the same report; `Transcript.events` just holds the candidate records alone (in order, with
their global `seq`), and `report.events` counts all records. With a `gate` (`classify.scan_gate`,
ingest/gate.py), a flagged record is kept only where a pattern's regex can match or an error word
stands: a literal alone is a weak test (`.py:` is in most SGLang scheduler lines).

The line-local stages (split, clean, classes, needle test) of the next chunks run on a second
thread while this one marks records (polars releases the GIL), with at most `AHEAD` chunks in
flight: memory stays flat whatever the input size.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import polars as pl

from logsleuth.ingest import bytescan
from logsleuth.ingest import plaintext as pt
from logsleuth.ingest.base import Probe, ReportBuilder, session_from_path
from logsleuth.ingest.gate import Gate, seam_safe
from logsleuth.model import EVENT_SCHEMA, Transcript

AHEAD = 3  # chunks prepared ahead of the one being marked (memory: a few chunks)
WORKERS = 2  # threads preparing chunks (the main thread marks and builds records meanwhile)
def needle_regex(needles: Iterable[str], regexes: Sequence[str] = ()) -> str:
    """One Rust regex: any needle (seam-safe) or any of `regexes` (each must be line-local)."""
    return _needle_regex(tuple(needles), tuple(regexes))


@functools.lru_cache(maxsize=8)
def _needle_regex(needles: tuple[str, ...], regexes: tuple[str, ...]) -> str:
    # once per library, not per input: `index` of many small logs paid ~12 ms a file for it
    parts = [re.escape(n) for n in seam_safe(needles)] + [f"(?:{r})" for r in regexes]
    return "|".join(parts) if parts else r"[^\s\S]"


def scan(probe: Probe, needles: Iterable[str], regexes: Sequence[str] = (), gate: Gate | None = None) -> Transcript:
    """The candidate records of a plain text log (see the module docstring); with a `gate`,
    only the flagged records in which a pattern can match or an error word stands (gate.py)."""
    needles = list(needles)
    rx = needle_regex(needles, regexes)
    scanner = bytescan.compile_scanner(seam_safe(needles), regexes) if _big(probe) else None
    session = session_from_path(probe.display)
    report = ReportBuilder(probe.display, pt.FORMAT)
    picked = _Picked(gate)
    carry: pl.DataFrame | None = None
    first_line = 1
    for frame in _prepared(probe, rx, scanner):
        frame = frame.with_columns(
            pl.int_range(first_line, first_line + frame.height, dtype=pl.Int64).alias("line")
        )
        first_line += frame.height
        if carry is not None:
            frame = pl.concat([carry, frame])
        marked = _mark(frame)
        last_start = pt._last_start(marked)
        if last_start > 0:  # the last record may go on in the next chunk (as plaintext.read)
            carry = frame.slice(last_start)
            marked = marked.slice(0, last_start)
        else:
            carry = None
        picked.add(marked, report)
    if carry is not None:
        picked.add(_mark(carry), report)
    return Transcript(pt.event_frame(picked.records(), session, probe.display, pl.col("seq")), report.finish(picked.seq))


# classify.JOIN_EVENTS: a candidate's message may go on over this many following records, which
# are kept with it (a wrapped message's later lines hold no needle of their own)
CONTINUATION_RECORDS = 3
SCANNER_MIN_BYTES = 16 * 1024 * 1024  # below this, compiling the Hyperscan database (~70 ms) costs more than it saves


def _big(probe: Probe) -> bool:
    """Worth a Hyperscan database: a plain file of SCANNER_MIN_BYTES or more, or a stream of unknown size."""
    if probe.path is None or probe.compression is not None:
        return True
    try:
        return probe.path.stat().st_size >= SCANNER_MIN_BYTES
    except OSError:
        return True


def _prepared(probe: Probe, rx: str, scanner: bytescan.ByteScanner | None = None) -> Iterator[pl.DataFrame]:
    """Chunks as frames of (text, cls, tskind, maybe, odd, hit), prepared on a worker thread."""
    with probe.open() as f, ThreadPoolExecutor(max_workers=WORKERS) as pool:
        pending: list[Future[pl.DataFrame]] = []
        chunks = pt.iter_byte_chunks(f)
        done = False
        while True:
            while not done and len(pending) < AHEAD:
                data = next(chunks, None)
                if data is None:
                    done = True
                    break
                pending.append(pool.submit(_prepare, data, rx, scanner))
            if not pending:
                return
            yield pending.pop(0).result()


def _prepare(data: bytes, rx: str, scanner: bytescan.ByteScanner | None = None) -> pl.DataFrame:
    """The line-local work of one chunk: lines, their classes and whether they hold a needle
    (Hyperscan over the raw bytes when it can answer, else a regex over every line)."""
    raw = pt.split_lines(data)
    hits = scanner.line_hits(data, raw) if scanner is not None else None
    lines = pt._clean(raw, data)
    frame = pt.line_classes(pl.DataFrame([lines]))
    return frame.with_columns(
        pl.Series("maybe", pt.vllm_special(frame)),
        pt.bracket_odd(frame),
        pl.Series("hit", hits) if hits is not None else pl.col("text").str.contains(rx).fill_null(False).alias("hit"),
    )


def _mark(frame: pl.DataFrame) -> pl.DataFrame:
    folded = pt.fold_repeated_prefix(frame, frame["maybe"].to_numpy())
    return pt.mark_records(folded)


class _Picked:
    """The candidate records of every frame, numbered with their global `seq`.

    Records are built frame by frame and only they are kept, in their own memory: the lines
    picked from a frame, and the frame itself, are freed before the next frame comes. Keeping
    the picked lines of every frame for one `records` call at the end held ~3× the candidate
    text at once (lines, their columns, then the records' concat/group_by copies) and grew with
    the number of findings."""

    def __init__(self, gate: Gate | None = None) -> None:
        self.gate = gate
        self.parts: list[pl.DataFrame] = []  # records (line, ts, text, seq) of each frame
        self.seq = 0  # records so far

    def add(self, marked: pl.DataFrame, report: ReportBuilder) -> None:
        # in numpy over flags, so that only the candidate rows' strings are ever gathered
        used = marked["used"].to_numpy()
        report.lines += marked.height
        report.used += int(used.sum())
        report.ignored += marked.height - int(used.sum())
        head = marked["start"].to_numpy() & used
        rec = marked["rec"].to_numpy()
        # the timestamp stripping of `[date …]` heads depends on all heads of the frame
        plain = not bool((marked["odd"].to_numpy() & head).any())
        flagged = marked["hit"].to_numpy() & used
        hit = self.gate.kept(marked, flagged, plain) if self.gate is not None else np.unique(rec[flagged])
        cand = np.unique(np.concatenate([hit + k for k in range(CONTINUATION_RECORDS + 1)])) if hit.size else hit
        if cand.size:
            rows = np.flatnonzero(used & np.isin(rec, cand))
            numbers = np.cumsum(head) - 1 + self.seq
            picked = marked[rows].select("line", "tskind", "start", "used", "text", "rec")
            seqs = pl.Series("seq", numbers[rows][head[rows]], dtype=pl.Int64)
            # own text: else every chunk's buffers stay alive with the records (see `own_text`)
            self.parts.append(pt.own_text(pt.records(picked, bracket_plain=plain)).with_columns(seqs))
        self.seq += int(head.sum())

    def records(self) -> pl.DataFrame:
        if not self.parts:
            return _EMPTY
        out = pl.concat(self.parts) if len(self.parts) > 1 else self.parts[0]
        self.parts = []
        return out


_EMPTY = pl.DataFrame(schema={"line": pl.Int64, "ts": EVENT_SCHEMA["ts"], "text": pl.Utf8, "seq": pl.Int64})

