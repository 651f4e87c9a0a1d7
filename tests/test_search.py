"""Search: classify the query, rank prior occurrences, say what fixed them; --in, filters, JSON."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from conftest import SAMPLES
from index_sessions import (
    FIXTURE_PATTERNS,
    NVRTC,
    PTXAS,
    write_corpus,
)
from logsleuth.cli import main
from logsleuth.errors import UsageError
from logsleuth.index import build as indexer
from logsleuth.index import patterns
from logsleuth.library import load_library
from logsleuth.search import engine, query, rank

PATTERN_ARGS = ["--no-builtin", "--patterns", str(FIXTURE_PATTERNS)]
TRACEBACK = f"""Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/sglang/srt/layers/x.py", line 12, in <module>
    import sgl_kernel
{NVRTC}"""


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([str(FIXTURE_PATTERNS)], builtins=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("search") / "corpus", flat=True)


@pytest.fixture(scope="module")
def db(corpus: Path, lib) -> Path:  # type: ignore[no-untyped-def]
    path = corpus.parent / "db"
    assert indexer.build([str(corpus)], path, library=lib).errors == []
    return path


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main(["search", *args, "-O", "json", *PATTERN_ARGS]) == 0
    return json.loads(capsys.readouterr().out)


def test_ptxas_query_finds_sessions_and_fixes(db: Path, corpus: Path, lib) -> None:  # type: ignore[no-untyped-def]
    r = engine.search(PTXAS, db=db, lib=lib)
    assert r.query.pattern == "ptxas-unsupported-ptx-version"
    assert dict(r.query.captures) == {"ptx_version": "9.2", "ptxas_max": "9.0"}
    # same fingerprint first (newest first among equals), the other versions last
    assert [h.session for h in r.hits] == ["sess-c22", "sess-ptxas", "sess-other"]
    c22, fixed, other = r.hits
    assert c22.score == fixed.score > other.score
    assert c22.occurrences == 2 and (c22.line, c22.seq) == (3, 2)  # the first occurrence speaks for both
    assert fixed.source == str(corpus / "ptxas.jsonl") and fixed.line == 3
    install = fixed.action or ""  # the verdict's change of state, not the command (issue #33, 3)
    assert install == "`nvidia-cuda-nvcc-cu12` 12.9.86 installed (`nvidia-cuda-nvcc-cu12>=12.9`)"
    command = "uv pip install 'nvidia-cuda-nvcc-cu12>=12.9'"
    assert fixed.resolution() == {"action": install, "held": True, "catch22": False, "outcome": "resolved",
                                  "state": "held", "command": command}
    assert fixed.resolution_text().startswith(f"fixed by {install} in session sess-ptxas — held")
    assert "nvidia-cuda-nvcc<13.1" in (c22.action or "")
    assert c22.resolution_text() == (
        f"fixed by {c22.action} in session sess-c22 — did not hold (catch-22; session unresolved)"
    )
    assert other.resolution() is None and "nothing tried" in other.resolution_text()


def test_traceback_query_finds_the_library_fix(db: Path, lib) -> None:  # type: ignore[no-untyped-def]
    r = engine.search(TRACEBACK, db=db, lib=lib)
    assert r.query.pattern != "python-traceback"  # the cause beneath the wrapper
    assert r.query.captures.get("lib") == "libnvrtc.so.13"
    by_session = {h.session: h for h in r.hits}
    assert set(by_session) == {"sess-nvrtc", "sess-c22"}
    fix = by_session["sess-nvrtc"]
    assert [a.subject for a in fix.fixes] == ["LD_LIBRARY_PATH"] and fix.held is True
    assert "/usr/local/cuda-13.0/lib64" in (fix.action or "")


def test_json_shape(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, PTXAS, "--db", str(db))
    assert set(doc) >= {"query", "results"}
    assert {"pattern", "captures"} <= set(doc["query"])
    assert doc["query"]["captures"] == {"ptx_version": "9.2", "ptxas_max": "9.0"}
    keys = {"session", "source", "line", "seq", "ts", "pattern", "category", "text", "score", "resolution"}
    for res in doc["results"]:
        assert keys <= set(res)
        assert res["resolution"] is None or {"action", "held"} <= set(res["resolution"])
    first = doc["results"][0]
    assert first["ts"] == "2026-01-15T09:00:30Z" and isinstance(first["score"], float)
    assert first["resolution"]["held"] is False
    # deterministic: the same bytes twice
    assert main(["search", PTXAS, "--db", str(db), "-O", "json", *PATTERN_ARGS]) == 0
    assert json.loads(capsys.readouterr().out) == doc


def test_table_output(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", PTXAS, "--db", str(db), *PATTERN_ARGS]) == 0
    out = capsys.readouterr().out
    assert out.startswith("query: ptxas-unsupported-ptx-version")
    assert "c22.jsonl:3" in out and "2026-01-10" in out and "— did not hold" in out


def test_pattern_id_query_and_filters(db: Path, lib) -> None:  # type: ignore[no-untyped-def]
    r = engine.search("ptxas-unsupported-ptx-version", db=db, lib=lib)
    assert r.query.by_id and {h.session for h in r.hits} == {"sess-c22", "sess-ptxas", "sess-other"}
    assert [h.session for h in r.hits] == ["sess-c22", "sess-ptxas", "sess-other"]  # newest first
    since = engine.search(PTXAS, db=db, lib=lib, since=query.parse_since("2026-01-11"))
    assert [h.session for h in since.hits] == ["sess-c22"]
    assert engine.search(PTXAS, db=db, lib=lib, category="missing_shared_library").hits == ()
    assert len(engine.search(PTXAS, db=db, lib=lib, category="ptxas_unsupported_ptx_version").hits) == 3
    assert len(engine.search(PTXAS, db=db, lib=lib, limit=1).hits) == 1
    with pytest.raises(UsageError):
        query.parse_since("last tuesday")


def test_cli_filters(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, PTXAS, "--db", str(db), "--since", "2026-01-11T00:00:00Z", "--limit", "5")
    assert [r["session"] for r in doc["results"]] == ["sess-c22"]
    assert main(["search", PTXAS, "--db", str(db), "--since", "soon", *PATTERN_ARGS]) == 2


def test_unclassified_query_falls_back_to_text(db: Path, lib) -> None:  # type: ignore[no-untyped-def]
    r = engine.search("sgl_kernel import dies: libnvrtc.so.13 missing??", db=db, lib=lib)
    assert r.query.pattern is None
    assert {h.session for h in r.hits} == {"sess-nvrtc", "sess-c22"}
    assert len({(h.session, h.seq) for h in r.hits}) == len(r.hits)  # one hit per event
    assert engine.search("zebra crossing quantum", db=db, lib=lib).hits == ()


def test_in_files_without_an_index(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, PTXAS, "--in", str(corpus / "ptxas.jsonl"), "--in", str(corpus / "other.jsonl"))
    assert [r["session"] for r in doc["results"]] == ["sess-ptxas", "sess-other"]
    assert not (tmp_path / "db").exists()
    assert main(["search", PTXAS, "--in", str(tmp_path / "nope.jsonl"), *PATTERN_ARGS]) == 3


def test_missing_index_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", PTXAS, "--db", str(tmp_path / "none"), *PATTERN_ARGS]) == 3
    assert "no index here" in capsys.readouterr().err


def test_library_is_loaded_once(monkeypatch: pytest.MonkeyPatch, db: Path) -> None:
    import logsleuth.library as library_mod

    calls = []
    real = library_mod.load_library

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args)
        return real(*args, **kwargs)

    patterns.library.cache_clear()
    monkeypatch.setattr(library_mod, "load_library", counting)
    for _ in range(3):
        engine.search(PTXAS, db=db, pattern_dirs=[str(FIXTURE_PATTERNS)])
    assert len(calls) == 1
    patterns.library.cache_clear()


def test_search_never_imports_spacy(db: Path) -> None:
    code = (
        "import sys\nfrom logsleuth.cli import main\n"
        f"rc = main(['search', {PTXAS!r}, '--db', {str(db)!r}, '--no-builtin', '--patterns', {str(FIXTURE_PATTERNS)!r}])\n"
        "assert rc == 0, rc\nassert 'spacy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def _sample_files() -> list[str]:
    import yaml

    out = []
    for case in sorted(SAMPLES.glob("*/case.yaml")):
        files = (yaml.safe_load(case.read_text()) or {}).get("files") or {}
        out += [str(case.parent / f) for f in sorted(files.values())]
    return out


@pytest.mark.skipif(not list(SAMPLES.glob("*/case.yaml")), reason="sample_logs/ not written yet")
def test_sample_logs_sglang_sm120(tmp_path: Path) -> None:
    db = tmp_path / "db"
    s = indexer.build(_sample_files(), db)
    assert s.files > 0 and s.errors == []
    r = engine.search("Unsupported .version 9.2", db=db)
    hits = [h for h in r.hits if "sglang-sm120" in h.source]
    assert hits, [h.source for h in r.hits]
    resolved = [h for h in hits if h.pattern == "ptxas-unsupported-ptx-version" and h.action]
    assert resolved, [(h.pattern, h.resolution_text()) for h in hits]
    assert {Path(h.source).name for h in resolved} >= {"session.jsonl"}


def test_compact_file_and_parts_give_the_same_results(db: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from logsleuth.index import compact

    assert (db / compact.COMPACT).exists()
    parts_db = tmp_path / "parts-only"
    shutil.copytree(db, parts_db)
    (parts_db / compact.COMPACT).unlink()
    queries = [PTXAS, NVRTC, TRACEBACK, "ptxas-unsupported-ptx-version", "nvrtc sgl_kernel Unsupported version",
               "something nobody has seen"]
    for q in queries:
        for kw in ({}, {"limit": 1}, {"category": "ptxas_unsupported_ptx_version"}):
            a = engine.search(q, db=db, lib=lib, **kw).to_dict()  # type: ignore[arg-type]
            b = engine.search(q, db=parts_db, lib=lib, **kw).to_dict()  # type: ignore[arg-type]
            assert a == b, (q, kw)
    assert engine.search("nvrtc sgl_kernel Unsupported version", db=db, lib=lib).hits  # full-text path


def _classify_query_reference(text: str, lib) -> query.Query:  # type: ignore[no-untyped-def]
    """What search did before its fast path: the whole classify.classify on the query as an event."""
    import polars as pl

    from logsleuth.classify import classify
    from logsleuth.model import EVENT_SCHEMA

    text = text.strip()
    for as_result in (False, True):
        row = {
            "session": "query", "source": "query", "line": 1, "seq": 0, "ts": None,
            "role": "tool" if as_result else "log", "kind": "tool_result" if as_result else "log",
            "tool": None, "call_id": None, "text": text, "is_error": True if as_result else None, "exit_code": None,
        }  # fmt: skip
        result = classify(pl.DataFrame([row], schema=EVENT_SCHEMA), lib)
        f = query._pick(result.findings, result.primary)
        if f is not None:
            return query.Query(text, f.pattern, f.category, dict(f.captures), f.fingerprint)
    return query.Query(text, None)


def test_fast_query_classification_matches_classify() -> None:
    """Every pattern's first match example and every no-match example of a scoped pattern, read
    as a query, yields the same pattern, captures and fingerprint as a whole classify."""
    builtin = load_library()
    texts = [TRACEBACK, PTXAS, NVRTC, "plain words that match nothing"]
    for p in builtin.patterns:
        texts += [e.text for e in p.match_examples[:1]]
        if not p.scope.is_default:
            texts += [e.text for e in p.no_match_examples[:1]]
    texts = [t for t in dict.fromkeys(texts) if t.strip() and builtin.get(t.strip()) is None]
    assert len(texts) > 50
    for t in texts:
        assert query.classify_query(t, builtin) == _classify_query_reference(t, builtin), t


def _polars_rank(q: query.Query, rows: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The ranking of one pattern's findings as polars expressions (stable sorts): the reference
    `rank.rank_pattern` must agree with."""
    text_sim = pl.Series("text_sim", rank._text_scores(q.text, rows["text"].fill_null("").to_list()), pl.Float64)
    fp = pl.lit(False) if q.fingerprint is None else pl.col("fingerprint") == q.fingerprint
    caps = [(pl.col("captures").str.json_path_match(f"$.{k}") == v).fill_null(False).cast(pl.Float64)
            for k, v in sorted(q.captures.items())]
    cap_sim = (pl.sum_horizontal(caps) / len(caps)) if caps else pl.lit(0.0)
    scored = rows.with_columns(text_sim).with_columns(fp_eq=fp.cast(pl.Float64), cap_sim=cap_sim)
    scored = scored.with_columns(score=rank.W_PATTERN + rank.W_FP * pl.col("fp_eq")
                                 + rank.W_CAPTURES * pl.col("cap_sim") + rank.W_TEXT * pl.col("text_sim"))
    key = ["session", "source", "pattern", "fingerprint"]
    counts = scored.group_by(key).len("occurrences")
    best = (scored.sort(["fp_eq", "cap_sim", "text_sim", "seq", "line"], descending=[True, True, True, False, False],
                        maintain_order=True)
            .unique(key, keep="first", maintain_order=True).join(counts, on=key, how="left"))
    order = ["fp_eq", "cap_sim", "text_sim", "ts", "session", "source", "line", "seq"]
    return best.sort(order, descending=[True, True, True, True, False, False, False, False], nulls_last=True,
                     maintain_order=True).head(limit)


