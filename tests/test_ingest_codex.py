from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import zstandard
from typer.testing import CliRunner

from logsleuth import ingest
from logsleuth.cli import app, main
from logsleuth.ingest import codex
from logsleuth.ingest.base import make_probe
from logsleuth.model import Transcript

FIX = Path(__file__).parent / "fixtures" / "ingest" / "codex"
SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
CURRENT = FIX / f"rollout-2026-03-01T10-00-00-{SID}.jsonl"
LEGACY = FIX / "rollout-2025-05-20-5f0c3a1e-0d2b-4c1a-9e55-1a2b3c4d5e6f.jsonl"


def rows(t: Transcript) -> list[dict[str, Any]]:
    return t.events.to_dicts()


def by_call(t: Transcript, kind: str) -> dict[str, dict[str, Any]]:
    return {e["call_id"]: e for e in rows(t) if e["kind"] == kind and e["call_id"]}


def write_lines(path: Path, lines: list[Any], *, final_newline: bool = True) -> Path:
    out = [line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
           for line in lines]
    path.write_bytes(b"\n".join(out) + (b"\n" if final_newline else b""))
    return path


def env(typ: str, payload: Any, ts: str = "2026-03-01T10:00:00Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": typ, "payload": payload}


# -- current layout ---------------------------------------------------------------------------------


@pytest.fixture
def current() -> Transcript:
    return ingest.read(str(CURRENT))


def test_current_layout_accounting(current: Transcript) -> None:
    r = current.report
    assert r.format == "codex"
    assert (r.lines, r.used, r.ignored, r.skipped) == (33, 20, 13, ())
    assert r.balanced and r.events == current.events.height == 21
    assert set(current.events["session"]) == {SID}
    assert current.events["seq"].to_list() == list(range(21))


