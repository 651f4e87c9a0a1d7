"""A search's answer as text, from plain values: the table of `logsleuth search` and a hit's summary.

hits.py's Hit and render_table speak through these functions, and so does the lean command
line path (cli.py), which answers without importing dataclasses, typing or rapidfuzz (a
command-line search is mostly interpreter start-up: each of those is ~10-30 ms of CPU here).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

COMMAND_WIDTH = 100  # commands are shortened to this in the table (JSON keeps them whole)


def action_text(a: Mapping[str, Any]) -> str:
    """A fix as a person would repeat it: the flag or variable, not the whole relaunch command."""
    kind, subject, value = a.get("kind"), a.get("subject"), a.get("value")
    if kind in ("flag_added", "flag_changed"):
        return f"{subject} {value}" if value else str(subject)
    if kind == "flag_removed":
        return f"drop {subject}"
    if kind == "env_set":
        return f"export {subject}={value}"
    return str(a["command"])


def action(fixes: Iterable[Mapping[str, Any]]) -> str | None:
    commands = list(dict.fromkeys(action_text(a) for a in fixes))
    return "; ".join(commands) if commands else None


def held_text(held: bool | None, outcome: str) -> str:
    """Whether a fix held, never beside an outcome that contradicts it: an error that did not
    come back in a session that still ended unresolved was stopped, but nothing "held"."""
    if not held:
        return "did not hold"
    if outcome == "unresolved":
        return "this error did not come back"
    return "held"


def short(command: str, width: int) -> str:
    return command if width <= 0 or len(command) <= width else command[: width - 1] + "…"


def resolution_text(session: str, fixes: Sequence[Mapping[str, Any]], held: bool | None,
                    attempts: Sequence[Mapping[str, Any]], catch22: bool, outcome: str, width: int = 0) -> str:
    """"fixed by `uv pip install …` in session X — did not hold", or what was tried.

    `width` > 0 shortens each command to that many characters (tables; JSON keeps them whole).
    """
    where = f"in session {session}"
    act = action(fixes)
    if act is not None:
        text = f"fixed by `{short(act, width)}` {where} — {held_text(held, outcome)}"
    elif attempts:
        commands = dict.fromkeys(str(a["command"]) for a in attempts)
        tried = ", ".join(f"`{short(c, width)}`" for c in commands)
        text = f"not fixed {where}: tried {tried}"
    else:
        text = f"nothing tried against it {where}"
    notes = ["catch-22"] if catch22 else []
    notes.append(f"session {outcome}")
    return f"{text} ({'; '.join(notes)})"


def best_line(query: str, text: str) -> str:
    """The line of a hit's snippet most like the query (the snippet may start with `Exit code 1`)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    from logsleuth.search.fuzzy import ratio_many

    score = ratio_many(query, lines, process=False)
    scores = [score[ln] for ln in lines]
    return lines[scores.index(max(scores))]


def table(query: Mapping[str, Any], hits: Sequence[Mapping[str, Any]], errors: Sequence[str] = ()) -> str:
    """Plain text: the query's reading (text, pattern, category, captures), then one block per
    hit (the fields of hits.Hit)."""
    if query["pattern"] is None:
        head = "query: no pattern matched; full-text search over indexed errors"
    else:
        caps = ", ".join(f"{k}={v}" for k, v in sorted(query["captures"].items()))
        head = f"query: {query['pattern']} ({query['category']})" + (f" {{{caps}}}" if caps else "")
    lines = [head]
    if not hits:
        lines.append("no prior occurrences")
    for i, h in enumerate(hits, start=1):
        date = h["ts"].strftime("%Y-%m-%d") if h["ts"] else "-"
        more = f" ×{h['occurrences']}" if h["occurrences"] > 1 else ""
        lines.append(f"{i}. {h['score']:.2f}  {date}  {h['session']}  {h['source']}:{h['line']}  {h['pattern']}{more}")
        lines.append(f"   {best_line(query['text'], h['text'])[:160]}")
        res = resolution_text(h["session"], h["fixes"], h["held"], h["attempts"], h["catch22"], h["outcome"],
                              COMMAND_WIDTH)
        lines.append(f"   {res}")
    lines += [f"error: {e}" for e in errors]
    return "\n".join(lines) + "\n"


def hit_values(r: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of hits.Hit from one ranked row (the Parquet path's and the sidecar's alike)."""
    return {
        "session": r["session"], "source": r["source"], "line": r["line"], "seq": r["seq"], "ts": r["ts"],
        "pattern": r["pattern"], "category": r["category"], "text": r["text"], "score": round(float(r["score"]), 3),
        "fixes": tuple(r["resolved_by"] or ()), "held": r["held"], "attempts": tuple(r["attempts"] or ()),
        "catch22": bool(r["catch22"]), "outcome": r["outcome"] or "", "occurrences": int(r["occurrences"]),
        "origin": r.get("origin"), "fingerprint": r.get("fingerprint"),
    }  # fmt: skip
