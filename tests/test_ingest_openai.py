from __future__ import annotations

import json
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest import openai_messages
from logsleuth.ingest.base import Probe, make_probe
from logsleuth.ingest.detect import detect

FIX = Path(__file__).parent / "fixtures" / "ingest" / "openai"


def rows(path: Path) -> list[dict]:
    return ingest.read(str(path)).events.to_dicts()


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir() if p.suffix != ".md"))
def test_every_fixture_is_detected_and_balanced(name: str) -> None:
    path = str(FIX / name)
    assert detect(make_probe(path)).name == "openai-messages"
    t = ingest.read(path)
    assert t.report.balanced, t.report
    assert t.events.height > 0


def test_array_roles_reasoning_and_tool_calls() -> None:
    ev = rows(FIX / "chat.json")
    assert [(e["role"], e["kind"]) for e in ev[:5]] == [
        ("system", "text"), ("user", "text"), ("assistant", "reasoning"),
        ("assistant", "tool_call"), ("tool", "tool_result"),
    ]
    assert ev[3]["text"] == "nvidia-smi --query-gpu=driver_version --format=csv"
    assert ev[3]["call_id"] == ev[4]["call_id"] == "call_1" and ev[4]["tool"] == "bash"
    assert ev[4]["exit_code"] == 0 and ev[4]["is_error"] is None
    failing = next(e for e in ev if e["call_id"] == "call_2" and e["kind"] == "tool_result")
    assert failing["exit_code"] == 1 and failing["is_error"] is True
    assert failing["text"].startswith("RuntimeError: The NVIDIA driver")  # list-of-parts content
    read = next(e for e in ev if e["call_id"] == "call_3" and e["kind"] == "tool_call")
    assert read["text"] == '{"limit":20,"path":"requirements.txt"}'
    assert ev[1]["line"] == 6 and ev[-1]["line"] == 73
    assert {e["session"] for e in ev} == {"chat"}


def test_object_form_names_the_session_and_shares_one_line() -> None:
    t = ingest.read(str(FIX / "conversation.json"))
    assert set(t.events["session"].to_list()) == {"conv-42"}
    assert set(t.events["line"].to_list()) == {1}
    assert (t.report.lines, t.report.used) == (1, 1)


def test_jsonl_bad_lines() -> None:
    t = ingest.read(str(FIX / "messages.jsonl"))
    skipped = {s.line: s.reason for s in t.report.skipped}
    assert set(skipped) == {4, 5, 6, 7, 8}
    assert "malformed" in skipped[4] and "UTF-8" in skipped[5] and "narrator" in skipped[6]
    assert "wrong type" in skipped[7] and "not a JSON object" in skipped[8]
    last = t.events.to_dicts()[-1]
    assert last["text"] == "done" and last["line"] == 10 and last["ts"] is not None
    assert t.report.balanced and t.report.ignored == 1  # the blank line


def test_jsonl_conversations_one_session_per_line() -> None:
    ev = rows(FIX / "dataset.jsonl")
    assert [e["session"] for e in ev] == ["dataset:1", "dataset:1", "dataset:2", "dataset:2"]
    assert [e["seq"] for e in ev] == [0, 1, 0, 1]


def test_truncated_array() -> None:
    t = ingest.read(str(FIX / "truncated.json"))
    assert t.events.height == 5 and len(t.report.skipped) == 1
    assert "truncated" in t.report.skipped[0].reason and t.report.balanced


def test_malformed_element_resyncs_on_next_sibling(tmp_path: Path) -> None:
    p = tmp_path / "m.json"
    p.write_text('[\n  {"role": "user", "content": "a"},\n  {"role": "user", "content": x},\n'
                 '  {"role": "assistant", "content": "b"}\n]\n')
    t = ingest.read(str(p))
    assert [e["text"] for e in t.events.to_dicts()] == ["a", "b"]
    assert [s.line for s in t.report.skipped] == [3] and t.report.balanced


def test_call_text_variants() -> None:
    assert openai_messages.call_text("bash", '{"command": "ls -la"}') == "ls -la"
    assert openai_messages.call_text("shell", {"command": ["bash", "-lc", "make -j4"]}) == "make -j4"
    assert openai_messages.call_text("exec", {"cmd": ["pip", "install", "a b"]}) == "pip install 'a b'"
    assert openai_messages.call_text("edit", '{"b": 1, "a": 2}') == '{"a":2,"b":1}'
    assert openai_messages.call_text("edit", "not json") == "not json"


def test_sniff_rejects_other_formats() -> None:
    def probe(head: bytes) -> Probe:
        return Probe("x.json", None, False, head)

    claude = b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}\n'
    gemini_doc = b'{"sessionId":"s","projectHash":"h","messages":[{"id":"1","type":"user","content":"x"}]}'
    checkpoint = b'[{"role":"user","parts":[{"text":"hi"}]}]'
    opencode = b'{"info":{"id":"ses"},"messages":[{"info":{"role":"user"},"parts":[]}]}'
    codex = b'{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}\n'
    for head in (claude, gemini_doc, checkpoint, opencode, codex, b"INFO hello\n"):
        assert not openai_messages.sniff(probe(head)), head
    assert openai_messages.sniff(probe(b'{"role":"user","content":"hi"}\n'))
    assert openai_messages.sniff(probe(b'{\n  "messages": [\n    {"role": "system", "content": "x"}'))


def test_cli_events_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(FIX / "chat.json"), "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"]["format"] == "openai-messages" and len(out["events"]) == 11
    assert out["events"][3]["kind"] == "tool_call"
