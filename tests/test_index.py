"""The corpus index: build, incremental update, bad inputs, locking, crash safety, concurrency."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from index_sessions import (
    FIXTURE_PATTERNS,
    nvrtc_fixed,
    other_ptxas,
    ptxas_fixed,
    small_session,
    write,
    write_corpus,
)
from logsleuth.cli import main
from logsleuth.index import build as indexer
from logsleuth.index import compact, lock, schema, store
from logsleuth.index import files as index_files
from logsleuth.index.analyse import analyse_input
from logsleuth.library import load_library

PATTERN_ARGS = ["--no-builtin", "--patterns", str(FIXTURE_PATTERNS)]


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([str(FIXTURE_PATTERNS)], builtins=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


def _rows(db: Path) -> pl.DataFrame:
    return store.load(db).sort("session", "seq", "pattern")


def _session(rows: pl.DataFrame, session: str, pattern: str) -> list[dict]:  # type: ignore[type-arg]
    return rows.filter((pl.col("session") == session) & (pl.col("pattern") == pattern)).to_dicts()


def test_build_records_findings_and_resolutions(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    s = indexer.build([str(corpus)], db, library=lib)
    assert (s.files, s.unchanged, s.removed, s.errors) == (4, 0, 0, [])
    assert s.sessions == 4 and s.findings == s.total_findings > 0
    manifest = store.read_manifest(db)
    assert manifest.schema == pl.Schema(schema.MANIFEST_SCHEMA)
    assert sorted(manifest["source"]) == sorted(str(p) for p in corpus.rglob("*.jsonl"))
    for r in manifest.iter_rows(named=True):
        part = pl.read_parquet(db / r["part"])  # plain Parquet, readable without logsleuth
        part = part.filter(pl.col("source") == r["source"])  # a batch of small inputs shares a part
        assert schema.finding_count(part) == r["findings"] and set(part["file_sha256"]) == {r["sha256"]}
    pq = pytest.importorskip("pyarrow.parquet")  # another Parquet reader sees the same rows
    part = manifest["part"][0]
    listed = manifest.filter(pl.col("part") == part)
    assert pq.read_table(db / part).num_rows == listed["findings"].sum() + listed["sessions"].sum()  # + a row per session
    rows = _rows(db)
    assert rows.schema == pl.Schema(schema.FINDING_SCHEMA)
    assert set(rows["severity"]) <= {"error", "fatal", "warning", "success"}  # findings: load's default
    heads = store.load(db, sessions=True).filter(pl.col("severity") == schema.SESSION_ROW)  # one per session, findings or not
    assert heads.height == 4 and heads["pattern"].null_count() == 4 and heads["events"].min() > 0
    assert set(heads["outcome"]) <= {"resolved", "worked around", "unresolved", "no failure"}

    (fixed,) = _session(rows, "sess-ptxas", "ptxas-unsupported-ptx-version")
    assert json.loads(fixed["captures"]) == {"ptx_version": "9.2", "ptxas_max": "9.0"}
    assert fixed["source"] == str(corpus / "a" / "ptxas.jsonl") and fixed["line"] == 3
    (fix,) = fixed["resolved_by"]
    assert fix["command"].startswith("uv pip install") and "nvidia-cuda-nvcc-cu12>=12.9" in fix["command"]
    assert (fix["subject"], fix["seq"]) == ("nvidia-cuda-nvcc-cu12", 3)
    assert fixed["held"] is True and fixed["catch22"] is False and fixed["outcome"] == "resolved"
    assert _session(rows, "sess-ptxas", "server-ready")[0]["success"] is True

    # the catch-22: nvcc<13.1 cured the ptxas error for a while, then it came back
    c22 = _session(rows, "sess-c22", "ptxas-unsupported-ptx-version")
    assert [r["seq"] for r in c22] == [2, 10]
    for r in c22:
        assert "nvidia-cuda-nvcc<13.1" in r["resolved_by"][0]["command"]
        assert r["held"] is False and r["catch22"] is True and r["outcome"] == "unresolved"

    (never,) = _session(rows, "sess-other", "ptxas-unsupported-ptx-version")
    assert never["resolved_by"] == [] and never["held"] is None


def test_incremental_unchanged_changed_deleted(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, library=lib)
    parts_before = set(store.read_manifest(db)["part"])

    again = indexer.build([str(corpus)], db, library=lib)
    assert (again.files, again.unchanged, again.removed) == (0, 4, 0)
    assert set(store.read_manifest(db)["part"]) == parts_before

    touched = corpus / "a" / "nvrtc.jsonl"  # new mtime, same bytes: the hash says unchanged
    os.utime(touched, ns=(1, 1_000_000_000))
    s = indexer.build([str(corpus)], db, library=lib)
    assert (s.files, s.unchanged) == (0, 4)
    m = store.read_manifest(db).filter(pl.col("source") == str(touched))
    assert m["mtime_ns"][0] == 1_000_000_000

    write(corpus / "b" / "other.jsonl", other_ptxas(session="sess-renamed"))
    (corpus / "a" / "ptxas.jsonl").unlink()
    s = indexer.build([str(corpus)], db, library=lib)
    assert (s.files, s.unchanged, s.removed) == (1, 2, 1)
    rows = _rows(db)
    assert "sess-renamed" in set(rows["session"])
    assert not {"sess-other", "sess-ptxas"} & set(rows["session"])
    listed = {f"{schema.PARTS}/{p.name}" for p in (db / schema.PARTS).iterdir()}
    assert listed == set(store.read_manifest(db)["part"].drop_nulls())  # old parts collected

    # another root leaves this one alone; --keep-deleted keeps what vanished
    other = tmp_path / "elsewhere"
    write(other / "x.jsonl", ptxas_fixed(session="sess-x"))
    s = indexer.build([str(other)], db, library=lib)
    assert (s.files, s.removed, s.total_files) == (1, 0, 4)
    (corpus / "b" / "c22.jsonl").unlink()
    s = indexer.build([str(corpus)], db, library=lib, keep_deleted=True)
    assert s.removed == 0 and "sess-c22" in set(_rows(db)["session"])


def test_library_change_reindexes(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, library=lib)
    other = load_library([], builtins=False)  # an empty library: every finding is stale
    s = indexer.build([str(corpus)], db, library=other)
    # no pattern finding survives; what is left is the linker's own: a goal run that failed unexplained
    assert s.files == 4
    assert set(store.load(db)["pattern"].to_list()) <= {"goal-run-failed"}


def test_bad_inputs_are_reported_not_fatal(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    (corpus / "empty.log").write_bytes(b"")
    (corpus / "blob.log").write_bytes(b"\x00\x01\x02" * 1000)
    (corpus / "trunc.jsonl.gz").write_bytes(gzip.compress(ptxas_fixed().encode())[:40])
    write(corpus / "z" / "zipped.jsonl.gz", "").write_bytes(gzip.compress(nvrtc_fixed("sess-gz").encode()))
    db = tmp_path / "db"
    s = indexer.build([str(corpus), str(tmp_path / "missing")], db, library=lib)
    assert s.files == 5 and "sess-gz" in set(_rows(db)["session"])
    assert any(e.startswith(str(tmp_path / "missing")) and "no such file" in e for e in s.errors)
    assert all("\n" not in e for e in s.errors) and s.errors == sorted(s.errors)


def test_multi_session_file_and_cli_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path / "two.jsonl", small_session("s-one", 1) + small_session("s-two", 2))
    db = tmp_path / "db"
    assert main(["index", str(f), "--db", str(db), "-O", "json", *PATTERN_ARGS]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["sessions"] == 2 and summary["files"] == 1 and summary["errors"] == []
    assert set(store.load(db)["session"]) == {"s-one", "s-two"}
    assert main(["index", str(f), "--db", str(db), *PATTERN_ARGS]) == 0
    out = capsys.readouterr().out
    assert "indexed 0 file(s)" in out and "1 unchanged" in out


def test_cli_needs_paths(tmp_path: Path) -> None:
    assert main(["index", "--db", str(tmp_path / "db")]) == 2


def test_default_dir_and_auto_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    assert index_files.default_dir() == data / "logsleuth"
    assert index_files.auto_roots() == []
    assert main(["index", "--auto", *PATTERN_ARGS]) == 2  # nothing found is a usage error, not a silent no-op
    write(home / ".claude" / "projects" / "-w" / "s.jsonl", ptxas_fixed())
    (home / ".codex" / "sessions" / "2026").mkdir(parents=True)
    (data / "opencode" / "storage").mkdir(parents=True)
    (home / ".gemini" / "tmp" / "abc123" / "chats").mkdir(parents=True)
    assert index_files.auto_roots() == [
        str(home / ".claude" / "projects"),
        str(home / ".codex" / "sessions"),
        str(data / "opencode" / "storage"),
        str(home / ".gemini" / "tmp" / "abc123" / "chats"),
    ]
    assert main(["index", "--auto", *PATTERN_ARGS]) == 0
    assert "sess-ptxas" in set(store.load(data / "logsleuth")["session"])


def test_no_wait_fails_clearly_while_locked(corpus: Path, tmp_path: Path, lib, capsys) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    db.mkdir()
    with open(db / schema.LOCK, "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        with pytest.raises(lock.IndexBusy):
            indexer.build([str(corpus)], db, library=lib, wait=False)
        assert main(["index", str(corpus), "--db", str(db), "--no-wait", *PATTERN_ARGS]) == 3
        assert "another `logsleuth index` is updating this index" in capsys.readouterr().err
    assert indexer.build([str(corpus)], db, library=lib, wait=False).files == 4


# ---------------------------------------------------------------- the compact findings file


def _parts_only(db: Path) -> pl.DataFrame:
    parts = sorted({str(db / p) for p in store.read_manifest(db)["part"].drop_nulls()})
    return pl.read_parquet(parts)


KEY = ["session", "source", "seq", "pattern", "fingerprint"]


def test_compact_file_holds_exactly_the_listed_parts(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, library=lib)
    whole = pl.read_parquet(db / compact.COMPACT)  # plain Parquet too
    assert whole.schema == pl.Schema(schema.FINDING_SCHEMA)
    assert whole.sort(KEY).equals(_parts_only(db).sort(KEY))
    assert whole.select("pattern", "fingerprint").equals(whole.select("pattern", "fingerprint").sort(
        "pattern", "fingerprint", nulls_last=True))  # the sessions' own rows (no pattern) last
    parts = store.read_manifest(db)["part"].drop_nulls().to_list()
    assert compact.compact_state(db) == compact.state_of(parts)
    assert compact.scan_valid(db, parts) is not None
    assert store.load(db, sessions=True).sort(KEY).equals(whole.sort(KEY))
    # a no-op run leaves it alone; a run that changes nothing but finds it missing writes it again
    mtime = (db / compact.COMPACT).stat().st_mtime_ns
    assert indexer.build([str(corpus)], db, library=lib).unchanged == 4
    assert (db / compact.COMPACT).stat().st_mtime_ns == mtime
    (db / compact.COMPACT).unlink()
    assert store.load(db, sessions=True).sort(KEY).equals(whole.sort(KEY))  # from the parts
    indexer.build([str(corpus)], db, library=lib)
    assert compact.compact_state(db) == compact.state_of(parts)


def test_stale_or_broken_compact_file_is_never_used(corpus: Path, tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, library=lib)
    stale = (db / compact.COMPACT).read_bytes()
    (corpus / "b" / "other.jsonl").unlink()
    indexer.build([str(corpus)], db, library=lib)
    assert set(store.load(db)["source"]) == {str(p) for p in corpus.rglob("*.jsonl")}
    (db / compact.COMPACT).write_bytes(stale)  # e.g. a run killed after the manifest, before this
    now = _parts_only(db).sort(KEY)
    assert not now.filter(pl.col("source").str.ends_with("other.jsonl")).height
    assert store.load(db, sessions=True).sort(KEY).equals(now)
    assert store.scan(db, sessions=True).collect().sort(KEY).equals(now)
    (db / compact.COMPACT).write_bytes(b"PAR1 not really")
    assert store.load(db, sessions=True).sort(KEY).equals(now)
    indexer.build([str(corpus)], db, library=lib)  # the next run replaces it
    assert pl.read_parquet(db / compact.COMPACT).sort(KEY).equals(now)


def test_empty_index_has_an_empty_compact_file(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    quiet = write(tmp_path / "quiet" / "q.log", "all good\n")
    db = tmp_path / "db"
    indexer.build([str(quiet.parent)], db, library=lib)
    assert pl.read_parquet(db / compact.COMPACT).height == 0
    assert store.load(db).height == 0


# ---------------------------------------------------------------- crash safety and concurrency


def _index_cmd(corpus: Path, db: Path) -> list[str]:
    return [sys.executable, "-m", "logsleuth", "index", str(corpus), "--db", str(db), "-O", "json", *PATTERN_ARGS]


def _expected_counts(lib) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """Findings per session by number of errors, from an in-process analysis."""
    counts = {}
    for errors in (1, 2, 3):
        frame = _analyse_text(small_session("probe", errors), lib)
        counts[errors] = frame.height
    return counts


def _analyse_text(text: str, lib) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = write(Path(d) / "probe.jsonl", text)
        return analyse_input(str(f), lib).frame


def _check_consistent(db: Path, expected: dict[int, int]) -> int:
    """The index opens, every listed part is there and whole, and no session is half-indexed."""
    if not (db / schema.MANIFEST).exists():
        return 0
    manifest = store.read_manifest(db)
    for r in manifest.iter_rows(named=True):
        part = pl.read_parquet(db / r["part"]).filter(pl.col("source") == r["source"])
        assert set(part["file_sha256"]) == {r["sha256"]}
        assert part.filter(pl.col("severity") == schema.SESSION_ROW).height == r["sessions"]  # one row each
        assert schema.finding_count(part) == r["findings"], r
        sessions = part.group_by("session").len()
        assert sessions.height == r["sessions"]
        for session, n in sessions.iter_rows():
            errors = int(session.rsplit("-e", 1)[1])
            assert n == expected[errors], (session, n)
    return store.load(db).height


def _mutate(corpus: Path, rng: random.Random, version: int) -> None:
    files = sorted(corpus.glob("*.jsonl"))
    for f in rng.sample(files, 4):
        f.write_text(_file_text(f.stem, version, rng))
    victim = rng.choice(files)
    victim.unlink()
    write(corpus / f"n{version:02d}.jsonl", _file_text(f"n{version:02d}", version, rng))


def _file_text(stem: str, version: int, rng: random.Random) -> str:
    """Two sessions in one file; each session id ends in -e<number of errors>."""
    counts = (rng.randint(1, 3), rng.randint(1, 3))
    return "".join(small_session(f"{stem}-v{version}-{k}-e{e}", e) for k, e in zip("ab", counts, strict=True))


def _lock_is_held(db: Path) -> bool:
    with open(db / schema.LOCK, "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        return False


def _crash_lane(root: Path, seed: int, reps: int, expected: dict[int, int]) -> int:
    """Index, mutate and kill -9 at a random point, `reps` times; check the index after each kill."""
    rng = random.Random(seed)
    corpus, db = root / "corpus", root / "db"
    for i in range(12):
        write(corpus / f"f{i:02d}.jsonl", _file_text(f"{root.name}{i:02d}", 0, rng))
    subprocess.run(_index_cmd(corpus, db), check=True, capture_output=True)
    env = {**os.environ, indexer.SLOW_ENV: "25", indexer.COMMIT_ENV: "2"}
    mid_run = 0
    for rep in range(1, reps + 1):
        _mutate(corpus, rng, rep)
        proc = subprocess.Popen(_index_cmd(corpus, db), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if rep % 4 == 0:  # some kills land in start-up, before the lock
            time.sleep(rng.uniform(0.05, 0.4))
        else:  # the rest once the run holds the lock: mid-run
            deadline = time.monotonic() + 20
            while proc.poll() is None and not _lock_is_held(db) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.7))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            mid_run += rep % 4 != 0
        proc.wait()
        _check_consistent(db, expected)
    done = subprocess.run(_index_cmd(corpus, db), check=True, capture_output=True, text=True)
    assert json.loads(done.stdout)["errors"] == []
    _check_consistent(db, expected)
    assert not list((db / schema.PARTS).glob(".*.tmp")) and not list(db.glob(".*.tmp"))
    return mid_run


@pytest.mark.slow
def test_kill_9_mid_run_leaves_a_consistent_index(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    from concurrent.futures import ThreadPoolExecutor

    expected = _expected_counts(lib)
    lanes = [tmp_path / "l1", tmp_path / "l2"]  # two independent lanes of 10 kills: half the wall time
    with ThreadPoolExecutor(2) as pool:
        mid_run = list(pool.map(lambda lane: _crash_lane(lane[1], lane[0], 10, expected), enumerate(lanes)))
    assert sum(mid_run) >= 5, mid_run
    # after the last, uninterrupted run the index holds exactly what the inputs hold now
    for lane in lanes:
        now = pl.concat([_analyse_text(f.read_text(), lib) for f in sorted((lane / "corpus").glob("*.jsonl"))])
        key = ["session", "seq", "pattern", "fingerprint"]
        assert store.load(lane / "db", sessions=True).select(key).sort(key).equals(now.select(key).sort(key))


def test_concurrent_runs_do_not_corrupt(tmp_path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    expected = _expected_counts(lib)
    corpus, db = tmp_path / "corpus", tmp_path / "db"
    for i in range(6):
        write(corpus / f"f{i:02d}.jsonl", _file_text(f"f{i:02d}", 0, rng))
    env = {**os.environ, indexer.SLOW_ENV: "20"}
    procs = [
        subprocess.Popen(_index_cmd(corpus, db), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    summaries = [json.loads(o) for o, _ in outs]
    # the second run waited for the lock and found the first one's work
    assert sorted((s["files"], s["unchanged"]) for s in summaries) == [(0, 6), (6, 0)]
    assert _check_consistent(db, expected) == sum(s["findings"] for s in summaries)
    assert all(s["index"]["files"] == 6 for s in summaries)


def test_a_process_that_loads_twice_keeps_the_findings_and_sees_changes(  # type: ignore[no-untyped-def]
    corpus: Path, tmp_path: Path, lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, library=lib)
    first = store.load(db).sort(KEY)
    assert str(db.resolve()) not in compact._KEPT  # one load: nothing kept
    assert store.load(db).sort(KEY).equals(first)
    assert str(db.resolve()) in compact._KEPT  # the second load keeps every finding
    with monkeypatch.context() as m:
        m.setattr(compact, "scan_valid", lambda *a: pytest.fail("read the file again"))
        one = store.load(db, predicate=pl.col("pattern") == first["pattern"][0])
        assert one["pattern"].unique().to_list() == [first["pattern"][0]]
    (corpus / "b" / "other.jsonl").unlink()  # a new committed state is read from disk, not memory
    indexer.build([str(corpus)], db, library=lib)
    assert not store.load(db).filter(pl.col("source").str.ends_with("other.jsonl")).height