def test_roles_and_event_msg_duplicates_ignored(current: Transcript) -> None:
    texts = [(e["role"], e["kind"], e["text"]) for e in rows(current) if e["kind"] in ("text", "reasoning")]
    assert texts == [
        ("system", "text", "<permissions instructions>sandbox: workspace-write</permissions instructions>"),
        ("system", "text", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        ("user", "text", "flash-attn build fails with nvcc error"),
        ("assistant", "reasoning", "Checking the toolkit\n\nnvcc may be older than the torch CUDA."),
        ("assistant", "text", "Upgrade the CUDA toolkit to 12.4, then rebuild."),
        ("system", "text", "stream disconnected before completion: idle timeout"),
    ]
    assert rows(current)[-1]["is_error"] is True


def test_shell_commands_unwrapped(current: Transcript) -> None:
    calls = by_call(current, "tool_call")
    assert (calls["call_shell1"]["tool"], calls["call_shell1"]["text"]) == ("shell", "nvcc --version")
    assert calls["call_exec1"]["text"] == "pip install flash-attn --no-build-isolation"
    assert calls["call_exec2"]["text"] == "ls /usr/local/cuda*"
    assert (calls["call_local1"]["tool"], calls["call_local1"]["text"]) == ("local_shell", "cat /usr/local/cuda/version.txt")
    assert calls["call_patch1"]["tool"] == "apply_patch" and calls["call_patch1"]["text"].startswith("*** Begin Patch")
    assert calls["call_mcp1"]["text"] == '{"limit":3,"query":"flash-attn sm_89"}'
    web = [e for e in rows(current) if e["tool"] == "web_search"]
    assert [e["text"] for e in web] == ["flash-attn nvcc 11.8 unsupported gpu architecture"]


def test_exit_codes_from_every_output_shape(current: Transcript) -> None:
    res = by_call(current, "tool_result")
    got = {cid: (e["exit_code"], e["is_error"]) for cid, e in res.items()}
    assert got == {
        "call_shell1": (0, False),  # JSON {output, metadata.exit_code}
        "call_exec1": (1, True),  # "Process exited with code 1" header
        "call_exec2": (2, True),  # "Exit code: 2" header
        "call_patch1": (0, False),  # custom_tool_call_output JSON
        "call_local1": (0, False),  # plain output: exit code from exec_command_end
        "call_mcp1": (None, True),  # MCP result object with isError
        "exec-inner-1": (9, True),  # CommandExecution item with no matching call
    }
    assert res["call_exec1"]["text"] == "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n"
    assert res["call_shell1"]["text"] == "Cuda compilation tools, release 11.8, V11.8.89\n"
    assert res["call_mcp1"]["text"] == "search backend unavailable"
    assert res["call_exec1"]["tool"] == "exec_command"


def test_completed_command_pairs_once(current: Transcript) -> None:
    inner = [e for e in rows(current) if e["call_id"] == "exec-inner-1"]
    assert [(e["kind"], e["line"]) for e in inner] == [("tool_call", 26), ("tool_result", 26)]
    assert inner[0]["text"] == "nvidia-smi"
    assert [e["text"] for e in rows(current) if e["call_id"] == "call_exec2"][1] != "dup"


# -- legacy and event-only layouts ---------------------------------------------------------------------


def test_legacy_layout() -> None:
    t = ingest.read(str(LEGACY))
    r = t.report
    assert r.format == "codex" and r.balanced and (r.lines, r.used, r.ignored) == (10, 7, 3)
    assert set(t.events["session"]) == {"5f0c3a1e-0d2b-4c1a-9e55-1a2b3c4d5e6f"}
    assert t.events["ts"].null_count() == t.events.height  # bare items carry no timestamp
    calls = by_call(t, "tool_call")
    assert calls["call_1"]["text"] == "nvidia-smi"
    assert calls["call_2"]["text"] == "python -c 'import torch; print(torch.version.cuda)'"
    res = by_call(t, "tool_result")
    assert (res["call_1"]["exit_code"], res["call_1"]["is_error"]) == (127, True)
    assert res["call_1"]["text"] == "bash: nvidia-smi: command not found\n"
    assert (res["call_2"]["exit_code"], res["call_2"]["is_error"]) == (0, False)


def test_event_messages_when_no_response_items() -> None:
    t = ingest.read(str(FIX / "events-only.jsonl"))
    assert t.report.balanced and set(t.events["session"]) == {"events-only-1"}
    got = [(e["role"], e["kind"], e["call_id"], e["exit_code"], e["text"]) for e in rows(t)]
    assert got == [
        ("user", "text", None, None, "rebuild bitsandbytes"),
        ("assistant", "reasoning", None, None, "Need CUDA_HOME"),
        ("assistant", "tool_call", "c1", None, "make CUDA_VERSION=121"),
        ("tool", "tool_result", "c1", 2, "nvcc fatal : Unsupported gpu architecture 'compute_90'"),
        ("assistant", "tool_call", "c2", None, "nvcc --version"),
        ("tool", "tool_result", "c2", 0, "release 11.7"),
        ("assistant", "text", None, None, "Your nvcc is too old for sm_90."),
    ]


def test_item_completed_records_when_no_response_items() -> None:
    t = ingest.read(str(FIX / "items-only.jsonl"))
    assert t.report.balanced and (t.report.used, t.report.ignored) == (4, 4)
    got = [(e["role"], e["kind"], e["is_error"], e["text"]) for e in rows(t)]
    assert got == [
        ("user", "text", None, "start the server"),
        ("assistant", "reasoning", None, "Launch vllm"),
        ("assistant", "tool_call", None, "vllm serve m"),
        ("tool", "tool_result", True, "RuntimeError: CUDA out of memory"),
        ("assistant", "text", None, "Lower --gpu-memory-utilization."),
    ]


def test_mode_scan_beyond_head(tmp_path: Path) -> None:
    # a long event-only prefix must not make the reader drop later response items
    lines: list[Any] = [env("session_meta", {"id": "s"})]
    lines += [env("event_msg", {"type": "token_count", "info": {"pad": "x" * 1000}})] * 80
    lines += [env("event_msg", {"type": "user_message", "message": "hi"}),
              env("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]})]
    t = ingest.read(str(write_lines(tmp_path / "r.jsonl", lines)))
    assert t.events["text"].to_list() == ["hi"] and t.events["line"].to_list() == [83]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["bash", "-lc", "make -j8"], "make -j8"),
        (["/bin/zsh", "-lc", "cd /w && ls"], "cd /w && ls"),
        (["bash", "-l", "-c", "echo hi"], "echo hi"),
        (["pwsh", "-NoProfile", "-Command", "Get-ChildItem"], "Get-ChildItem"),
        (["python", "-c", "print(1)"], "python -c 'print(1)'"),
        (["bash", "-lc", "a", "extra"], "bash -lc a extra"),
        ("bash -lc 'pip install \"torch==2.4\"'", 'pip install "torch==2.4"'),
        ("cd /w && make", "cd /w && make"),
        ("echo 'unbalanced", "echo 'unbalanced"),
        (None, ""),
    ],
)
def test_unwrap_shell(command: Any, expected: str) -> None:
    assert codex.unwrap_shell(command) == expected


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"output": "ok\\n", "metadata": {"exit_code": 0}}', ("ok\n", 0, False)),
        ('{"output": "boom", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}', ("boom", 2, True)),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nnope", ("nope", 1, True)),
        ("Chunk ID: a\nWall time: 30 seconds\nProcess running with session ID 1000\nOriginal token count: 3\nOutput:\nbuilding\n",
         ("building\n", None, None)),
        ("plain output\nExit code: 1", ("plain output\nExit code: 1", None, None)),
        ("Process exited with code 3", ("Process exited with code 3", 3, True)),
        ('{"not": "a result"}', ('{"not": "a result"}', None, None)),
        ([{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}], ("a\nb", None, None)),
        ({"isError": False, "content": "fine"}, ("fine", None, False)),
        (None, ("", None, None)),
    ],
)
def test_parse_output(output: Any, expected: tuple[str, int | None, bool | None]) -> None:
    assert codex.parse_output(output) == expected


