"""The search sidecar's format, and whether a sidecar holds the committed state (`open_current`).

`DB/search.sqlite` is derived from the Parquet index, never a commit point: `index` writes it
after its last commit (sidecar_write.py), from the findings that commit lists, and records in it
the digest of the manifest (files.parquet) it was built from and a stamp of the pattern library
and of the code that writes its library snapshot. A reader trusts it only when both still match
(`open_current`); otherwise the search runs over Parquet and rewrites the sidecar for the next
one (sidecar_write.refresh). Written to a temp file and renamed into place, so a reader's open
connection keeps a whole, consistent file.

Standard library only (no polars, pathlib or typing at run time): the command-line search
(search/cli.py) opens the sidecar through this module. The sidecar also carries the default
pattern library as plain data (patterns.snapshot), so that the lean path classifies a query the
way search.query.classify_query does without loading the library (its types import polars).

Tables: `findings` (one row per indexed finding, in the compact file's order; timestamps as
microseconds since the epoch; the fix and attempt lists as ids into `lists`, which holds each
distinct list once, as JSON: every finding of an episode repeats them; `text_id` numbers each
distinct text), `fts` (a contentless FTS5 index, unicode61 words, over each distinct text of a
failure row once, rowid = text_id: an error recurs word for word across sessions, so bm25 is
computed per distinct text, not per finding), `rank` and `prank` (what full-text and pattern
queries are ranked by in SQL, per failure row and per row with a pattern: search.rank.TEXT_SQL
and PATTERN_SQL), `meta` (key, value).

Staleness costs a reader ~1 ms: the manifest (a few hundred KB at most) is hashed, and the
library stamp is recomputed from the stats of the pattern files and directories the writer saw
(stored in `meta`, so no directory walk; a file added or removed changes its directory's mtime).
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta

from logsleuth.enums import Severity

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

SIDECAR = "search.sqlite"
MANIFEST = "files.parquet"  # schema.MANIFEST (not imported: schema.py imports polars)
FORMAT = "7"  # bump when the tables or what goes into them change
FAILURE_SEVERITIES = (Severity.FATAL, Severity.ERROR, Severity.WARNING)  # what full-text search reads
COLUMNS = (
    "session", "source", "line", "seq", "ts", "pattern", "category", "severity", "priority", "fingerprint",
    "captures", "text", "origin", "file_sha256", "resolved_by", "held", "attempts", "catch22", "outcome",
    "primary", "format", "fix", "fix_state",
)  # fmt: skip
JSON_COLUMNS = ("resolved_by", "attempts")
BOOL_COLUMNS = ("held", "catch22", "primary")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
try:  # the interpreter's own SHA-256: hashlib loads OpenSSL first (~4 ms of a CLI search)
    from _sha256 import sha256  # Python 3.11 (3.12: _sha2)
except ImportError:  # pragma: no cover
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256
# the logsleuth package (no pathlib: the lean path does not import it)
_PKG = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# what a lean search's answer depends on besides the index: a change makes the sidecar stale
# (the code that reads it is whatever runs; what matters is what was written: the library snapshot)
_CODE = (os.path.join("index", "patterns.py"),)


def manifest_digest(db: str | Path) -> str | None:
    """The content hash of the manifest (the commit point), None when there is none."""
    try:
        with open(os.path.join(db, MANIFEST), "rb") as f:
            return str(sha256(f.read()).hexdigest())
    except FileNotFoundError:
        return None


def _pattern_roots() -> list[str]:
    """The directories the default library is read from (library.loader._roots with no --patterns)."""
    here = [os.path.join(_PKG, "_patterns"), os.path.join(os.path.dirname(os.path.dirname(_PKG)), "patterns")]
    roots = [c for c in here if os.path.isdir(c)][:1]
    roots += [str(_path(d)) for d in (os.environ.get("LOGSLEUTH_PATTERNS") or "").split(os.pathsep) if d]
    return roots


def _path(p: str) -> Path:
    from pathlib import Path

    return Path(p)


def library_paths() -> list[str]:
    """The default library's directories and pattern files, and the snapshot's code (the writer's view)."""
    paths = [os.path.join(_PKG, c) for c in _CODE]
    for root in _pattern_roots():
        paths += [root, *sorted(str(p) for p in _path(root).rglob("*"))]
    return paths


def library_stamp(paths: Sequence[str] | None = None) -> str:
    """Stats of `paths` (default: library_paths()), the pattern roots and the format: when any
    changes, the snapshot in a sidecar may no longer classify a query as the library would. (An
    upgrade of logsleuth rewrites its pattern files, hence changes their stats too.) A reader
    passes the paths the writer stored: ~200 stats, no walk."""
    roots = os.pathsep.join(_pattern_roots())
    h = sha256(f"{FORMAT}\0{os.environ.get('LOGSLEUTH_PATTERNS')}\0{roots}\0".encode())
    for f in library_paths() if paths is None else paths:
        try:
            st = os.stat(f)
        except OSError:
            h.update(f"{f}\0-\0".encode())
            continue
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return str(h.hexdigest())[:32]



# ---------------------------------------------------------------- currency


def is_current(db: Path, digest: str | None = None) -> bool:
    con = open_current(db, digest)
    if con is None:
        return False
    con.close()
    return True


def open_current(db: str | Path, digest: str | None = None, library: bool = True) -> sqlite3.Connection | None:
    """A read-only connection to the sidecar when it holds the committed state, else None.
    `library`: its library snapshot must be current too (a full-text search reads no snapshot)."""
    path = os.path.join(db, SIDECAR)
    digest = digest if digest is not None else manifest_digest(db)
    if digest is None:
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        meta = dict(con.execute(
            "SELECT key, value FROM meta WHERE key IN ('format', 'manifest', 'library', 'library_paths')"))
    except sqlite3.Error:
        return None
    ok = meta.get("format") == FORMAT and meta.get("manifest") == digest
    if ok and library:
        import json  # not orjson: its import costs a CLI search ~10 ms (uuid, platform, ...)

        ok = meta.get("library") == library_stamp(json.loads(meta.get("library_paths") or "[]"))
    if not ok:
        con.close()
        return None
    return con


def ts_of(us: int | None) -> datetime | None:
    return None if us is None else _EPOCH + timedelta(microseconds=us)


def us_of(ts: datetime | None) -> int | None:
    return None if ts is None else (ts - _EPOCH) // timedelta(microseconds=1)
