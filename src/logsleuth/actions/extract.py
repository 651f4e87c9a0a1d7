"""The event table -> actions: dispatch each tool call by tool, read versions from its result.

Package kinds are settled here, once the output is known: a downgrade when the resolved version is
below the previous one (from the output's `- x==old` / `Found existing installation`, else from
earlier actions of the session), else a pin for `==`/`<`/`<=`/`~=`/`!=`, else an upgrade for
`-U` or a higher version, else an install. Launch flags are diffed against the previous launch of
the same engine in the same session (see launch.diff_flags for the first launch).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import polars as pl

from logsleuth.actions.commands import Draft, classify
from logsleuth.actions.launch import Flags, diff_flags
from logsleuth.actions.packages import OutputVersions, compare_versions, is_pin, output_versions
from logsleuth.actions.shellparse import commands
from logsleuth.actions.toolcalls import LOOKS, edit_drafts, look_drafts
from logsleuth.ingest.tools import ToolCall, call_of, edit_texts, normalise
from logsleuth.model import CALL_SCHEMA, Action, ActionKind, ToolKind

K = ActionKind


@dataclass(frozen=True, slots=True)
class CallResult:
    text: str
    is_error: bool | None
    exit_code: int | None

    @property
    def ok(self) -> bool | None:
        """The format's own verdict, corrected by failures a tool prints with exit code 0."""
        if self.is_error or (self.exit_code is not None and self.exit_code != 0):
            return False
        if output_versions(self.text).failed:
            return False
        if self.is_error is False or self.exit_code == 0:
            return True
        return None


_IDENTIFIER = re.compile(r"[\w.:/\-]{1,80}")

def extract_actions(events: pl.DataFrame) -> list[Action]:
    """Every action of every tool call, sorted by (session, seq, order within the command)."""
    results = _Results(events)
    known: dict[tuple[str, str], str] = {}  # (session, package) -> last version seen
    launched: dict[tuple[str, str], Flags] = {}  # (session, engine) -> flags of its last launch
    seen = _Contents()
    out: list[Action] = []
    for row in _calls(events):
        session, seq = row["session"], row["seq"]
        call = call_of(row)
        drafts = call_drafts(row["tool"], row["text"] or "", call) if call is not None else []
        if call is not None and call.kind in (ToolKind.READ, ToolKind.SHELL):
            got = results.get((session, row["call_id"])) or results.get((session, f"#{seq + 1}"))
            if got is not None and got.ok is not False:
                for path, text in _shown_files(call, row["text"] or "", got.text):
                    seen.put(session, path, text)
        result = None
        if any(d.pkg for d in drafts):  # only package actions read the output
            result = results.get((session, row["call_id"])) or results.get((session, f"#{seq + 1}"))
        versions = output_versions(result.text) if result else None
        base = {"session": session, "seq": seq, "source": row["source"], "line": row["line"],
                "raw": row["text"] or "", "ts": row["ts"]}
        for d in drafts:
            if d.pkg is not None and d.req is not None:
                out.append(_package_action(d, versions, known, base))
            elif d.launch is not None:
                out.append(Action(K.LAUNCH, d.subject, d.value, command=d.command, **base))
                key = (session, d.launch.engine)
                for kind, flag, value, old in diff_flags(launched.get(key), d.launch.flags):
                    out.append(Action(K(kind), flag, value, command=d.command, previous=old, **base))
                launched[key] = d.launch.flags
            elif d.kind is K.FILE_EDIT:
                added, removed = edited_texts(call, d, row["text"] or d.command) if call is not None else ("", "")
                if not removed and (d.value or "").startswith("write"):  # a whole file written: what it replaced
                    removed = seen.get(session, d.subject)
                if (d.value or "").startswith("write"):
                    seen.put(session, d.subject, added)
                out.append(Action(d.kind, d.subject, d.value, command=d.command, added=added, removed=removed,
                                  **base))
            else:
                out.append(Action(d.kind, d.subject, d.value, command=d.command, scoped=d.scoped, **base))
    return out


_READ_NUMBERS = re.compile(r"(?m)^ *\d+(?:→|\t)")  # a Read tool's line numbers (`    12→…`)


