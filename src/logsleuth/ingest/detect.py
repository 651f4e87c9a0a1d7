"""Format auto-detection, in one place: every reader module registers its ReaderSpecs here.

A sniff is a cheap guess from the first bytes; two readers may both say yes (a message log whose
replies hold `<returncode>` tags reads as an OpenAI message log and as a mini-swe-agent
trajectory). Then each candidate reads a sample of the input (its first `HEAD_BYTES`, cut at a
line end) and the one that *uses* the most of it wins: lines used plus tool calls and results
found, so that of two readers that both take every line, the one that finds the commands wins.
Ties go to the registry order. Plain text (which accepts anything) competes only when no other
reader accepts. With `--debug` (or LOGSLEUTH_DEBUG) the choice, the runner-up and both scores
are printed on stderr.
"""

from __future__ import annotations

import importlib
import io
import os
import sys
from dataclasses import dataclass
from functools import cache

from logsleuth.errors import FormatError, Location, UsageError
from logsleuth.ingest.base import Probe, ReaderSpec
from logsleuth.model import Transcript
from logsleuth.termsafe import say

# Order matters: the most specific sniffers first, plain text last (it accepts anything textual).
READER_MODULES = (
    "logsleuth.ingest.claude_code",
    "logsleuth.ingest.codex",
    "logsleuth.ingest.opencode_store",  # the opencode formats (opencode.py holds their shared model)
    "logsleuth.ingest.opencode_events",
    "logsleuth.ingest.gemini",
    "logsleuth.ingest.gemini_stream",
    "logsleuth.ingest.agent_otel",
    "logsleuth.ingest.antigravity",
    "logsleuth.ingest.openhands",
    "logsleuth.ingest.copilot",
    "logsleuth.ingest.pi",
    "logsleuth.ingest.cursor",
    "logsleuth.ingest.managed_agent",
    "logsleuth.ingest.swe_agent",
    "logsleuth.ingest.cline",
    "logsleuth.ingest.openai_messages",
    "logsleuth.ingest.aider",
    "logsleuth.ingest.plaintext",
)
FALLBACK = "text"


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


@dataclass(frozen=True)
class Score:
    """What one reader made of the sample: lines used, tool calls and results found."""

    format: str
    lines: int
    used: int
    tools: int
    skipped: int = 0

    @property
    def value(self) -> int:
        return self.used + self.tools

    @property
    def skip_share(self) -> float:
        """The share of lines skipped (a reader that read nothing skipped all)."""
        return self.skipped / self.lines if self.lines else 1.0

    def reads_more(self, other: Score) -> bool:
        """Fewer lines skipped (as a share: readers count lines or records) and no fewer tool
        calls and results, or as few skipped and more of them."""
        if self.skip_share < other.skip_share:
            return self.tools >= other.tools
        return self.skip_share == other.skip_share and self.tools > other.tools

    def describe(self) -> str:
        return f"{self.format} (uses {self.used} of {self.lines} sample lines, {self.tools} tool calls/results)"


@dataclass(frozen=True)
class Choice:
    spec: ReaderSpec
    scores: tuple[Score, ...]  # best first; empty when one reader alone accepted


def choose(probe: Probe) -> Choice:
    """The reader for `probe`: the only one whose sniff accepts it, or of several, the one that
    uses the most of a sample. A FormatError naming what was tried when none accepts."""
    accepted = [r for r in readers() if sniff_safely(r, probe)]
    if not accepted:
        what = "directory" if probe.is_dir else "file"
        raise FormatError(
            f"unrecognised {what} format (tried: {', '.join(format_names())})",
            Location(probe.display),
            "pass --format FMT to force a reader",
        )
    specific = [r for r in accepted if r.name != FALLBACK] or accepted
    if len(specific) == 1 or probe.is_dir:
        return Choice(specific[0], ())
    sample = _sample(probe)
    scores = [score(r, sample) for r in specific]
    order = sorted(range(len(specific)), key=lambda i: -scores[i].value)  # stable: registry order on ties
    return Choice(specific[order[0]], tuple(scores[i] for i in order))


def detect(probe: Probe) -> ReaderSpec:
    """The reader `choose` picks; under --debug, the choice and its runner-up on stderr."""
    choice = choose(probe)
    if _debug():
        if choice.scores:
            best, *rest = choice.scores
            runner = f"; runner-up {rest[0].describe()}" if rest else ""
            say(f"logsleuth: debug: {probe.display}: read as {best.describe()}{runner}")
        else:
            say(f"logsleuth: debug: {probe.display}: read as {choice.spec.name} (no other reader accepts it)")
    return choice.spec


def rescue(probe: Probe, spec: ReaderSpec) -> ReaderSpec | None:
    """A reader that reads more of `probe`'s first records than `spec` does (`Score.reads_more`),
    tried whether its sniff accepts the input or not (a sniff is a guess from a few lines: one
    that breaks on a record shape it does not know must not decide alone); None when none does.
    A reader whose sniff says no competes only with the tool calls it finds: the prose readers
    (aider's markdown, plain text) take any line, and that alone is no reason to pick them."""
    if probe.is_dir:
        return None
    sample = _sample(probe)
    best = score(spec, sample)
    found: ReaderSpec | None = None
    for other in readers():
        if other.name in (spec.name, FALLBACK):
            continue
        got = score(other, sample)
        if (got.tools or sniff_safely(other, probe)) and got.reads_more(best):
            best, found = got, other
    if found is not None and _debug():
        say(f"logsleuth: debug: {probe.display}: {spec.name} left part unread; read as {best.describe()}")
    return found


def score(spec: ReaderSpec, sample: Probe) -> Score:
    """How much of `sample` the reader uses; a reader that breaks on it uses nothing."""
    try:
        t = spec.read(sample)
    except Exception:  # a candidate failing on a sample is a poor candidate, not an error
        return Score(spec.name, 0, 0, 0)
    return tally(t)


def tally(t: Transcript) -> Score:
    """The Score of a whole read: its lines, lines used and skipped, tool calls and results."""
    kinds = t.events.get_column("kind").cast(str) if t.events.height else None
    tools = int(kinds.is_in(["tool_call", "tool_result"]).sum()) if kinds is not None else 0
    return Score(t.report.format, t.report.lines, t.report.used, tools, len(t.report.skipped))


def _sample(probe: Probe) -> Probe:
    """The first bytes of the input as an input of its own, cut after its last whole line."""
    from logsleuth.ingest.base import HEAD_BYTES

    head = probe.head
    if len(head) >= HEAD_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]
    return Probe(probe.display, probe.path, False, head, None, io.BytesIO(head))


def _debug() -> bool:
    """--debug as the CLI parsed it (read, never imported: ingest does not depend on the CLI)."""
    if os.environ.get("LOGSLEUTH_DEBUG"):
        return True
    app = sys.modules.get("logsleuth.cli.app")
    state = getattr(app, "_state", None)
    return bool(isinstance(state, dict) and state.get("debug"))
