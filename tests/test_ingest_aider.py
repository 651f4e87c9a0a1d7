from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest.base import make_probe
from logsleuth.ingest.detect import detect

FIX = Path(__file__).parent / "fixtures" / "ingest" / "aider" / "sglang.aider.chat.history.md"


def test_fixture_sessions_roles_and_balance() -> None:
    assert detect(make_probe(str(FIX))).name == "aider"
    t = ingest.read(str(FIX))
    ev = t.events.to_dicts()
    assert t.report.balanced and t.report.lines == 54 and not t.report.skipped
    sessions = sorted({e["session"] for e in ev})
    assert sessions == ["sglang.aider.chat.history@2026-01-05T10:00:00", "sglang.aider.chat.history@2026-01-05T11:30:00"]
    first = ev[0]
    assert (first["line"], first["role"], first["ts"] is not None) == (2, "system", True)
    user = next(e for e in ev if e["role"] == "user")
    assert user["line"] == 8 and user["text"].endswith("Please fix the build flags.")


def test_assistant_reply_keeps_fenced_quotes_and_edit_blocks() -> None:
    ev = ingest.read(str(FIX)).events.to_dicts()
    reply = next(e for e in ev if e["role"] == "assistant" and e["kind"] == "text")
    assert reply["line"] == 11
    assert ">>>>>>> REPLACE" in reply["text"]
    assert "> note: this quoted line is inside a code fence" in reply["text"]
    assert "pip install -e . --no-build-isolation" in reply["text"]


def test_commands_become_tool_calls_with_results() -> None:
    ev = ingest.read(str(FIX)).events.to_dicts()
    calls = [e for e in ev if e["kind"] == "tool_call"]
    assert [(c["tool"], c["text"]) for c in calls] == [
        ("shell", "pip install -e . --no-build-isolation"),
        ("run", "nvcc --version"),
        ("run", "python -m sglang.launch_server --model Qwen/Qwen3-8B"),
        ("test", "pytest -q tests/test_kernels.py"),
    ]
    results = {e["call_id"]: e for e in ev if e["kind"] == "tool_result"}
    for c in calls:
        assert c["call_id"] in results, c
    assert results[calls[1]["call_id"]]["text"].startswith("bash: nvcc: command not found")
    ran = results[calls[2]["call_id"]]
    assert ran["text"] == "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    assert ran["line"] == 45
    assert results[calls[0]["call_id"]]["text"].startswith("error: subprocess-exited-with-error")


def test_every_line_accounted_and_bad_bytes_skipped(tmp_path: Path) -> None:
    p = tmp_path / ".aider.chat.history.md"
    p.write_bytes(b"# aider chat started at 2026-01-01 00:00:00\n\n#### hi \xff there  \n> ok  \n\nreply\n\n\n")
    t = ingest.read(str(p))
    assert t.report.balanced and t.report.lines == 8
    assert [s.line for s in t.report.skipped] == [3]
    assert [e["text"] for e in t.events.to_dicts()] == ["aider chat started at 2026-01-01 00:00:00", "ok", "reply"]


def test_shared_real_sample(shared: Path) -> None:
    path = shared / "samples" / "aider" / "aider.chat.history.md"
    if not path.exists():
        pytest.skip("sample absent")
    t = ingest.read(str(path))
    ev = t.events.to_dicts()
    assert t.report.balanced and t.report.lines == 116 and not t.report.skipped
    assert len({e["session"] for e in ev}) == 4
    assert any("SSLError" in e["text"] and e["role"] == "system" for e in ev)
    assert any(e["role"] == "system" and e["text"].startswith("/add **") for e in ev)  # a setting, not a turn
    assert any("KeyboardInterrupt" in e["text"] for e in ev)


def test_cli_events_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(FIX), "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"]["format"] == "aider" and out["report"]["lines"] == 54
    assert out["events"][0]["ts"] == "2026-01-05T10:00:00Z"


def test_aiders_search_replace_feedback_is_aiders_not_the_agents() -> None:
    """The feedback text is aider's own (aider-chat's editblock_coder wording, as its tests and
    ports quote it); written as a `>` block after a command's output it ends that output and is
    never assistant prose (the reasoning extractor would read it as the agent's)."""
    from logsleuth.ingest.aider import _AIDER_UI

    for line in ("# 1 SEARCH/REPLACE block failed to match!",
                 "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in parser.py",
                 "Did you mean to match some of these actual lines from parser.py?",
                 "The SEARCH section must exactly match an existing block of lines including all white space"):
        assert _AIDER_UI.match(line), line
    assert not _AIDER_UI.match("Did you mean the parser? I think so.")
    t = ingest.read(str(FIX.parent / "searchreplace-feedback.chat.history.md"), "aider")
    texts = t.events.filter(pl.col("role") == "assistant")["text"].to_list()
    assert not any("Did you mean to match" in x for x in texts)


def test_a_multi_line_command_aider_echoes_is_read_whole() -> None:
    """A `Running cat > f <<'EOF'` whose next lines repeat the reply's shell block: they are the
    command's heredoc, not its output (heldout5 depbump, converted from a real Codex recording)."""
    t = ingest.read(str(Path(__file__).parent / "heldout5_sessions" / "depbump" / "session.md"), "aider")
    calls = t.events.filter((pl.col("kind") == "tool_call") & pl.col("text").str.starts_with("cat > statuspoll/retrying.py"))
    text = calls["text"].to_list()[0]
    assert "allowed_methods=RETRYABLE_METHODS" in text and "\nEOF\n" in text
    result = t.events.filter((pl.col("kind") == "tool_result") & (pl.col("call_id") == calls["call_id"][0]))
    assert not any('"""Retry policy' in (x or "") for x in result["text"].to_list())
