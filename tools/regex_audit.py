"""Audit every regex that runs over untrusted text for super-linear shapes (issue 35).

    python tools/regex_audit.py [--all]

Imports each module of src/logsleuth and checks the compiled patterns it holds at module level
(alone, or in a tuple, list, dict or dataclass one level down), the redaction rules, and the
pattern library (patterns/, regex and prefilter fields) with logsleuth.library.linear. Prints one
line per finding, `module:NAME: shape: message`, and exits 1 when there is any (`--all` lists the
unchecked ones too).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import regex

import logsleuth
from logsleuth.library.linear import check

_PATTERN_TYPES = (re.Pattern, type(regex.compile("")))
# searched with `match` at a position, or over one short token: the leading shape does not apply
MATCHED_ONLY = ("logsleuth.ingest.bounds:_SIZE", "logsleuth.ingest.chat:_LEADING_EXIT", "logsleuth.ingest.fenced:_FENCE",
                "logsleuth.quoting:_STATUS_NAME", "logsleuth.redact:_VERSIONED")  # checked by hand: match/fullmatch only


def _patterns(obj: Any, name: str) -> Iterator[tuple[str, Any]]:
    if isinstance(obj, _PATTERN_TYPES):
        yield name, obj
    elif isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            if isinstance(item, _PATTERN_TYPES):
                yield f"{name}[{i}]", item
    elif isinstance(obj, dict):
        for key, item in obj.items():
            if isinstance(item, _PATTERN_TYPES):
                yield f"{name}[{key!r}]", item


def module_patterns() -> Iterator[tuple[str, str, int]]:
    """(where, pattern, flags) of every module-level compiled regex of logsleuth."""
    for info in sorted(pkgutil.walk_packages(logsleuth.__path__, "logsleuth."), key=lambda i: i.name):
        if ".serve" in info.name or info.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except Exception:  # an optional extra not installed
            continue
        for attr, value in sorted(vars(mod).items()):
            for where, rx in _patterns(value, attr):
                yield f"{info.name}:{where}", rx.pattern if isinstance(rx.pattern, str) else rx.pattern.decode("latin-1"), rx.flags


def redaction_rules() -> Iterator[tuple[str, str, int]]:
    from logsleuth.redact import _compiled

    for i, c in enumerate(_compiled(True)):
        yield f"logsleuth.redact:rule[{i}]:{c.rule.kind}", c.rule.pattern, c.rule.flags


def library_patterns() -> Iterator[tuple[str, str, int]]:
    from logsleuth.library import load_library

    lib = load_library([], builtins=True, cache=False)
    for p in lib.patterns:
        yield f"{p.path}:{p.id}", p.regex, 0


def main(argv: list[str]) -> int:
    show_unchecked = "--all" in argv
    found = 0
    seen: set[tuple[str, int]] = set()
    for where, pattern, flags in [*module_patterns(), *redaction_rules(), *library_patterns()]:
        if (pattern, flags) in seen:
            continue
        seen.add((pattern, flags))
        searched = not where.endswith(MATCHED_ONLY)
        for f in check(pattern, flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE), searched):
            if f.shape == "unchecked" and not show_unchecked:
                continue
            found += f.shape != "unchecked"
            print(f"{where}: {f.shape}: {f.message}")
    print(f"{len(seen)} patterns, {found} super-linear finding(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
