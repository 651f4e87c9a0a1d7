"""What `logsleuth serve` shows, read from the index: sessions, a session, an error fingerprint,
search results grouped by fingerprint. Read-only: every call looks at the committed state (the
manifest's stat: cache.generation), so a concurrent `index` run's commits show up without a
restart; what the pages share (the sessions, one pattern's rows, the categories) is computed once
per generation (`Index.memo`), and a process keeps one committed state's findings in memory
(index.compact.kept).

Everything returned is masked again (render.masking.mask_tree) although index rows are masked
before they are written: an index built by an older logsleuth is shown masked too. The rule test
of each string is kept (`masked`), so a string shown before is not tested again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from logsleuth.enums import Outcome, Severity
from logsleuth.index.record import StoredFinding, enum_of, finding_of
from logsleuth.jsonout import iso
from logsleuth.search import engine
from logsleuth.search.hits import Hit, SearchResult
from logsleuth.search.ranked import Ranked
from logsleuth.search.render import attempt_text, held_text, outcome_class, outcome_text
from logsleuth.serve.cache import generation

ROW_COLUMNS = (
    "session", "source", "origin", "line", "seq", "ts", "pattern", "category", "severity", "fingerprint", "text",
    "resolved_by", "held", "attempts", "catch22", "outcome", "file_sha256", "format", "primary",
    "episode", "fix", "fix_state", "fixed_at",
)  # fmt: skip
LOG_FORMATS = ("text",)  # a plain log's references are `[line N]`, a transcript's `[msg N]`


T = TypeVar("T")


_RULES: dict[str, bool] = {}  # string -> whether a masking rule may match it (a test per string)
MAX_RULES_CHARS = 32_000_000  # characters of the strings whose test is kept (then it starts afresh)
_rules_chars = 0


def masked(obj: T) -> T:
    """`obj` masked as `mask_tree` masks it, testing only the strings not shown before: the rule
    test of a string does not depend on its context (a vectorised pass costs ~10 ms a call)."""
    from logsleuth.render.masking import mask_tree, rule_tests, strings_of

    global _rules_chars
    new = [s for s in strings_of(obj) if s not in _RULES]
    if new:
        size = sum(map(len, new))
        if _rules_chars + size > MAX_RULES_CHARS:
            _RULES.clear()
            _rules_chars = 0
        _RULES.update(zip(new, rule_tests(new), strict=True))
        _rules_chars += size
    return mask_tree(obj, rules=_RULES)


class Index:
    """The index at `db`, read for pages; what every page needs (the sessions, one pattern's rows)
    is computed once per index generation and kept (`memo`)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.RLock()  # a memo may read another (categories: the sessions)
        self._local = threading.local()  # per thread: (generation, sidecar connection)

    def memo(self, name: str, make: Callable[[], T], *args: Any) -> T:
        """`make()` for the current generation, computed once (others wait for it); a new
        generation drops the old values."""
        key = (generation(self.db), name, *args)
        with self._lock:
            if key in self._memo:
                return self._memo[key]  # type: ignore[no-any-return]
            if any(k[0] != key[0] for k in self._memo):
                self._memo.clear()
            value = make()
            self._memo[key] = value
            return value

    def rows(self, predicate: Any = None) -> list[StoredFinding]:

        from logsleuth.index import store

        frame = store.load(self.db, ROW_COLUMNS, predicate)
        frame = frame.sort("ts", "session", "source", "seq", nulls_last=True)
        return [finding_of(r) for r in frame.iter_rows(named=True)]

    def frame(self, predicate: Any) -> Any:
        """The raw rows (with the episode columns a session page groups by)."""
        from logsleuth.index import store

        return store.load(self.db, ROW_COLUMNS, predicate)

    # ------------------------------------------------------------ search

    def search(self, text: str, limit: int = 20, category: str | None = None) -> SearchResult:
        return engine.search(text, db=self.db, limit=limit, category=category, sidecar=False,
                             connection=self.sidecar())

    def sidecar(self) -> Any:
        """This thread's read-only connection to the search sidecar of the current generation, or
        None while the sidecar is stale (a running `index` rewrites it after its commit). The
        sidecar is replaced by rename: an open connection keeps reading the file it opened."""
        from logsleuth.index import sidecar

        gen = generation(self.db)
        held = getattr(self._local, "sidecar", None)
        if held is not None and held[0] == gen:
            return held[1]
        if held is not None and held[1] is not None:
            held[1].close()
        con = sidecar.open_current(self.db, library=False)
        self._local.sidecar = (gen, con) if con is not None else None  # stale: asked again next time
        return con

    def groups(self, result: SearchResult) -> list[dict[str, Any]]:
        """The hits of a search by error fingerprint, best first: how often that error was seen
        (in the whole index), the fix that held first, then the attempts that did not."""
        order: dict[tuple[str, str], list[Hit]] = {}
        for h in result.hits:
            order.setdefault((h.pattern, h.fingerprint or ""), []).append(h)
        if not order:
            return []
        rows = [r for p in sorted({p for p, _ in order}) for r in self.pattern_rows(p)]
        out = []
        for (pattern, fp), hits in order.items():
            fp_rows = [r for r in rows if r.pattern == pattern and (r.fingerprint or "") == fp]
            out.append({"pattern": pattern, "fingerprint": fp, "category": hits[0].category, "hits": hits,
                        **summary(fp_rows)})
        return masked(out)

    def pattern_rows(self, pattern: str) -> list[StoredFinding]:
        """Every indexed finding of one pattern (what a search's groups count), kept per generation."""
        import polars as pl

        return self.memo("pattern", lambda: self.rows(pl.col("pattern") == pattern), pattern)

    # ------------------------------------------------------------ sessions

    def all_sessions(self) -> list[dict[str, Any]]:
        """Every indexed session (masked), kept per generation: the pages filter this list."""
        from logsleuth import sessions

        return self.memo("sessions", lambda: masked([r.to_dict() for r in sessions.from_index(self.db)]))

    def sessions(self, *, text: str = "", category: str = "", outcome: str = "", since: str = "",
                 until: str = "") -> list[dict[str, Any]]:
        rows = self.all_sessions()
        want = text.strip().lower()
        wanted = enum_of(Outcome, outcome)  # a value no session can have (a typo) keeps none

        def keep(r: dict[str, Any]) -> bool:
            start = (r.get("start") or "")[:10]
            return (
                (not category or r.get("root_cause") == category)
                and (not outcome or (wanted is not None and enum_of(Outcome, r.get("outcome")) is wanted))
                and (not since or (bool(start) and start >= since))
                and (not until or (bool(start) and start <= until))
                and (not want or any(want in str(v).lower() for v in r.values() if v is not None))
            )

        return [r for r in rows if keep(r)]

    def categories(self) -> list[str]:
        """The root-cause categories of the indexed sessions (the sessions page's dropdown)."""
        return self.memo("categories", lambda: sorted({r["root_cause"] for r in self.all_sessions() if r.get("root_cause")}))

    def known_categories(self) -> set[str]:
        """Every category a filter may name: the library's and the index's."""
        from logsleuth.index.patterns import library

        def known() -> set[str]:
            return set(library().categories) | set(self.categories()) | {p.category for p in library().patterns}

        return self.memo("known categories", known)

    def session(self, session: str, source: str) -> dict[str, Any] | None:
        import polars as pl

        head = next((r for r in self.all_sessions() if r["session"] == session and r["source"] == source), None)
        if head is None:
            return None
        rows = self.rows((pl.col("session") == session) & (pl.col("source") == source))
        raw = self.frame((pl.col("session") == session) & (pl.col("source") == source))
        unit = "line" if head.get("format") in LOG_FORMATS else "msg"
        return masked({"session": head, "origin": rows[0].origin if rows else None,
                       "file_sha256": rows[0].file_sha256 if rows else None, "unit": unit,
                       "failures": failure_rows(raw),
                       "findings": [occurrence(r) for r in rows if r.severity is not Severity.SUCCESS]})

    def source_of(self, session: str, source: str) -> tuple[str, str] | None:
        """(source path, content hash) of an indexed session: what a postmortem is rendered from."""
        import polars as pl

        from logsleuth.index import store

        frame = store.load(self.db, ["session", "source", "file_sha256"],
                           (pl.col("session") == session) & (pl.col("source") == source), sessions=True)
        return (str(frame["source"][0]), frame["file_sha256"][0] or "") if frame.height else None

    # ------------------------------------------------------------ fingerprints

    def fingerprint(self, pattern: str, fingerprint: str) -> dict[str, Any] | None:
        import polars as pl

        rows = self.rows((pl.col("pattern") == pattern) & (pl.col("fingerprint") == fingerprint))
        if not rows:
            return None
        from logsleuth.search.advice import advice

        tip = advice(pattern) or {}
        return masked({"pattern": pattern, "fingerprint": fingerprint, "category": rows[0].category,
                       "title": tip.get("title"), "explanation": tip.get("explanation"),
                       "library_fixes": tip.get("fixes", []), **summary(rows),
                       "occurrences": [occurrence(r) for r in rows]})


def as_hit(r: StoredFinding) -> Hit:
    """One indexed finding as a search hit (score 1: it is this error)."""
    return Hit.of(Ranked(r, 1.0, 1))


def occurrence(r: StoredFinding) -> dict[str, Any]:
    """One indexed finding, in the shape of a search result."""
    return {**as_hit(r).to_dict(), "fingerprint": r.fingerprint, "severity": r.severity}


def summary(rows: Sequence[StoredFinding]) -> dict[str, Any]:
    """How often an error was seen and what was done about it, over its indexed findings (the
    same session reached through two inputs counted once): fixes that held first (in sessions
    that ended well before those that did not), then fixes that did not hold, then attempts."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for r in rows:  # search.rank.dedupe: per (content hash, session), the first (origin, source)
        if r.file_sha256:
            key, where = (r.file_sha256, r.session), (r.origin or "", r.source)
            seen[key] = min(seen.get(key, where), where)
    rows = [r for r in rows if not r.file_sha256 or seen[(r.file_sha256, r.session)] == (r.origin or "", r.source)]
    fixes: dict[tuple[str, str, str], tuple[dict[str, Any], bool]] = {}  # the fix, and whether it is good
    tried: dict[str, dict[str, Any]] = {}
    for r in rows:
        hit = as_hit(r)
        if hit.action is not None:
            fix_key = (hit.action, r.session, r.source)
            fix = {"action": hit.action, "held": hit.fix_held, "outcome": outcome_text(hit.outcome),
                   "outcome_class": outcome_class(hit.outcome), "state": hit.fix_state,
                   "verdict": held_text(hit.fix_held, hit.outcome, hit.fix_state), "session": r.session,
                   "source": r.source, "ts": _ts(r.ts)}
            fixes.setdefault(fix_key, (fix, good(hit.fix_held, hit.outcome)))
        for a in r.attempts:
            t = tried.setdefault(a.command, {"action": a.command, "change": attempt_text(a), "sessions": set()})
            t["sessions"].add(r.session)

    def rank(fix: tuple[dict[str, Any], bool]) -> tuple[Any, ...]:
        f, is_good = fix
        return (not is_good, not f["held"], f["ts"] or "~", f["session"], f["action"])

    held = _same_fix_once([f for f, _ in sorted(fixes.values(), key=rank)])
    fixed_by = {f["action"] for f in held}
    attempts = [{"action": t["action"], "change": t["change"], "sessions": len(t["sessions"])} for t in sorted(tried.values(), key=lambda t: t["action"])
                if t["action"] not in fixed_by]
    return {"seen": len(rows), "sessions": len({(r.origin, r.session) for r in rows}), "fixes": held,
            "attempts": attempts}


def _same_fix_once(fixes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per fix and verdict, in rank order: the sessions after the first that made the
    same fix with the same result are its `also` (the same trap met in three sessions is one
    line, not three)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for f in fixes:
        key = (f["action"], f["verdict"])
        if key in merged:
            merged[key]["also"].append({k: f[k] for k in ("session", "source", "outcome", "outcome_class")})
        else:
            merged[key] = {**f, "also": []}
    return list(merged.values())


def good(held: bool | None, outcome: Outcome | None) -> bool:
    """A fix that held (the verdict's word): one to try first, before those of sessions that
    ended unresolved (ranked after by `summary`)."""
    return bool(held)


SEVERITY_ORDER = {"fatal": 4, "error": 3, "warning": 2}


def failure_rows(raw: Any) -> list[dict[str, Any]]:
    """One row per failure episode of a session (Sentry's issue list): the strongest severity,
    first and last seen (`[msg N]`), occurrences, the verdict's fix and its state; findings of
    no episode (a warning, a probe) after them, one per pattern."""
    import polars as pl

    if not raw.height:
        return []
    raw = raw.filter(pl.col("severity").is_in(list(SEVERITY_ORDER))).with_columns(
        pl.col("severity").replace_strict(SEVERITY_ORDER, default=0).alias("_rank"),
        pl.coalesce(pl.col("episode"), pl.lit("~") + pl.col("pattern")).alias("_key"),
    )
    out = []
    for _, g in raw.sort("seq").group_by("_key", maintain_order=True):
        first = g.row(0, named=True)
        top = g.sort("_rank", descending=True).row(0, named=True)
        out.append({"episode": first["episode"], "pattern": top["pattern"], "category": top["category"],
                    "severity": top["severity"], "fingerprint": top["fingerprint"], "text": top["text"],
                    "first_seq": first["seq"], "last_seq": int(g["seq"].max()), "line": first["line"],
                    "occurrences": g["seq"].n_unique(), "fix": first["fix"] if first["fix_state"] != "open" else None,
                    "state": first["fix_state"] or ("" if first["episode"] else "not a failure of the chain"),
                    "fixed_at": first["fixed_at"], "ts": _ts(first["ts"]), "last_ts": _ts(g["ts"].max())})
    return sorted(out, key=lambda f: (f["episode"] is None, f["first_seq"]))


def _ts(ts: datetime | None) -> str | None:
    return iso(ts)
