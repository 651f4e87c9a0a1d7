"""Format auto-detection, in one place: every reader module registers its ReaderSpecs here."""

from __future__ import annotations

import importlib
from functools import cache

from logsleuth.errors import FormatError, Location, UsageError
from logsleuth.ingest.base import Probe, ReaderSpec

# Order matters: the most specific sniffers first, plain text last (it accepts anything textual).
READER_MODULES = (
    "logsleuth.ingest.claude_code",
    "logsleuth.ingest.codex",
    "logsleuth.ingest.opencode",
    "logsleuth.ingest.gemini",
    "logsleuth.ingest.gemini_stream",
    "logsleuth.ingest.swe_agent",
    "logsleuth.ingest.openai_messages",
    "logsleuth.ingest.aider",
    "logsleuth.ingest.plaintext",
)


@cache
def readers() -> tuple[ReaderSpec, ...]:
    specs: list[ReaderSpec] = []
    for mod in READER_MODULES:
        try:
            module = importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # a reader not written yet must not break the others
            if exc.name == mod:
                continue
            raise
        specs.extend(module.READERS)
    return tuple(specs)


def format_names() -> list[str]:
    return [r.name for r in readers()]


def by_name(name: str) -> ReaderSpec:
    for r in readers():
        if r.name == name:
            return r
    raise UsageError(f"unknown format {name!r}", hint="one of: " + ", ".join(format_names()))


def sniff_safely(spec: ReaderSpec, probe: Probe) -> bool:
    """A sniffer is a guess over hostile bytes: one that breaks (deep nesting, odd types) says no."""
    try:
        return bool(spec.sniff(probe))
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError, IndexError, UnicodeError):
        return False


def detect(probe: Probe) -> ReaderSpec:
    """The first reader whose sniff accepts the probe, or a FormatError naming what was tried."""
    tried = []
    for r in readers():
        if sniff_safely(r, probe):
            return r
        tried.append(r.name)
    what = "directory" if probe.is_dir else "file"
    raise FormatError(
        f"unrecognised {what} format (tried: {', '.join(tried)})",
        Location(probe.display),
        "pass --format FMT to force a reader",
    )
