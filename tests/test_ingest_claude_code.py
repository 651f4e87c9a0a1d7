from __future__ import annotations

import gzip
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest import agent_jsonl, claude_code
from logsleuth.ingest.base import make_probe
from logsleuth.model import Transcript

FIX = Path(__file__).parent / "fixtures" / "ingest" / "claude_code"
SESSION = "11111111-2222-4333-8444-555555555555"
PARENT = "22222222-3333-4444-8555-666666666666"


def rows(t: Transcript) -> list[dict[str, Any]]:
    return t.events.to_dicts()


def write_lines(path: Path, lines: list[bytes | str | dict[str, Any]], *, final_newline: bool = True) -> Path:
    out = []
    for line in lines:
        if isinstance(line, dict):
            line = json.dumps(line)
        out.append(line.encode() if isinstance(line, str) else line)
    path.write_bytes(b"\n".join(out) + (b"\n" if final_newline else b""))
    return path


def user(text: Any, uuid: str = "u", **extra: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": text}, **extra}


# -- the main fixture -------------------------------------------------------------------------


@pytest.fixture
def session() -> Transcript:
    return ingest.read(str(FIX / "session.jsonl"))


def test_detected_and_every_line_accounted(session: Transcript) -> None:
    r = session.report
    assert r.format == "claude-code"
    assert (r.lines, r.used, r.ignored, r.skipped) == (22, 14, 8, ())
    assert r.balanced and r.events == session.events.height == 14


def test_event_sequence(session: Transcript) -> None:
    got = [(e["line"], e["role"], e["kind"]) for e in rows(session)]
    assert got == [
        (3, "user", "text"),
        (4, "assistant", "reasoning"),
        (5, "assistant", "text"),
        (6, "assistant", "tool_call"),
        (7, "assistant", "tool_call"),
        (9, "tool", "tool_result"),
        (10, "tool", "tool_result"),
        (12, "assistant", "tool_call"),
        (13, "tool", "tool_result"),
        (15, "system", "text"),
        (16, "system", "text"),
        (18, "system", "text"),
        (19, "system", "text"),  # isMeta user record: the harness speaking
        (20, "system", "text"),  # "[Request interrupted by user]": written by the harness
    ]
    assert [e["seq"] for e in rows(session)] == list(range(14))


def test_split_message_blocks_emitted_once(session: Transcript) -> None:
    texts = [e["text"] for e in rows(session)]
    # line 8 repeats line 5 byte for byte; line 11 re-streams the same block under a new uuid
    assert texts.count("Let me check the CUDA toolkit version first.") == 1
    assert sum(1 for e in rows(session) if e["kind"] == "reasoning") == 1


def test_tool_calls(session: Transcript) -> None:
    calls = {e["call_id"]: e for e in rows(session) if e["kind"] == "tool_call"}
    assert calls["toolu_bash1"]["tool"] == "Bash"
    assert calls["toolu_bash1"]["text"] == "nvcc --version && make -j8"
    assert calls["toolu_read1"]["text"] == '{"file_path":"/home/u/proj/setup.py","limit":40}'
    assert calls["toolu_bash2"]["text"] == "TORCH_CUDA_ARCH_LIST=8.9 pip install -e ."


def test_tool_results_errors_and_exit_codes(session: Transcript) -> None:
    res = {e["call_id"]: e for e in rows(session) if e["kind"] == "tool_result"}
    failed = res["toolu_bash1"]
    assert (failed["role"], failed["tool"], failed["is_error"], failed["exit_code"]) == ("tool", "Bash", True, 2)
    assert "make: *** [all] Error 2" in failed["text"]
    ok = res["toolu_bash2"]
    assert (ok["is_error"], ok["exit_code"]) == (False, 0)  # toolUseResult.exitCode
    read = res["toolu_read1"]
    assert read["text"] == "     1→from setuptools import setup\n     2→setup(name='x')"
    assert read["exit_code"] is None and read["is_error"] is None


def test_api_errors_are_system_errors(session: Transcript) -> None:
    errors = [e for e in rows(session) if e["is_error"] and e["role"] == "system"]
    assert [e["text"] for e in errors] == [
        "API error 529: Overloaded (retry 1/10)",
        "You've hit your session limit · resets 10:30pm",
    ]


def test_session_ts_and_resumed_copy(session: Transcript) -> None:
    assert set(session.events["session"]) == {SESSION}  # the resumed copy (line 22) is ignored
    first = rows(session)[0]
    assert first["ts"] == datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC)


def test_relative_source_stays_relative(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX)
    t = ingest.read("session.jsonl")
    assert set(t.events["source"]) == {"session.jsonl"} and t.report.source == "session.jsonl"


# -- subagents ----------------------------------------------------------------------------------


