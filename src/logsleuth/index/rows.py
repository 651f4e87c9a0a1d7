"""Index rows of one analysed session: its findings and what the session did about each.

What resolved a finding comes from the causal graph (the link stage): the action(s) with a `resolved`
edge to the finding's episode, and whether that held; else an attempt after which the session
moved on to another failure (it cured the episode for a while: a fix that did not hold); the
other attempts against the episode are kept as the ones that did not fix it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from logsleuth.index.schema import FINDING_SCHEMA, empty_findings

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis
    from logsleuth.model import Action, CausalGraph

INDEXED_SEVERITIES = ("fatal", "error", "warning", "success")


def _action_row(a: Action) -> dict[str, Any]:
    return {
        "seq": a.seq,
        "command": a.command,
        "kind": a.kind.value,
        "subject": a.subject,
        "value": a.value,
        "resolved": a.resolved,
    }


@dataclass(frozen=True, slots=True)
class EpisodeFix:
    """What the session did about one failure episode."""

    resolved_by: tuple[Action, ...]
    held: bool | None
    attempts: tuple[Action, ...]
    catch22: bool


def episode_fixes(graph: CausalGraph) -> dict[str, EpisodeFix]:
    """Per episode: the action(s) that stopped it and whether that held, else the failed attempts.

    A `resolved` edge means the episode never came back (held). When there is none, an attempt after
    which the session moved on to another failure cured it for a while: it is recorded as the fix
    that did not hold (the nvcc 13.2 -> 13.0 move of a catch-22).
    """
    from logsleuth.model import Relation

    if graph.resolutions:  # re-run resolution (a transcript's runs): computed once, in the graph
        in22 = {ep for c in graph.catch22 for ep in c.episodes}
        return {
            ep_id: EpisodeFix(resolved_by=r.fixed_by, held=r.held, attempts=r.attempts, catch22=ep_id in in22)
            for ep_id, r in graph.resolutions.items()
        }
    node_of = {id(a): nid for nid, a in graph.node_actions.items()}
    # ties in seq (the flags one launch moved) keep the graph's order, not a set's (which varies
    # from process to process with string hashing)
    order = {nid: (a.seq, i) for i, (nid, a) in enumerate(graph.node_actions.items())}
    in_catch22 = {ep for c in graph.catch22 for ep in c.episodes}
    edges = [e for e in graph.edges if e.source in graph.node_actions]
    out: dict[str, EpisodeFix] = {}
    for ep in graph.episodes:
        attempts = list(graph.attempts.get(ep.id, ()))
        resolved = {e.source for e in edges if e.target == ep.id and e.relation is Relation.RESOLVED}
        not_fixed = {e.source for e in edges if e.target == ep.id and e.relation is Relation.DID_NOT_FIX}
        moved_on = {
            e.source
            for e in edges
            if e.target != ep.id and e.relation in (Relation.REVEALED, Relation.RECURRED)
        }
        fixers = [graph.node_actions[n] for n in sorted(resolved, key=order.__getitem__)]
        if not fixers:
            fixers = [a for a in attempts if node_of.get(id(a)) in moved_on - not_fixed]
        held: bool | None = None
        if fixers:
            last = max(a.seq for a in fixers)
            held = not any(seq > last for seq in ep.occurrences)
        fixer_ids = {id(a) for a in fixers}
        out[ep.id] = EpisodeFix(
            resolved_by=tuple(fixers),
            held=held,
            attempts=tuple(a for a in attempts if id(a) not in fixer_ids),
            catch22=ep.id in in_catch22,
        )
    return out


def analysis_rows(an: Analysis, fmt: str, sha: str = "") -> list[dict[str, Any]]:
    """Index rows (FINDING_SCHEMA) for the findings of one analysed session, masked: a shared
    index is an output too. The session's events teach the masking (`export DB_PASSWORD=X` in
    one event masks a bare X in a finding), as they do for `analyze`."""
    import polars as pl

    from logsleuth.render.masking import redact_output

    events = an.transcript.events
    if events.height and events["session"].n_unique() > 1:
        events = events.filter(pl.col("session") == an.session)
    return redact_output(unmasked_rows(an, fmt, sha), events)


def unmasked_rows(an: Analysis, fmt: str, sha: str = "") -> list[dict[str, Any]]:
    """`analysis_rows` before masking (batch.py masks the rows of many sessions at once)."""
    import orjson

    from logsleuth.index.sessionrows import fix_columns, session_columns, session_row

    graph = an.graph
    fixes = episode_fixes(graph)
    head = session_columns(an)
    by_key = {(ep.pattern, ep.fingerprint): ep.id for ep in graph.episodes}
    by_seq = {seq: ep.id for ep in graph.episodes for seq in ep.occurrences}
    rows = []
    for f in an.findings:
        sev = f.severity.value
        if sev not in INDEXED_SEVERITIES:
            continue
        success = sev == "success"
        ep_id = None if success else by_key.get((f.pattern, f.fingerprint), by_seq.get(f.seq))
        fix = fixes.get(ep_id) if ep_id else None
        rows.append(
            {
                "session": f.session or an.session,
                "source": f.source,
                "line": f.line,
                "seq": f.seq,
                "ts": f.ts,
                "pattern": f.pattern,
                "category": f.category,
                "severity": sev,
                "priority": f.priority,
                "fingerprint": f.fingerprint,
                "captures": orjson.dumps(dict(f.captures), option=orjson.OPT_SORT_KEYS).decode(),
                "text": f.text,
                "primary": bool(f.primary),
                "success": success,
                "episode": ep_id,
                "resolved_by": [_action_row(a) for a in fix.resolved_by] if fix else [],
                "held": fix.held if fix else None,
                "attempts": [_action_row(a) for a in fix.attempts] if fix else [],
                "catch22": bool(fix and fix.catch22),
                "format": fmt,
                "file_sha256": sha,
                **fix_columns(an.verdict, ep_id),
                **head,
            }
        )
    if an.events.height:
        source = rows[0]["source"] if rows else str(an.events["source"][0])
        rows.append(session_row(an, source, fmt, sha, head))
    return rows


def findings_frame(rows: Sequence[dict[str, Any]]) -> pl.DataFrame:
    frame = pl.DataFrame(list(rows), schema=FINDING_SCHEMA) if rows else empty_findings()
    return frame.sort("session", "seq", "pattern", "line", maintain_order=True)


def findings_frames(groups: Sequence[Sequence[dict[str, Any]]]) -> list[pl.DataFrame]:
    """`findings_frame` of each group of rows, made as one frame and split (a frame per 1 KB
    input cost more than its rows): a stable sort by group then the same keys keeps each group's
    rows in the order its own sort gives."""
    every = [r for rows in groups for r in rows]
    if not every:
        return [empty_findings() for _ in groups]
    ids = pl.Series("_group", [g for g, rows in enumerate(groups) for _ in rows], dtype=pl.Int64)
    frame = pl.DataFrame(every, schema=FINDING_SCHEMA).with_columns(ids)
    frame = frame.sort("_group", "session", "seq", "pattern", "line", maintain_order=True)
    parts = dict(zip(
        (int(g) for g in frame["_group"].unique(maintain_order=True)),
        frame.partition_by("_group", maintain_order=True, include_key=False),
        strict=True,
    ))
    return [parts[g] if g in parts else empty_findings() for g in range(len(groups))]
