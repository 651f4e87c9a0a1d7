"""Reading an index's committed state: the manifest, and the findings of the parts it lists
(from the compact file when it holds exactly those parts). Readers never take the lock: they
trust only what the manifest, replaced atomically, lists."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from logsleuth.errors import InputError, Location
from logsleuth.index import compact
from logsleuth.index.schema import MANIFEST, MANIFEST_SCHEMA, SESSION_ROW, empty_findings


def read_manifest(db: Path) -> pl.DataFrame:
    path = db / MANIFEST
    if not path.exists():
        return pl.DataFrame(schema=MANIFEST_SCHEMA)
    hint = "rebuild it with `logsleuth index --force`"
    try:
        frame = pl.read_parquet(path)
        missing = [c for c in ("path", "sha256", "library", "version") if c not in frame.columns]
        if missing:  # a Parquet file of another schema: not ours to read (nor to overwrite silently)
            raise InputError(f"not a logsleuth index manifest (no column {missing[0]!r})", Location(str(path)), hint)
        return frame.select(
            [pl.col(c).cast(t) if c in frame.columns else pl.lit(None, t).alias(c) for c, t in MANIFEST_SCHEMA.items()]
        ).filter(pl.col("path").is_not_null())
    except InputError:
        raise
    except Exception as exc:  # polars raises its own ComputeError family for corrupt files (and bad casts)
        raise InputError(f"unreadable index manifest: {exc}", Location(str(path)), hint) from exc


_LISTED: dict[str, tuple[tuple[int, int, int], list[str]]] = {}  # manifest path -> (its stat, its parts)


def _listed_parts(db: Path) -> list[str]:
    path = db / MANIFEST
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # `--db` naming a file holds no index either
        raise InputError(
            "no index here", Location(str(db)), "build one with `logsleuth index PATH…` (or search files with --in)"
        ) from None
    # the manifest is replaced by rename, never rewritten in place: same inode, size and mtime,
    # same manifest (a process that searches again skips reading it)
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _LISTED.get(str(path))
    if hit is not None and hit[0] == stamp:
        return list(hit[1])
    parts = sorted(set(read_manifest(db)["part"].drop_nulls().to_list()))  # a batch's inputs share a part
    _LISTED[str(path)] = (stamp, parts)
    return list(parts)


def scan(db: Path, columns: Sequence[str] | None = None, *, sessions: bool = False) -> pl.LazyFrame:
    """The committed findings of an index (only the parts its manifest lists), lazily: the
    compact findings.parquet when it holds exactly those parts, else the parts themselves."""
    db = Path(db)
    frame, _ = _committed(db, _listed_parts(db))
    if not sessions:  # findings only (see `load`)
        frame = frame.filter(pl.col("severity").ne_missing(SESSION_ROW))
    return frame.select(list(columns)) if columns else frame


def _committed(db: Path, parts: list[str]) -> tuple[pl.LazyFrame, bool]:
    """(the findings of `parts`, read from the compact file?)"""
    frame = compact.scan_valid(db, parts)
    if frame is not None:
        return frame, True
    return (empty_findings().lazy() if not parts else pl.scan_parquet([str(db / p) for p in parts])), False


def load(db: Path, columns: Sequence[str] | None = None, predicate: pl.Expr | None = None,
         *, sessions: bool = False) -> pl.DataFrame:
    """Collect committed findings; retried when a concurrent run replaced a file under our feet.
    Each session's own row (schema.SESSION_ROW: no finding) only with `sessions=True`."""
    if not sessions:
        findings = pl.col("severity").ne_missing(SESSION_ROW)
        predicate = findings if predicate is None else predicate & findings
    db = Path(db)
    last: Exception | None = None
    for _ in range(3):
        try:
            parts = _listed_parts(db)
            kept = compact.kept(db, parts)  # in memory when this process read this state before
            lf, whole = (kept.lazy(), False) if kept is not None else _committed(db, parts)
            if predicate is not None:
                lf = lf.filter(predicate)
            if columns:
                lf = lf.select(list(columns))
            if not whole:
                return lf.collect()
            frame = compact.collect_valid(db, parts, lf)
            if frame is not None:
                return frame
            last = RuntimeError("the compact findings file was replaced while reading it")
        except (FileNotFoundError, pl.exceptions.ComputeError) as exc:
            last = exc
        _LISTED.pop(str(db / MANIFEST), None)  # read the manifest itself next time
        time.sleep(0.05)
    gone = [p for p in _listed_parts(db) if not (db / p).is_file()]
    if gone:  # a part listed by the manifest is gone for good: retrying cannot help, indexing again does
        raise InputError(
            f"index part missing: {gone[0]}", Location(str(db)), "run `logsleuth index` on the same inputs again: it re-analyses them"
        )
    raise InputError(f"index changed while reading it: {last}", Location(str(db)), "retry")