def test_parent_pulls_in_subagents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX)
    t = ingest.read("proj/sess-sub.jsonl")
    r = t.report
    assert r.balanced and (r.lines, r.used, r.ignored) == (10, 9, 1)
    assert [p.source for p in r.parts] == ["proj/sess-sub.jsonl", "proj/sess-sub/subagents/agent-a1b2c3d.jsonl"]
    assert all(p.balanced for p in r.parts)
    sub = [e for e in rows(t) if e["session"] == "agent-a1b2c3d"]
    assert {e["source"] for e in sub} == {"proj/sess-sub/subagents/agent-a1b2c3d.jsonl"}
    assert [e["seq"] for e in sub] == list(range(6))
    assert [e["is_error"] for e in sub if e["kind"] == "tool_result"] == [True, True]
    parent = [e for e in rows(t) if e["session"] == PARENT]
    assert [e["kind"] for e in parent] == ["text", "tool_call", "tool_result"]


def test_session_folder_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX / "proj")
    probe = make_probe("sess-sub")
    assert claude_code.sniff(probe)
    t = ingest.read("sess-sub")
    assert t.report.format == "claude-code" and t.report.balanced
    assert set(t.events["source"]) == {"sess-sub.jsonl", "sess-sub/subagents/agent-a1b2c3d.jsonl"}
    assert t.events.height == 9


def test_project_folder_reads_each_subagent_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX)
    assert claude_code.sniff(make_probe("proj"))
    t = ingest.read("proj")
    assert t.report.format == "claude-code" and t.report.balanced and t.events.height == 9
    assert [p.source for p in t.report.parts] == ["proj/sess-sub.jsonl"]
    assert t.events.filter(t.events["session"] == "agent-a1b2c3d").height == 6


