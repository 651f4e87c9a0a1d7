"""The pattern library: YAML pattern files -> a validated, frozen PatternLibrary.

    from logsleuth.library import load_library
    lib = load_library(["my_patterns/"])      # built-ins + user dirs; lib.problems lists bad files
"""

from __future__ import annotations

from logsleuth.library.knowledge import Facts, Renderer
from logsleuth.library.loader import ENV_VAR, builtin_dir, load_library, parse_yaml
from logsleuth.library.pattern import (
    Category,
    Example,
    Knowledge,
    Pattern,
    PatternLibrary,
    Problem,
    Scope,
)

__all__ = [
    "ENV_VAR",
    "Category",
    "Example",
    "Facts",
    "Knowledge",
    "Pattern",
    "PatternLibrary",
    "Problem",
    "Renderer",
    "Scope",
    "builtin_dir",
    "load_library",
    "parse_yaml",
]
