"""A search's answer as text, from plain values: the table of `logsleuth search` and a hit's summary.

hits.py's Hit and render_table speak through these functions, and so does the lean command
line path (cli.py), which answers without importing dataclasses, typing or rapidfuzz (a
command-line search is mostly interpreter start-up: each of those is ~10-30 ms of CPU here).
"""

from __future__ import annotations

from logsleuth.enums import ActionKind, Outcome

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime
    from typing import Any, Protocol

    from logsleuth.index.record import StoredAction

    class HitLike(Protocol):
        """What a hit's block of the table reads: hits.Hit, or ranked.Ranked on the lean path."""

        @property
        def session(self) -> str: ...
        @property
        def source(self) -> str: ...
        @property
        def line(self) -> int: ...
        @property
        def ts(self) -> datetime | None: ...
        @property
        def pattern(self) -> str: ...
        @property
        def text(self) -> str: ...
        @property
        def score(self) -> float: ...
        @property
        def occurrences(self) -> int: ...
        @property
        def fixes(self) -> tuple[StoredAction, ...]: ...
        @property
        def held(self) -> bool | None: ...
        @property
        def attempts(self) -> tuple[StoredAction, ...]: ...
        @property
        def catch22(self) -> bool: ...
        @property
        def outcome(self) -> Outcome | None: ...
        @property
        def fix(self) -> str | None: ...
        @property
        def fix_state(self) -> str | None: ...

COMMAND_WIDTH = 100  # commands are shortened to this in the table (JSON keeps them whole)


def action_text(a: StoredAction) -> str:
    """A fix as a person would repeat it: the flag or variable, not the whole relaunch command."""
    kind, subject, value = a.kind, a.subject, a.value
    if kind in (ActionKind.FLAG_ADDED, ActionKind.FLAG_CHANGED):
        return f"{subject} {value}" if value else str(subject)
    if kind is ActionKind.FLAG_REMOVED:
        return f"drop {subject}"
    if kind is ActionKind.ENV_SET:
        return f"export {subject}={value}"
    return a.command


def action(fixes: Iterable[StoredAction]) -> str | None:
    commands = list(dict.fromkeys(action_text(a) for a in fixes))
    return "; ".join(commands) if commands else None


def fix_of(fix: str | None, state: str | None, fixes: Iterable[StoredAction]) -> str | None:
    """What fixed an error: the verdict's change of state ("edited `kws/export.py`: +3 -1 lines"),
    read from the index; the command only for an index written before the verdict was stored."""
    if state is not None:
        return fix or None if state != "open" else None
    return action(fixes)


def held_of(state: str | None, held: bool | None) -> bool | None:
    """Whether the fix held, as the verdict says (the stored graph's flag for an older index)."""
    if state is None:
        return held
    return {"held": True, "came back": False, "did not hold": False, "open": None}.get(state, True)


def held_text(held: bool | None, outcome: Outcome | None = None, state: str | None = None) -> str:
    """Whether a fix held, in the verdict's words. A fix holds for its error whatever the
    session's outcome (another error can leave the session unresolved): that is said apart."""
    if state is not None and state.startswith("gone"):
        return state  # gone on re-run, gone by a later run
    if not held:
        return "did not hold"
    return "held"


OUTCOME_CLASS = {Outcome.RESOLVED: "good", Outcome.NO_FAILURE: "good", Outcome.WORKED_AROUND: "bent",
                 Outcome.UNRESOLVED: "bad"}


def outcome_class(outcome: Outcome | None) -> str:
    """The colour class of a session's outcome (pages): good, bent, bad or none."""
    return OUTCOME_CLASS.get(outcome, "none") if outcome is not None else "none"


def short(command: str, width: int) -> str:
    return command if width <= 0 or len(command) <= width else command[: width - 1] + "…"


def outcome_text(outcome: Outcome | None) -> str:
    """A session's outcome as a hit states it ("" when the index does not say)."""
    return outcome.value if outcome is not None else ""