# -- bad input ---------------------------------------------------------------------------------------


def test_bad_records_skipped_with_reasons(tmp_path: Path) -> None:
    msg = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ok"}]}
    path = write_lines(tmp_path / "rollout-bad.jsonl", [
        env("session_meta", {"id": "bad-1"}),
        env("response_item", msg),
        '{"timestamp": "2026-03-01T10:00:00Z", "type": "response_item", "payload": {',
        env("response_item", None),
        env("response_item", {"type": "message", "role": "user", "content": 42}),
        env("response_item", {"type": "message", "role": None, "content": []}),
        env("response_item", {"type": "function_call_output", "call_id": "c", "output": 3.5}),
        env("response_item", {"type": "function_call", "name": None, "arguments": None, "call_id": None}),
        {"timestamp": None, "payload": {"type": "message"}},
        "7",
        env("response_item", {"type": "reasoning", "summary": None, "content": None}),
        "",
        json.dumps(env("response_item", {**msg, "content": [{"type": "input_text", "text": "nvcc XXX"}]})).encode()
        .replace(b"XXX", b"\xc3\x28"),
        '{"timestamp": "2026-03-01T10:00:00Z", "type": "event_msg", "payl',
    ], final_newline=False)
    t = ingest.read(str(path))
    r = t.report
    assert r.balanced and r.lines == 14
    reasons = {s.line: s.reason for s in r.skipped}
    assert set(reasons) == {3, 4, 5, 6, 7, 9, 10, 14}
    assert reasons[3].startswith("invalid JSON:") and "truncated" in reasons[14]
    assert "payload" in reasons[4] and "int" in reasons[5] and "role" in reasons[6] and "float" in reasons[7]
    assert "type" in reasons[9] and "not a JSON object" in reasons[10]
    got = [(e["line"], e["kind"], e["text"]) for e in rows(t)]
    assert got == [(2, "text", "ok"), (8, "tool_call", "null"), (13, "text", "nvcc \ufffd(")]
    assert set(t.events["session"]) == {"bad-1"}


def test_huge_line(tmp_path: Path) -> None:
    big = "y" * (50 * 1024 * 1024)
    path = write_lines(tmp_path / "r.jsonl", [
        env("session_meta", {"id": "big"}),
        env("response_item", {"type": "function_call_output", "call_id": "c1", "output": big}),
        '{"type": "response_item", "payload": "' + big,
        env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
    ])
    t = ingest.read(str(path))
    assert t.report.balanced and [s.line for s in t.report.skipped] == [3]
    assert [len(x) for x in t.events["text"]] == [len(big), 4]


@pytest.mark.parametrize("codec", ["gz", "zst"])
def test_compressed_copies(tmp_path: Path, codec: str) -> None:
    for src in (CURRENT, LEGACY):
        data = src.read_bytes()
        path = tmp_path / f"{src.name}.{codec}"
        path.write_bytes(gzip.compress(data) if codec == "gz" else zstandard.ZstdCompressor().compress(data))
        t, plain = ingest.read(str(path)), ingest.read(str(src))
        assert t.report.format == "codex" and t.report.balanced
        assert t.events.drop("source").equals(plain.events.drop("source"))


