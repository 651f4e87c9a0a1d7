"""The candidate records of many small plain text logs in one pass (for `index`).

`ingest.read_candidates` on a 1 KB log costs ~25 ms, nearly all of it the fixed cost of some
forty polars calls on a frame of twenty lines. Here the lines of many logs form one frame with
a file id: the line-local stages of `ingest/logscan.py` (split, clean, line classes, needle
test) run once over all of them, record marking runs per file as window expressions
(`_mark_over`, `plaintext.mark_records` with every neighbour look `.over` the file), and the
records are built by one `plaintext.records` call. Each file's events and report are those
`logscan.scan` gives for it alone, including its chunk carry: the last record of a file is
marked again on its own, and its `[date …]` stripping reads only its own head, as the carry
does there. A file this does not cover exactly (no final newline, vLLM continuation folding,
a record near MAX_RECORD_LINES, a leading byte-order mark) is answered None: read it alone.
tests/test_index_batch.py compares both on every fixture log.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from logsleuth.ingest import plaintext as pt
from logsleuth.ingest.base import ReportBuilder, session_from_path
from logsleuth.ingest.logscan import CONTINUATION_RECORDS
from logsleuth.model import EVENT_SCHEMA, Transcript

_SEPARATORS = (0x1F, 0x1E, 0x1D, 0x1C, 0x01, 0x02, 0x03)  # plaintext.split_lines' candidates
MAX_LINES = pt.MAX_RECORD_LINES // 2  # files with more lines are read alone (no record split to mirror)


def read_texts(items: Sequence[tuple[str, bytes]], rx: str) -> list[Transcript | None]:
    """(display name, whole content) of small plain text logs -> each one's candidate transcript
    as `logscan.scan` reads it with needle regex `rx`, or None where it must be read alone."""
    out: list[Transcript | None] = [None] * len(items)
    ok = [i for i, (_, data) in enumerate(items) if _eligible(data)]
    if not ok:
        return out
    datas = [items[i][1] for i in ok]
    counts = np.array([d.count(b"\n") for d in datas], dtype=np.int64)
    joined = b"".join(datas)
    if all(bytes([c]) in joined for c in _SEPARATORS):  # split_lines would split in Python: no batch
        return out
    raw = pt.split_lines(joined)
    if raw.len() != int(counts.sum()):  # split differently than file by file: no batch
        return out
    lines = pt._clean(raw, joined)
    fid = np.repeat(np.arange(len(ok), dtype=np.int64), counts)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))  # row of each file's first line
    frame = pt.line_classes(pl.DataFrame([lines]))
    maybe = pt.vllm_special(frame)
    frame = frame.with_columns(
        pt.bracket_odd(frame),
        pl.col("text").str.contains(rx).fill_null(False).alias("hit"),
        pl.Series("fid", fid),
        pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("line"),  # global: monotonic over files
    )
    folds = np.zeros(len(ok), bool)
    np.logical_or.at(folds, fid, maybe)  # vLLM continuation folding looks across lines: read alone
    marked = _mark_over(frame, "fid")
    # the carry of logscan: a file's last record (from its last start, when that is not row 0)
    # is marked again on its own
    start = marked["start"].to_numpy()
    local = np.arange(frame.height) - first[fid]
    last = np.full(len(ok), -1, dtype=np.int64)
    np.maximum.at(last, fid[start], local[start])
    tail = (last[fid] > 0) & (local >= last[fid])
    if tail.any():
        again = _mark_over(frame.filter(pl.Series(tail)), "fid")
        idx = np.flatnonzero(tail)
        marked = marked.with_columns(
            *(marked[c].scatter(idx, again[c]) for c in ("start", "rec", "used"))
        )
    return _assemble(items, ok, marked, tail, fid, first, counts, folds, out)


def _eligible(data: bytes) -> bool:
    return (
        data.endswith(b"\n")  # a last line without one is a chunk of its own in logscan
        and not data.startswith(b"\xef\xbb\xbf")  # a byte-order mark is dropped at the start of a split only
        and bool(data.strip(b"\xef\xbb\xbf\r\n\t "))
        and data.count(b"\n") <= MAX_LINES
    )


def _assemble(
    items: Sequence[tuple[str, bytes]],
    ok: list[int],
    marked: pl.DataFrame,
    tail: np.ndarray,
    fid: np.ndarray,
    first: np.ndarray,
    counts: np.ndarray,
    folds: np.ndarray,
    out: list[Transcript | None],
) -> list[Transcript | None]:
    n = len(ok)
    start = marked["start"].to_numpy()
    used = marked["used"].to_numpy()
    head = start & used
    # one id per record over the whole frame (each part's records begin with a start line)
    rec = np.cumsum(start | (np.r_[True, fid[1:] != fid[:-1]] | np.r_[False, tail[1:] & ~tail[:-1]]))
    part = fid * 2 + tail  # logscan's two marked frames of a file: before the carry, the carry
    odd_heads = np.zeros(2 * n, bool)
    np.logical_or.at(odd_heads, part, marked["odd"].to_numpy() & head)
    plain = ~odd_heads[part]
    heads_before = np.concatenate(([0], np.cumsum(head)))[first]  # heads before each file
    seq = np.cumsum(head) - 1 - heads_before[fid]
    cand_rec = np.zeros(rec.max() + 1 if rec.size else 1, bool)
    hits = np.unique(rec[marked["hit"].to_numpy() & used])
    cand_rec[hits] = True
    rec_part = np.full(cand_rec.size, -1, np.int64)
    rec_part[rec] = part
    for k in range(1, CONTINUATION_RECORDS + 1):  # as logscan keeps them: a wrapped message's next records
        nxt = hits + k
        nxt = nxt[nxt < cand_rec.size]
        cand_rec[nxt[rec_part[nxt] == rec_part[nxt - k]]] = True
    rows = np.flatnonzero(used & cand_rec[rec])
    used_n = np.bincount(fid, weights=used, minlength=n).astype(np.int64)
    heads_n = np.bincount(fid, weights=head, minlength=n).astype(np.int64)
    picked = marked[rows].select("line", "tskind", "start", "used", "text").with_columns(
        pl.Series("rec", rec[rows], dtype=pl.Int64),
        pl.Series("seq", seq[rows], dtype=pl.Int64),
        pl.Series("fid", fid[rows], dtype=pl.Int64),
        pl.Series("plain", plain[rows]),
    )
    recs = []
    for flag in (True, False):
        sub = picked.filter(pl.col("plain") == flag)
        if sub.height:
            heads = sub.filter(pl.col("start"))
            recs.append(pt.records(sub, bracket_plain=flag).with_columns(heads["seq"], heads["fid"]))
    names = [items[i][0] for i in ok]
    if recs:
        every = pl.concat(recs).sort("line")
        at = every["fid"].to_numpy()
        every = every.with_columns(pl.Series("line", every["line"].to_numpy() - first[at], dtype=pl.Int64))
        events = pt.event_frame(every, "", "", pl.col("seq")).with_columns(
            pl.Series([session_from_path(s) for s in names], dtype=pl.Utf8).gather(every["fid"]).alias("session"),
            pl.Series(names, dtype=pl.Utf8).gather(every["fid"]).alias("source"),
        )
        by_file = dict(zip(
            (int(k[0]) for k in every.select("fid").unique(maintain_order=True).iter_rows()),
            events.with_columns(every["fid"]).partition_by("fid", maintain_order=True, include_key=False),
            strict=True,
        ))
    else:
        by_file = {}
    empty = pt.event_frame(pl.DataFrame(schema={"line": pl.Int64, "ts": EVENT_SCHEMA["ts"], "text": pl.Utf8, "seq": pl.Int64}),
                           "", "", pl.col("seq"))
    for j, i in enumerate(ok):
        if folds[j]:
            continue
        report = ReportBuilder(names[j], pt.FORMAT)
        report.lines = int(counts[j])
        report.used = int(used_n[j])
        report.ignored = report.lines - report.used
        out[i] = Transcript(by_file.get(j, empty), report.finish(int(heads_n[j])))
    return out


def _mark_over(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    """`plaintext.mark_records` of each group of `key` on its own, for all groups at once."""
    c = pl.col("cls")
    nonblank = c != pt.BLANK
    prev_nb = pl.when(nonblank).then(c).forward_fill().shift(1).over(key)
    reset = (
        pl.when((c == pt.BLANK) & (prev_nb == pt.CHAIN)).then(None)
        .when(c == pt.BLANK).then(pl.lit(pt.NONE_CTX, pl.UInt8))
        .when(c.is_in([pt.TS, pt.TB, pt.CHAIN, pt.MARK, pt.FAILED])).then(c)
    )
    ctx = reset.forward_fill().shift(1).over(key)
    prev_blank = (c.shift(1).over(key) == pt.BLANK).fill_null(True)
    start = (
        c.is_in([pt.TS, pt.MARK, pt.FAILED])
        | ((c == pt.TB) & (prev_nb != pt.CHAIN).fill_null(True))
        | ((c == pt.PLAIN) & ~ctx.is_in(pt._CONTINUES_PLAIN).fill_null(False))
        | ((c == pt.INDENT) & prev_blank)
        | (nonblank & (nonblank.cum_sum().over(key) == 1))
    )
    out = frame.with_columns(start.alias("start"))
    out = out.with_columns(rec=pl.col("start").cast(pl.Int64).cum_sum().over(key))
    next_rec = pl.when(nonblank).then(pl.col("rec")).backward_fill().over(key)
    return out.with_columns(used=(nonblank | (next_rec == pl.col("rec")).fill_null(False)) & (pl.col("rec") > 0))
