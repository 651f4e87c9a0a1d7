"""An `index` run: under the lock, plan (stat, hash) every input, analyse the changed ones (on
several cores when worth it: pool.py), write their parts and commit the manifest periodically,
then the compact file and the search sidecar. The layout and its guarantees: index/__init__.py.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from logsleuth.errors import InputError, Location, shown_path
from logsleuth.index import compact, pool, sidecar_write
from logsleuth.index.compact import write_atomic
from logsleuth.index.files import (
    Stat,
    content_hash,
    default_dir,
    default_origin,
    discover,
    members_of,
    stat_of,
)
from logsleuth.index.lock import locked
from logsleuth.index.parts import batch_part_name, part_name, split_shared
from logsleuth.index.schema import (
    FINDING_SCHEMA,
    INDEX_VERSION,
    MANIFEST,
    MANIFEST_SCHEMA,
    PARTS,
    finding_count,
    library_hash,
)
from logsleuth.index.store import read_manifest
from logsleuth.termsafe import say

if TYPE_CHECKING:
    from logsleuth.index.analyse import FileResult
    from logsleuth.library import PatternLibrary

SLOW_ENV = "LOGSLEUTH_INDEX_SLOW_MS"  # test hook: sleep between inputs so a kill lands mid-run
COMMIT_EVERY_FILES = 20  # commit the manifest this often during long runs ...
COMMIT_ENV = "LOGSLEUTH_INDEX_COMMIT_EVERY"  # ... or every N inputs (tests: commits land mid-run)
COMMIT_EVERY_SECONDS = 2.0  # ... or after this long, whichever comes first
# A commit rewrites the whole manifest (one row per input): on a run over 100,000 small files,
# committing every 20 made the run quadratic (31 -> 17 files/s). Commits are therefore spaced so
# that at most this share of the run's time goes into them (a 20 ms manifest waits 200 ms).
COMMIT_SHARE = 0.1


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
    not_used: list[str] = field(default_factory=list)  # files under the folders no reader can use (ingest.discover)

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
        members = members_of(path)  # listed once for the stat and the hash
        st = stat_of(path, members)
        prev = self.rows.get((self.origin, key))
        fresh = prev is not None and not self.force and prev["library"] == self.lib and prev["version"] == INDEX_VERSION
        if fresh and prev is not None and prev["part"] and not (self.db / prev["part"]).is_file():
            fresh = False  # its part was lost (deleted, a damaged disk): analyse the input again
        if fresh and prev is not None and (prev["size"], prev["mtime_ns"]) == (st.size, st.mtime_ns):
            return True, st, prev["sha256"]
        sha = content_hash(path, members)
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
        (origin, source); `parts.split_shared` rewrites a part some of whose inputs left it."""
        with_rows = [d for d in done if d[4].frame.height]
        part = None
        if len(with_rows) == 1:
            key, _, _, sha, _ = with_rows[0]
            part = part_name(f"{self.origin}\x00{key}", sha, self.lib)
        elif with_rows:
            part = batch_part_name([(self.origin, d[0], d[3]) for d in with_rows], self.lib)
        if part is not None:
            frame = pl.concat([d[4].frame for d in with_rows])
            write_atomic(frame.with_columns(pl.lit(self.origin, pl.Utf8()).alias("origin")), self.db / part)
        for key, source, st, sha, result in done:
            prev = self.rows.get((self.origin, key))
            if prev is not None and prev["part"]:
                self.orphans.add(prev["part"])
            self.rows[(self.origin, key)] = {
                "path": key,
                "source": shown_path(source),
                "part": part if result.frame.height else None,
                "size": st.size,
                "mtime_ns": st.mtime_ns,
                "sha256": sha,
                "format": result.format,
                "sessions": result.sessions,
                "findings": finding_count(result.frame),
                "skipped": result.skipped,
                "library": self.lib,
                "version": INDEX_VERSION,
                "origin": self.origin,
            }
            self.since_commit += 1
        self.dirty = True

    def _split_shared(self) -> None:
        """A part this run unlisted some inputs of may still be listed by others: rewritten with
        only their rows before the manifest points at it (parts.split_shared)."""
        split_shared(self.db, self.rows, self.orphans, self.lib)

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
            write_atomic(frame, self.db / MANIFEST)
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
            compact.write_compact(self.db, parts, FINDING_SCHEMA)
            sidecar_write.write_committed(self.db, compact.COMPACT)

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
        compact.remove_temp_files(self.db)
        sidecar_write.remove_temp_files(self.db)


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
    processes for the analysis (index.pool; default: the cores, at most 4).
    """
    from logsleuth.analysis import load_library

    db = Path(db) if db is not None else default_dir()
    summary = Summary()
    if shown_path(str(db)) != str(db):  # Parquet and SQLite take text paths
        raise InputError("the index folder's name is not valid UTF-8", Location(str(db)), "pass --db a folder with a UTF-8 name")
    for d in (db, db / PARTS):
        if d.exists() and not d.is_dir():
            raise InputError("not an index folder: a file is in the way", Location(str(d)), "pass --db a folder (new or an index)")
    (db / PARTS).mkdir(parents=True, exist_ok=True)
    lib = library if library is not None else load_library(pattern_dirs)
    slow = float(os.environ.get(SLOW_ENV) or 0) / 1000
    workers = _fresh_workers(roots, db, lib, jobs, force)
    try:
        run = _Run(force=force, keep_deleted=keep_deleted, origin=origin or default_origin(), jobs=jobs, wait=wait, slow=slow)
        _index(db, roots, lib, run, workers, summary, progress)
    finally:
        if workers is not None:
            workers.close()
    summary.errors.sort()
    summary.not_used = sorted(set(summary.not_used))
    return summary


@dataclass(frozen=True, slots=True)
class _Run:
    """How a run goes (build's options)."""

    force: bool
    keep_deleted: bool
    origin: str
    jobs: int | None
    wait: bool
    slow: float  # seconds to sleep between inputs (SLOW_ENV)


def _index(
    db: Path,
    roots: Sequence[str],
    lib: PatternLibrary,
    run: _Run,
    workers: pool.Workers | None,
    summary: Summary,
    progress: Callable[[Progress], None] | None,
) -> None:
    if workers is None:  # with workers started already, this process analyses nothing itself
        _warm_up()
    with locked(db, run.wait):
        b = _Builder(db, lib, run.force, run.origin)  # the manifest is read under the lock: a waiting run sees the winner's work
        b.collect_garbage()
        inputs: dict[str, str] = {}  # absolute key -> source as given
        scanned: list[str] = []
        for root in roots:
            try:
                found = discover(root, summary.not_used)
            except InputError as exc:
                summary.errors.append(exc.one_line())
                continue
            scanned.append(shown_path(os.path.abspath(root)))
            if not found:
                summary.errors.append(f"{root}: no transcript or log found")
            for source in found:
                inputs.setdefault(shown_path(os.path.abspath(source)), source)  # a key is text
        if not run.keep_deleted:
            for o, key in sorted(b.rows):
                if o == b.origin and key not in inputs and _under(key, scanned):
                    b.drop(key)
                    summary.removed += 1
        ordered = sorted(inputs.items(), key=lambda kv: kv[1])
        if workers is None:
            workers = _early_workers(b, inputs, lib, run.jobs)
        try:
            _run(b, ordered, lib, run.jobs, workers, summary, progress, run.slow)
        finally:
            if workers is not None:
                workers.close()
        b.commit(final=True)
        summary.total_files = len(b.rows)
        summary.total_findings = sum(int(r["findings"] or 0) for r in b.rows.values())


def _fresh_workers(roots: Sequence[str], db: Path, lib: PatternLibrary, jobs: int | None, force: bool) -> pool.Workers | None:
    """Workers started first thing for a new index (or --force) over folders holding enough files
    for them: their start-up (~1 s of imports each) overlaps this process's own imports and its
    folder walk. Counted by name only (no probing): a guess that at worst starts workers that
    `pool.analysed` then closes unused."""
    jobs = pool.jobs_for(jobs)
    if jobs < 2 or not (force or not (db / MANIFEST).exists()):
        return None
    count = 0
    for root in roots:
        if not os.path.isdir(root):
            continue
        for _, _, files in os.walk(root):
            count += len(files)
            if pool.worth_workers(count):
                return pool.Workers(lib, jobs)
    return None


def _early_workers(b: _Builder, inputs: dict[str, str], lib: PatternLibrary, jobs: int | None) -> pool.Workers | None:
    """Workers started before planning when this many inputs are new to the index (their
    start-up overlaps the hashing); else `pool.analysed` starts them if the work calls for it."""
    jobs = pool.jobs_for(jobs)
    new = sum(1 for key in inputs if b.force or (b.origin, key) not in b.rows)
    return pool.Workers(lib, jobs) if jobs > 1 and pool.worth_workers(new) else None


def _run(
    b: _Builder,
    ordered: list[tuple[str, str]],
    lib: PatternLibrary,
    jobs: int | None,
    workers: pool.Workers | None,
    summary: Summary,
    progress: Callable[[Progress], None] | None,
    slow: float,
) -> None:
    """Plan, analyse, write and commit the inputs of a run, in order (the final commit is the caller's)."""
    from logsleuth.index.analyse import Task, error_line
    from logsleuth.ingest import detected_reader

    # plan (stat, hash) in order, then analyse the changed inputs, on several cores when
    # worth it; results are taken, written and committed in the order of the inputs
    plan: dict[str, tuple[Stat, Task] | str | None] = {}  # None: unchanged; str: error
    for key, source in ordered:
        try:
            unchanged, st, sha = b.current(key, Path(os.path.abspath(source)))
            if unchanged:
                plan[key] = None
            else:
                assert sha is not None  # `current` hashes whatever it does not skip
                plan[key] = (st, Task(source, sha, st.size, detected_reader(source)))
        except Exception as exc:  # one bad input never aborts the run
            plan[key] = error_line(source, exc)
    todo = [p[1] for p in plan.values() if isinstance(p, tuple)]
    pending: list[tuple[str, str, Stat, str, FileResult]] = []  # the analysed inputs of the batch under way

    def flush() -> None:
        try:
            b.index_many(pending)
            for _, _, _, _, result in pending:
                summary.files += 1
                summary.sessions += result.sessions
                summary.findings += finding_count(result.frame)
                summary.skipped_lines += result.skipped
        except Exception as exc:  # writing the batch's part failed: those inputs only
            for key, source, _, _, _ in pending:
                b.drop(key)
                summary.errors.append(error_line(source, exc))
        pending.clear()

    # closed on the way out, whatever happens: no worker outlives the run's lock
    with contextlib.closing(pool.analysed(todo, lib, jobs, workers)) as outcomes:
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
                if progress is not None:  # the input being analysed now, not the one before it
                    progress(Progress(done - 1, len(ordered), source))
                out = next(outcomes)
                error = out.error
                if out.result is not None:
                    pending.append((key, source, step[0], step[1].sha, out.result))
                    for warning in out.result.warnings:  # as analyze warns (ingest/coverage.py)
                        say(f"logsleuth: warning: {warning}")
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


def _warm_up() -> None:
    """Import the analysis stages before taking the lock: the lock is held for work, not imports."""
    import logsleuth.actions
    import logsleuth.classify
    import logsleuth.index.analyse
    import logsleuth.ingest
    import logsleuth.link  # noqa: F401
    from logsleuth.ingest.detect import readers

    readers()