def test_stdin(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["events", "-", "--output-format", "json"], input=gzip.compress(LEGACY.read_bytes()))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["report"]["source"] == "-" and out["report"]["format"] == "codex" and len(out["events"]) == 7


# -- detection --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        [{"role": "user", "content": "hi"}],
        [{"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}}],
        [{"type": "step_start", "timestamp": 1769046766064, "sessionID": "ses_1", "part": {"type": "step-start"}}],
        [{"sessionId": "g", "messageId": 0, "type": "user", "message": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
        [{"id": "x", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"}],
        [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "bare item, no header"}]}],
        [{"type": "thread.started", "thread_id": "t"}, {"type": "item.completed", "item": {"type": "agent_message"}}],
    ],
)
def test_sniff_rejects_other_formats(tmp_path: Path, lines: list[Any]) -> None:
    assert not codex.sniff(make_probe(str(write_lines(tmp_path / "x.jsonl", lines))))


def test_sniff_accepts_all_layouts(tmp_path: Path) -> None:
    for path in (CURRENT, LEGACY, FIX / "events-only.jsonl", FIX / "items-only.jsonl"):
        assert codex.sniff(make_probe(str(path))), path.name
    header = {"id": "legacy-1", "timestamp": "2025-09-05T17:07:46.739Z"}  # no instructions key
    assert codex.sniff(make_probe(str(write_lines(tmp_path / "a.jsonl", [header, {"record_type": "state"}]))))
    huge = env("session_meta", {"id": "s", "base_instructions": {"text": "z" * 200_000}})
    assert codex.sniff(make_probe(str(write_lines(tmp_path / "b.jsonl", [json.dumps(huge, separators=(",", ":"))]))))


def test_sniff_does_not_claim_claude_fixture() -> None:
    claude = Path(__file__).parent / "fixtures" / "ingest" / "claude_code" / "session.jsonl"
    assert not codex.sniff(make_probe(str(claude)))


# -- CLI ---------------------------------------------------------------------------------------------


def test_cli_events_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX)
    assert main(["events", CURRENT.name, "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rep = out["report"]
    assert (rep["source"], rep["format"], rep["lines"], rep["events"], rep["ignored"]) == (CURRENT.name, "codex", 33, 21, 13)
    assert rep["skipped"] == []
    failed = next(e for e in out["events"] if e["call_id"] == "call_exec1" and e["kind"] == "tool_result")
    assert failed == {"session": SID, "source": CURRENT.name, "line": 15, "seq": 7, "ts": "2026-03-01T10:00:14Z",
                      "role": "tool", "kind": "tool_result", "tool": "exec_command", "call_id": "call_exec1",
                      "text": "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n",
                      "is_error": True, "exit_code": 1}


def test_cli_forced_format_on_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_lines(tmp_path / "x.jsonl", ["{nope", env("session_meta", {"id": "s"})])
    assert main(["events", str(path), "--format", "codex", "--output-format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)["report"]
    assert rep["format"] == "codex" and rep["skipped"][0]["line"] == 1 and rep["lines"] == 2


# -- real rollouts -----------------------------------------------------------------------------------


def test_shared_samples(shared: Path) -> None:
    files = sorted((shared / "samples" / "codex").glob("rollout-*.jsonl"))
    if not files:
        pytest.skip("no codex samples")
    for path in files:
        t = ingest.read(str(path))
        r = t.report
        assert r.format == "codex" and r.balanced and not r.skipped, path.name
        assert r.lines == sum(1 for _ in path.open("rb"))
        sid = path.stem.split("-", 6)[-1]
        assert set(t.events["session"]) == {sid}
        calls = t.events.filter(t.events["kind"] == "tool_call")
        results = t.events.filter(t.events["kind"] == "tool_result")
        assert calls.height == results.height > 0
        assert set(results["call_id"]) == set(calls["call_id"])
        # one event per response item; every event_msg / turn_context line is ignored
        kinds = [json.loads(line)["type"] for line in path.open("rb")]
        assert r.used == kinds.count("response_item")
        assert r.ignored == len(kinds) - kinds.count("response_item")
