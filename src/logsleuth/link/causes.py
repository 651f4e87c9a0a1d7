"""Name a failure by the line of its output that says why, where the finding itself does not.

A build tool's summary (`make: *** [Makefile:25: build/x.o] Error 1`) is the same line whatever
went wrong: a missing compiler, a missing header, an undefined symbol. Grouping failures by that
line merges distinct failures of one build into one; quoting it tells the reader nothing. The
failure is named instead by the first telling line before the summary, and a goal run that failed
with no pattern at all by the first telling line of its output.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Set

import polars as pl

from logsleuth.link.runindex import RunIndex, in_copy, scratch_only
from logsleuth.model import Finding, RunStatus, Severity
from logsleuth.telling import TELLING, lines_of, telling_lines

# Lines that only say that a step failed, or how: never the cause.
_SUMMARY = re.compile(
    r"^\s*(make(\[\d+\])?: \*\*\*|gmake(\[\d+\])?: \*\*\*|ninja: build stopped|collect2: error: ld returned|"
    r"\d+ errors? detected|compilation terminated|error: command .* failed with exit (code|status)|"
    r"(exit code|process exited with code|exit status|rc=|returncode)\b)",
    re.I,
)
_NAMED_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b:|\*\* \([A-Z][\w.]*(?:Error|Exception)\)|\b(?:fatal )?error\b\s*:|undefined reference")
_MESSAGE_BELOW = re.compile(r"^\s*CMake (Error|Warning \(dev\)) at \S+:\d+")
_BEFORE = 20
_NAMED_BEFORE = 400  # a test run prints its first failure far above its summary  # how far above a wrapper line its cause is looked for


def cause_line(text: str, summary: str) -> str | None:
    """The first telling line within the lines above `summary` (a wrapper's matched line) in
    `text`, skipping other summary lines; None when nothing above it reads like an error."""
    lines = lines_of(text)
    first = summary.strip().splitlines()[0] if summary.strip() else ""
    end = next((i for i, ln in enumerate(lines) if first and ln.strip() == first), len(lines))
    if _MESSAGE_BELOW.match(first) and end < len(lines):
        # CMake prints where it stopped, then its message indented below it
        below = next((ln for ln in lines[end + 1 : end + 6] if ln.strip()), "")
        if below[:1].isspace():
            return below.strip()
    above = [ln.strip() for ln in lines[max(0, end - _NAMED_BEFORE) : end] if ln.strip() and not _SUMMARY.match(ln)]
    # the first error that names itself (`E   ImportError: …`, `x.cu(24): error: …`, ExUnit's
    # `** (RuntimeError) …` far above its summary) before any other telling line (pytest's
    # "Hint: make sure your test modules…" above the exception)
    named = next((ln for ln in above if _NAMED_ERROR.search(ln)), None)
    return named or next((ln for ln in above[-_BEFORE:] if TELLING.search(ln)), None)


def cause_key(line: str) -> str:
    """A failure's identity from its telling line: numbers, addresses, scratch paths and quoted
    names vary between runs of one failure (a syntax error that moves, another undefined symbol
    of the same link), the words do not."""
    s = re.sub(r"'[^']*'|`[^`']*'|`[^`]*`|\"[^\"]*\"|‘[^’]*’|“[^”]*”", "''", line.lower())
    s = re.sub(r"0x[0-9a-f]+", "0x", s)
    s = re.sub(r"/tmp/\S*", "/tmp", s)
    s = re.sub(r"\d+", "0", s)
    return re.sub(r"\s+", " ", s).strip()[:200]


def fingerprint(*parts: str) -> str:
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


def named_by_cause(f: Finding, text: str) -> Finding:
    """A wrapper finding named by its cause: the cause line leads its quote and its fingerprint
    separates one build's distinct failures. Unchanged when no line above says why."""
    line = cause_line(text, f.text)
    if line is None:
        return f
    below = _MESSAGE_BELOW.match(f.text.strip().splitlines()[0] if f.text.strip() else "")
    quote = line if line in f.text else (f"{f.text}\n  {line}" if below else f"{line}\n{f.text}")
    return dataclasses.replace(f, text=quote, fingerprint=fingerprint(f.fingerprint, cause_key(line)))


def unexplained_failures(idx: RunIndex, known: Set[int], events: pl.DataFrame) -> list[Finding]:
    """A goal run that failed with no pattern to say why (a pre-commit hook, `git add` of an ignored
    path, a test runner the library does not know) is still a failure of the story: one finding per
    run, named by its target and its first telling line (one target failing two ways is two
    failures), quoting the output's telling lines rather than `Exit code 1`. `known`: result seqs
    that already hold a finding."""
    # a throwaway copy's run (`cd /tmp/x && pytest`) is an experiment: its unexplained failure is
    # not the user's (heldout6 abiwheel-quick: an ASan probe's own assert bug ended the story
    # unresolved); a run of the project's own code with a setting changed in memory still is
    # (rec-jitkern: NVRTC's missing include path showed first under `config.ARCH = …`), unless it
    # comes after the goal's last pass: a late probe (heldout4 tlsprof: `python -c 'import x'`
    # run to show the new error message)
    passed = [r.seq for r in idx.goals if r.status is RunStatus.PASSED and not scratch_only(r)]
    last_pass = max(passed, default=-1)
    runs = [r for r in idx.goals if r.status is RunStatus.FAILED and r.result_seq is not None and r.result_seq not in known
            and not in_copy(r) and not (scratch_only(r) and r.seq > last_pass >= 0)]
    if not runs:
        return []
    rows = {
        r["seq"]: r
        for r in events.filter(pl.col("seq").is_in([r.result_seq for r in runs])).select(
            "seq", "source", "line", "text", "ts", "session"
        ).iter_rows(named=True)
    }
    out = []
    for r in runs:
        row = rows.get(r.result_seq)
        if row is None:
            continue
        names = " && ".join(t.name for t in r.targets) or r.command.split("\n", 1)[0][:80]
        quote = telling_lines(row["text"] or "")
        first = next((ln for ln in quote.splitlines() if TELLING.search(ln)), "")
        out.append(
            Finding(
                pattern="goal-run-failed",
                category="goal_failed",
                severity=Severity.ERROR,
                priority=0,
                session=row["session"],
                seq=int(row["seq"]),
                source=row["source"] or "",
                line=row["line"] or 0,
                text=quote,
                captures={"target": names},
                # by its telling line alone: `git add x && git commit` and `git commit` failing in
                # the same hook are one failure
                fingerprint=fingerprint("goal-run-failed", cause_key(first)) if first else names,
                explanation=f"`{names}` failed, and no pattern of the library names the failure: the output says why.",
                ts=row["ts"],
            )
        )
    return out
