"""The pattern library of a process, loaded once, and the default library's snapshot.

`index` writes into the search sidecar the default library (built-in patterns and
$LOGSLEUTH_PATTERNS, no --patterns) as plain data (`snapshot`): the lean command-line search
classifies a query with it (search.snapshot_query) without loading the library. The sidecar's
library stamp covers this file (sidecar._CODE): a change to what the snapshot holds makes every
sidecar stale.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary


@functools.cache
def library(pattern_dirs: tuple[str, ...] = (), builtins: bool = True) -> PatternLibrary:
    """The pattern library, loaded (and validated) once per process."""
    from logsleuth.library import load_library

    lib = load_library(list(pattern_dirs), builtins=builtins)
    if not pattern_dirs and builtins:
        _DEFAULT.add(id(lib))  # cached for the life of the process: its id stays its own
    return lib


_DEFAULT: set[int] = set()  # id() of the default library once loaded


def is_default(lib: PatternLibrary) -> bool:
    """`lib` is the default library as `library()` loaded it (the one the lean path classifies with)."""
    return id(lib) in _DEFAULT


def snapshot(lib: PatternLibrary) -> list[dict[str, Any]]:
    """What classifying a query needs of each pattern, as plain data (in library order)."""
    return [
        {
            "id": p.id, "category": p.category, "severity": p.severity.value, "rank": p.severity.rank,
            "priority": p.priority, "regex": p.regex, "prefilter": list(p.prefilter),
            "fingerprint": list(p.fingerprint), "kinds": None if p.scope.kinds is None else list(p.scope.kinds),
            "is_error": p.scope.is_error, "command": p.scope.command, "portable": p.portable,
            "groups": list(p.groups), "suppresses": list(p.suppresses),
        }
        for p in lib.patterns
    ]  # fmt: skip