def test_walk_above_project_folder(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(FIX / "proj", root / "proj")
    codex = FIX.parent / "codex" / "events-only.jsonl"
    shutil.copy(codex, root / codex.name)
    t = ingest.read(str(root))
    assert t.report.balanced
    assert t.events.filter(t.events["source"].str.contains("/root/proj/", literal=True)).height == 9
    assert t.events.filter(t.events["session"] == "agent-a1b2c3d").height == 6
    assert t.events.filter(t.events["session"] == "events-only-1").height == 7


def test_skips_name_their_subagent_file(tmp_path: Path) -> None:
    (tmp_path / "s" / "subagents").mkdir(parents=True)
    write_lines(tmp_path / "s.jsonl", [user("parent", "u1"), "{bad"])
    write_lines(tmp_path / "s" / "subagents" / "agent-x.jsonl", [user("child", "u2", isSidechain=True, agentId="x"), "[]"])
    t = ingest.read(str(tmp_path))
    assert t.report.balanced and t.events["session"].to_list() == ["s1", "agent-x"]
    assert sorted((s.source.rsplit("/", 1)[-1], s.line) for s in t.report.skipped) == [("agent-x.jsonl", 2), ("s.jsonl", 2)]


def test_folder_without_session_is_not_claimed(tmp_path: Path) -> None:
    assert not claude_code.sniff(make_probe(str(tmp_path)))


# -- bad input ------------------------------------------------------------------------------------


def test_bad_records_are_skipped_with_reasons(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "bad.jsonl", [
        user("first", "u1"),
        '{"type": "user", "message": {',
        user(42, "u2"),
        "null",
        "[1, 2]",
        {"type": "assistant", "uuid": "a1", "message": None},
        {"type": "user", "uuid": "u3"},
        {"message": {"role": "user", "content": "no type"}},
        {"type": "system", "uuid": "s1", "content": 7},
        user([None, 3, {"type": "text", "text": None}, {"type": "tool_result", "tool_use_id": "t", "content": None}], "u4"),
        {"type": "assistant", "uuid": "a2", "timestamp": None,
         "message": {"id": "m", "content": [{"type": "tool_use", "id": "t9", "name": None, "input": None}]}},
        "",
        user("last", "u5"),
        '{"type": "user", "message": {"role": "us',
    ], final_newline=False)
    t = ingest.read(str(path))
    r = t.report
    assert r.balanced and r.lines == 14
    reasons = {s.line: s.reason for s in r.skipped}
    assert set(reasons) == {2, 3, 4, 5, 6, 7, 8, 9, 14}
    assert reasons[2].startswith("invalid JSON:")
    assert "int" in reasons[3] and "content" in reasons[3]
    assert "not a JSON object" in reasons[4] and "not a JSON object" in reasons[5]
    assert "message" in reasons[6] and "message" in reasons[7]
    assert "type" in reasons[8]
    assert "truncated" in reasons[14]
    got = [(e["line"], e["kind"], e["text"]) for e in rows(t)]
    assert got == [(1, "text", "first"), (10, "tool_result", ""), (11, "tool_call", "null"), (13, "text", "last")]
    assert rows(t)[2]["ts"] is None
    assert r.ignored == 1  # the blank line


def test_invalid_utf8_is_replaced_not_dropped(tmp_path: Path) -> None:
    bad = json.dumps(user("nvcc: XXX", "u1")).encode().replace(b"XXX", b"\xff\xfe ok")
    t = ingest.read(str(write_lines(tmp_path / "u.jsonl", [bad, user("next", "u2")])))
    assert t.report.balanced and not t.report.skipped
    assert t.events["text"].to_list() == ["nvcc: \ufffd\ufffd ok", "next"]


def test_huge_line(tmp_path: Path) -> None:
    big = "x" * (50 * 1024 * 1024)
    path = write_lines(tmp_path / "big.jsonl", [user("before", "u1"), user(big, "u2"), '{"garbage": ' + big, user("after", "u3")])
    t = ingest.read(str(path))
    assert t.report.balanced and [s.line for s in t.report.skipped] == [3]
    assert [len(x) for x in t.events["text"]] == [6, len(big), 5]


def test_overlong_line_skipped_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_jsonl, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(agent_jsonl, "CHUNK_BYTES", 64)
    path = write_lines(tmp_path / "long.jsonl", [user("a", "u1"), user("y" * 5000, "u2"), user("b", "u3"), "z" * 3000],
                       final_newline=False)
    t = ingest.read(str(path))
    assert t.report.balanced and t.report.lines == 4
    assert [(s.line, "longer than" in s.reason) for s in t.report.skipped] == [(2, True), (4, True)]
    assert t.events["text"].to_list() == ["a", "b"]


def test_crlf_and_blank_lines(tmp_path: Path) -> None:
    raw = (json.dumps(user("a", "u1")) + "\r\n\r\n   \n" + json.dumps(user("b", "u2")) + "\r\n").encode()
    (tmp_path / "c.jsonl").write_bytes(raw)
    t = ingest.read(str(tmp_path / "c.jsonl"))
    assert t.report.balanced and (t.report.used, t.report.ignored) == (2, 2)
    assert t.events["line"].to_list() == [1, 4]


@pytest.mark.parametrize("codec", ["gz", "zst"])
def test_compressed_copies(tmp_path: Path, codec: str) -> None:
    data = (FIX / "session.jsonl").read_bytes()
    path = tmp_path / f"session.jsonl.{codec}"
    path.write_bytes(gzip.compress(data) if codec == "gz" else zstandard.ZstdCompressor().compress(data))
    t = ingest.read(str(path))
    plain = ingest.read(str(FIX / "session.jsonl"))
    assert t.report.format == "claude-code" and t.report.balanced
    assert t.events.drop("source").equals(plain.events.drop("source"))


def test_compressed_parent_finds_subagents(tmp_path: Path) -> None:
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    (tmp_path / "s1.jsonl.gz").write_bytes(gzip.compress((FIX / "proj" / "sess-sub.jsonl").read_bytes()))
    sub = FIX / "proj" / "sess-sub" / "subagents" / "agent-a1b2c3d.jsonl"
    (tmp_path / "s1" / "subagents" / sub.name).write_bytes(sub.read_bytes())
    t = ingest.read(str(tmp_path / "s1.jsonl.gz"))
    assert t.events.height == 9 and len(t.report.parts) == 2


def test_corrupt_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(json.dumps(user(f"m{i}", f"u{i}")).encode() + b"\n" for i in range(2000)))
    (tmp_path / "c.jsonl.gz").write_bytes(data[: len(data) // 2])
    t = ingest.read(str(tmp_path / "c.jsonl.gz"))
    assert t.report.balanced and 0 < t.events.height < 2000
    assert t.report.skipped and t.report.skipped[-1].line == t.report.lines


# -- detection ------------------------------------------------------------------------------------


def _probe(tmp_path: Path, lines: list[Any]) -> Any:
    return make_probe(str(write_lines(tmp_path / "x.jsonl", lines)))


@pytest.mark.parametrize(
    "lines",
    [
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],  # OpenAI messages
        [{"messages": [{"role": "user", "content": "hi"}]}],
        [{"sessionId": "g", "messageId": 0, "type": "user", "message": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
        [{"id": "m1", "timestamp": "2026-01-01T00:00:00Z", "type": "gemini", "content": "ok"}],
        [{"type": "step_start", "timestamp": 1769046766064, "sessionID": "ses_1", "part": {"type": "step-start"}}],
        [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}],
    ],
)
def test_sniff_rejects_other_formats(tmp_path: Path, lines: list[Any]) -> None:
    assert not claude_code.sniff(_probe(tmp_path, lines))


def test_sniff_accepts_snapshot_first_and_minimal_records(tmp_path: Path) -> None:
    assert claude_code.sniff(make_probe(str(FIX / "session.jsonl")))
    assert claude_code.sniff(_probe(tmp_path, [{"type": "summary", "summary": "s", "leafUuid": "x"}]))
    assert claude_code.sniff(_probe(tmp_path, [{"type": "user", "message": {"role": "user", "content": "hi"}}]))


def test_sniff_first_line_longer_than_head(tmp_path: Path) -> None:
    rec = {"parentUuid": None, "sessionId": "s", "type": "user", "uuid": "u",
           "message": {"role": "user", "content": "x" * 200_000}}
    assert claude_code.sniff(_probe(tmp_path, [rec]))


# -- CLI --------------------------------------------------------------------------------------------


def test_cli_events_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX)
    assert main(["events", "session.jsonl", "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rep = out["report"]
    assert {"source", "format", "lines", "events", "ignored", "skipped"} <= set(rep)
    assert (rep["source"], rep["format"], rep["lines"], rep["events"]) == ("session.jsonl", "claude-code", 22, 14)
    assert rep["skipped"] == []
    ev = out["events"][3]
    assert ev == {"session": SESSION, "source": "session.jsonl", "line": 6, "seq": 3, "ts": "2026-02-10T21:12:01.117Z",
                  "role": "assistant", "kind": "tool_call", "tool": "Bash", "call_id": "toolu_bash1",
                  "text": "nvcc --version && make -j8", "is_error": None, "exit_code": None,
                  # a tool call carries its normalised form (ingest/tools.py)
                  "tool_kind": "shell", "command": "nvcc --version && make -j8", "paths": None, "changes": None,
                  "added": None, "removed": None, "background": False}
    other = next(e for e in out["events"] if e["kind"] != "tool_call")  # other events keep the contract's shape
    assert set(other) == set(ev) - {"tool_kind", "command", "paths", "changes", "added", "removed", "background"}


def test_cli_skipped_lines_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_lines(tmp_path / "b.jsonl", [user("ok", "u1"), "{oops"])
    assert main(["events", str(path), "--output-format", "json", "--format", "claude-code"]) == 0
    rep = json.loads(capsys.readouterr().out)["report"]
    assert rep["lines"] == 2 and len(rep["skipped"]) == 1
    assert rep["skipped"][0]["line"] == 2 and rep["skipped"][0]["reason"].startswith("invalid JSON")


# -- real sessions ------------------------------------------------------------------------------------


def test_shared_samples(shared: Path) -> None:
    folder = shared / "samples" / "claude-code"
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        pytest.skip("no claude-code samples")
    for path in files:
        t = ingest.read(str(path))
        r = t.report
        assert r.format == "claude-code" and r.balanced and not r.skipped, path.name
        n_lines = sum(1 for _ in path.open("rb"))
        assert r.lines == n_lines
        calls = t.events.filter(t.events["kind"] == "tool_call")
        results = t.events.filter(t.events["kind"] == "tool_result")
        assert calls.height == results.height > 0, path.name
        assert set(results["call_id"]) <= set(calls["call_id"])
        # every kept event comes from a distinct line; progress records are ignored
        progress = sum(1 for line in path.open("rb") if orjson.loads(line).get("type") == "progress")
        assert r.ignored >= progress


def test_shared_sample_details(shared: Path) -> None:
    folder = shared / "samples" / "claude-code"
    if not (folder / "short.jsonl").is_file():
        pytest.skip("no claude-code samples")
    short = rows(ingest.read(str(folder / "short.jsonl")))
    assert [e["is_error"] for e in short if e["kind"] == "tool_result"] == [True, True]  # user rejections
    assert next(e["text"] for e in short if e["kind"] == "tool_call") == "mix phx.server 2>&1 | head -80"
    agent = ingest.read(str(folder / "agent-a2898e3.jsonl"))
    assert set(agent.events["session"]) == {"agent-a2898e3"}
    errors = agent.events.filter(agent.events["is_error"].fill_null(False))
    assert errors.height == 8 and "File does not exist" in errors["text"][0]


def test_a_background_task_notification_is_not_the_user(tmp_path: Path) -> None:
    """Real shape (tests/real_sessions/spotter-a0y-credo-alias): Claude Code writes a finished
    background command's notification into the user's turn; it is no request or follow-up."""
    from logsleuth.ingest.base import harness_text

    note = ("<task-notification>\n<task-id>b7b23b2</task-id>\n<status>completed</status>\n"
            "<summary>Background command \"Run new tests\" completed (exit code 0)</summary>\n</task-notification>")
    assert harness_text(note) and harness_text("  <system-reminder>x</system-reminder>")
    assert not harness_text("please fix the <task-notification> parser")
