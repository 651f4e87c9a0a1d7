"""Ingest: any supported input -> one event table (see model.EVENT_SCHEMA) plus an ingest report."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from logsleuth.errors import InputError, Location, shown_path
from logsleuth.ingest.base import Probe, ReaderSpec, is_decompression_error, make_probe
from logsleuth.ingest.detect import by_name, detect, readers, rescue, sniff_safely, tally
from logsleuth.model import IngestReport, Skipped, Transcript

if TYPE_CHECKING:
    from logsleuth.ingest.gate import Gate


def read(arg: str, fmt: str | None = None) -> Transcript:
    """Read one input (path, folder or `-`). A folder no single reader claims is read file by file."""
    return _read_probe(make_probe(arg), fmt)


def _read_probe(probe: Probe, fmt: str | None) -> Transcript:
    if fmt:
        return _guarded(by_name(fmt), probe)
    if probe.is_dir:
        for spec in _dir_readers():
            if sniff_safely(spec, probe):
                return _guarded(spec, probe)
        return _read_folder(probe)
    _reject_unreadable(probe)
    return _detected(probe)


def _detected(probe: Probe) -> Transcript:
    """Read with the detected reader; when that leaves part of the input unread, every other
    reader is tried on its first records and one that reads more reads the whole input."""
    spec = detect(probe)
    t = _guarded(spec, probe)
    if not _partly_read(t, spec.name):
        return t
    other = rescue(probe, spec)
    if other is None:
        return t
    again = _guarded(other, probe)
    return again if tally(again).reads_more(tally(t)) else t


def _partly_read(t: Transcript, fmt: str) -> bool:
    """Lines skipped past the coverage threshold, nothing read at all, or a JSON input taken as
    plain text: the cases where another reader may read more (ingest/coverage.py)."""
    from logsleuth.ingest import coverage

    rep = t.report
    if not rep.lines:
        return False
    if fmt == "text":
        return _json_text(t)
    return len(rep.skipped) > rep.lines * coverage.SKIP_SHARE or not rep.events or coverage.measure(rep, t.events).under_read


def _json_text(t: Transcript) -> bool:
    """Plain text whose first record is a JSON object: JSON lines that no reader claimed."""
    first = t.events.get_column("text").drop_nulls().head(1).to_list() if t.events.height else []
    return bool(first) and first[0].lstrip().startswith("{")


def read_candidates(arg: str, fmt: str | None, needles: Sequence[str], regexes: Sequence[str] = (),
                    gate: Gate | None = None) -> Transcript:
    """`read`, except that a plain text log comes back as only the records that hold a needle
    or a match of a (line-local) regex: all that `classify` looks at, at a fraction of the cost
    for a big log (see ingest/logscan.py). The report still counts every line and record.
    `gate` (ingest/gate.py): of a plain log, only the records where a pattern can match."""
    probe = make_probe(arg)
    if probe.is_dir or (fmt and fmt != "text"):
        return _read_probe(probe, fmt)
    if not fmt:
        _reject_unreadable(probe)
    spec = by_name(fmt) if fmt else detect(probe)
    if spec.name == "text" and (fmt or not _looks_json(probe.head)):
        from logsleuth.ingest import logscan

        return _with_nul_note(logscan.scan(probe, needles, regexes, gate), probe)
    return _guarded(spec, probe) if fmt else _detected(probe)


def _looks_json(head: bytes) -> bool:
    """The input opens with a JSON object on its first line, or a JSON array of them (not a
    `[timestamp]` log line)."""
    import orjson

    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0].strip()
    if first == b"[" or first.startswith(b"[{"):
        return True
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def _guarded(spec: ReaderSpec, probe: Probe) -> Transcript:
    """Run a reader; JSON nested deeper than the parser's stack is an input problem, not a crash.

    Readers skip such records themselves where they can; this is the net for a whole document.
    """
    try:
        t: Transcript = spec.read(probe)
    except RecursionError as exc:
        raise InputError(
            "JSON nested too deeply to parse",
            Location(probe.display),
            f"no {spec.name} record nests this deep: check that this is the right file",
        ) from exc
    except Exception as exc:
        if probe.compression and is_decompression_error(exc):  # corrupt past the head
            raise InputError(f"corrupt {probe.compression} stream: {exc}", Location(probe.display)) from exc
        raise
    _release_freed_memory()
    return _with_nul_note(t, probe)


def _with_nul_note(t: Transcript, probe: Probe) -> Transcript:
    """The transcript with a note of the NUL bytes skipped at the input's head, if any."""
    if not probe.nul_head:
        return t
    note = f"{probe.display}: skipped {probe.nul_head} NUL bytes at the head (a log truncated by copytruncate or a crash)"
    return Transcript(t.events, dataclasses.replace(t.report, notes=(*t.report.notes, note)))


