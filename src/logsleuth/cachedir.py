"""Where logsleuth keeps its caches (the validated library, compiled templates, Hyperscan databases)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "LOGSLEUTH_CACHE_DIR"  # where the caches go (default $XDG_CACHE_HOME/logsleuth)


def cache_dir() -> Path:
    """$LOGSLEUTH_CACHE_DIR, else $XDG_CACHE_HOME/logsleuth, else ~/.cache/logsleuth."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "logsleuth"