# a file's header in a dump of several (`for f in …; do echo "=== $f"; cat $f; done`, `head a b`'s `==> a <==`)
_DUMP_HEAD = re.compile(r"(?m)^(?:={3,}|==>|-{3,}) ?(?P<path>[\w./+-]{1,200}\.\w{1,8}) ?(?:<==|={3,}|-{3,})?[ \t]*$")


def _shown_files(call: ToolCall, text: str, output: str) -> list[tuple[str, str]]:
    """(path, content) of the files a call printed whole: a reader tool on one path, `cat FILE`
    alone, or each file of a dump whose headers name them (content as the file holds it)."""
    if call.kind is ToolKind.READ:
        whole = len(call.paths) == 1 and '"offset"' not in text and '"limit"' not in text
        return [(call.paths[0], _READ_NUMBERS.sub("", output))] if whole else []
    cmds = commands(call.command or "")
    if len(cmds) == 1 and cmds[0].prog == "cat" and len(cmds[0].argv) == 2 and not cmds[0].redirects:
        return [(cmds[0].argv[1], output)]
    if not any(c.prog in ("cat", "head", "tail") for c in cmds):
        return []
    heads = list(_DUMP_HEAD.finditer(output))
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(output)
        out.append((m.group("path"), _CAT_NUMBERS.sub("", output[m.end():end].strip("\n"))))
    return out


_CAT_NUMBERS = re.compile(r"(?m)^ {0,6}\d+\t")  # `cat -n`'s line numbers


class _Contents:
    """The last content of each file the session showed whole (read or written), so that a later
    whole-file write can be told by what it changed, not by its first line (held-out depbump, numbapin,
    warnerr: "rewrote `x.py` (write 31 lines): `\"\"\"docstring\"\"\"`")."""

    def __init__(self) -> None:
        self._text: dict[tuple[str, str], str] = {}

    def put(self, session: str, path: str, text: str) -> None:
        self._text[(session, _norm(path))] = text

    def get(self, session: str, path: str) -> str:
        want = _norm(path)
        hit = self._text.get((session, want))
        if hit is not None:
            return hit
        # the same file named relative and absolute (`src/x.py`, `/home/dev/project/src/x.py`)
        return next((t for (s, p), t in self._text.items() if s == session and "/" in p
                     and (want.endswith("/" + p) or p.endswith("/" + want))), "")


def _norm(path: str) -> str:
    return path.removeprefix("./").rstrip("/")


def edited_texts(call: ToolCall, d: Draft, raw: str) -> tuple[str, str]:
    """(text added, text removed) by a file edit: an edit tool's as ingest read them, a shell
    edit's as its parsed command says (`sed -i s/old/new/`, a heredoc's body), else the command."""
    if call.kind is ToolKind.EDIT:
        return call.added or "", call.removed or ""
    if d.added or d.removed:
        return d.added, d.removed
    return edit_texts(raw)


def shell_edit_texts(command: str) -> tuple[str, str]:
    """What the first edit of a shell command writes and replaces, as `extract_actions` reads it."""
    d = next((d for d in shell_drafts(command) if d.kind is K.FILE_EDIT), None)
    return (d.added, d.removed) if d is not None and (d.added or d.removed) else (command, "")


def drafts_for_call(tool: str | None, text: str) -> list[Draft]:
    """The drafts of one tool call given as its tool and text (as a reader writes them)."""
    return call_drafts(tool, text, normalise(tool, text))


def call_drafts(tool: str | None, text: str, call: ToolCall) -> list[Draft]:
    """The drafts of one tool call, from the call as ingest normalised it."""
    name = (tool or "").strip()
    # a tool's name is shown lower-cased when it is an identifier (`Read`, `mcp__docs__search`);
    # anything else keeps its case, so that a secret in it still looks like one to the masking
    # rules (`AKIA…` lower-cased is no longer an AWS key id)
    name = name.lower() if _IDENTIFIER.fullmatch(name) else name
    if call.kind is ToolKind.SHELL:
        return list(shell_drafts(call.command or ""))
    if call.kind is ToolKind.EDIT:
        return edit_drafts(name, call)
    if call.kind in LOOKS:
        return look_drafts(name, call, text)
    return []