def test_pattern_ranking_matches_its_polars_reference() -> None:
    rng = random.Random(4)
    words = ["ptxas", "fatal", "Unsupported", ".version", "9.2", "current", "9.0", "nvcc", "sm_120", "error"]
    for _ in range(60):
        n = rng.randint(1, 80)
        rows = pl.DataFrame({
            "session": [rng.choice("abc") for _ in range(n)],
            "source": [rng.choice(["x.jsonl", "y.jsonl"]) for _ in range(n)],
            "line": [rng.randint(1, 5) for _ in range(n)],
            "seq": [rng.randint(0, 5) for _ in range(n)],
            "ts": [rng.choice([None, datetime(2026, 1, rng.randint(1, 3), tzinfo=UTC)]) for _ in range(n)],
            "pattern": ["p"] * n,
            "fingerprint": [rng.choice(["f1", "f2", "f3"]) for _ in range(n)],
            "captures": [rng.choice([None, "{}", '{"v": "9.2"}', '{"v": "9.0", "w": "x"}', '{"w": "x"}']) for _ in range(n)],
            "text": [" ".join(rng.choice(words) for _ in range(rng.randint(0, 8))) for _ in range(n)],
        }, schema_overrides={"ts": pl.Datetime("us", "UTC")})
        q = query.Query(text=" ".join(rng.choice(words) for _ in range(5)), pattern="p",
                         captures=rng.choice([{}, {"v": "9.2"}, {"v": "9.0", "w": "x"}]),
                         fingerprint=rng.choice([None, "f1", "f2"]))
        limit = rng.choice([1, 3, 10])
        fast = rank.rank_pattern(q, rows, limit)
        ref = _polars_rank(q, rows, limit)
        assert fast.select("session", "source", "line", "seq", "fingerprint", "occurrences").equals(
            ref.select("session", "source", "line", "seq", "fingerprint", "occurrences"))
        assert fast["score"].to_list() == ref["score"].to_list()
