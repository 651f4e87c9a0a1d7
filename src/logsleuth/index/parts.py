"""Part names, and the rewrite of a part shared by a batch of inputs when some of them leave it.

A part's name hashes what its rows came from (each input's origin, path and content, the pattern
library, the index version): a changed input gets a new part and an old manifest never points at
new data. The inputs of a batch share one part; when a run re-indexes or drops some of them, the
part still listed by the others holds stale rows, so it is rewritten under a name of its own with
only their rows (`split_shared`) before the manifest points at it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from logsleuth.index.compact import write_atomic
from logsleuth.index.schema import INDEX_VERSION, PARTS

Key = tuple[str, str]  # (origin, absolute path): a manifest row's key


def part_name(key: str, sha: str, lib: str) -> str:
    """The part of one input (`key`: origin NUL path)."""
    h = hashlib.sha256(f"{key}\x00{sha}\x00{lib}\x00{INDEX_VERSION}".encode()).hexdigest()[:20]
    return f"{PARTS}/part-{h}.parquet"


def batch_part_name(members: Sequence[tuple[str, str, str]], lib: str) -> str:
    """The part of several inputs ((origin, key, sha) each): hashes them all, sorted."""
    h = hashlib.sha256(f"{lib}\x00{INDEX_VERSION}".encode())
    for origin, key, sha in sorted(members):
        h.update(f"\x00{origin}\x00{key}\x00{sha}".encode())
    return f"{PARTS}/part-{h.hexdigest()[:20]}.parquet"


def split_shared(db: Path, rows: MutableMapping[Key, dict[str, Any]], orphans: set[str], lib: str) -> None:
    """Rewrite each part in `orphans` (unlisted by some inputs this run) that other manifest
    `rows` still list, with only those inputs' rows, and point them at the new part. An
    unreadable or lost part drops its inputs from `rows`: they are analysed again next run."""
    if not orphans:
        return
    by_part: dict[str, list[Key]] = {}
    for k, r in rows.items():
        if r["part"] in orphans:
            by_part.setdefault(r["part"], []).append(k)
    for old, keys in sorted(by_part.items()):
        new = _rewrite(db, old, [rows[k] for k in keys], lib)
        for k in keys:
            if new is None:
                del rows[k]
            else:
                rows[k] = {**rows[k], "part": new}


def _rewrite(db: Path, old: str, members: Sequence[Mapping[str, Any]], lib: str) -> str | None:
    """The rows of `members` in part `old`, written to their own part: its name, or None."""
    try:
        frame = pl.read_parquet(db / old)
        wanted = pl.DataFrame(
            {"origin": [r["origin"] for r in members], "source": [r["source"] for r in members]},
            schema={"origin": pl.Utf8(), "source": pl.Utf8()},
        )
        frame = frame.join(wanted, on=["origin", "source"], how="semi", maintain_order="left")
        new = batch_part_name([(r["origin"], r["path"], r["sha256"]) for r in members], lib)
        write_atomic(frame, db / new)
    except Exception:  # unreadable or gone: those inputs are analysed again next run
        return None
    return new
