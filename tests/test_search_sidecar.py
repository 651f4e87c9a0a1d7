"""The search sidecar (SQLite FTS5) and the lean command-line path: the same answers as Parquet."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from index_sessions import (
    FIXTURE_PATTERNS,
    NVRTC,
    PTXAS,
    nvrtc_fixed,
    ptxas_fixed,
    write,
    write_corpus,
)
from logsleuth.enums import Outcome
from logsleuth.index import build as indexer
from logsleuth.index import patterns, schema, sidecar, sidecar_write, store
from logsleuth.index.record import StoredAction
from logsleuth.library import load_library
from logsleuth.search import cli as lean
from logsleuth.search import engine, query, snapshot_query
from logsleuth.search.hits import Hit, render_table

TRACEBACK = f'Traceback (most recent call last):\n  File "/x.py", line 1, in <module>\n{NVRTC}'
QUERIES = [
    PTXAS, NVRTC, TRACEBACK, "ptxas-unsupported-ptx-version", "Unsupported .version 9.9 ptxas",
    "cannot open shared object file libnvrtc", "Installed package nvidia", "zzz nothing at all here",
    "error", "ptxas fatal Unsupported", "Unsupported current version", "shared object libnvrtc.so.13 ImportError",
]


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([str(FIXTURE_PATTERNS)], builtins=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_corpus(tmp_path_factory.mktemp("sidecar") / "corpus", flat=True)
    write(root / "copy" / "ptxas-again.jsonl", ptxas_fixed())  # the same session found twice
    return root


@pytest.fixture(scope="module")
def db(corpus: Path, lib) -> Path:  # type: ignore[no-untyped-def]
    path = corpus.parent / "db"
    assert indexer.build([str(corpus)], path, library=lib, origin="laptop-a").errors == []
    # the index wrote the default library's snapshot; these tests classify with the fixture library
    sidecar_write.write(path, lib, store.load(path), sidecar.manifest_digest(path) or "")
    return path


def _lean(db: Path, text: str, **kw):  # type: ignore[no-untyped-def]
    con = sidecar.open_current(db)
    assert con is not None
    try:
        return engine.search_sidecar(con, text, **kw)
    finally:
        con.close()


@pytest.mark.parametrize("text", QUERIES)
def test_sidecar_and_parquet_paths_agree(db: Path, lib, text: str) -> None:  # type: ignore[no-untyped-def]
    for kw in ({}, {"limit": 2}, {"since": datetime(2026, 1, 11, tzinfo=UTC)}, {"category": "ptx_version_mismatch"}):
        with pytest.MonkeyPatch.context() as mp:  # the Parquet path: engine.search without the sidecar
            mp.setattr(sidecar, "open_current", lambda *a, **k: None)
            want = engine.search(text, db=db, lib=lib, **kw).to_dict()
        assert _lean(db, text, **kw).to_dict() == want, (text, kw)
        assert engine.search(text, db=db, lib=lib, **kw).to_dict() == want, (text, kw)  # over the sidecar


def test_the_agreement_is_not_vacuous(db: Path, lib) -> None:  # type: ignore[no-untyped-def]
    pattern = _lean(db, PTXAS)
    assert pattern.query.pattern == "ptxas-unsupported-ptx-version" and len(pattern.hits) == 3
    text = _lean(db, "shared object libnvrtc.so.13 ImportError")
    assert text.query.pattern is None and [h.session for h in text.hits] == ["sess-c22", "sess-nvrtc"]


def test_results_are_deduplicated_by_content_hash(db: Path, corpus: Path, lib) -> None:  # type: ignore[no-untyped-def]
    hits = engine.search(PTXAS, db=db, lib=lib).hits
    assert [h.session for h in hits].count("sess-ptxas") == 1
    # the first (origin, source) of the two copies speaks for the session
    assert next(h for h in hits if h.session == "sess-ptxas").source == str(corpus / "copy" / "ptxas-again.jsonl")
    assert all(h.origin == "laptop-a" for h in hits)


def test_same_path_from_two_origins_is_two_inputs_one_result(corpus: Path, lib, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "team"
    one = corpus / "ptxas.jsonl"
    assert indexer.build([str(one)], db, library=lib, origin="alice").files == 1
    assert indexer.build([str(one)], db, library=lib, origin="bob").files == 1
    manifest = store.read_manifest(db)
    assert sorted(manifest["origin"].to_list()) == ["alice", "bob"] and manifest["path"].n_unique() == 1
    assert indexer.build([str(one)], db, library=lib, origin="bob").unchanged == 1  # incremental per origin
    assert sorted(store.load(db)["origin"].unique().to_list()) == ["alice", "bob"]
    hits = engine.search(PTXAS, db=db, lib=lib).hits
    assert [(h.session, h.origin, h.occurrences) for h in hits] == [("sess-ptxas", "alice", 1)]


def test_the_verdicts_fix_and_state_are_what_a_hit_says() -> None:
    base = dict(session="s", source="x", line=1, seq=1, ts=None, pattern="p", category="c", text="t", score=1.0,
                fixes=(StoredAction(command="../venv/bin/python - <<EOF"),), attempts=(), catch22=False, occurrences=1)
    # a fix holds for its error whatever else left the session unresolved: said apart (issue #33, 3)
    held = Hit(**base, held=True, outcome=Outcome.UNRESOLVED, fix="edited `kws/export.py`: +3 -1 lines",  # type: ignore[arg-type]
               fix_state="held")
    assert held.resolution_text() == "fixed by edited `kws/export.py`: +3 -1 lines in session s — held (session unresolved)"
    assert held.resolution() is not None and held.resolution()["command"] == "../venv/bin/python - <<EOF"  # type: ignore[index]
    rerun = Hit(**base, held=None, outcome=Outcome.NO_FAILURE, fix=None, fix_state="gone on re-run")  # type: ignore[arg-type]
    assert rerun.action is None and "no failure" in rerun.resolution_text()
    older = Hit(**base, held=True, outcome=Outcome.RESOLVED)  # type: ignore[arg-type]  # an index without the verdict
    assert "— held (session resolved)" in older.resolution_text() and "venv/bin/python" in older.resolution_text()


def test_lean_classification_matches_classify_query() -> None:
    builtin = load_library()
    snap = patterns.snapshot(builtin)
    texts = [TRACEBACK, PTXAS, NVRTC, "plain words", builtin.patterns[0].id]
    for p in builtin.patterns:
        texts += [e.text for e in p.match_examples[:2]] + [e.text for e in p.no_match_examples[:1]]
    texts = [t for t in dict.fromkeys(texts) if t.strip()]
    assert len(texts) > 100
    for t in texts:
        assert snapshot_query.classify(t, snap) == query.classify_query(t, builtin), t


def test_a_stale_sidecar_is_not_trusted_and_is_rebuilt(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "db"
    root = tmp_path / "c"
    write(root / "a.jsonl", ptxas_fixed())
    indexer.build([str(root)], db, origin="o")
    assert sidecar.is_current(db)
    old = tmp_path / "old.sqlite"
    shutil.copy(db / sidecar.SIDECAR, old)
    write(root / "b.jsonl", nvrtc_fixed())
    indexer.build([str(root)], db, origin="o")
    assert sidecar.is_current(db)  # index rewrote it after its commit
    shutil.copy(old, db / sidecar.SIDECAR)  # a sidecar of an older commit
    assert sidecar.open_current(db) is None
    assert lean.main(["search", NVRTC, "--db", str(db)]) is None  # the full path answers
    engine.search(NVRTC, db=db)  # ... and leaves a current sidecar behind
    assert sidecar.is_current(db)
    (db / schema.MANIFEST).unlink()
    assert sidecar.open_current(db) is None  # never trusted without its manifest


def test_argv_the_lean_path_leaves_to_typer() -> None:
    assert lean.parse(["search", "x", "--db", "d", "-O", "json", "--limit=3"]) == {
        "query": "x", "db": "d", "format": "json", "limit": "3"}
    for argv in (["index", "x"], ["search"], ["search", "x", "--in", "f"], ["search", "x", "--category", "c"],
                 ["search", "--help"], ["search", "x", "y"], ["search", "x", "-O", "yaml"], ["--debug", "search", "x"],
                 ["search", "x", "--limit", "0"], ["search", "x", "--no-builtin"]):
        assert lean.parse(argv) is None, argv


def test_cli_search_answers_without_polars_or_typer(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write(tmp_path / "c" / "a.jsonl", ptxas_fixed())
    write(tmp_path / "c" / "b.jsonl", nvrtc_fixed())
    indexer.build([str(tmp_path / "c")], db, origin="o")
    code = (
        "import sys, json\n"
        "from logsleuth.search import cli as lean\n"
        "rc = lean.main(['search', sys.argv[1], '--db', sys.argv[2], '-O', 'json'])\n"
        "heavy = sorted(m for m in ('polars', 'typer', 'spacy', 'click') if m in sys.modules)\n"
        "sys.stderr.write(json.dumps([rc, heavy]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", code, NVRTC, str(db)], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stderr) == [0, []]
    answer = json.loads(out.stdout)
    assert answer == _full_json(NVRTC, db)
    assert answer["results"] and answer["results"][0]["session"] == "sess-nvrtc"


def _full_json(text: str, db: Path) -> dict:  # type: ignore[type-arg]
    from logsleuth import jsonout

    return json.loads(jsonout.dumps(engine.search(text, db=db).to_dict()))


def test_cli_table_search_starts_lean_and_says_what_the_full_path_says(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write(tmp_path / "c" / "a.jsonl", ptxas_fixed())
    write(tmp_path / "c" / "b.jsonl", nvrtc_fixed())
    indexer.build([str(tmp_path / "c")], db, origin="o")
    code = (
        "import sys, json\n"
        "from logsleuth.search import cli as lean\n"
        "rc = lean.main(['search', sys.argv[1], '--db', sys.argv[2]])\n"
        "heavy = sorted(m for m in ('polars', 'typer', 'rapidfuzz', 'orjson', 'typing', 'dataclasses', 'pathlib',\n"
        "                           'logsleuth.search.engine', 'logsleuth.search.hits', 'logsleuth.search.query',\n"
        "                           'logsleuth.index.store', 'logsleuth.errors') if m in sys.modules)\n"
        "sys.stderr.write(json.dumps([rc, heavy]))\n"
    )
    for text in (NVRTC, "libnvrtc.so.13 cannot open"):
        out = subprocess.run([sys.executable, "-S", "-c", code, text, str(db)], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert json.loads(out.stderr) == [0, []], text
        assert out.stdout == render_table(engine.search(text, db=db)), text


def test_lean_defaults_match_the_full_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from logsleuth.index import files as index_files

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert lean.default_dir() == str(index_files.default_dir())
    for value in ("2026-03-14", "2026-03-14T10:00:00Z", "2026-03-14T12:00:00+02:00", None, ""):
        assert lean.since_us(value) == sidecar.us_of(query.parse_since(value)), value
    with pytest.raises(ValueError):
        lean.since_us("yesterday")
