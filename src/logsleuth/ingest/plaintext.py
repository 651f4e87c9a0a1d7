"""Plain text logs (format "text"): server logs (SGLang, vLLM), pip/uv, nvcc/ptxas/ninja/make,
pytest, journalctl, docker logs — anything textual. Last in detection order.

One event per logical record: a log line with its continuation lines, a Python traceback through
its final exception line (chained "During handling…" blocks included), a compiler diagnostic with
its context and caret lines, a ninja `FAILED:` block. Leading timestamps are stripped from `text`
and kept in `ts` (UTC) when they carry a date. role = kind = "log", `line` = the record's first line.

This is the path for 1 GB server logs, so no Python runs per line: the input is read in big
chunks, split into lines by polars, each line gets a class from a few vectorised tests (see
`classify`), record starts follow from forward fills and a cumulative sum over those classes
(`mark_records`), and only multi-line records go through a `group_by`. The stages are public so
a benchmark can time each one: `iter_line_frames` / `read_lines_frame`, `classify`,
`mark_records`, `records`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

import numpy as np
import polars as pl

from logsleuth.ingest import listing
from logsleuth.ingest.base import ANSI, Probe, ReaderSpec, ReportBuilder, session_from_path
from logsleuth.model import CALL_SCHEMA, EVENT_SCHEMA, Kind, Role, Transcript

FORMAT = "text"
CHUNK_BYTES = 8 * 1024 * 1024  # big enough to amortise, small enough to reuse memory
MAX_LINE_BYTES = 1024 * 1024  # longer lines are cut (and marked) rather than kept whole
MAX_RECORD_LINES = 2000  # a record longer than this is split: one runaway record must not eat the log
TRUNCATED = " […line truncated]"

# line classes
BLANK, TS, TB, CHAIN, MARK, FAILED, INDENT, PLAIN = range(8)
NONE_CTX = 8  # context after a blank line: nothing open
# a line inside a documentation listing after its first line (blank ones too): it never opens a record nor
# changes what is open, so the listing (opened by a MARK line) stays one record (see `join_listings`)
LISTED = 9
_CONTINUES_PLAIN = [TS, TB, CHAIN, FAILED]  # open records that absorb unindented lines
# timestamp kinds of TS lines
ISO_BRACKET, ISO, VLLM, JOURNAL, GLOG = range(1, 6)

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_LEVELS = "DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
_DT = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d"
_TS_KINDS = {
    ISO_BRACKET: rf"^\[{_DT}[\x20-\x5c\x5e-\x7e]{{0,60}}\]",  # ASCII inside: byte == char offsets
    ISO: rf"^{_DT}(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?:\s|$|[|:\-\]])",
    VLLM: rf"^(?:\([^)]{{1,80}}\) )?(?:{_LEVELS}) \d\d-\d\d \d\d:\d\d:\d\d",
    JOURNAL: rf"^(?:{_MONTHS}) [ \d]\d \d\d:\d\d:\d\d \S+ ",
    GLOG: r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ",
}
_TS_ANY = "(?:" + "|".join(p for p in _TS_KINDS.values()) + ")"
_VLLM_CORE = rf"^((?:\([^)]*\) )?(?:{_LEVELS}) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[^\]\s]+\]"
_VLLM_PREFIX = _VLLM_CORE + " ?)"
_STRIP_NO_DATE = {
    VLLM: (rf"^((?:\([^)]*\) )?(?:{_LEVELS})) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s*", "$1 "),
    JOURNAL: (rf"^(?:{_MONTHS}) [ \d]\d \d\d:\d\d:\d\d \S+ ", ""),
    GLOG: (r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", "$1 "),
}
# lines that open a record of their own but do not carry a timestamp: compiler and build tool
# diagnostics, level-prefixed messages, pip/uv steps, pytest sections, NCCL lines
_MARK = "|".join(
    [
        r"^(?:ERROR|Error|error|WARNING|Warning|warning|WARN|INFO|NOTE|Note|note|FATAL|Fatal|fatal|CRITICAL|DEBUG|hint|HINT)(?:\[[^\]]*\])?:",
        r"^\[(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL|E|W|I|D)\]",
        r"^\S[^:(]*\(\d+\): (?:error|warning|catastrophic error|remark)",
        r"^\S+?:\d+(?::\d+)?: (?:fatal error|error|warning|note|undefined reference)",
        r"^(?:ptxas|nvcc|nvlink|fatbinary|cicc|cudafe\+\+|nvdisasm|ld|ld\.lld|ld\.gold|/usr/bin/ld|collect2|c\+\+|g\+\+|gcc|cc1plus|cc1|clang|clang\+\+)(?::|\s)",
        r"^(?:ninja|make|gmake)(?:\[\d+\])?: ",
        r"^CMake (?:Error|Warning)",
        r"^\[\d+/\d+\] ",
        r"^(?:={3,}|_{3,}|-{3,}) ",
        r"^(?:FAILED|PASSED|ERROR|SKIPPED|XFAIL|XPASS) \S",
        r"^\S+:\d+:\d+ \[\d+\] NCCL ",
        r"^(?:Collecting|Downloading|Installing|Building|Successfully|Requirement already|Attempting|Found existing|Uninstalling|Obtaining|Preparing|Processing|Using cached|Resolved|Prepared|Installed|Uninstalled|Audited|Looking in) ",
        r"^\$ \S",
        r"^Step \d+/\d+ : ",
        r"^#\d+ \[",
    ]
)
# INDENT: a line that continues the record above it. Besides indentation: yarn's trailer (`info Visit
# https://yarnpkg.com/...`), which belongs to the `error ...` line before it and says that line failed the command
_INDENT = r"^(?:[ \t]|E {2,}|>\s|info Visit https://yarnpkg\.com/)"
_VLLM_KW = r"Traceback \(most recent call last\):|During handling|The above exception"
_VLLM_SPECIAL = rf"(?:\s|$|{_VLLM_KW})"
# a vLLM line whose body (after the prefix and its optional space) is special: the prefix ends
# at its first `]`, so spelling out both cases keeps the test exact without look-around
_VLLM_MAYBE = _VLLM_CORE + rf")(?: (?:\s|$|{_VLLM_KW})|[\s&&[^ ]]|$|{_VLLM_KW})"
# CHAIN: a line that joins the record above it and keeps it open over one blank line. unittest's summary
# (`Ran 3 tests in 0.01s`, a blank line, then `OK` / `FAILED (…)`) is read the same way, so the verdict joins it
_CHAIN = r"^(?:During handling of the above exception|The above exception was the direct cause|Ran \d+ tests? in [\d.]+s$)"


# ---------------------------------------------------------------------------------------------
# detection


def sniff(probe: Probe) -> bool:
    """Any textual input: few NUL bytes and few control characters in the head."""
    if probe.is_dir or not probe.head:
        return False
    sample = _NUL_RUN.sub(b"", probe.head[:8192])  # a hole of NULs is passed over (ingest.unreadable)
    if sample.count(b"\x00") > len(sample) // 100:
        return False
    controls = len(sample) - len(sample.translate(None, _SNIFF_CONTROLS))  # one pass, not one count per byte value
    return controls <= len(sample) // 20


_NUL_RUN = re.compile(rb"\x00{8,}")
_SNIFF_CONTROLS = bytes((*range(1, 8), 11, *range(14, 27), *range(28, 32)))


# ---------------------------------------------------------------------------------------------
# bytes -> lines


def iter_byte_chunks(f: IO[bytes], size: int | None = None) -> Iterator[bytes]:
    """Chunks that end on a line boundary (the last one may not); over-long lines are cut.

    Each chunk is one copy of the input (read into a reused buffer, then joined with the carried
    partial line): at 1 GB the copies and page faults of fresh buffers were most of the reading.
    A file whose first block has carriage returns and no newline ends its lines with CR (classic
    Mac, some Windows tools): its CRs are newlines; elsewhere a CR redraws the line (_clean)."""
    size = size or CHUNK_BYTES
    carry = b""
    dropping = False  # inside an over-long line: drop bytes until its newline
    buf = bytearray(size)
    view = memoryview(buf)
    cr_lines: bool | None = None  # decided on the first block
    while n := _read_into(f, buf, view):
        if cr_lines is None:
            cr_lines = buf.find(b"\r", 0, n) >= 0 and buf.find(b"\n", 0, n) < 0
        if cr_lines:
            view[:n] = bytes(view[:n]).replace(b"\r", b"\n")
        block = view[:n]
        if dropping:
            nl = buf.find(b"\n", 0, n)
            if nl < 0:
                continue
            block, dropping = view[nl:n], False
        cut = buf.rfind(b"\n", n - len(block), n) - (n - len(block))  # in `block`; carry holds no newline
        if cut < 0:  # no line ends here: the line goes on (cut once it is over-long)
            if len(carry) + len(block) > MAX_LINE_BYTES:
                carry, dropping = b"".join((carry, block[: MAX_LINE_BYTES - len(carry)])), True
            else:
                carry = b"".join((carry, block))
            continue
        yield b"".join((carry, block[: cut + 1]))
        carry = bytes(block[cut + 1 :])
        if len(carry) > MAX_LINE_BYTES:
            carry, dropping = carry[:MAX_LINE_BYTES], True
    if carry:
        yield carry


def _read_into(f: IO[bytes], buf: bytearray, view: memoryview) -> int:
    """Fill `buf` from `f` as far as one read goes (like `f.read(len(buf))`); 0 at the end."""
    readinto = getattr(f, "readinto", None)
    if readinto is not None:
        return int(readinto(view) or 0)
    data = f.read(len(buf))
    view[: len(data)] = data
    return len(data)


def split_lines(data: bytes) -> pl.Series:
    """One string per line (no line ending, CRLF handled, invalid UTF-8 replaced, blank = null)."""
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    if not data.strip(b"\xef\xbb\xbf"):  # nothing but byte-order marks: no line (polars: "empty CSV")
        return pl.Series("text", [], dtype=pl.Utf8)
    sep = next((chr(c) for c in (0x1F, 0x1E, 0x1D, 0x1C, 0x01, 0x02, 0x03) if bytes([c]) not in data), None)
    if sep is not None and data:
        return pl.read_csv(
            data, has_header=False, separator=sep, quote_char=None, new_columns=["text"],
            infer_schema=False, encoding="utf8-lossy",
        )["text"]
    # every candidate separator occurs (binary-ish text): split in Python instead
    text = data.decode("utf-8", "replace")
    parts = text.split("\n")
    if parts and parts[-1] == "" and text.endswith("\n"):
        parts.pop()
    return pl.Series("text", [p.removesuffix("\r") or None for p in parts], dtype=pl.Utf8)


def _clean(lines: pl.Series, data: bytes) -> pl.Series:
    """Strip ANSI colours, keep what a carriage return drew last, cut over-long lines."""
    if b"\x1b" in data:
        lines = lines.str.replace_all(ANSI, "")
    if b"\r" in data:
        lines = lines.str.strip_chars_end("\r").str.replace(r"^[^\n]*\r", "")
    longest = lines.str.len_bytes().max()
    if isinstance(longest, int) and longest > MAX_LINE_BYTES:
        long = lines.str.len_bytes() > MAX_LINE_BYTES
        cut = lines.str.slice(0, MAX_LINE_BYTES // 4) + TRUNCATED
        lines = pl.select(pl.when(long).then(cut).otherwise(lines)).to_series()
    return lines.rename("text")


def iter_line_frames(probe: Probe, chunk_bytes: int | None = None) -> Iterator[pl.DataFrame]:
    """Frames of (line: Int64 1-based, text: str|null) covering the whole input in order."""
    first = 1
    with probe.open() as f:
        for data in iter_byte_chunks(f, chunk_bytes):
            lines = _clean(split_lines(data), data)
            n = lines.len()
            yield pl.DataFrame([pl.int_range(first, first + n, eager=True, dtype=pl.Int64).alias("line"), lines])
            first += n


def read_lines_frame(probe: Probe) -> pl.DataFrame:
    """All lines of the input as one frame (for benchmarks and tests)."""
    frames = list(iter_line_frames(probe))
    return pl.concat(frames) if frames else pl.DataFrame(schema={"line": pl.Int64, "text": pl.Utf8})


# ---------------------------------------------------------------------------------------------
# lines -> classes -> records


def classify(frame: pl.DataFrame) -> pl.DataFrame:
    """Add `cls` (line class) and `tskind` (timestamp kind of TS lines, 0 otherwise).

    `line_classes` (each line on its own), then `fold_repeated_prefix` (vLLM continuations).
    """
    out = line_classes(frame)
    return fold_repeated_prefix(out)


def line_classes(frame: pl.DataFrame) -> pl.DataFrame:
    """`cls` and `tskind` from each line alone (no neighbours: chunks can be classified apart), then
    `join_listings` (which looks a few lines around lines that name an error status: a listing that a chunk
    boundary cuts is judged in two parts).

    The timestamp kinds are tried in order, each on the lines no earlier kind matched; the other
    tests run only on the lines without one (in a server log, a small minority), so most lines
    are looked at once or twice.
    """
    text = frame["text"]
    n = frame.height
    cls = np.full(n, PLAIN, dtype=np.uint8)
    kind = np.zeros(n, dtype=np.uint8)
    # kinds in order, each tested on the lines no earlier kind took: the first kind takes most
    # lines of a real log, so the rest see few
    rest, sub = np.arange(n), text
    for k, pattern in _TS_KINDS.items():
        hit = sub.str.contains(pattern).fill_null(False).to_numpy()
        if hit.any():
            kind[rest[hit]] = k
            rest, sub = rest[~hit], sub.filter(pl.Series(~hit))
        if not rest.size:
            break
    is_ts = kind > 0
    cls[is_ts] = TS
    other = np.flatnonzero(~is_ts)
    if other.size:
        sub = text.gather(other)
        codes = np.full(other.size, PLAIN, dtype=np.uint8)
        tests = [
            (BLANK, sub.is_null() | sub.str.contains(r"^\s*$")),
            (TB, sub.str.starts_with("Traceback (most recent call last):")),
            (CHAIN, sub.str.contains(_CHAIN)),
            (FAILED, sub.str.starts_with("FAILED: ")),
            (INDENT, sub.str.contains(_INDENT)),
            (MARK, sub.str.contains(_MARK)),
        ]
        undecided = np.ones(other.size, bool)
        for code, hits in tests:
            hit = hits.fill_null(False).to_numpy() & undecided
            codes[hit] = code
            undecided &= ~hit
        cls[other] = codes
        join_listings(text, other, cls)
    return frame.with_columns(pl.Series("cls", cls), pl.Series("tskind", kind))


def join_listings(text: pl.Series, other: np.ndarray, cls: np.ndarray) -> None:
    """Make each documentation listing (`ingest/listing.py`) one record, in place on `cls`: its first line
    opens a record (MARK), the rest are LISTED. Each line is its own record otherwise, and `quoting.py` could
    not see that an error name sits in a list of names. `other`: the rows without a timestamp (a listing has
    none). One anchored regex over those rows; Python only over the few runs of entry lines it finds."""
    hit = text.gather(other).str.contains(listing.ENTRY_RX).fill_null(False).to_numpy()
    rows = other[hit]
    if rows.size < listing.MIN_NAMES:
        return
    breaks = np.flatnonzero(np.diff(rows) > listing.MAX_ENTRY_LINES) + 1
    for group in np.split(rows, breaks):
        if group.size < listing.MIN_NAMES:
            continue
        lo, hi = int(group[0]), min(int(group[-1]) + listing.MAX_ENTRY_LINES + 1, text.len())
        lines = [t or "" for t in text.slice(lo, hi - lo).to_list()]
        for a, b in listing.listing_spans(lines):
            stamped = np.flatnonzero(cls[lo + a : lo + b] == TS)  # a timestamped line is output: the listing ends
            b = a + int(stamped[0]) if stamped.size else b
            if b - a > 1:
                cls[lo + a] = MARK
                cls[lo + a + 1 : lo + b] = LISTED


def vllm_special(frame: pl.DataFrame) -> np.ndarray:
    """Per line: a vLLM line that may open or continue a multi-line message (a superset)."""
    kind = frame["tskind"].to_numpy()
    out = np.zeros(kind.size, bool)
    idx = np.flatnonzero(kind == VLLM)
    if idx.size:
        out[idx] = frame["text"].gather(idx).str.contains(_VLLM_MAYBE).fill_null(False).to_numpy()
    return out


def fold_repeated_prefix(frame: pl.DataFrame, maybe: np.ndarray | None = None) -> pl.DataFrame:
    """Fold vLLM continuation lines (see `_fold_repeated_prefix`); `maybe` from `vllm_special`."""
    idx = np.flatnonzero(frame["tskind"].to_numpy() == VLLM)
    if idx.size < 2:
        return frame
    flags = (maybe if maybe is not None else vllm_special(frame))[idx]
    return _fold_repeated_prefix(frame, idx, flags) if flags.any() else frame


def _fold_repeated_prefix(frame: pl.DataFrame, idx: np.ndarray, maybe: np.ndarray) -> pl.DataFrame:
    """vLLM writes every line of a multi-line message (a traceback) behind the same prefix
    (`ERROR 04-28 20:50:24 worker_base.py:145] …`). A line that repeats the previous line's
    prefix and is indented, blank or a traceback header — or follows such a line — continues
    that message: it becomes an INDENT line holding only its body.

    One regex pass (`vllm_special`) finds the lines that may be such a header (a superset);
    the prefixes are extracted only around them, so a long vLLM log costs one pass, not five."""
    near = maybe.copy()
    near[1:] |= maybe[:-1]  # a line after a special one may continue too
    look = near.copy()
    look[:-1] |= near[1:]  # ... and each needs its predecessor's prefix
    pos = np.flatnonzero(look)
    sub = frame["text"].gather(idx[pos])
    prefix = sub.str.extract(_VLLM_PREFIX, 1)
    body = sub.str.slice(prefix.str.len_chars().fill_null(0))
    special = body.str.contains(r"^" + _VLLM_SPECIAL).fill_null(False).to_numpy()
    # `same`: the previous vLLM line is the previous line and has the same prefix
    adjacent = np.zeros(pos.size, bool)
    adjacent[1:] = (pos[1:] == pos[:-1] + 1) & (idx[pos[1:]] == idx[pos[:-1]] + 1)
    same = np.zeros(pos.size, bool)
    same[1:] = adjacent[1:] & (prefix[1:] == prefix[:-1]).fill_null(False).to_numpy()
    prev_special = np.zeros(pos.size, bool)
    prev_special[1:] = special[:-1] & adjacent[1:]
    cont = same & (special | prev_special) & near[pos]
    if not cont.any():
        return frame
    rows = idx[pos[cont]]
    cls = frame["cls"].to_numpy().copy()
    kind = frame["tskind"].to_numpy().copy()
    cls[rows], kind[rows] = INDENT, 0
    text = frame["text"].clone().scatter(rows, body.filter(pl.Series(cont)))
    return frame.with_columns(text, pl.Series("cls", cls), pl.Series("tskind", kind))


def mark_records(frame: pl.DataFrame) -> pl.DataFrame:
    """Add `start` (a record begins here), `rec` (record id, 0 = leading blank lines) and `used`."""
    c = pl.col("cls")
    nonblank = c != BLANK
    prev_nb = pl.when(nonblank).then(c).forward_fill().shift(1)
    reset = (
        pl.when((c == BLANK) & (prev_nb == CHAIN)).then(None)  # "…occurred:" + blank keeps the chain open
        .when(c == BLANK).then(pl.lit(NONE_CTX, pl.UInt8))
        .when(c.is_in([TS, TB, CHAIN, MARK, FAILED])).then(c)
    )
    ctx = reset.forward_fill().shift(1)  # what is open before this line
    prev_blank = (c.shift(1) == BLANK).fill_null(True)
    start = (
        c.is_in([TS, MARK, FAILED])
        | ((c == TB) & (prev_nb != CHAIN).fill_null(True))
        | ((c == PLAIN) & ~ctx.is_in(_CONTINUES_PLAIN).fill_null(False))
        | ((c == INDENT) & prev_blank)
        | (nonblank & (nonblank.cum_sum() == 1))  # nothing before the first text line to continue
    )
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    out = frame.with_columns(start.alias("start"))
    pos = row - pl.when(pl.col("start")).then(row).forward_fill()
    out = out.with_columns(start=pl.col("start") | ((pos > 0) & (pos % MAX_RECORD_LINES == 0)).fill_null(False))
    out = out.with_columns(rec=pl.col("start").cast(pl.Int64).cum_sum())
    next_rec = pl.when(nonblank).then(pl.col("rec")).backward_fill()
    return out.with_columns(used=(nonblank | (next_rec == pl.col("rec")).fill_null(False)) & (pl.col("rec") > 0))


def records(marked: pl.DataFrame, bracket_plain: bool | None = None) -> pl.DataFrame:
    """Used lines -> one row per record: (line, ts, text) with timestamps stripped and parsed.

    `bracket_plain`: whether every `[date time…]` head of the frame has the plain shape (see
    `_strip_kind`); given by a caller that passes only some of the frame's records."""
    lines = marked.filter(pl.col("used")).with_columns(
        pl.col("text").fill_null(""),
        single=pl.col("start") & (pl.col("rec").shift(-1) != pl.col("rec")).fill_null(True),
    )
    heads = strip_timestamps(lines.filter(pl.col("start")), bracket_plain)
    singles = heads.filter(pl.col("single")).select("rec", "line", "ts", "text")
    if singles.height == heads.height:  # no multi-line record at all
        return singles.drop("rec")
    rest = lines.filter(~pl.col("start") & ~pl.col("single")).select(
        "rec", "line", pl.lit(None, EVENT_SCHEMA["ts"]).alias("ts"), "text"
    )
    multi = (
        pl.concat([heads.filter(~pl.col("single")).select("rec", "line", "ts", "text"), rest])
        .sort("line")
        .group_by("rec", maintain_order=True)
        .agg(pl.col("line").first(), pl.col("ts").first(), pl.col("text").str.join("\n"))
    )
    return pl.concat([singles, multi]).sort("rec").drop("rec")


