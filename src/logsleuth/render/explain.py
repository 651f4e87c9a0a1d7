"""`logsleuth explain --message N`: the story of one message, as the seeds tell it.

Built from the story's public API (`Story.road`, `Story.judge`, the session's facts) into one typed
part, `MessageStory`, that the template reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from logsleuth.analysis import Analysis
from logsleuth.clip import first_lines
from logsleuth.errors import UsageError
from logsleuth.model import ActionKind, Relation
from logsleuth.render.describe import describe
from logsleuth.render.mdsafe import inert_html
from logsleuth.render.postmortem import prepared, redacted, template_env
from logsleuth.render.report import After, Assumption, Established, Part, Quote, Required
from logsleuth.render.story import Story


@dataclass(frozen=True, slots=True)
class Result(Part):
    seq: int
    lines: tuple[str, ...]
    is_error: bool | None


@dataclass(frozen=True, slots=True)
class Passed(Part):
    """A failure the session had been through before the message, and its last attempt."""

    title: str
    seq: int
    fix: str | None


@dataclass(frozen=True, slots=True)
class Effect(Part):
    """What the message's change did to a failure (revealed it, resolved it …)."""

    relation: str
    title: str
    seq: int


@dataclass(frozen=True, slots=True)
class MessageStory(Part):
    seq: int
    role: str
    kind: str
    tool: str | None
    ts: datetime | None
    text: str
    result: Result | None
    actions: tuple[str, ...]  # what it changed, as verb phrases
    investigates: bool  # it only looked
    road: tuple[Passed, ...]
    reasoning: tuple[Quote, ...]
    assumed: tuple[Assumption, ...]
    edges: tuple[Effect, ...]
    after: After | None
    knowledge: Required | None
    created: tuple[Established, ...]
    title: str


def explain_message(an: Analysis, seq: int) -> MessageStory:
    st = Story(an)
    if seq not in st.by_seq:
        if not st.by_seq:
            raise UsageError(f"no message {seq}: nothing in this session was read as a message",
                             hint="see `logsleuth events` for what the reader took from the file")
        raise UsageError(f"no message {seq} in this session", hint=f"messages are numbered 0..{max(st.by_seq)}")
    row = st.by_seq[seq]
    g = an.graph
    res = st.result_of.get(seq) if row["kind"] == "tool_call" else None
    # the turn this message belongs to: back to the previous tool result or user message
    start = max((r["seq"] for r in st.rows if r["seq"] < seq and r["role"] in ("user", "tool")), default=-1)
    turn = [s for s in st.sentences if start < s.seq <= seq]
    road = []
    for step in st.road():
        if step.seq >= seq:
            break
        road.append(Passed(step.title, step.seq, step.attempts[-1].text if step.attempts else None))
    actions = [a for a in an.actions if a.seq == seq]
    edges = []
    failure_ids = g.failure_ids()
    for node_id, a in g.node_actions.items():
        if a.seq == seq:
            for e in g.edges:
                if e.source == node_id and e.target in failure_ids and e.relation is not Relation.ATTEMPTED:
                    ep = st.episodes[e.target]
                    edges.append(Effect(e.relation.value.replace("_", " "), st.title_of(ep), ep.occurrences[0]))
    active = [ep for ep in g.episodes if ep.occurrences[0] <= seq]
    current = active[-1] if active else None
    return MessageStory(
        seq=seq,
        role=row["role"],
        kind=row["kind"],
        tool=row["tool"],
        ts=row["ts"],
        text=row["text"],
        result=Result(res["seq"], tuple(first_lines(res["text"], 12, 240)), res["is_error"]) if res else None,
        actions=tuple(describe(a) for a in actions if a.kind is not ActionKind.INVESTIGATE),
        investigates=any(a.kind is ActionKind.INVESTIGATE for a in actions),
        road=tuple(road),
        reasoning=tuple(Quote(s.text, s.seq, s.label) for s in turn if s.label != "observation")[:8],
        assumed=tuple(Assumption.judged(s.text, s.seq, st.judge.verdict(s)) for s in turn if s.hedged)[:5],
        edges=tuple(edges),
        after=st.judge.next_outcome(seq),
        knowledge=Required(st.title_of(current), current.first.explanation, current.occurrences[0])
        if current and current.first.explanation else None,
        created=tuple(st.facts.established_by(seq)),
        title=st.title(),
    )


def render_explain(an: Analysis, seq: int, *, redact: bool = True) -> str:
    an, masked = prepared(an, redact, False)
    story, n = redacted(explain_message(an, seq), redact, False)
    text = template_env().get_template("explain.md.j2").render(**story.to_fields(), redactions=masked + n)
    return inert_html(str(text))  # no live HTML (mdsafe.py)


def explain_document(an: Analysis, seq: int, *, redact: bool = True) -> dict[str, object]:
    """`explain -O json`: {"session", "message": the story's fields, "redactions"} (the data the
    markdown is rendered from)."""
    an, masked = prepared(an, redact, False)
    story, n = redacted(explain_message(an, seq), redact, False)
    return {"session": an.session, "message": story.to_dict(), "redactions": masked + n}
