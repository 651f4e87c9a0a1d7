"""Determinism: the same input gives the same bytes, whatever the process (hash seed), the working
directory, or whether the path was given relative or absolute; no absolute path the user did not
type reaches the output."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from robustness_sessions import hostile_session

ROOT = Path(__file__).resolve().parent.parent
LOGSLEUTH = ROOT / ".venv" / "bin" / "logsleuth"
SAMPLE = ROOT / "sample_logs" / "sglang-sm120" / "session.jsonl"
REL = os.path.join("logs", "session.jsonl")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    if not LOGSLEUTH.exists():
        pytest.skip("needs the installed entry point")
    base = tmp_path_factory.mktemp("determinism")
    dirs = {name: base / name for name in ("a", "b")}
    for d in dirs.values():
        (d / "logs").mkdir(parents=True)
        if SAMPLE.exists():  # the richest session we ship; else one built here
            shutil.copyfile(SAMPLE, d / REL)
        else:
            hostile_session(d / REL)
    jobs = {
        # (cwd, path as typed, output format, hash seed): separate processes, different set orders
        "json-a": (dirs["a"], REL, "json", "1"),
        "json-abs": (base, str(dirs["a"] / REL), "json", "3"),
        "md-a": (dirs["a"], REL, "md", "4"),
        "md-b": (dirs["b"], REL, "md", "5"),
    }
    procs = {
        name: subprocess.Popen(
            [str(LOGSLEUTH), "analyze", path, "--output-format", fmt],
            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for name, (cwd, path, fmt, seed) in jobs.items()
    }
    out: dict[str, bytes] = {}
    for name, p in procs.items():
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr.decode()[-2000:]
        out[name] = stdout
    out["base"] = str(base).encode()
    out["abs"] = str(dirs["a"] / REL).encode()
    return out


def test_same_bytes_across_processes_and_directories(runs: dict[str, bytes]) -> None:
    assert runs["md-a"], "empty output"
    assert runs["md-a"] == runs["md-b"]


@pytest.mark.parametrize("name", ["json-a", "md-a", "md-b"])
def test_no_absolute_path_the_user_did_not_type(runs: dict[str, bytes], name: str) -> None:
    assert runs["base"] not in runs[name]
    assert str(Path.cwd()).encode() not in runs[name] or str(Path.cwd()) == "/"
    assert REL.encode() in runs[name]  # the path as typed is how sources are cited


def test_absolute_path_stays_as_typed(runs: dict[str, bytes]) -> None:
    # given absolute (another directory, another hash seed), the path appears as typed, and nothing
    # else differs from the relative run
    assert runs["abs"] in runs["json-abs"]
    assert runs["json-abs"].replace(runs["abs"], REL.encode()) == runs["json-a"]


def test_index_rows_are_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """The fixes an index records for a failure (several flags one launch moved) come out in the
    same order in every process: string hashing changes set order, not the index."""
    if not LOGSLEUTH.exists():
        pytest.skip("needs the installed entry point")
    import orjson

    from logsleuth.index import store

    seeds = ("1", "2", "3")
    procs = [
        subprocess.Popen(
            [str(LOGSLEUTH), "index", str(ROOT / "sample_logs"), "--db", str(tmp_path / seed)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for seed in seeds
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()[-2000:]
    dumps = {
        orjson.dumps(store.load(tmp_path / seed).sort("source", "session", "seq", "pattern", "line").to_dicts(), default=str)
        for seed in seeds
    }
    assert len(dumps) == 1 and b'"resolved_by":[{' in dumps.pop()
