"""The corpus index: every finding of every session seen, and what resolved it, as plain Parquet.

Layout under the index directory (`$XDG_DATA_HOME/logsleuth`, default ~/.local/share/logsleuth,
or `--db DIR`):

    files.parquet                  the manifest (MANIFEST_SCHEMA): one row per indexed input
    findings/part-<hash>.parquet   one part per input (all its sessions), or per batch of small
                                   inputs (index_batch.py; rows told apart by origin + source)
    findings.parquet               all listed parts in one file, for search (index_compact.py)
    search.sqlite                  the same rows for the command-line search (search_sidecar.py)
    .lock                          flock'd for the whole of an `index` run

The manifest is the commit point: parts are written to a temporary name and renamed into place
first, the manifest is replaced (temp file + fsync + os.replace) after them, and readers only
trust the parts it lists. A part's name hashes the input's path, content, the pattern library and
the index version (a batch's part: those of all its inputs), so a changed input gets a new part
and an old manifest never points at new data; a shared part that loses an input is rewritten
under a new name with the rows of the others before the manifest lists it (`_split_shared`). A run killed at any point leaves the previous (or an intermediate) committed state; parts
nobody lists are deleted by the next run. The compact findings.parquet is written after the
last commit of a run and is read only when it records the exact parts the manifest lists; the
search sidecar after it, read only when it records the digest of the committed manifest.

An input is identified by its origin (`--origin`, default the host name) and absolute path: the
same path indexed from two machines into one shared index is two inputs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from logsleuth import index_compact, search_sidecar
from logsleuth.errors import InputError, Location
from logsleuth.index_compact import write_atomic as _write_atomic
from logsleuth.index_files import Stat, auto_roots, content_hash, default_dir, default_origin, stat_of

if TYPE_CHECKING:
    from logsleuth.index_rows import FileResult
    from logsleuth.library import PatternLibrary

INDEX_VERSION = 2  # bump when FINDING_SCHEMA or what goes into it changes: everything is re-indexed
MANIFEST = "files.parquet"
PARTS = "findings"
LOCK = ".lock"
SLOW_ENV = "LOGSLEUTH_INDEX_SLOW_MS"  # test hook: sleep between inputs so a kill lands mid-run
COMMIT_EVERY_FILES = 20  # commit the manifest this often during long runs ...
COMMIT_ENV = "LOGSLEUTH_INDEX_COMMIT_EVERY"  # ... or every N inputs (tests: commits land mid-run)
COMMIT_EVERY_SECONDS = 2.0  # ... or after this long, whichever comes first
# A commit rewrites the whole manifest (one row per input): on a run over 100,000 small files,
# committing every 20 made the run quadratic (31 -> 17 files/s). Commits are therefore spaced so
# that at most this share of the run's time goes into them (a 20 ms manifest waits 200 ms).
COMMIT_SHARE = 0.1

# One action against a failure episode: the command as issued and what it changed.
ACTION_STRUCT = pl.Struct(
    {
        "seq": pl.Int64(),
        "command": pl.Utf8(),
        "kind": pl.Utf8(),
        "subject": pl.Utf8(),
        "value": pl.Utf8(),
        "resolved": pl.Utf8(),
    }
)

FINDING_SCHEMA: dict[str, pl.DataType] = {
    "session": pl.Utf8(),
    "source": pl.Utf8(),  # the input path as given to `index`
    "line": pl.Int64(),
    "seq": pl.Int64(),
    "ts": pl.Datetime("us", "UTC"),
    "pattern": pl.Utf8(),
    "category": pl.Utf8(),
    "severity": pl.Utf8(),  # fatal | error | warning | success
    "priority": pl.Int64(),  # the pattern's priority (the strongest finding of an event wins)
    "fingerprint": pl.Utf8(),
    "captures": pl.Utf8(),  # JSON object, keys sorted
    "text": pl.Utf8(),
    "primary": pl.Boolean(),  # the session's primary (root-cause) finding
    "success": pl.Boolean(),  # a success pattern: what worked
    "episode": pl.Utf8(),  # the failure episode (graph node id) this finding belongs to, else null
    "resolved_by": pl.List(ACTION_STRUCT),  # the action(s) that stopped the episode
    "held": pl.Boolean(),  # the episode never came back after resolved_by; null when nothing resolved it
    "attempts": pl.List(ACTION_STRUCT),  # the other attempts against the episode (they did not fix it)
    "catch22": pl.Boolean(),  # the episode is part of a catch-22
    "outcome": pl.Utf8(),  # the session's outcome: resolved | worked around | unresolved
    "format": pl.Utf8(),  # the reader that read the input
    "file_sha256": pl.Utf8(),  # content hash of the input, as in the manifest
    "origin": pl.Utf8(),  # who/which machine indexed the input (`index --origin`)
}

MANIFEST_SCHEMA: dict[str, pl.DataType] = {
    "path": pl.Utf8(),  # absolute path: the key
    "source": pl.Utf8(),  # the path as given when it was indexed
    "part": pl.Utf8(),  # findings/part-<hash>.parquet relative to the index dir; null: no findings
    "size": pl.Int64(),
    "mtime_ns": pl.Int64(),
    "sha256": pl.Utf8(),
    "format": pl.Utf8(),
    "sessions": pl.Int64(),
    "findings": pl.Int64(),
    "skipped": pl.Int64(),  # input lines the reader could not use
    "library": pl.Utf8(),  # hash of the pattern library the findings came from
    "version": pl.Int64(),  # INDEX_VERSION
    "origin": pl.Utf8(),  # with path, the key: who/which machine indexed the input
}


def library_hash(library: PatternLibrary) -> str:
    """Changes when any pattern's matching or metadata changes: the index is then rebuilt."""
    h = hashlib.sha256(str(INDEX_VERSION).encode())
    for p in library.patterns:
        h.update(
            repr(
                (p.id, p.category, p.severity.value, p.priority, p.regex, p.prefilter, p.fingerprint, p.scope)
            ).encode()
        )
    return h.hexdigest()[:16]


