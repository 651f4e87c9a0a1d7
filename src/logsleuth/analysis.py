"""The whole pipeline for one input: ingest -> classify -> actions -> link (-> reasoning).

`Analysis` is the one object every renderer reads. Nothing here prints or formats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from logsleuth.model import Action, CausalGraph, Finding, Sentence, Transcript
from logsleuth.progress import stage

if TYPE_CHECKING:
    import polars as pl

    from logsleuth.library import PatternLibrary
    from logsleuth.verdict import Verdict


QUOTED_OUTPUT_FORMATS = frozenset({"aider"})
# Categories the linker makes, not the library: a goal run that passed is a success of its own.
_LINKER_TITLES = {"goal_passed": "The goal ran and passed", "goal_failed": "A goal command failed"}


@dataclass(frozen=True)
class Analysis:
    transcript: Transcript
    session: str
    findings: tuple[Finding, ...]
    primary: Finding | None
    unclassified: tuple[Any, ...]
    actions: tuple[Action, ...]
    graph: CausalGraph
    sentences: tuple[Sentence, ...]
    library: PatternLibrary
    verdict: Verdict  # the one judgement of the session: every surface reads it, none recomputes it

    @property
    def events(self) -> Any:
        """The events of the analysed session (a polars DataFrame)."""
        import polars as pl

        return self.transcript.events.filter(pl.col("session") == self.session)

    def category_title(self, category: str) -> str:
        cat = self.library.categories.get(category)
        if cat is not None and cat.title:
            return cat.title
        return _LINKER_TITLES.get(category, category.replace("_", " "))

    def category_description(self, category: str) -> str:
        cat = self.library.categories.get(category)
        return " ".join(cat.description.split()) if cat is not None else ""


def load_library(pattern_dirs: Sequence[str] = ()) -> PatternLibrary:
    from logsleuth.library import load_library as _load

    return _load(list(pattern_dirs))


def main_session(t: Transcript) -> str:
    """The session a single-session report is about: a transcript before a plain log (a folder
    holding both tells its story through the transcript), then the most events, then the first."""
    import polars as pl

    if not t.events.height:
        return ""
    counts = t.events.group_by("session", maintain_order=True).agg(
        pl.len().alias("n"), (pl.col("role") != "log").any().alias("transcript")
    )
    best = counts.sort(["transcript", "n"], descending=True, maintain_order=True)
    return str(best["session"][0])


# The agent's prose read by the reasoning stage (rules in Python, the slowest stage per byte):
# all of it up to this many bytes, beyond that the prose nearest the failures (what the narrative
# quotes), so that a 200 MB session costs a second or two here, not minutes. 1 MB is ~150k words,
# far more than the few dozen sentences a postmortem quotes; the public sample sessions hold 2-16 KB.
MAX_PROSE_BYTES = 1_000_000


def bounded_prose(events: Any, findings: Sequence[Finding], limit: int = MAX_PROSE_BYTES) -> Any:
    """`events` (a polars DataFrame), or, when its assistant prose exceeds `limit` bytes, the
    prose events nearest (by seq) a failure finding that fit in `limit`, in event order."""
    import numpy as np
    import polars as pl

    prose = events.filter(
        (pl.col("role").cast(pl.Utf8) == "assistant") & pl.col("kind").cast(pl.Utf8).is_in(["text", "reasoning"])
    )
    sizes = prose["text"].str.len_bytes().fill_null(0).to_numpy()
    if int(sizes.sum()) <= limit:
        return events
    seqs = prose["seq"].to_numpy()
    fails = np.array(sorted({f.seq for f in findings if f.severity.is_failure}), dtype=np.int64)
    if fails.size:
        at = np.clip(np.searchsorted(fails, seqs), 1, fails.size) - 1
        nxt = np.clip(at + 1, 0, fails.size - 1)
        dist = np.minimum(np.abs(seqs - fails[at]), np.abs(fails[nxt] - seqs))
    else:
        dist = np.zeros(seqs.size, dtype=np.int64)
    order = np.lexsort((seqs, dist))  # nearest first, earlier first among equals
    keep = np.sort(order[np.cumsum(sizes[order]) <= limit])
    return prose[keep]


def analyze_transcript(
    t: Transcript,
    library: PatternLibrary,
    *,
    session: str | None = None,
    with_reasoning: bool = True,
) -> Analysis:
    import polars as pl

    from logsleuth.actions import extract_actions
    from logsleuth.classify import classify

    session = session if session is not None else main_session(t)
    events = t.events.filter(pl.col("session") == session) if session else t.events
    stage(f"classifying {events.height:,} events")
    if session and not events.height and t.events.height:  # a --session the input does not hold
        from logsleuth.errors import UsageError

        names = sorted(t.events["session"].drop_nulls().unique().to_list())
        shown = ", ".join(names[:10]) + (f" (+{len(names) - 10} more)" if len(names) > 10 else "")
        raise UsageError(f"--session {session!r}: no such session in the input", hint=f"one of: {shown}")
    # aider's history keeps no command output: the assistant quoting it is the record of success
    result = classify(events, library, quoted_success=t.report.format in QUOTED_OUTPUT_FORMATS)
    stage("finding what was done")
    actions = tuple(extract_actions(events))
    stage(f"linking {len(result.findings):,} findings to what was done")
    graph, verdict, findings, primary = judge(events, result.findings, result.primary, actions, session, library)
    sentences: tuple[Sentence, ...] = ()
    if with_reasoning:
        from logsleuth.reasoning import extract

        stage("reading the reasoning")
        sentences = tuple(extract(bounded_prose(events, result.findings)))
    return Analysis(
        transcript=t,
        session=session,
        findings=tuple(findings),
        primary=primary,
        unclassified=tuple(result.unclassified),
        actions=actions,
        graph=graph,
        sentences=sentences,
        library=library,
        verdict=verdict,
    )


def judge(
    events: pl.DataFrame,
    findings: Sequence[Finding],
    primary: Finding | None,
    actions: Sequence[Action],
    session: str,
    library: PatternLibrary,
) -> tuple[CausalGraph, Verdict, list[Finding], Finding | None]:
    """The stages after classify and actions, for one session: link, then the verdict; the graph
    carries the verdict's outcome, root cause and recipe, and classify's primary is the verdict's
    root cause, so no surface can tell another story. `analyze`, `classify` and `index` all call it."""
    import dataclasses

    from logsleuth.link import link
    from logsleuth.link.roles import StoryRoles
    from logsleuth.verdict import decide

    graph = link(events, findings, actions, session=session, roles=StoryRoles.of(library.categories))
    verdict = decide(events, findings, actions, graph, library.categories)
    graph = dataclasses.replace(graph, outcome=verdict.outcome, root_cause=verdict.root_cause.episode,
                                recipe=verdict.recipe)
    final, prim = with_root_cause(findings, primary, graph)
    return graph, verdict, final, prim


def with_root_cause(
    findings: Sequence[Finding], primary: Finding | None, graph: CausalGraph
) -> tuple[list[Finding], Finding | None]:
    """One root cause: where the linker found the failure the outcome hinges on (a transcript's
    runs), classify's primary is that failure's first finding, so `classify`, the report and the
    index name the same one."""
    import dataclasses

    if graph.root_cause is None:
        return list(findings), primary
    ep = next((e for e in graph.episodes if e.id == graph.root_cause), None)
    if ep is None:
        return list(findings), primary
    chosen = ep.first
    out = [dataclasses.replace(f, primary=f == chosen) if f.primary or f == chosen else f for f in findings]
    if chosen not in findings:  # a goal run that failed with no pattern: the linker's own finding
        out.append(dataclasses.replace(chosen, primary=True))
        out.sort(key=lambda f: (f.session, f.seq, -f.priority, f.pattern))
    return out, next((f for f in out if f.primary), None)


def root_cause_classification(events: Any, result: Any, library: PatternLibrary | None = None) -> Any:
    """`classify`'s result with the verdict's root cause as its primary (a log's too: the same
    answer as `analyze` gives it)."""
    import dataclasses

    import polars as pl

    from logsleuth.actions import extract_actions

    if not events.height:
        return result
    session = main_session(Transcript(events, None))  # type: ignore[arg-type]
    mine = events.filter(pl.col("session") == session)
    _, _, findings, primary = judge(mine, [f for f in result.findings if f.session == session], result.primary,
                                    extract_actions(mine), session, library or load_library())
    others = [f for f in result.findings if f.session != session]
    return dataclasses.replace(result, findings=tuple(sorted((*others, *findings), key=lambda f: (f.session, f.seq, -f.priority, f.pattern))),
                               primary=primary)


def analyze(
    path: str,
    fmt: str | None = None,
    pattern_dirs: Sequence[str] = (),
    *,
    session: str | None = None,
    with_reasoning: bool = True,
) -> Analysis:
    from logsleuth import ingest

    stage(f"reading {path}")
    t = ingest.read(path, fmt)
    return analyze_transcript(t, load_library(pattern_dirs), session=session, with_reasoning=with_reasoning)
