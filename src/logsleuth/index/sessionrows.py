"""What the index keeps of a session's verdict (logsleuth.verdict), read from `Analysis.verdict`,
never recomputed: the columns every row of a session carries (title, events, span, root
category, summary), the fix columns of a finding's episode, and the one SESSION_ROW per
session that lists a session with no findings too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from logsleuth.index.schema import SESSION_ROW

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis
    from logsleuth.verdict import FailureVerdict, Verdict

TITLE_WIDTH = 160  # characters of a session's title (its first request)


def fix_state(f: FailureVerdict) -> str:
    """How a failure ended, in the words the pages and search use."""
    if not f.fixed:
        return "did not hold" if f.fix else "open"  # changed, yet still there at the end
    if f.held is False:
        return "came back"
    if f.gone_by and not f.fix:
        return f"gone by a {f.gone_by}" if f.gone_by != "re-run" else "gone on re-run"
    return "held"


def fix_columns(verdict: Verdict, episode: str | None) -> dict[str, Any]:
    f = verdict.failure(episode) if episode else None
    if f is None:
        return {"fix": None, "fix_state": None, "fixed_at": None}
    return {"fix": f.fix_text() or None, "fix_state": fix_state(f), "fixed_at": f.fixed_at}


def root_category(verdict: Verdict) -> str | None:
    ep = verdict.root_cause.episode
    f = verdict.failure(ep) if ep else None
    return f.category if f is not None else None


def title_of(an: Analysis) -> str | None:
    """The session's first request, on one line (claude-code-log's title)."""
    from logsleuth.facts import goal

    events = an.events
    users = events.filter(events["role"] == "user").select("seq", "text").head(50).iter_rows(named=True)
    first = goal(users, limit=1)
    if not first:
        return None
    text = " ".join(first[0].text.split())
    return text if len(text) <= TITLE_WIDTH else text[: TITLE_WIDTH - 1] + "…"


def session_columns(an: Analysis) -> dict[str, Any]:
    ev = an.events
    ts = ev["ts"].drop_nulls() if ev.height else None
    start, end = (ts.min(), ts.max()) if ts is not None and ts.len() else (None, None)
    # a plain log's record count: the index reads only its candidate lines, so it is unknown there
    # and left out here too (one answer from files and from the index)
    events = None if an.transcript.report.format == "text" else ev.height
    return {"title": title_of(an) if ev.height else None, "events": events, "session_start": start,
            "session_end": end, "root_category": root_category(an.verdict), "summary": an.verdict.reason or None,
            "outcome": an.verdict.outcome.value, "failures": len(an.verdict.failures)}


def session_row(an: Analysis, source: str, fmt: str, sha: str, columns: dict[str, Any]) -> dict[str, Any]:
    """The session's own row: no finding, only what the sessions list shows."""
    return {"session": an.session, "source": source, "line": None, "seq": None, "ts": columns["session_start"],
            "pattern": None, "category": None, "severity": SESSION_ROW, "priority": None, "fingerprint": None,
            "captures": None, "text": None, "primary": False, "success": False, "episode": None, "resolved_by": [],
            "held": None, "attempts": [], "catch22": False, "format": fmt, "file_sha256": sha,
            **fix_columns(an.verdict, None), **columns}
