"""Score logsleuth's story against the labelled REAL sessions of tests/real_sessions/, field by field.

    python bench/eval_sessions.py [DIR] [--output-format table|json] [--verbose] [--min FIELD=FLOAT …]

Fields (each a share of the sessions, or of the labelled failures, that logsleuth got right):
  outcome       the session's outcome equals the label
  chain         the chain's failures are exactly the labelled failures, in order (per session)
  failures      labelled failures found as a chain step (per failure)
  fixed         what fixed each labelled failure: the fix logsleuth names matches the label's
                `fixed_by.match` (or both say "not fixed") (per failure)
  noise         labelled noise that stayed out of the chain (per noise item)
  pivots        labelled pivots found among logsleuth's pivots (per pivot); `extra_pivots` counts
                the pivots logsleuth reports where the label has none
  catch22       catch-22 groups equal to the label's (per session)
  root_cause    the report's root cause is the labelled one (per session)
  one_root      classify's primary, the report's root cause and the index's primary name one failure
  sentences     no report sentence contradicts a label (per session)
  rc_text       the verdict's root-cause sentence matches the label's `root_cause_match` (or, where
                the label names none, the verdict names none) (per session)
  reason        the outcome is right and its reason sentence matches `outcome_reason_match`
  fix_change    the verdict's fix of each labelled failure (the state that changed) matches its
                `fixed_by.change_match`; an unfixed failure has no fix (per failure)
  claims        the report's claims (root cause, reason, each fix, recipe line) judged true in the
                folder's claims.json; `unjudged` counts the claims no judgement covers

A labelled failure is located by its `match` regex: its first occurrence is the first event whose
text matches; the chain step that holds that event is the failure logsleuth found for it.
`--min FIELD=X` exits 1 when a field scores below X (CI keeps the floors reached).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "tests" / "real_sessions"
FIELDS = ("outcome", "chain", "failures", "fixed", "noise", "pivots", "catch22", "root_cause", "one_root", "sentences",
          "rc_text", "reason", "fix_change", "claims")


@dataclass
class Score:
    right: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.right += int(ok)

    @property
    def value(self) -> float | None:
        return self.right / self.total if self.total else None


@dataclass
class SessionResult:
    name: str
    scores: dict[str, Score] = field(default_factory=lambda: {f: Score() for f in FIELDS})
    notes: list[str] = field(default_factory=list)
    extra_pivots: int = 0
    unjudged: list[str] = field(default_factory=list)


def _session_file(folder: Path) -> Path:
    files = sorted(p for p in folder.iterdir() if p.name.startswith("session."))
    if not files:
        raise SystemExit(f"eval_sessions: {folder}: no session.* file")
    return files[0]


def _texts(an: Any) -> list[tuple[int, str]]:
    ev = an.events
    return [(int(s), t or "") for s, t in zip(ev["seq"].to_list(), ev["text"].to_list(), strict=True)]


def _locate(rx: str, texts: Sequence[tuple[int, str]]) -> int | None:
    pat = re.compile(rx, re.I | re.S)
    return next((seq for seq, t in texts if pat.search(t)), None)


def _episode_at(graph: Any, seq: int | None, rx: str | None = None, *, strict: bool = False) -> str | None:
    """The episode a labelled text is: the one that has the event. Where one output holds several
    failures, the one whose finding there matches `rx`; none of them (`strict`), else the first."""
    if seq is None:
        return None
    eps = [ep for ep in graph.episodes if seq in ep.occurrences]
    if len(eps) <= 1 or rx is None:
        return str(eps[0].id) if eps else None
    pat = re.compile(rx, re.I | re.S)
    hit = next((ep for ep in eps if any(f.seq == seq and pat.search(f.text) for f in ep.findings)), None)
    return str(hit.id) if hit is not None else (None if strict else str(eps[0].id))


def _chain_failures(graph: Any) -> list[str]:
    return list(dict.fromkeys(n for n in graph.chain if n in {ep.id for ep in graph.episodes}))


def _fixes(an: Any) -> dict[str, tuple[list[str], bool | None]]:
    """episode id -> (commands of the actions that fixed it, held): what the index records."""
    from logsleuth.index.rows import episode_fixes

    out = {}
    for ep_id, fx in episode_fixes(an.graph).items():
        out[ep_id] = ([f"{a.command}\n{a.raw}\n{a.subject}" for a in fx.resolved_by], fx.held)
    return out


def evaluate_session(folder: Path, library: Any) -> SessionResult:
    from logsleuth import ingest
    from logsleuth.analysis import analyze_transcript
    from logsleuth.render.compose import build_report
    from logsleuth.render.postmortem import render_markdown

    labels = json.loads((folder / "labels.json").read_text())
    res = SessionResult(folder.name)
    t = ingest.read(str(_session_file(folder)), labels.get("format"))
    an = analyze_transcript(t, library, session=labels.get("session"))
    g = an.graph
    texts = _texts(an)
    s = res.scores

    s["outcome"].add(g.outcome.value == labels["outcome"])
    if g.outcome.value != labels["outcome"]:
        res.notes.append(f"outcome {g.outcome.value!r}, label {labels['outcome']!r}")

    found: dict[str, str | None] = {}  # label failure id -> episode id
    for lf in labels["failures"]:
        seq = _locate(lf["match"], texts)
        if seq is None:
            res.notes.append(f"{lf['id']}: label match {lf['match']!r} finds no event")
        found[lf["id"]] = _episode_at(g, seq, lf["match"])
    chain = _chain_failures(g)
    expected = [found[lf["id"]] for lf in labels["failures"]]
    s["chain"].add(expected == chain and None not in expected)
    if expected != chain:
        res.notes.append(f"chain {chain} vs labelled {expected}")
    fixes = _fixes(an)
    for lf in labels["failures"]:
        ep = found[lf["id"]]
        s["failures"].add(ep is not None and ep in chain)
        cmds, _held = fixes.get(ep, ([], None)) if ep else ([], None)
        want = lf.get("fixed_by")
        if want is None:
            ok = not cmds
        else:
            rx = re.compile(want["match"], re.I | re.S)
            ok = any(rx.search(c) for c in cmds)
        s["fixed"].add(ok)
        if not ok:
            res.notes.append(f"{lf['id']}: fixed by {[c.splitlines()[0] for c in cmds]}, label {want and want['match']!r}")

    for nz in labels.get("noise", []):
        seq = _locate(nz["match"], texts)
        ep = _episode_at(g, seq, nz["match"], strict=True)
        # a step that is a labelled failure is that failure, unless its own finding is the noise text
        # (a noise line printed in the same output as a real failure, e.g. a status line above CMake's error)
        pat = re.compile(nz["match"], re.I | re.S)
        theirs = ep in set(found.values()) and not any(
            f.seq == seq and pat.search(f.text) for e in g.episodes if e.id == ep for f in e.findings)
        ok = ep is None or ep not in chain or theirs
        s["noise"].add(ok)
        if not ok:
            res.notes.append(f"noise {nz['match']!r} is chain step {ep}")

    pivot_texts = [f"{p.command}\n{p.raw}" for p in g.pivots]
    for pv in labels.get("pivots", []):
        rx = re.compile(pv["match"], re.I | re.S)
        ok = any(rx.search(t) for t in pivot_texts)
        s["pivots"].add(ok)
        if not ok:
            res.notes.append(f"pivot {pv['match']!r} not found among {[p.command for p in g.pivots]}")
    if not labels.get("pivots") and g.pivots:
        res.extra_pivots = len({p.seq for p in g.pivots})
        res.notes.append(f"{res.extra_pivots} pivot(s) where the label has none: {[p.command for p in g.pivots][:3]}")

    want22 = sorted(sorted(str(found.get(i)) for i in grp) for grp in labels.get("catch22", []))
    got22 = sorted(sorted(c.episodes) for c in g.catch22)
    s["catch22"].add(want22 == got22)
    if want22 != got22:
        res.notes.append(f"catch-22 {got22} vs labelled {want22}")

    report = build_report(an)
    by_id = {ep.id: ep.occurrences for ep in g.episodes}
    rc_seq = report.root_cause.seq
    rc_ep = g.root_cause if rc_seq in by_id.get(g.root_cause, ()) else _episode_at(g, rc_seq)
    want_rc = found.get(labels["root_cause"]) if labels.get("root_cause") else None
    s["root_cause"].add(rc_ep == want_rc)
    if rc_ep != want_rc:
        res.notes.append(f"root cause {rc_ep} vs labelled {want_rc}")
    primary_ep = next((ep.id for ep in g.episodes if an.primary in ep.findings), None) if an.primary is not None else None
    if primary_ep is None and an.primary is not None:
        primary_ep = _episode_at(g, an.primary.seq)
    s["one_root"].add(primary_ep == rc_ep)
    if primary_ep != rc_ep:
        res.notes.append(f"classify primary {primary_ep} vs root cause {rc_ep}")

    md = render_markdown(an)
    contradictions = _contradictions(md, labels, report)
    s["sentences"].add(not contradictions)
    res.notes.extend(f"sentence: {c}" for c in contradictions)
    _score_verdict(an.verdict, labels, found, res)
    _score_claims(an.verdict, folder, res)
    return res


def _score_verdict(v: Any, labels: dict[str, Any], found: dict[str, str | None], res: SessionResult) -> None:
    """The verdict's own fields against the labels that name them (a label without them: not scored)."""
    s = res.scores
    if "root_cause_match" in labels:
        rx = labels["root_cause_match"]
        text = v.root_cause.text if v.root_cause.kind != "unknown" or v.root_cause.basis == "agent" else None
        ok = text is None if rx is None else text is not None and re.search(rx, text, re.I | re.S) is not None
        s["rc_text"].add(ok)
        if not ok:
            res.notes.append(f"root cause text {text!r} vs labelled {labels.get('root_cause_text')!r}")
    if "outcome_reason_match" in labels:
        ok = v.outcome.value == labels["outcome"] and re.search(labels["outcome_reason_match"], v.reason, re.I | re.S) is not None
        s["reason"].add(ok)
        if not ok:
            res.notes.append(f"reason {v.reason!r} vs labelled {labels.get('outcome_reason')!r}")
    for lf in labels["failures"]:
        want = lf.get("fixed_by")
        if want is not None and "change_match" not in want:
            continue
        fv = v.failure(found.get(lf["id"]) or "")
        text = fv.fix_text() if fv is not None else ""
        ok = not text if want is None else bool(text) and re.search(want["change_match"], text, re.I | re.S) is not None
        s["fix_change"].add(ok)
        if not ok:
            res.notes.append(f"{lf['id']}: fix {text!r} vs labelled {want and want.get('change')!r}")


