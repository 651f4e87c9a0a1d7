from __future__ import annotations

import json
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest import gemini, jsonscan
from logsleuth.ingest.base import make_probe
from logsleuth.ingest.detect import detect

FIX = Path(__file__).parent / "fixtures" / "ingest" / "gemini"
DOC = FIX / "session-2026-01-05T10-11-5f0c2a9e.json"
JSONL = FIX / "session-2026-02-01T08-00-7a1e0c44.jsonl"


def rows(path: Path) -> list[dict]:
    return ingest.read(str(path)).events.to_dicts()


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir()))
def test_every_fixture_is_detected_and_balanced(name: str) -> None:
    path = str(FIX / name)
    assert detect(make_probe(path)).name == "gemini"
    t = ingest.read(path)
    assert t.report.balanced, t.report
    assert t.report.events == t.events.height > 0


def test_document_messages_thoughts_and_tool_calls() -> None:
    ev = rows(DOC)
    assert {e["session"] for e in ev} == {"5f0c2a9e-1b7d-4c39-9a51-0d2f6e8b7c14"}
    assert [e["seq"] for e in ev] == list(range(len(ev)))
    assert [(e["role"], e["kind"]) for e in ev[:5]] == [
        ("user", "text"), ("assistant", "reasoning"), ("assistant", "text"),
        ("assistant", "tool_call"), ("tool", "tool_result"),
    ]
    assert ev[0]["line"] == 7  # the line where the message object opens
    call, result = ev[3], ev[4]
    assert call["text"] == "nvcc --version" and call["tool"] == "run_shell_command"
    assert call["call_id"] == result["call_id"] == "run_shell_command-1767607869400-a1"
    # status "success" but the shell reported a failing exit code
    assert result["is_error"] is True and result["exit_code"] == 127
    assert "nvcc: command not found" in result["text"]
    ok = next(e for e in ev if e["kind"] == "tool_result" and e["exit_code"] == 0)
    assert ok["is_error"] is False
    read_call = next(e for e in ev if e["tool"] == "read_file" and e["kind"] == "tool_call")
    assert read_call["text"] == '{"absolute_path":"/srv/sglang/setup.py","limit":40}'  # compact, sorted
    read_result = next(e for e in ev if e["tool"] == "read_file" and e["kind"] == "tool_result")
    assert read_result["is_error"] is True and read_result["text"] == "File not found: /srv/sglang/setup.py"
    err = ev[-1]
    assert (err["role"], err["is_error"]) == ("system", True) and "429" in err["text"]


def test_jsonl_dedupe_rewind_set_and_patch() -> None:
    t = ingest.read(str(JSONL))
    ev = t.events.to_dicts()
    texts = [e["text"] for e in ev]
    # g1 was re-appended with its result: one tool call, one result, in its final state
    assert sum(e["kind"] == "tool_call" for e in ev) == 1
    result = next(e for e in ev if e["kind"] == "tool_result")
    assert result["exit_code"] == 1 and result["is_error"] is True and result["line"] == 4
    # $rewindTo u2 removed u2 and g2 (the rewound-to message itself included, as gemini-cli does)
    assert "try triton instead" not in texts and "Switching to triton." not in texts
    assert "actually, use the torch_native backend" in texts
    # $patch replaced g3's content
    assert "Using the torch_native attention backend." in texts and "Using torch_native." not in texts
    assert {e["session"] for e in ev} == {"7a1e0c44-2f5b-4d8e-8c1a-33b9e2f4d0aa"}
    # superseded, rewound and control lines are ignored, never silently lost
    assert (t.report.lines, t.report.used, t.report.ignored) == (11, 4, 7)


def test_rewind_to_unknown_id_clears_history(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text(
        '{"sessionId":"s","projectHash":"h"}\n'
        '{"id":"a","type":"user","content":"one"}\n'
        '{"$rewindTo":"zzz"}\n'
        '{"id":"b","type":"user","content":"two"}\n'
    )
    assert [e["text"] for e in rows(p)] == ["two"]


def test_bad_jsonl_lines_are_skipped_with_reasons() -> None:
    t = ingest.read(str(FIX / "bad.jsonl"))
    skipped = {s.line: s.reason for s in t.report.skipped}
    assert set(skipped) == {3, 4, 5, 6, 7, 9}
    assert "malformed JSON" in skipped[3]
    assert "UTF-8" in skipped[4]
    assert "not a JSON object" in skipped[5]
    assert "no type" in skipped[6]
    assert "toolCalls" in skipped[9]
    assert [e["text"] for e in t.events.to_dicts()] == ["first good message"]
    assert t.report.balanced


def test_truncated_document_keeps_what_precedes() -> None:
    t = ingest.read(str(FIX / "truncated.json"))
    assert t.events.height == 5
    assert len(t.report.skipped) == 1 and "truncated" in t.report.skipped[0].reason
    assert t.report.balanced


def test_huge_jsonl_line_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonscan, "MAX_RECORD_BYTES", 200)
    p = tmp_path / "s.jsonl"
    big = json.dumps({"id": "x", "type": "user", "content": "y" * 500})
    p.write_text('{"sessionId":"s","projectHash":"h"}\n' + big + '\n{"id":"z","type":"user","content":"ok"}\n')
    t = ingest.read(str(p))
    assert [s.line for s in t.report.skipped] == [2] and "too long" in t.report.skipped[0].reason
    assert [e["text"] for e in t.events.to_dicts()] == ["ok"]


def test_logs_json_and_checkpoint() -> None:
    logs = rows(FIX / "logs.json")
    assert [(e["session"], e["role"], e["text"]) for e in logs] == [
        ("old-1", "user", "why does ptxas fail?"), ("old-1", "user", "/quit"),
    ]
    ck = rows(FIX / "checkpoint-build.json")
    assert [(e["role"], e["kind"]) for e in ck] == [
        ("user", "text"), ("assistant", "reasoning"), ("assistant", "tool_call"),
        ("tool", "tool_result"), ("assistant", "text"),
    ]
    assert ck[2]["text"] == "make -j8" and ck[3]["call_id"] == "fc1" and ck[3]["exit_code"] == 2


def test_sniff_rejects_other_agents() -> None:
    from logsleuth.ingest.base import Probe

    def probe(head: bytes) -> Probe:
        return Probe("x.jsonl", None, False, head)

    claude = b'{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n'
    codex = b'{"type":"session_meta","payload":{"id":"x"}}\n'
    openai = b'[{"role":"user","content":"hi"}]'
    opencode = b'{"info":{"id":"ses_1"},"messages":[{"info":{"role":"user"},"parts":[]}]}'
    for head in (claude, codex, openai, opencode, b"plain text\n"):
        assert not gemini.sniff(probe(head)), head
    assert gemini.sniff(probe(b'{"id":"a","type":"gemini","content":"x","timestamp":"t"}\n'))


def test_cli_events_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(JSONL), "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"]["format"] == "gemini"
    assert out["events"][0]["ts"] == "2026-02-01T08:00:00Z"
    assert len(out["events"]) == out["report"]["events"] == 6
