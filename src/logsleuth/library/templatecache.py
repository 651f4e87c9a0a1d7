"""Compiled jinja2 templates kept on disk between calls (jinja2's bytecode cache, in the cache folder).

Every `analyze` compiled the report's ~30 templates and the patterns' explain/fixes templates again:
parse, generate Python, compile it (~0.1 s CPU of the sample's analyze, measured here). jinja2 keys a
bucket by the template's name and checks the source's hash before it uses one, and its header holds
jinja2's and Python's versions; the folder is per environment and per its options, so a change of
either never loads code compiled for the other. A cache that cannot be read or written is skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import Any

import jinja2

from logsleuth.cachedir import cache_dir


class DiskCache(jinja2.BytecodeCache):
    """One folder of compiled templates; unreadable or unwritable is the same as empty."""

    def __init__(self, folder: Path):
        self.folder = folder

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(self.folder / bucket.key, "rb") as f:
                bucket.load_bytecode(f)
        except Exception:  # missing, truncated, foreign: compile as if there were none
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        tmp = self.folder / f".{bucket.key}.{os.getpid()}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                bucket.write_bytecode(f)
            os.replace(tmp, self.folder / bucket.key)
        except Exception:  # read-only home, full disk: the cache is only an optimisation
            with contextlib.suppress(OSError):
                tmp.unlink()


def disk_cache(kind: str, options: Any) -> DiskCache | None:
    """The cache of one kind of environment built with `options` (their repr is part of the key)."""
    try:
        digest = hashlib.sha256(repr((kind, options, jinja2.__version__)).encode()).hexdigest()[:16]
        return DiskCache(cache_dir() / f"jinja-{kind}-{digest}")
    except (OSError, RuntimeError):  # no home folder
        return None