def claims_of(v: Any) -> list[str]:
    """The claims a report makes from the verdict, one string each (what a judge rules on)."""
    out = [f"outcome: {v.outcome.value}. {v.reason}"]
    if v.root_cause.text:
        out.append(f"root cause: {v.root_cause.text}")
    out += [f"fix of {f.title} [msg {f.seq}]: {f.fix_text()}" for f in v.failures if f.fix]
    out += [f"bent: {b.kind}: {b.text}" for b in v.bends]
    out += [f"recipe: {line}" for line in v.recipe if not line.startswith("#")]
    return out


def _score_claims(v: Any, folder: Path, res: SessionResult) -> None:
    """Each claim judged in claims.json ({"judgements": [{"claim", "true", "why"}]}), matched by its text."""
    path = folder / "claims.json"
    if not path.is_file():
        return
    judged = {j["claim"]: bool(j["true"]) for j in json.loads(path.read_text())["judgements"]}
    for c in claims_of(v):
        if c in judged:
            res.scores["claims"].add(judged[c])
            if not judged[c]:
                res.notes.append(f"claim judged false: {c[:160]}")
        else:
            res.unjudged.append(c)


_OUTCOME_WORDS = {"resolved": "resolved", "worked around": "worked around", "unresolved": "unresolved"}