def _release_freed_memory() -> None:
    """Hand the C heap's free pages back to the system. A reader frees what it parsed (a 236 MB
    opencode export is a 360 MB document), but glibc keeps freed pages below its heap top: 200 MB
    stayed with the process for the rest of the analysis. A no-op where there is no malloc_trim."""
    import contextlib
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def _dir_readers() -> list[ReaderSpec]:
    return [r for r in readers() if r.dirs]


def discover(root: str, not_used: list[str] | None = None) -> list[str]:
    """Inputs under a folder that a reader recognises, sorted, as paths built on `root` as given.

    A folder that a folder reader claims (an opencode storage folder, a Claude Code session folder)
    is one input and is not descended into. `not_used` collects, from the same walk, one line per
    file under the folder that no reader can use and why (empty, binary, not a regular file);
    text files that are simply not logs (README.md, code) are left out of it on purpose.
    """
    probe = make_probe(root)
    if not probe.is_dir:
        return [root]
    if any(sniff_safely(spec, probe) for spec in _dir_readers()):
        return [root]
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        claimed = []
        for d in dirnames:
            child_dir = os.path.join(dirpath, d)
            try:
                sub = make_probe(child_dir)
            except InputError:
                continue
            if any(sniff_safely(spec, sub) for spec in _dir_readers()):
                found.append(child_dir)
                claimed.append(d)
        dirnames[:] = [d for d in dirnames if d not in claimed and d != "subagents"]
        for name in sorted(filenames):
            child = os.path.join(dirpath, name)
            if not os.path.isfile(child):  # a FIFO (opening it blocks), a socket, a device: not a log
                if not_used is not None:
                    not_used.append(f"{shown_path(child)}: not a regular file (skipped)")
                continue
            taken, why = _taken(child)
            if taken:
                found.append(child)
            elif why is not None and not_used is not None:
                not_used.append(why)
    return sorted(found)


# path -> (its stat, whether `discover` takes it, why not when no reader can use it, the reader
# detected for it when it is not compressed): probing and detecting a file is most of a small
# file's walk, and a run may walk a folder more than once
_TAKEN: dict[str, tuple[tuple[int, int, int, int], bool, str | None, str | None]] = {}


