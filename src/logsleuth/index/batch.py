"""Many small inputs of an index run analysed in one pass, each with the rows it gets alone.

A 1 KB log cost ~80 ms analysed on its own (analyse.analyse_input), nearly all of it fixed
per-call costs: ~40 polars queries to read it, ~60 more to classify it, a masking pass. Here a
batch of inputs is read together (small plain logs in one pass: textbatch.py; the others
one by one), their events form one frame in which every session is made distinct (`fid` ␟
session), and that frame is classified and its actions extracted once. Classify and extract
work per session (scope joins, suppression, secondary findings and actions are keyed by
session), except the primary finding, which is chosen again per session as classify does
(`primary_of`). Then, per session, the findings and actions get their own session back and are
linked, and the rows are built; masking runs per session, only on the sessions holding a string
a masking rule may match (one vectorised test over the whole batch), as an unmatched session's
rows come back from `mask_tree` unchanged. tests/test_index_batch.py checks that every input's
rows are the ones `analyse_input` gives it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from logsleuth.index.analyse import (
    FileOutcome,
    FileResult,
    Task,
    analyse,
    analyse_transcript_rows,
    error_line,
)
from logsleuth.index.rows import findings_frames, unmasked_rows

if TYPE_CHECKING:
    from logsleuth.library import PatternLibrary
    from logsleuth.model import Transcript

SMALL_BYTES = 256 * 1024  # inputs up to this size are analysed in batches (pool.py groups them)
SEP = "\x1f"


def analyse_batch(tasks: Sequence[Task], library: PatternLibrary) -> list[FileOutcome]:
    """The outcome of every task, in order, as `analyse.analyse` gives each alone."""
    from logsleuth.classify import scan_terms
    from logsleuth.ingest import logscan

    terms = scan_terms(library)
    outcomes: list[FileOutcome | None] = [None] * len(tasks)
    read: list[Transcript | None] = [None] * len(tasks)
    plain: list[tuple[int, str, bytes]] = []
    for i, t in enumerate(tasks):
        try:
            small = _small_plain(t.source, t.reader)
            if small is not None:
                plain.append((i, *small))
            else:
                read[i] = _read(t.source, terms)
        except Exception as exc:  # one bad input never aborts the run
            outcomes[i] = FileOutcome(None, error_line(t.source, exc))
    batched: set[int] = set()  # read by the batched text reader
    if plain:
        from logsleuth.index.textbatch import read_texts

        got = read_texts([(name, data) for _, name, data in plain], logscan.needle_regex(*terms))
        for (i, _, _), tr in zip(plain, got, strict=True):
            if tr is not None:
                read[i] = tr
                batched.add(i)
                continue
            try:
                read[i] = _read(tasks[i].source, terms)
            except Exception as exc:
                outcomes[i] = FileOutcome(None, error_line(tasks[i].source, exc))
    todo = [i for i in range(len(tasks)) if read[i] is not None]
    try:
        results = analyse_transcripts([(read[i], tasks[i].sha, i in batched) for i in todo], library)  # type: ignore[misc]
    except Exception:  # whatever the batch tripped on is reported by the input that causes it, alone
        results = [None] * len(todo)
    for i, res in zip(todo, results, strict=True):
        if res is None:
            outcomes[i] = analyse(tasks[i], library)
        else:
            outcomes[i] = FileOutcome(res)
    return [o if o is not None else FileOutcome(None, f"{t.source}: internal error: not analysed") for o, t in zip(outcomes, tasks, strict=True)]


def _small_plain(source: str, reader: str | None = None) -> tuple[str, bytes] | None:
    """(display name, content) when `ingest.read_candidates` would read `source` with the
    plain-text candidate scan from an uncompressed file of at most SMALL_BYTES, else None.
    `reader`: what the parent's folder walk detected for it (uncompressed, readable): then the
    file is not probed and detected again."""
    from logsleuth.ingest import _reject_unreadable
    from logsleuth.ingest.base import make_probe
    from logsleuth.ingest.detect import detect

    if reader is not None:
        if reader != "text":
            return None
        from logsleuth.ingest import unreadable

        try:
            with open(source, "rb") as f:
                data = f.read(SMALL_BYTES + 1)
        except OSError:  # gone or unreadable since the walk: the probe below says so, located
            data = b""
        if unreadable(data) is None:
            return (source, data) if len(data) <= SMALL_BYTES else None
        # changed since the walk into something empty or binary: probed and detected again
    probe = make_probe(source)
    if probe.is_dir or probe.path is None or probe.compression is not None:
        return None
    _reject_unreadable(probe)
    if detect(probe).name != "text":
        return None
    with probe.open() as f:
        data = f.read(SMALL_BYTES + 1)
    return (probe.display, data) if len(data) <= SMALL_BYTES else None


def _read(source: str, terms: tuple[list[str], list[str]]) -> Transcript:
    from logsleuth import ingest

    return ingest.read_candidates(source, None, *terms)


def analyse_transcripts(
    items: Sequence[tuple[Transcript, str, bool]], library: PatternLibrary
) -> list[FileResult | None]:
    """(transcript, sha, read by the batched text reader) -> each one's FileResult, as
    `analyse_transcript_rows` gives it alone. Transcripts the batch does not cover (aider's
    quoted successes, sessions without a name) are analysed alone."""
    from logsleuth.analysis import QUOTED_OUTPUT_FORMATS

    out: list[FileResult | None] = [None] * len(items)
    together: list[int] = []
    # a session without a name, per transcript, in one query over all of them (not two each)
    nameless = np.zeros(len(items), bool)
    if items:
        sessions = pl.concat([t.events["session"] for t, _, _ in items])
        fid = np.repeat(np.arange(len(items)), [t.events.height for t, _, _ in items])
        np.logical_or.at(nameless, fid, (sessions.is_null() | (sessions == "")).fill_null(True).to_numpy())
    for k, (t, sha, _) in enumerate(items):
        if t.report.format in QUOTED_OUTPUT_FORMATS or nameless[k]:
            out[k] = analyse_transcript_rows(t, library, sha)
        else:
            together.append(k)
    if together:
        for k, res in zip(together, _together([items[k] for k in together], library), strict=True):
            out[k] = res
    return out


def _together(items: Sequence[tuple[Transcript, str, bool]], library: PatternLibrary) -> list[FileResult]:
    from logsleuth.actions import extract_actions
    from logsleuth.analysis import Analysis, judge
    from logsleuth.classify import classify, primary_of
    from logsleuth.ingest.coverage import under_read
    from logsleuth.model import EVENT_COLUMNS

    # a select of every column costs ~0.5 ms a frame even when it changes nothing
    frames = [t.events if t.events.columns == EVENT_COLUMNS else t.events.select(EVENT_COLUMNS) for t, _, _ in items]
    sizes = np.array([f.height for f in frames], dtype=np.int64)
    events = pl.concat(frames, how="vertical") if frames else pl.DataFrame()
    width = len(str(len(items)))
    fids = pl.Series("fid", np.repeat(np.arange(len(items)), sizes)).cast(pl.Utf8).str.zfill(width)
    keyed = events.with_columns((fids + SEP + pl.col("session")).alias("session"))
    findings: dict[str, list[Any]] = {}
    for f in classify(keyed, library).findings:
        findings.setdefault(f.session, []).append(f)
    actions: dict[str, list[Any]] = {}
    for a in extract_actions(keyed):
        actions.setdefault(a.session, []).append(a)
    # each input's sessions in order of appearance, from one query over the batch (an input's rows
    # are contiguous and in order: its keys first appear in its own order)
    sessions_of: list[list[str]] = [[] for _ in items]
    for key in keyed["session"].unique(maintain_order=True).to_list() if keyed.height else []:
        k, _, s = key.partition(SEP)
        sessions_of[int(k)].append(s)
    per_session: list[tuple[int, list[dict[str, Any]]]] = []
    # a session whose events hold a string a masking rule may match teaches its rows what to mask
    # (`export DB_PASSWORD=X` in one event, a bare X in a finding's text), as `analyze` learns
    secret_sessions = _sessions_with_secrets(keyed)
    contexts: list[pl.DataFrame | None] = []
    meta: list[tuple[int, int]] = []  # per input: (sessions, first index in per_session)
    for k, (t, sha, _) in enumerate(items):
        names = sessions_of[k]
        meta.append((len(names), len(per_session)))
        prefix = f"{k:0{width}d}{SEP}"
        for s in names:
            fs = [dataclasses.replace(f, session=s, primary=False) if f.primary else dataclasses.replace(f, session=s)
                  for f in findings.get(prefix + s, ())]
            primary = primary_of(fs)
            if primary is not None:
                at = next(i for i, f in enumerate(fs) if f is primary)
                fs[at] = primary = dataclasses.replace(primary, primary=True)
            acts = tuple(dataclasses.replace(a, session=s, id="") for a in actions.get(prefix + s, ()))
            ev = t.events if len(names) == 1 else t.events.filter(pl.col("session") == s)
            graph, verdict, final, prim = judge(ev, fs, primary, acts, s, library)
            an = Analysis(transcript=t, session=s, findings=tuple(final), primary=prim, unclassified=(),
                          actions=acts, graph=graph, sentences=(), library=library, verdict=verdict)
            per_session.append((k, unmasked_rows(an, t.report.format, sha)))
            contexts.append(ev if prefix + s in secret_sessions else None)
    masked = _masked([rows for _, rows in per_session], contexts)
    frames = findings_frames([[r for rows in masked[at : at + n] for r in rows] for n, at in meta])
    results = []
    for k, (t, _, from_batch) in enumerate(items):
        n, _ = meta[k]
        # the batched text reader skips nothing and a log has no assistant turns: nothing under-read
        warnings = () if from_batch else tuple(c.warning() for c in under_read(t))
        results.append(FileResult(frames[k], t.report.format, n, len(t.report.skipped), warnings))
    return results


def _sessions_with_secrets(keyed: pl.DataFrame) -> set[str]:
    """The (keyed) sessions of a batch with an event text a masking rule may match: one vectorised
    test over the batch."""
    from logsleuth.render.masking import new_redactor

    if not keyed.height:
        return set()
    hit = new_redactor().maybe_secret(keyed["text"], known=False)
    return set(keyed.filter(pl.Series(np.asarray(hit, bool)))["session"].unique().to_list())


def _masked(groups: list[list[dict[str, Any]]], contexts: list[pl.DataFrame | None]) -> list[list[dict[str, Any]]]:
    """Each group of rows masked: with its session's events as context (learned, not kept) when
    they may hold a secret, else by `mask_tree` when the rows may hold one; the others have
    nothing to learn or change and are given back as they are."""
    from logsleuth.render.masking import mask_tree, new_redactor, redact_output

    owners: dict[str, set[int]] = {}  # each distinct string, tested once
    for g, rows in enumerate(groups):
        for s in _strings(rows):
            owners.setdefault(s, set()).add(g)
    if not owners:
        return groups
    strings = list(owners)
    hit = new_redactor().maybe_secret(pl.Series(strings, dtype=pl.Utf8), known=False)
    rules = dict(zip(strings, np.asarray(hit, bool).tolist(), strict=True))
    flagged = {g for s, h in rules.items() if h for g in owners[s]}
    # a flagged group's own masking reuses this test of the rules (its strings are among these)
    return [
        redact_output(rows, context, rules=rules) if context is not None
        else mask_tree(rows, rules=rules) if g in flagged
        else rows
        for g, (rows, context) in enumerate(zip(groups, contexts, strict=True))
    ]


def _strings(obj: Any) -> list[str]:
    """The string values of a tree of rows (keys are column names: masking leaves them alone)."""
    out: list[str] = []
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return out
