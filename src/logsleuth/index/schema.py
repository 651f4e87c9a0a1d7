"""The index's Parquet schemas: a finding row of a part (FINDING_SCHEMA) and a manifest row
(MANIFEST_SCHEMA), the file names under the index directory and the index version."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary

INDEX_VERSION = 4  # bump when FINDING_SCHEMA or what goes into it changes: everything is re-indexed
MANIFEST = "files.parquet"
PARTS = "findings"
LOCK = ".lock"

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
    "severity": pl.Utf8(),  # fatal | error | warning | success | session (the session's own row, SESSION_ROW)
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
    # what the verdict (logsleuth.verdict) decided about the finding's episode, read, not recomputed
    "fix": pl.Utf8(),  # the state the fix changed, in one line ("edited `kws/export.py`: +3 -1 lines")
    "fix_state": pl.Utf8(),  # held | came back | gone on re-run | gone by a later run | did not hold | open
    "fixed_at": pl.Int64(),  # seq of the run that showed the failure gone
    # the session, the same on each of its rows (and on its SESSION_ROW, so that a session
    # without findings is listed too)
    "title": pl.Utf8(),  # the first request of the session, one line
    "events": pl.Int64(),
    "session_start": pl.Datetime("us", "UTC"),  # the span of all its events, not of its findings
    "session_end": pl.Datetime("us", "UTC"),
    "root_category": pl.Utf8(),  # the category of the verdict's root-cause failure
    "summary": pl.Utf8(),  # the verdict's reason, one sentence
    "failures": pl.Int64(),  # how many failures the verdict tells (one with no pattern finding counts too)
}
SESSION_ROW = "session"  # the severity of the one row per session that is not a finding

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


def finding_count(frame: pl.DataFrame) -> int:
    """The findings among a part's rows (each session's own row is not one)."""
    if not frame.height or "severity" not in frame.columns:
        return frame.height
    return frame.height - int((frame["severity"] == SESSION_ROW).sum())


def empty_findings() -> pl.DataFrame:
    return pl.DataFrame(schema=FINDING_SCHEMA)
