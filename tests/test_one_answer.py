"""One answer: every shipped sample and every real session, through every surface that states an
outcome or a root cause (analyze md/html/json, graph, classify's primary, `sessions FILE`, the
index and `sessions --db`, search, serve), gives the verdict's answer and no other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logsleuth.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_logs").glob("*/*")
                 if p.is_file() and p.name != "case.yaml" and p.parent.name != "_build")
REAL = sorted(p for p in (ROOT / "tests" / "real_sessions").glob("*/*")
              if p.is_file() and p.name not in ("labels.json", "SOURCE.md", "SOURCE.txt"))
INPUTS = SAMPLES + REAL


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0, args
    return capsys.readouterr().out


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    return json.loads(_run(capsys, *args))


def _category(verdict: dict[str, Any]) -> str | None:
    """The verdict's root cause as a category (the surfaces that list sessions name it so)."""
    ep = verdict["root_cause"]["episode"]
    return next((f["category"] for f in verdict["failures"] if f["id"] == ep), None)


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, Any]]:
    """The verdict of each input, from `analyze -O json` (the document every other surface must match)."""
    out: dict[str, dict[str, Any]] = {}
    for p in INPUTS:
        cap = _Capture()
        with cap:
            assert main(["analyze", str(p), "-O", "json"]) == 0
        out[str(p)] = json.loads(cap.text)["verdict"]
    return out


class _Capture:
    """stdout of one in-process call (a module fixture cannot take capsys)."""

    def __enter__(self) -> _Capture:
        import contextlib
        import io

        self._raw = io.BytesIO()
        self._buf = io.TextIOWrapper(self._raw, encoding="utf-8")
        self._cm = contextlib.redirect_stdout(self._buf)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(*exc)  # type: ignore[arg-type]
        self._buf.flush()
        self.text = self._raw.getvalue().decode("utf-8")


def test_there_is_something_to_agree_on(answers: dict[str, dict[str, Any]]) -> None:
    outcomes = {v["outcome"] for v in answers.values()}
    assert len(INPUTS) >= 25 and {"resolved", "unresolved", "worked around"} <= outcomes


@pytest.mark.parametrize("path", INPUTS, ids=[str(p.relative_to(ROOT)) for p in INPUTS])
def test_analyze_graph_and_classify_give_the_verdicts_answer(path: Path, answers: dict[str, dict[str, Any]],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    v = answers[str(path)]
    doc = _json(capsys, "analyze", str(path), "-O", "json")
    assert doc["verdict"] == v  # deterministic, and the document's own fields follow it
    assert doc["outcome"] == v["outcome"]
    graph = _json(capsys, "graph", str(path), "-O", "json")
    assert graph["outcome"] == v["outcome"]
    assert graph.get("root_cause") == v["root_cause"]["episode"]
    primary = _json(capsys, "classify", str(path), "-O", "json").get("primary")
    if v["root_cause"]["episode"] is not None:
        assert primary is not None and primary["category"] == _category(v)
    md = _run(capsys, "analyze", str(path))
    assert f"**Outcome: {v['outcome']}.**" in md
    assert f"ended **{v['outcome']}**" in md or (v["outcome"] == "no failure" and "No failure chain" in md)
    if v["outcome"] in ("resolved", "no failure"):  # a resolved report lists nothing as still open
        assert "Still unresolved:" not in md and not v["still_open"]
    html = _run(capsys, "analyze", str(path), "-O", "html")
    assert f'Outcome: <span class="outcome">{v["outcome"]}</span>.' in html


def test_sessions_file_and_db_give_the_verdicts_answer(answers: dict[str, dict[str, Any]], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in INPUTS]
    live = {r["source"]: r for r in _json(capsys, "sessions", *paths, "-O", "json")["sessions"]}
    db = tmp_path / "db"
    _run(capsys, "index", *paths, "--db", str(db))
    stored = {r["source"]: r for r in _json(capsys, "sessions", "--db", str(db), "-O", "json")["sessions"]}
    for p, v in answers.items():
        want = (v["outcome"], _category(v))
        for name, rows in (("sessions FILE", live), ("sessions --db", stored)):
            row = _row(rows, p)
            assert (row["outcome"], row["root_cause"]) == want, (name, p)


def _row(rows: dict[str, dict[str, Any]], path: str) -> dict[str, Any]:
    hit = [r for src, r in rows.items() if Path(src).resolve() == Path(path).resolve()]
    assert len(hit) == 1, (path, sorted(rows))
    return hit[0]