def strip_timestamps(heads: pl.DataFrame, bracket_plain: bool | None = None) -> pl.DataFrame:
    """Record-start lines -> `text` without its leading timestamp, `ts` parsed (UTC) when dated."""
    kinds = heads["tskind"]
    present = set(kinds.unique().to_list())
    plain = heads.with_columns(pl.lit(None, EVENT_SCHEMA["ts"]).alias("ts"))
    if present <= {0}:
        return plain
    if len(present) == 1:
        return _strip_kind(heads, int(present.pop()), bracket_plain)
    parts = [plain.filter(pl.col("tskind") == 0)]
    for k in sorted(present - {0}):
        parts.append(_strip_kind(heads.filter(pl.col("tskind") == k), int(k), bracket_plain))
    return pl.concat(parts).sort("line")


def bracket_odd(frame: pl.DataFrame) -> pl.Series:
    """Per line: a `[date time…]` line without the plain shape (char 20 is not ` ` or `]`)."""
    return (pl.Series(frame["tskind"].to_numpy() == ISO_BRACKET)
            & ~frame["text"].str.slice(20, 1).is_in([" ", "]"]).fill_null(False)).alias("odd")


def _strip_kind(frame: pl.DataFrame, kind: int, bracket_plain: bool | None = None) -> pl.DataFrame:
    if bracket_plain is None and kind == ISO_BRACKET:
        bracket_plain = bool(frame["text"].str.slice(20, 1).is_in([" ", "]"]).all())
    if kind == ISO_BRACKET and bracket_plain:
        # the common `[YYYY-MM-DD HH:MM:SS]` / `[… TP0]` shape: no fraction or zone, no regex needed
        text = pl.col("text")
        c20 = text.str.slice(20, 1)
        new = (
            pl.when(c20 == " ").then(pl.concat_str([pl.lit("["), text.str.slice(21)]))
            .otherwise(text.str.slice(21).str.strip_chars_start(" \t"))
        )
        naive = text.str.slice(1, 19).str.replace("T", " ", literal=True)
        when = naive.str.to_datetime("%Y-%m-%d %H:%M:%S", time_unit="us", strict=False).dt.replace_time_zone("UTC")
        return frame.with_columns(new.alias("text"), when.alias("ts"))
    return frame.with_columns(*_strip_exprs(kind))


