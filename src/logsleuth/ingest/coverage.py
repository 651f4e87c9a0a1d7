"""What a report could not read, said out loud: one warning line on stderr (or exit 3 with
`--strict`) and sentences for the postmortem's introduction.

A transcript is under-read when more than `SKIP_SHARE` of its lines were skipped, when it has
assistant turns but not one tool call (the shape of a format read by the wrong reader), or when
not one of its lines became an event (every record of a type the reader ignores: a Claude Code
session forced through the Codex reader). The
warning names the path, the counts, the most common reason and the `--format` that may read it
better (another reader whose sniff accepts the file).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from logsleuth.errors import InputError, Location
from logsleuth.model import IngestReport, Transcript
from logsleuth.termsafe import say

SKIP_SHARE = 0.01


@dataclass(frozen=True)
class Coverage:
    """How much of one input a reader used, and what it dropped."""

    source: str
    format: str
    lines: int
    skipped: int
    assistant_turns: int
    tool_calls: int
    reason: str  # the most common skip reason ("" when none)
    suggestion: str | None  # a --format that may read the file better
    events: int = 0
    json_text: bool = False  # plain text whose records are JSON objects
    transcript_json: bool = False  # ... and they name roles or tools: an agent transcript

    @property
    def under_read(self) -> bool:
        return (self.skipped > self.lines * SKIP_SHARE or (self.assistant_turns > 0 and self.tool_calls == 0)
                or self.nothing_read or self.misread)

    @property
    def misread(self) -> bool:
        """JSON records taken as plain text lines: by a reader forced on them where another reader
        reads them, or because no reader knows their shape while they name roles or tool calls (an
        agent transcript whose calls would go unread in silence). Plain JSON logs are not misread."""
        return self.json_text and (self.suggestion is not None or self.transcript_json)

    @property
    def nothing_read(self) -> bool:
        """No event from a file another reader would take: a reader chosen by --format that
        ignores every record. (A file of metadata only, a Claude Code `summary` line, is empty
        for every reader: not under-read; see under_read_quiet.)"""
        return self.lines > 0 and self.events == 0 and self.suggestion is not None

    def warning(self) -> str:
        if self.skipped > self.lines * SKIP_SHARE:
            pct = 100 * self.skipped / max(self.lines, 1)
            what = (f"{self.skipped} of {self.lines} lines ({pct:.0f} %) skipped as {self.format} "
                    f"(most often: {self.reason})")
        elif self.nothing_read:
            what = f"none of its {self.lines} lines held anything read as {self.format} (all ignored)"
        elif self.misread and self.suggestion is None:
            what = (f"its {self.lines} lines are JSON records of an agent transcript (roles, tool calls) "
                    "that no reader knows: read as plain text, no tool call read")
        elif self.misread:
            what = f"its {self.lines} lines are JSON records, read as plain text"
        else:
            what = f"{self.assistant_turns} assistant turns but no tool call read as {self.format}"
        hint = f"; try --format {self.suggestion}" if self.suggestion else ""
        return f"{self.source}: {what}{hint}"

    def sentence(self) -> str:
        if self.skipped > self.lines * SKIP_SHARE:
            pct = 100 * self.skipped / max(self.lines, 1)
            return (f"Part of the record could not be read: {self.skipped} of its {self.lines} lines ({pct:.0f} %) "
                    f"were skipped (most often: {self.reason}), so this account may miss what happened there.")
        if self.nothing_read:
            return (f"Nothing in the record was read: none of its {self.lines} lines held anything the {self.format} "
                    "reader uses, so this account is empty.")
        if self.misread:
            who = f"the {self.suggestion} reader reads them" if self.suggestion else "no reader knows their shape"
            return (f"The record's {self.lines} lines are JSON records read as plain text ({who}), "
                    "so its messages and commands are missing from this account.")
        return (f"The reader found {self.assistant_turns} assistant turns but not one tool call, so the commands "
                "of this session, if any, are missing from this account.")


def measure(report: IngestReport, events: Any) -> Coverage:
    """The coverage of one input (a polars event table and its report)."""
    import polars as pl

    reasons = Counter(_reason_key(s.reason) for s in report.skipped)
    role, kind = pl.col("role").cast(pl.Utf8), pl.col("kind").cast(pl.Utf8)
    assistant = events.filter((role == "assistant") & (kind == "text")).height if events.height else 0
    calls = events.filter(kind == "tool_call").height if events.height else 0
    json_text = report.format == "text" and _first_text(events).lstrip().startswith("{")
    return Coverage(
        source=report.source,
        format=report.format,
        lines=report.lines,
        skipped=len(report.skipped),
        assistant_turns=assistant,
        tool_calls=calls,
        reason=reasons.most_common(1)[0][0] if reasons else "",
        suggestion=None,
        events=events.height,
        json_text=json_text,
        transcript_json=json_text and _names_tools(events),
    )


def _first_text(events: Any) -> str:
    first = events.get_column("text").drop_nulls().head(1).to_list() if events.height else []
    return str(first[0]) if first else ""


# keys and values by which JSON records show they are a conversation with tools, not a plain log
# (OpenTelemetry GenAI spans of an agent, as Cursor's hooks export them, name gen_ai.tool.* attributes
# and carry the messages as escaped JSON)
_TRANSCRIPT_MARKS = ('"role"', '"tool_use"', '"tool_result"', '"tool_calls"', '"tool_call_id"', '"function_call"',
                     '"tool_name"', '"tool_use_id"', 'tool_use"', 'tool_result"', '"gen_ai.tool.',
                     '"gen_ai.input.messages"', '\\"role\\"')


def _names_tools(events: Any) -> bool:
    """Plain-text records (the first 50) that hold a role or a tool call key."""
    texts = events.get_column("text").drop_nulls().head(50).to_list() if events.height else []
    return any(mark in str(t) for t in texts for mark in _TRANSCRIPT_MARKS)


def _reason_key(reason: str) -> str:
    # "malformed JSON (unexpected character)" and "unknown role 'x'" group by their stem
    return reason.split(" (")[0].split(": ")[0][:80]


def under_read(t: Transcript) -> list[Coverage]:
    """Every input of `t` (a folder's files one by one) that was under-read, with a format hint."""
    import dataclasses

    return [dataclasses.replace(c, suggestion=c.suggestion or suggest_format(c.source, c.format)) for c in under_read_quiet(t)]


def suggest_format(path: str, current: str) -> str | None:
    """The reader (not plain text) that reads more of the file's first records than `current`,
    of every reader (ingest/detect.py `rescue`); else another whose sniff accepts the file."""
    from logsleuth.ingest.base import make_probe
    from logsleuth.ingest.detect import by_name, readers, rescue, sniff_safely

    if path == "-":
        return None
    try:
        probe = make_probe(path)
    except InputError:
        return None
    known = current in {r.name for r in readers()}
    better = rescue(probe, by_name(current)) if known and not probe.is_dir else None
    if better is not None:
        return str(better.name)
    for spec in readers():
        if spec.name not in (current, "text") and sniff_safely(spec, probe):
            return str(spec.name)
    return None


def check(t: Transcript, *, strict: bool = False) -> None:
    """Print one warning line per under-read input; with `strict`, fail with exit 3 instead.
    What a reader passed over that is no line (NULs at a head) is one note line each."""
    for note in t.report.notes:
        say(f"logsleuth: note: {note}")
    found = under_read(t)
    if not found:
        return
    if strict:
        first = found[0]
        raise InputError(first.warning().split(": ", 1)[1], Location(first.source),
                         "read it with the suggested --format, or drop --strict")
    for cov in found:
        say(f"logsleuth: warning: {cov.warning()}")


def intro_notes(t: Transcript, session: str) -> list[str]:
    """Sentences for a postmortem's introduction: what was not read, and the other sessions."""
    notes = [*t.report.notes, *(c.sentence() for c in under_read_quiet(t))]
    if t.events.height:
        sessions = t.events.get_column("session").unique(maintain_order=True).to_list()
        others = [s for s in sessions if s != session]
        if others and session:
            shown = ", ".join(f"`{s}`" for s in others[:8]) + (f" and {len(others) - 8} more" if len(others) > 8 else "")
            n = len(sessions)
            notes.append(f"The file holds {n} sessions; this report covers `{session}` "
                         f"(pick another with --session): {shown}.")
    return notes


def under_read_quiet(t: Transcript) -> list[Coverage]:
    """`under_read` without the format hint (no file is probed again, but one that was read into
    nothing): for the report's text."""
    import dataclasses

    import polars as pl

    parts = t.report.parts or (t.report,)
    out = []
    for rep in parts:
        events = t.events.filter(pl.col("source") == rep.source) if t.report.parts else t.events
        cov = measure(rep, events)
        if cov.lines and rep.source != "-" and ((not cov.under_read and not cov.events) or cov.json_text):
            # read into nothing: under-read only when another reader takes the file (probed
            # again only for such files)
            cov = dataclasses.replace(cov, suggestion=suggest_format(cov.source, cov.format))
        if cov.under_read:
            out.append(cov)
    return out