def _stat_key(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def detected_reader(path: str) -> str | None:
    """The reader a folder walk detected for this uncompressed file, while the file is the
    version it saw (None: not walked, compressed, or changed since): `index` hands it to its
    workers, which then need not probe and detect each small input again."""
    hit = _TAKEN.get(path)
    return hit[3] if hit is not None and hit[0] == _stat_key(path) else None


def _taken(child: str) -> tuple[bool, str | None]:
    """Whether a folder walk takes this regular file as an input (decided once per version of
    it), and the one-line reason when no reader can use it at all."""
    key = _stat_key(child)
    hit = _TAKEN.get(child)
    if key is not None and hit is not None and hit[0] == key:
        return hit[1], hit[2]
    why: str | None = None
    reader: str | None = None
    try:
        p = make_probe(child)
        _reject_unreadable(p)
        spec = detect(p)
        why = _not_a_session(child, p.name, spec.name)
        taken = why is None
        reader = spec.name if p.compression is None else None
    except InputError as exc:
        taken, why = False, exc.one_line()
    except OSError as exc:  # unreadable (permissions), gone since the listing
        taken, why = False, f"{shown_path(child)}: {exc.strerror or exc}"
    if key is not None:
        _TAKEN[child] = (key, taken, why, reader)
    return taken, why


LOG_SUFFIXES = frozenset({".log", ".txt", ".out", ".err", ".stdout", ".stderr", ".trace"})
# what people keep beside transcripts: notes about them, not sessions (matched on the name's stem)
NOTE_STEMS = frozenset({"readme", "license", "licence", "copying", "notice", "changelog", "source", "sources",
                        "labels", "expected", "manifest"})


def _not_a_session(path: str, name: str, reader: str) -> str | None:
    """Why a folder walk leaves this readable file out (None: it is an input)."""
    stem = name.split(".", 1)[0].lower()
    if stem in NOTE_STEMS:
        return f"{shown_path(path)}: notes beside the transcripts ({name}), not a session"
    if reader == "text" and not _looks_like_log(name):  # the catch-all reader takes logs, not code or docs
        return f"{shown_path(path)}: not a transcript or log (no reader but plain text takes it; pass it by name to read it)"
    return None


def _looks_like_log(name: str) -> bool:
    suffix = os.path.splitext(name)[1].lower()
    return suffix in LOG_SUFFIXES or suffix == "" or suffix[1:].isdigit()  # app.log.1 rotates


def _read_folder(probe: Probe) -> Transcript:
    files = discover(os.fspath(probe.path) if probe.path is not None else probe.display)
    if not files:
        raise InputError("no readable transcript or log in this directory", Location(probe.display))
    parts = [read(f) for f in files]
    frames = _distinct_sessions([p.events for p in parts])
    reports = tuple(p.report for p in parts)
    events = pl.concat(frames) if frames else parts[0].events
    report = IngestReport(
        source=probe.display,
        format="folder",
        lines=sum(r.lines for r in reports),
        events=events.height,
        used=sum(r.used for r in reports),
        ignored=sum(r.ignored for r in reports),
        skipped=tuple(
            s if s.source else Skipped(s.line, s.reason, r.source) for r in reports for s in r.skipped
        ),
        parts=reports,
        notes=tuple(n for r in reports for n in r.notes),
    )
    return Transcript(events, report)


def _distinct_sessions(frames: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """A session id that an earlier file of the folder holds too (a copy, a backup, a `.gz` beside
    the file) becomes `id~2`, `id~3`…: each file numbers its messages from 0, and one session made of
    two files would hold every message number twice."""
    per_file = [set(f.get_column("session").drop_nulls().to_list()) if f.height else set() for f in frames]
    taken = set().union(*per_file)  # every id as read: a new name must not be one of them
    owners: dict[str, int] = {}  # session id -> files that held it so far
    out = []
    for frame, ids in zip(frames, per_file, strict=True):
        renames = {}
        for sid in sorted(ids):
            n = owners.get(sid, 0) + 1
            owners[sid] = n
            if n > 1:
                while f"{sid}~{n}" in taken:
                    n += 1
                renames[sid] = f"{sid}~{n}"
                taken.add(renames[sid])
        out.append(frame.with_columns(pl.col("session").replace(renames)) if renames else frame)
    return out


def _reject_unreadable(probe: Probe) -> None:
    if probe.nul_head and not probe.head:
        raise InputError(f"only NUL bytes ({probe.nul_head})", Location(probe.display), "nothing to analyse")
    why = unreadable(probe.head)
    if why is not None:
        raise InputError(why, Location(probe.display), "nothing to analyse" if why == "empty file" else None)


def unreadable(head: bytes) -> str | None:
    """Why a file whose first bytes are `head` holds nothing to read (empty, binary), or None."""
    if head.startswith(b"SQLite format 3\x00"):
        return None  # a database (opencode.db): binary by nature
    if not head.removeprefix(b"\xef\xbb\xbf"):  # a byte-order mark alone is empty too
        return "empty file"
    if _looks_binary(head[:8192]):
        return "binary file (not a transcript or text log)"
    return None


_CONTROL = bytes(c for c in range(32) if c not in b"\t\n\r\x0c\x1b\x08")


_NUL_RUN = re.compile(rb"\x00{8,}")


def _looks_binary(sample: bytes) -> bool:
    """Over the window, NULs outside runs or a tenth of the text being control bytes or invalid
    UTF-8: no log looks like that. Runs of NULs (a hole left by a crash or `copytruncate`) are
    passed over, and a few stray NULs or Latin-1 bytes stay readable (readers drop or replace them).
    """
    sample = _NUL_RUN.sub(b"", sample)
    if sample.count(b"\x00") > len(sample) // 100:
        return True
    text = sample.decode("utf-8", "replace")
    odd = text.count("\ufffd") + len(sample) - len(sample.translate(None, _CONTROL))
    return odd > max(4, len(text) // 10)


__all__ = ["discover", "read", "read_candidates"]