def _strip_exprs(kind: int) -> tuple[pl.Expr, pl.Expr]:
    """(text, ts) expressions for one timestamp kind; the regexes only see short prefixes."""
    text = pl.col("text")
    if kind == ISO_BRACKET:
        close = text.str.find("]", literal=True)  # a byte offset; the bracket holds ASCII only
        inner = text.str.slice(20, close - 20).str.extract_groups(
            r"^(?:[.,](?P<frac>\d{1,9}))?(?P<zone>Z|[+-]\d\d:?\d\d)?\s*(?P<tag>.*?)\s*$"
        )
        body = text.str.slice(close + 1).str.strip_chars_start(" \t")
        tag = inner.struct.field("tag")
        new = pl.when(tag.is_null() | (tag == "")).then(body).otherwise(pl.concat_str([pl.lit("["), tag, pl.lit("] "), body]))
        return new.alias("text"), _iso_ts(text.str.slice(1, 19), inner).alias("ts")
    if kind == ISO:
        lead = text.str.slice(19, 48).str.extract_groups(
            r"^(?P<all>(?:[.,](?P<frac>\d{1,9}))?(?P<zone>Z|[+-]\d\d:?\d\d)?(?: ?UTC)?[ \t]*(?:[-|:][ \t]+)?)"
        )
        body = text.str.slice(pl.lit(19, pl.Int64) + lead.struct.field("all").str.len_chars().fill_null(0))
        return body.alias("text"), _iso_ts(text.str.slice(0, 19), lead).alias("ts")
    pattern, repl = _STRIP_NO_DATE[kind]
    return text.str.replace(pattern, repl).alias("text"), pl.lit(None, EVENT_SCHEMA["ts"]).alias("ts")