def attempt_text(a: StoredAction) -> str | None:
    """An attempt as the change it made, where its command says it in a regex (`sed -i`,
    `perl -pi`: the text the file lost and gained, as the verdict tells a fix); None: the command
    says it as well as anything (`pip install x`, `cp a b`)."""
    prog = a.command.lstrip().split(" ", 1)[0].rsplit("/", 1)[-1]
    if a.kind is not ActionKind.FILE_EDIT or not a.subject or prog not in ("sed", "perl"):
        return None
    from logsleuth.actions.extract import shell_edit_texts
    from logsleuth.model import Action
    from logsleuth.verdict.changes import edit_text

    added, removed = shell_edit_texts(a.command)
    if (added, removed) == (a.command, "") or not (added or removed):
        return None
    act = Action(a.kind, a.subject, a.value, "", a.seq or 0, "", 0, a.command, raw=a.command, added=added,
                 removed=removed)
    return edit_text(act)


def resolution_text(session: str, fixes: Sequence[StoredAction], held: bool | None,
                    attempts: Sequence[StoredAction], catch22: bool, outcome: Outcome | None, width: int = 0,
                    fix: str | None = None, state: str | None = None) -> str:
    """"fixed by `uv pip install …` in session X — did not hold", or what was tried.

    `width` > 0 shortens each command to that many characters (tables; JSON keeps them whole).
    """
    where = f"in session {session}"
    act = fix_of(fix, state, fixes)
    if act is not None:
        shown = short(act, width) if fix is None else act  # the verdict's text is short already
        text = f"fixed by {_quoted(shown)} {where} — {held_text(held_of(state, held), outcome, state)}"
    elif attempts:
        said = dict.fromkeys(attempt_text(a) or f"`{short(a.command, width)}`" for a in attempts)
        tried = ", ".join(said)
        text = f"not fixed {where}: tried {tried}"
    else:
        text = f"nothing tried against it {where}"
    notes = ["catch-22"] if catch22 else []
    notes.append(f"session {outcome_text(outcome)}")
    return f"{text} ({'; '.join(notes)})"


def _quoted(text: str) -> str:
    """A command in backticks; the verdict's sentence (which quotes its own names) as it is."""
    return text if "`" in text else f"`{text}`"


def best_line(query: str, text: str) -> str:
    """The line of a hit's snippet most like the query (the snippet may start with `Exit code 1`)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    from logsleuth.search.fuzzy import ratio_many

    score = ratio_many(query, lines, process=False)
    scores = [score[ln] for ln in lines]
    return lines[scores.index(max(scores))]


def table(query: Mapping[str, Any], hits: Sequence[HitLike], errors: Sequence[str] = ()) -> str:
    """Plain text: the query's reading (text, pattern, category, captures), then one block per
    hit (hits.Hit, or ranked.Ranked)."""
    if query["pattern"] is None:
        head = "query: no pattern matched; full-text search over indexed errors"
    else:
        caps = ", ".join(f"{k}={v}" for k, v in sorted(query["captures"].items()))
        head = f"query: {query['pattern']} ({query['category']})" + (f" {{{caps}}}" if caps else "")
    lines = [head]
    if not hits:
        lines.append("no prior occurrences")
    for i, h in enumerate(hits, start=1):
        date = h.ts.strftime("%Y-%m-%d") if h.ts else "-"
        more = f" ×{h.occurrences}" if h.occurrences > 1 else ""
        lines.append(f"{i}. {h.score:.2f}  {date}  {h.session}  {h.source}:{h.line}  {h.pattern}{more}")
        lines.append(f"   {best_line(query['text'], h.text)[:160]}")
        res = resolution_text(h.session, h.fixes, h.held, h.attempts, h.catch22, h.outcome, COMMAND_WIDTH,
                              h.fix, h.fix_state)
        lines.append(f"   {res}")
    lines += [f"error: {e}" for e in errors]
    return "\n".join(lines) + "\n"


def no_hits(query: Mapping[str, Any]) -> str:
    """What a search that found nothing says on stderr (stdout stays empty, as ripgrep's): that
    nothing was found, and what the pattern library says about the error when a pattern read it."""
    if query["pattern"] is None:
        return "logsleuth: no prior occurrences (no pattern matched; full-text search over indexed errors)\n"
    lines = [f"logsleuth: no prior occurrences of {query['pattern']} ({query['category']}) in the index"]
    from logsleuth.search import advice

    tip = advice.advice(query["pattern"], query.get("captures"))
    if tip is not None:
        lines += ["what the pattern library says:", *("  " + ln for ln in advice.text(tip).splitlines())]
    return "\n".join(lines) + "\n"