def _contradictions(md: str, labels: dict[str, Any], report: Any) -> list[str]:
    """Report sentences a label refutes: the stated ending, "no change was made", "cleared the way"."""
    out = []
    low = md.lower()
    outcome = labels["outcome"]
    if outcome == "resolved" and ("no way out" in low or "still there" in low or "ended **unresolved**" in low):
        out.append("says the problem remained, label resolved")
    if outcome == "unresolved" and ("ended **resolved**" in low or "and a fix" in low):
        out.append("says resolved, label unresolved")
    fixed_any = any(lf.get("fixed_by") for lf in labels["failures"])
    if fixed_any and "no change was made before the next error appeared" in low and not report.road:
        out.append("says no change was made, label names fixes")
    return out


def run(folder: Path, verbose: bool = False) -> tuple[dict[str, Any], list[SessionResult]]:
    from logsleuth.analysis import load_library

    library = load_library()
    results = [evaluate_session(d, library) for d in sorted(folder.iterdir()) if (d / "labels.json").is_file()]
    totals = {f: Score() for f in FIELDS}
    for r in results:
        for f in FIELDS:
            totals[f].right += r.scores[f].right
            totals[f].total += r.scores[f].total
    summary = {
        "sessions": len(results),
        "fields": {f: {"right": totals[f].right, "total": totals[f].total, "score": totals[f].value} for f in FIELDS},
        "extra_pivots": sum(r.extra_pivots for r in results),
        "unjudged_claims": sum(len(r.unjudged) for r in results),
    }
    return summary, results


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    ap.add_argument("--output-format", "-O", choices=("table", "json"), default="table")
    ap.add_argument("--verbose", "-v", action="store_true", help="per-session notes")
    ap.add_argument("--min", action="append", default=[], metavar="FIELD=X", help="fail below this score")
    args = ap.parse_args(argv)
    summary, results = run(Path(args.dir), args.verbose)
    if args.output_format == "json":
        doc = summary | {"per_session": {r.name: {"notes": r.notes, "unjudged": r.unjudged, **{f: r.scores[f].value for f in FIELDS}}
                                        for r in results}}
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        print(f"{summary['sessions']} real sessions")
        for f in FIELDS:
            v = summary["fields"][f]
            shown = f"{v['score']:.2f}" if v["score"] is not None else "  - "
            print(f"  {f:<11} {shown}  ({v['right']}/{v['total']})")
        print(f"  extra pivots: {summary['extra_pivots']}; claims not judged: {summary['unjudged_claims']}")
        if args.verbose:
            for r in results:
                bad = [f for f in FIELDS if r.scores[f].value not in (None, 1.0)]
                print(f"\n{r.name}: {'ok' if not bad else 'wrong: ' + ', '.join(bad)}")
                for n in r.notes:
                    print(f"  - {n}")
    failed = []
    for spec in args.min:
        name, _, value = spec.partition("=")
        got = summary["fields"][name]["score"]
        if got is not None and got < float(value):
            failed.append(f"{name} {got:.2f} < {value}")
    if failed:
        print("eval_sessions: below the floor: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