def empty_findings() -> pl.DataFrame:
    return pl.DataFrame(schema=FINDING_SCHEMA)


# ---------------------------------------------------------------- the manifest and its parts


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


def scan(db: Path, columns: Sequence[str] | None = None) -> pl.LazyFrame:
    """The committed findings of an index (only the parts its manifest lists), lazily: the
    compact findings.parquet when it holds exactly those parts, else the parts themselves."""
    db = Path(db)
    frame, _ = _committed(db, _listed_parts(db))
    return frame.select(list(columns)) if columns else frame


def _committed(db: Path, parts: list[str]) -> tuple[pl.LazyFrame, bool]:
    """(the findings of `parts`, read from the compact file?)"""
    frame = index_compact.scan_valid(db, parts)
    if frame is not None:
        return frame, True
    return (empty_findings().lazy() if not parts else pl.scan_parquet([str(db / p) for p in parts])), False


def load(db: Path, columns: Sequence[str] | None = None, predicate: pl.Expr | None = None) -> pl.DataFrame:
    """Collect committed findings; retried when a concurrent run replaced a file under our feet."""
    db = Path(db)
    last: Exception | None = None
    for _ in range(3):
        try:
            parts = _listed_parts(db)
            kept = index_compact.kept(db, parts)  # in memory when this process read this state before
            lf, compact = (kept.lazy(), False) if kept is not None else _committed(db, parts)
            if predicate is not None:
                lf = lf.filter(predicate)
            if columns:
                lf = lf.select(list(columns))
            if not compact:
                return lf.collect()
            frame = index_compact.collect_valid(db, parts, lf)
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


# ---------------------------------------------------------------- locking


class IndexBusy(InputError):
    """Another `logsleuth index` holds the index lock (and --no-wait was given)."""


@contextlib.contextmanager
def locked(db: Path, wait: bool = True) -> Iterator[None]:
    db.mkdir(parents=True, exist_ok=True)
    with open(db / LOCK, "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise IndexBusy(
                "another `logsleuth index` is updating this index",
                Location(str(db)),
                "wait for it to finish, or rerun without --no-wait to wait for the lock",
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


# ---------------------------------------------------------------- building and updating


@dataclass(frozen=True, slots=True)
class Progress:
    """Reported after each input: how far the run is (for a progress bar)."""

    done: int
    total: int
    source: str


@dataclass
class Summary:  # an accumulator, filled in as the run goes
    files: int = 0  # inputs (re)indexed this run
    unchanged: int = 0
    removed: int = 0
    sessions: int = 0
    findings: int = 0
    skipped_lines: int = 0
    errors: list[str] = field(default_factory=list)
    total_files: int = 0  # in the index after the run
    total_findings: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "sessions": self.sessions,
            "findings": self.findings,
            "skipped_lines": self.skipped_lines,
            "errors": sorted(self.errors),
            "index": {"files": self.total_files, "findings": self.total_findings},
        }


def _part_name(key: str, sha: str, lib: str) -> str:
    h = hashlib.sha256(f"{key}\x00{sha}\x00{lib}\x00{INDEX_VERSION}".encode()).hexdigest()[:20]
    return f"{PARTS}/part-{h}.parquet"


