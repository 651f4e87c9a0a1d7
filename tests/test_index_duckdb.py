"""The recipe of docs/team-index.md: the index read with DuckDB, as a team would (tested as written)."""

from __future__ import annotations

from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from index_sessions import FIXTURE_PATTERNS, nvrtc_fixed, ptxas_catch22, ptxas_fixed, write  # noqa: E402
from logsleuth.index import build as indexer  # noqa: E402
from logsleuth.index import store  # noqa: E402
from logsleuth.library import load_library  # noqa: E402


def committed_parts(db: Path) -> list[str]:
    """Step 1 of the recipe: the parts the manifest (the commit point) lists."""
    rows = duckdb.sql(f"SELECT DISTINCT part FROM read_parquet('{db}/files.parquet') WHERE part IS NOT NULL ORDER BY part").fetchall()
    return [str(db / r[0]) for r in rows]


def test_duckdb_reads_the_committed_findings(tmp_path: Path) -> None:
    lib = load_library([str(FIXTURE_PATTERNS)], builtins=False)
    corpus = tmp_path / "corpus"
    write(corpus / "ptxas.jsonl", ptxas_fixed())
    write(corpus / "nvrtc.jsonl", nvrtc_fixed())
    write(corpus / "c22.jsonl", ptxas_catch22())
    db = tmp_path / "team-index"
    indexer.build([str(corpus / "ptxas.jsonl"), str(corpus / "nvrtc.jsonl")], db, library=lib, origin="alice")
    indexer.build([str(corpus / "c22.jsonl")], db, library=lib, origin="bob")
    parts = committed_parts(db)
    assert len(parts) == 2  # alice's two small inputs were analysed in one batch: one part
    con = duckdb.connect()
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in parts)
    con.execute(f"CREATE VIEW findings AS SELECT * FROM read_parquet([{listed}], union_by_name = true)")
    # step 2: the recipe's query — which fixes held for an error, across the team
    held = con.execute("""
        SELECT pattern, r.command AS fix, count(DISTINCT session) AS sessions, list(DISTINCT origin) AS who
        FROM findings, unnest(resolved_by) AS u(r)
        WHERE pattern = 'ptxas-unsupported-ptx-version' AND held AND outcome <> 'unresolved'
        GROUP BY ALL ORDER BY sessions DESC, fix
    """).fetchall()
    assert len(held) == 1 and "nvidia-cuda-nvcc-cu12>=12.9" in held[0][1] and held[0][3] == ["alice"]
    by_origin = dict(con.execute("SELECT origin, count(DISTINCT session) FROM findings GROUP BY origin").fetchall())
    assert by_origin == {"alice": 2, "bob": 1}
    # the same rows polars reads through logsleuth (the compact file holds the same state)
    assert con.execute("SELECT count(*) FROM findings WHERE severity <> 'session'").fetchone()[0] == store.load(db).height
    assert con.execute("SELECT count(*) FROM findings").fetchone()[0] == store.load(db, sessions=True).height
    compact = duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{db}/findings.parquet')").fetchone()
    assert compact is not None and compact[0] == store.load(db, sessions=True).height