def _iso_ts(core: pl.Expr, groups: pl.Expr) -> pl.Expr:
    """`YYYY-MM-DD[T ]HH:MM:SS` + struct(frac, zone) -> UTC datetime (null when invalid)."""
    frac = groups.struct.field("frac").str.slice(0, 6).str.pad_end(6, "0").cast(pl.Int64, strict=False)
    zone = groups.struct.field("zone").str.replace(":", "", literal=True)
    sign = pl.when(zone.str.starts_with("-")).then(-1).otherwise(1)
    minutes = (zone.str.slice(1, 2).cast(pl.Int64, strict=False) * 60 + zone.str.slice(3, 2).cast(pl.Int64, strict=False)) * sign
    naive = core.str.replace("T", " ", literal=True).str.to_datetime("%Y-%m-%d %H:%M:%S", time_unit="us", strict=False)
    shifted = naive + pl.duration(microseconds=frac.fill_null(0)) - pl.duration(minutes=minutes.fill_null(0))
    return shifted.dt.replace_time_zone("UTC")


# ---------------------------------------------------------------------------------------------
# the reader


def read(probe: Probe) -> Transcript:
    session = session_from_path(probe.display)
    report = ReportBuilder(probe.display, FORMAT)
    parts: list[pl.DataFrame] = []
    carry: pl.DataFrame | None = None
    for frame in iter_line_frames(probe):
        if carry is not None:
            frame = pl.concat([carry, frame])
        marked = mark_records(classify(frame))
        # the last record may go on in the next chunk: hold it back (unless it is the whole frame)
        last_start = _last_start(marked)
        if last_start > 0:
            carry = frame.slice(last_start)
            marked = marked.slice(0, last_start)
        else:
            carry = None
        parts.append(_emit(marked, report))
    if carry is not None:
        parts.append(_emit(mark_records(classify(carry)), report))
    empty = pl.DataFrame(schema={"line": pl.Int64, "ts": EVENT_SCHEMA["ts"], "text": pl.Utf8})
    events = pl.concat(parts) if parts else empty
    return Transcript(event_frame(events, session, probe.display), report.finish(events.height))