def _batch_part_name(members: Sequence[tuple[str, str, str]], lib: str) -> str:
    """The part of several inputs ((origin, key, sha) each): hashes them all, sorted."""
    h = hashlib.sha256(f"{lib}\x00{INDEX_VERSION}".encode())
    for origin, key, sha in sorted(members):
        h.update(f"\x00{origin}\x00{key}\x00{sha}".encode())
    return f"{PARTS}/part-{h.hexdigest()[:20]}.parquet"


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


class _Builder:
    """One index run under the lock: plan, (re)index, commit periodically, collect garbage."""

    def __init__(self, db: Path, library: PatternLibrary, force: bool, origin: str):
        self.db = db
        self.origin = origin
        self.lib = library_hash(library)
        self.force = force
        try:
            manifest = read_manifest(db)
        except InputError:
            if not force:
                raise
            manifest = pl.DataFrame(schema=MANIFEST_SCHEMA)  # --force rebuilds from any damaged state
        # keyed by (origin, absolute path); the methods below take a path of this run's origin
        self.rows: dict[tuple[str, str], dict[str, Any]] = {
            (r["origin"] or origin, r["path"]): r for r in manifest.to_dicts()
        }
        self.dirty = False
        self.last_commit = time.monotonic()
        self.since_commit = 0
        self.commit_cost = 0.0  # seconds the last commit took (the next one waits 1/COMMIT_SHARE as long)
        self.orphans: set[str] = set()  # parts this run unlisted: deleted after the next commit

    def current(self, key: str, path: Path) -> tuple[bool, Stat, str | None]:
        """(unchanged?, stat, sha if computed). The cheap size+mtime check first, the hash only if needed."""
        st = stat_of(path)
        prev = self.rows.get((self.origin, key))
        fresh = prev is not None and not self.force and prev["library"] == self.lib and prev["version"] == INDEX_VERSION
        if fresh and prev is not None and prev["part"] and not (self.db / prev["part"]).is_file():
            fresh = False  # its part was lost (deleted, a damaged disk): analyse the input again
        if fresh and prev is not None and (prev["size"], prev["mtime_ns"]) == (st.size, st.mtime_ns):
            return True, st, prev["sha256"]
        sha = content_hash(path)
        if fresh and prev is not None and prev["sha256"] == sha:
            self.rows[(self.origin, key)] = {**prev, "size": st.size, "mtime_ns": st.mtime_ns}  # touched, same content
            self.dirty = True
            return True, st, sha
        return False, st, sha

    def index(self, key: str, source: str, st: Stat, sha: str, result: FileResult) -> None:
        """Write the part of one analysed input and list it (committed with the manifest)."""
        self.index_many([(key, source, st, sha, result)])

    def index_many(self, done: Sequence[tuple[str, str, Stat, str, FileResult]]) -> None:
        """Write one part for the findings of several analysed inputs (a batch of small ones)
        and list each input with it. An input's rows are told apart in a shared part by their
        (origin, source); `_split_shared` rewrites a part some of whose inputs left it."""
        with_rows = [d for d in done if d[4].frame.height]
        part = None
        if len(with_rows) == 1:
            key, _, _, sha, _ = with_rows[0]
            part = _part_name(f"{self.origin}\x00{key}", sha, self.lib)
        elif with_rows:
            part = _batch_part_name([(self.origin, d[0], d[3]) for d in with_rows], self.lib)
        if part is not None:
            frame = pl.concat([d[4].frame for d in with_rows])
            _write_atomic(frame.with_columns(pl.lit(self.origin, pl.Utf8()).alias("origin")), self.db / part)
        for key, source, st, sha, result in done:
            prev = self.rows.get((self.origin, key))
            if prev is not None and prev["part"]:
                self.orphans.add(prev["part"])
            self.rows[(self.origin, key)] = {
                "path": key,
                "source": source,
                "part": part if result.frame.height else None,
                "size": st.size,
                "mtime_ns": st.mtime_ns,
                "sha256": sha,
                "format": result.format,
                "sessions": result.sessions,
                "findings": result.frame.height,
                "skipped": result.skipped,
                "library": self.lib,
                "version": INDEX_VERSION,
                "origin": self.origin,
            }
            self.since_commit += 1
        self.dirty = True

    def _split_shared(self) -> None:
        """A part this run unlisted some inputs of may still be listed by others: it then holds
        stale rows, so it is rewritten with only the rows of the inputs still listing it (a
        content-addressed name of its own) before the manifest points at it."""
        if not self.orphans:
            return
        by_part: dict[str, list[tuple[str, str]]] = {}
        for k, r in self.rows.items():
            if r["part"] in self.orphans:
                by_part.setdefault(r["part"], []).append(k)
        for old, keys in sorted(by_part.items()):
            members = [self.rows[k] for k in keys]
            try:
                frame = pl.read_parquet(self.db / old)
                wanted = pl.DataFrame(
                    {"origin": [r["origin"] for r in members], "source": [r["source"] for r in members]},
                    schema={"origin": pl.Utf8(), "source": pl.Utf8()},
                )
                frame = frame.join(wanted, on=["origin", "source"], how="semi", maintain_order="left")
                new = _batch_part_name([(r["origin"], r["path"], r["sha256"]) for r in members], self.lib)
                _write_atomic(frame, self.db / new)
            except Exception:  # unreadable or gone: those inputs are analysed again next run
                for k in keys:
                    del self.rows[k]
                continue
            for k in keys:
                self.rows[k] = {**self.rows[k], "part": new}

    def drop(self, key: str) -> None:
        row = self.rows.pop((self.origin, key), None)
        if row is not None:
            self.dirty = True
            if row["part"]:
                self.orphans.add(row["part"])

    def maybe_commit(self) -> None:
        forced = os.environ.get(COMMIT_ENV)
        if forced:  # tests: commits land every N inputs, whatever they cost
            if self.since_commit >= int(forced):
                self.commit()
            return
        elapsed = time.monotonic() - self.last_commit
        if elapsed < self.commit_cost / COMMIT_SHARE:
            return
        if self.since_commit >= COMMIT_EVERY_FILES or elapsed >= COMMIT_EVERY_SECONDS:
            self.commit()

    def commit(self, final: bool = False) -> None:
        """Write the manifest when it changed; at the end of the run also the compact file.

        Mid-run, only the parts this run unlisted are deleted (a sweep of the whole parts folder
        per commit was quadratic too); the run's first and final commits sweep everything."""
        start = time.monotonic()
        self._split_shared()
        if self.dirty:
            rows = [self.rows[k] for k in sorted(self.rows)]
            frame = pl.DataFrame(rows, schema=MANIFEST_SCHEMA) if rows else pl.DataFrame(schema=MANIFEST_SCHEMA)
            _write_atomic(frame, self.db / MANIFEST)
            self.dirty = False
        listed = {r["part"] for r in self.rows.values() if r["part"]}
        for part in sorted(self.orphans - listed):
            with contextlib.suppress(FileNotFoundError):
                (self.db / part).unlink()
        self.orphans.clear()
        self.last_commit = time.monotonic()
        self.commit_cost = self.last_commit - start
        self.since_commit = 0
        if final:  # after the manifest: a run killed in between leaves no compact file that matches
            self.collect_garbage()
            parts = sorted({r["part"] for r in self.rows.values() if r["part"]})
            index_compact.write_compact(self.db, parts, FINDING_SCHEMA)
            search_sidecar.write_committed(self.db, index_compact.COMPACT)

    def collect_garbage(self) -> None:
        """Delete parts the committed manifest does not list and temp files of killed runs."""
        listed = {r["part"] for r in self.rows.values() if r["part"]}
        folder = self.db / PARTS
        for p in sorted(folder.iterdir()) if folder.is_dir() else []:
            rel = f"{PARTS}/{p.name}"
            if rel not in listed or p.name.endswith(".tmp"):
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
        for p in self.db.glob(f".{MANIFEST}.*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        index_compact.remove_temp_files(self.db)
        search_sidecar.remove_temp_files(self.db)


def build(
    roots: Sequence[str],
    db: Path | None = None,
    *,
    library: PatternLibrary | None = None,
    pattern_dirs: Sequence[str] = (),
    wait: bool = True,
    force: bool = False,
    keep_deleted: bool = False,
    progress: Callable[[Progress], None] | None = None,
    jobs: int | None = None,
    origin: str | None = None,
) -> Summary:
    """Index (or update the index of) every session under `roots`; never aborts on a bad input.

    Unchanged inputs are skipped, changed ones replaced, and inputs under a root that no longer
    exist removed (unless keep_deleted). Holds DIR/.lock for the whole run. `jobs`: worker
    processes for the analysis (index_pool; default: the cores, at most 4).
    """
    from logsleuth import index_pool
    from logsleuth.analysis import load_library
    from logsleuth.index_pool import Task

    db = Path(db) if db is not None else default_dir()
    summary = Summary()
    for d in (db, db / PARTS):
        if d.exists() and not d.is_dir():
            raise InputError("not an index folder: a file is in the way", Location(str(d)), "pass --db a folder (new or an index)")
    (db / PARTS).mkdir(parents=True, exist_ok=True)
    lib = library if library is not None else load_library(pattern_dirs)
    slow = float(os.environ.get(SLOW_ENV) or 0) / 1000
    _warm_up()
    with locked(db, wait):
        b = _Builder(db, lib, force, origin or default_origin())  # the manifest is read under the lock: a waiting run sees the winner's work
        b.collect_garbage()
        inputs: dict[str, str] = {}  # absolute key -> source as given
        scanned: list[str] = []
        for root in roots:
            try:
                found = discover(root)
            except InputError as exc:
                summary.errors.append(exc.one_line())
                continue
            scanned.append(os.path.abspath(root))
            if not found:
                summary.errors.append(f"{root}: no transcript or log found")
            for source in found:
                inputs.setdefault(os.path.abspath(source), source)
        if not keep_deleted:
            for o, key in sorted(b.rows):
                if o == b.origin and key not in inputs and _under(key, scanned):
                    b.drop(key)
                    summary.removed += 1
        ordered = sorted(inputs.items(), key=lambda kv: kv[1])
        # plan (stat, hash) in order, then analyse the changed inputs, on several cores when
        # worth it; results are taken, written and committed in the order of the inputs
        plan: dict[str, tuple[Stat, Task] | str | None] = {}  # None: unchanged; str: error
        for key, source in ordered:
            try:
                unchanged, st, sha = b.current(key, Path(key))
                if unchanged:
                    plan[key] = None
                else:
                    assert sha is not None  # `current` hashes whatever it does not skip
                    plan[key] = (st, Task(source, sha, st.size))
            except Exception as exc:  # one bad input never aborts the run
                plan[key] = index_pool.error_line(source, exc)
        todo = [p[1] for p in plan.values() if isinstance(p, tuple)]
        # closed on the way out, whatever happens: no worker outlives the run's lock
        pending: list[tuple[str, str, Stat, str, FileResult]] = []  # the analysed inputs of the batch under way

        def flush() -> None:
            try:
                b.index_many(pending)
                for _, _, _, _, result in pending:
                    summary.files += 1
                    summary.sessions += result.sessions
                    summary.findings += result.frame.height
                    summary.skipped_lines += result.skipped
            except Exception as exc:  # writing the batch's part failed: those inputs only
                for key, source, _, _, _ in pending:
                    b.drop(key)
                    summary.errors.append(index_pool.error_line(source, exc))
            pending.clear()

        # closed on the way out, whatever happens: no worker outlives the run's lock
        with contextlib.closing(index_pool.analysed(todo, lib, jobs)) as outcomes:
            for done, (key, source) in enumerate(ordered, start=1):
                if slow:
                    time.sleep(slow)
                step = plan[key]
                error: str | None = None
                if step is None:
                    summary.unchanged += 1
                elif isinstance(step, str):
                    error = step
                else:
                    out = next(outcomes)
                    error = out.error
                    if out.result is not None:
                        pending.append((key, source, step[0], step[1].sha, out.result))
                        for warning in out.result.warnings:  # as analyze warns (ingest/coverage.py)
                            sys.stderr.write(f"logsleuth: warning: {warning}\n")
                    if out.closes:
                        flush()
                if error is not None:
                    b.drop(key)  # whatever was indexed from it before is stale now
                    summary.errors.append(error)
                if not pending:  # a batch's inputs are committed together, with their part
                    b.maybe_commit()
                if progress is not None:
                    progress(Progress(done, len(ordered), source))
            flush()
        b.commit(final=True)
        summary.total_files = len(b.rows)
        summary.total_findings = sum(int(r["findings"] or 0) for r in b.rows.values())
    summary.errors.sort()
    return summary


def _warm_up() -> None:
    """Import the analysis stages before taking the lock: the lock is held for work, not imports."""
    import logsleuth.actions
    import logsleuth.classify
    import logsleuth.index_rows
    import logsleuth.ingest
    import logsleuth.link  # noqa: F401
    from logsleuth.ingest.detect import readers

    readers()


def discover(root: str) -> list[str]:
    """The inputs under `root` (ingest.discover), or an InputError when it does not exist."""
    from logsleuth import ingest

    if not os.path.exists(root):
        raise InputError("no such file or directory", Location(root), "check the path")
    return ingest.discover(root)


__all__ = ["auto_roots", "build", "default_dir", "default_origin", "discover", "load", "locked", "read_manifest", "scan", "stat_of"]
