"""One masking pass for every output: secrets planted into every field of every input format
(robustness_secrets.py: every kind, the families and the fitted shapes of issue 35) must not reach `events`, `classify`, `graph`, `analyze`,
`explain`, the index's Parquet files or `search`; `--no-redact` shows them (the check is not
vacuous); look-alikes (`password: str`, `"password": {`, `${TOKEN}`, `<token>`, `xxxx`) stay."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import polars as pl
import pytest

from logsleuth.cli import main
from robustness_fuzz import FORMATS, Fmt, fmt_id
from robustness_secrets import NOT_SECRETS, PLANTS, leaks, write_planted

# every output on every format; the costlier renderings of one analysis on a few formats
# (the JSON documents carry every field; the other renderings are checked on a few formats)
EVERY = ("events -O json", "classify -O json", "graph -O json", "analyze -O json", "explain -m 1")
SOME = ("events -O jsonl", "events", "classify", "graph -O dot", "graph -O mermaid", "analyze -O md", "analyze -O html")
SOME_FORMATS = ("claude-code:jsonl", "codex:jsonl", "opencode-db", "text")


class _Out:
    def __init__(self) -> None:
        self.buffer = io.BytesIO()

    def write(self, s: str) -> int:  # typer may print text
        return self.buffer.write(s.encode())

    def flush(self) -> None:
        pass


def run(argv: list[str]) -> str:
    out, old = _Out(), sys.stdout
    sys.stdout = out  # type: ignore[assignment]
    try:
        code = main(argv)
    finally:
        sys.stdout = old
    assert code == 0, argv
    return out.buffer.getvalue().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("planted")
    return {fmt_id(f): write_planted(f, base / fmt_id(f).replace(":", "_")) for f in FORMATS}


@pytest.mark.parametrize("f", FORMATS, ids=fmt_id)
def test_no_secret_reaches_any_output(f: Fmt, planted: dict[str, Path]) -> None:
    path = str(planted[fmt_id(f)])
    commands = EVERY + (SOME if fmt_id(f) in SOME_FORMATS else ())
    found = {c: leaks(run([*c.split(), path])) for c in commands}
    assert {c: v for c, v in found.items() if v} == {}


@pytest.mark.parametrize("f", FORMATS, ids=fmt_id)
def test_every_kind_is_planted_and_no_redact_shows_it(f: Fmt, planted: dict[str, Path]) -> None:
    path = str(planted[fmt_id(f)])
    raw = run(["events", "-O", "json", path, "--no-redact"])
    assert set(leaks(raw)) == set(PLANTS)  # every kind really is in the input
    assert "[REDACTED:" not in raw
    if fmt_id(f) not in SOME_FORMATS:
        return
    # the outputs built on findings and actions see them too (the test above is not vacuous there)
    assert leaks(run(["classify", "-O", "json", path, "--no-redact"]))
    assert leaks(run(["analyze", "-O", "json", path, "--no-redact"]))


def test_look_alikes_are_not_masked(planted: dict[str, Path]) -> None:
    import json

    doc = json.loads(run(["events", "-O", "json", str(planted["text"])]))
    texts = {e["text"] for e in doc["events"]}
    assert [s for s in NOT_SECRETS if s not in texts] == []


def test_index_parquet_and_search_hold_no_secret(planted: dict[str, Path], tmp_path: Path) -> None:
    root = next(iter(planted.values())).parent.parent  # every planted input, one folder each
    db = tmp_path / "db"
    run(["index", str(root), "--db", str(db), "-O", "json"])
    parquet = sorted(db.rglob("*.parquet"))
    assert parquet
    stored = {p.name: leaks(str(pl.read_parquet(p).to_dicts())) for p in parquet}
    assert {k: v for k, v in stored.items() if v} == {}
    findings = pl.read_parquet(db / "findings.parquet")
    assert findings["text"].str.contains("[REDACTED:", literal=True).sum() >= len(planted) - 1
    for argv in (["search", "RuntimeError: CUDA error: out of memory", "--db", str(db), "-O", "json"],
                 ["search", "RuntimeError: CUDA error: out of memory", "--db", str(db)],
                 ["search", "RuntimeError: CUDA error: out of memory", "--in", str(planted["codex:jsonl"]), "-O", "json"]):
        out = run(argv)
        assert "[REDACTED:" in out, argv
        assert leaks(out) == {}, argv


@pytest.mark.parametrize("f", FORMATS, ids=fmt_id)
def test_masking_learned_a_chunk_at_a_time_gives_the_same_output(f: Fmt, planted: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The learning walk hands its strings over every LEARN_CHUNK (render/masking.py) and walks a
    second time for the known values: with chunks of 5 items the outputs are byte for byte those
    of one chunk, and the small chunks really were used."""
    from logsleuth.render import masking

    path = str(planted[fmt_id(f)])
    commands = ("classify -O json", "analyze -O json", "events -O json")
    whole = {c: run([*c.split(), path]) for c in commands}
    flushes: list[int] = []
    real = masking._Masker.flush

    def counted(self: masking._Masker) -> None:
        flushes.append(len(self.items))
        real(self)

    monkeypatch.setattr(masking, "LEARN_CHUNK", 5)
    monkeypatch.setattr(masking._Masker, "flush", counted)
    chunked = {c: run([*c.split(), path]) for c in commands}
    assert chunked == whole
    assert flushes.count(5) > 3  # many chunks, not one


def _claude(records: list[dict[str, object]]) -> bytes:
    import json

    base = {"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    return b"".join(json.dumps({**base, "uuid": f"u{i}", **r}).encode() + b"\n" for i, r in enumerate(records))


def test_a_secret_taught_in_one_event_is_masked_bare_in_the_index_and_search(tmp_path: Path) -> None:
    """`export DB_PASSWORD=X` in one event, a bare X in an error: `analyze` learned X from the
    first, but the index masked each row alone and stored X (red-team probe)."""
    secret = "Pwu8jzPde0IgxLd69"
    err = f"psycopg2.OperationalError: FATAL: password authentication failed for user app using {secret}"
    session = tmp_path / "s" / "sess.jsonl"
    session.parent.mkdir()
    session.write_bytes(_claude([
        {"type": "user", "message": {"role": "user", "content": f"we set export DB_PASSWORD={secret} earlier"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python migrate.py"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": err, "is_error": True}]}},
    ]))
    db = tmp_path / "db"
    run(["index", str(session.parent), "--db", str(db)])
    stored = "".join(str(pl.read_parquet(p).to_dicts()) for p in sorted(db.rglob("*.parquet")))
    assert "password authentication failed" in stored  # the finding is there
    assert secret not in stored
    for argv in (["search", "password authentication failed", "--db", str(db), "-O", "json"],
                 ["search", "password authentication failed", "--in", str(session), "-O", "json"],
                 ["analyze", str(session), "-O", "json"]):
        out = run(argv)
        assert "password authentication failed" in out, argv
        assert secret not in out, argv