def _last_start(marked: pl.DataFrame) -> int:
    starts = np.flatnonzero(marked["start"].to_numpy())
    return int(starts[-1]) if starts.size else 0


def _emit(marked: pl.DataFrame, report: ReportBuilder) -> pl.DataFrame:
    used = int(marked["used"].sum())
    report.lines += marked.height
    report.used += used
    report.ignored += marked.height - used
    return own_text(records(marked))


def own_text(recs: pl.DataFrame) -> pl.DataFrame:
    """`recs` with its text in buffers of its own. A line that was filtered, gathered or sliced
    (a timestamp cut off) is a view into the whole chunk's string buffers: kept in the event
    table, it kept every chunk of the input alive beside the records' own (joined) text."""
    return recs.with_columns(pl.col("text") + "")  # concatenation writes new strings


def event_frame(recs: pl.DataFrame, session: str, source: str, seq: pl.Expr | None = None) -> pl.DataFrame:
    """Records -> the event table, built column-wise (an EventSink call per record is too slow here).
    `seq`: the records' own numbers (logscan keeps only some records), else 0, 1, 2, …"""
    return recs.select(
        pl.lit(session, pl.Utf8).alias("session"),
        pl.lit(source, pl.Utf8).alias("source"),
        pl.col("line"),
        (pl.int_range(pl.len(), dtype=pl.Int64) if seq is None else seq).alias("seq"),
        pl.col("ts"),
        pl.lit(Role.LOG.value).cast(EVENT_SCHEMA["role"]).alias("role"),
        pl.lit(Kind.LOG.value).cast(EVENT_SCHEMA["kind"]).alias("kind"),
        pl.lit(None, pl.Utf8).alias("tool"),
        pl.lit(None, pl.Utf8).alias("call_id"),
        pl.col("text"),
        pl.lit(None, pl.Boolean).alias("is_error"),
        pl.lit(None, pl.Int64).alias("exit_code"),
        *(pl.lit(None, dtype).alias(name) for name, dtype in CALL_SCHEMA.items()),  # a log has no tool calls
    ).cast(EVENT_SCHEMA)  # type: ignore[arg-type]


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="plain text logs (server, build, pip, pytest, journal, docker); one event per record",
    )
]