@lru_cache(maxsize=4096)  # agents repeat the same commands (`tail -50 /tmp/server.log`) many times
def shell_drafts(command: str) -> tuple[Draft, ...]:
    return tuple(d for c in commands(command) for d in classify(c))


def _package_action(
    d: Draft, versions: OutputVersions | None, known: dict[tuple[str, str], str], base: dict[str, Any]
) -> Action:
    assert d.pkg is not None and d.req is not None
    session = str(base["session"])
    key = (session, d.req.subject)
    failed = versions is not None and versions.failed
    resolved: str | None = None
    previous: str | None = None
    if versions is not None:
        previous = versions.removed.get(d.req.subject)
        if not failed:
            resolved = versions.installed.get(d.req.subject) or versions.present.get(d.req.subject)
            if previous is None and d.req.subject in versions.present and d.req.subject not in versions.installed:
                previous = versions.present[d.req.subject]
    if resolved is None and not failed and d.pkg.verb != "uninstall":
        resolved = d.req.version
    if previous is None:
        previous = known.get(key)
    if d.pkg.verb == "uninstall":
        known.pop(key, None)
        return Action(K.UNINSTALL, d.subject, d.value, command=d.command, previous=previous, **base)
    kind = package_kind(d.value, d.pkg.upgrade or d.pkg.verb == "upgrade", resolved, previous)
    if resolved:
        known[key] = resolved
    return Action(kind, d.subject, d.value, command=d.command, resolved=resolved, previous=previous, **base)


def package_kind(value: str | None, upgrade: bool, resolved: str | None, previous: str | None) -> ActionKind:
    moved = compare_versions(resolved, previous) if resolved and previous else 0
    if moved < 0:
        return K.DOWNGRADE
    if is_pin(value):
        return K.PIN
    if upgrade or moved > 0:
        return K.UPGRADE
    return K.INSTALL


def _calls(events: pl.DataFrame) -> Iterator[dict[str, Any]]:
    calls = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_call").sort(["session", "seq"])
    cols = ("session", "seq", "source", "line", "ts", "tool", "call_id", "text", *CALL_SCHEMA)
    yield from calls.select(cols).iter_rows(named=True)


class _Results:
    """(session, call_id) -> the call's result; results without a call_id are keyed `#seq` (paired
    by position). A result's text is made when it is asked for, from the events table: holding
    every tool output as a Python string at once doubled a long session's memory."""

    def __init__(self, events: pl.DataFrame):
        rows = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_result").sort(["session", "seq"])
        self._texts = rows["text"]
        self._index: dict[tuple[str, str | None], tuple[list[int], bool | None, int | None]] = {}
        cols = rows.select("session", "seq", "call_id", "is_error", "exit_code").iter_rows()
        for i, (session, seq, call_id, is_error, exit_code) in enumerate(cols):
            key = (session, call_id if call_id is not None else f"#{seq}")
            prev = self._index.get(key)
            if prev is None:
                self._index[key] = ([i], is_error, exit_code)
            else:  # several results of one call: texts joined, the latest verdicts that say something
                prev[0].append(i)  # in place: a copy per result was quadratic in a call's results
                err = is_error if is_error is not None else prev[1]
                code = exit_code if exit_code is not None else prev[2]
                self._index[key] = (prev[0], err, code)

    def get(self, key: tuple[str, str | None]) -> CallResult | None:
        hit = self._index.get(key)
        if hit is None:
            return None
        rows, err, code = hit
        return CallResult("\n".join(self._texts[i] or "" for i in rows), err, code)


def call_outcomes(events: pl.DataFrame) -> dict[tuple[str, int], bool | None]:
    """(session, seq of the tool_call) -> did the call succeed (None when nothing says)."""
    results = _Results(events)
    out: dict[tuple[str, int], bool | None] = {}
    for row in _calls(events):
        r = results.get((row["session"], row["call_id"])) or results.get((row["session"], f"#{row['seq'] + 1}"))
        out[(row["session"], row["seq"])] = r.ok if r else None
    return out
