"""ingest/tools.py: every agent's tool call normalised once, at ingest, into the event table's call columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.ingest.base import EventSink
from logsleuth.ingest.tools import ToolCall, call_of, is_shell, normalise
from logsleuth.model import CALL_SCHEMA, ToolKind

ROOT = Path(__file__).resolve().parent.parent
K = ToolKind

CASES: list[tuple[str | None, str, ToolCall]] = [
    ("Bash", "make -j8", ToolCall(K.SHELL, command="make -j8")),
    ("bash", '{"command": "pytest -x", "run_in_background": true}', ToolCall(K.SHELL, command="pytest -x", background=True)),
    ("shell", '{"cmd": ["bash", "-lc", "make check"]}', ToolCall(K.SHELL, command="bash -lc 'make check'")),
    ("mcp__box__run_command", "nvidia-smi", ToolCall(K.SHELL, command="nvidia-smi")),
    ("functions.exec_command", '{"cmd": "ls"}', ToolCall(K.SHELL, command="ls")),
    ("some_tool", "pip install -e .", ToolCall(K.SHELL, command="pip install -e .")),  # an unknown tool running a command
    ("some_tool", '{"foo": 1}', ToolCall(K.OTHER)),
    ("TodoWrite", '{"todos": []}', ToolCall(K.OTHER)),
    ("Edit", '{"file_path": "/a.py", "old_string": "x\\ny", "new_string": "z"}',
     ToolCall(K.EDIT, paths=("/a.py",), changes=("edit +1 -2 lines",), added="z", removed="x\ny")),
    ("MultiEdit", '{"file_path": "/a.py", "edits": [{"old_string": "a", "new_string": "b\\nc"}, {"old_string": "d", "new_string": "e"}]}',
     ToolCall(K.EDIT, paths=("/a.py",), changes=("edit +3 -2 lines",), added="b\nc\ne", removed="a\nd")),
    ("Write", '{"file_path": "/b.py", "content": "1\\n2\\n3"}',
     ToolCall(K.EDIT, paths=("/b.py",), changes=("write 3 lines",), added="1\n2\n3", removed="")),
    ("edit", '{"filePath": "/x.ts", "oldString": "a", "newString": "b"}',
     ToolCall(K.EDIT, paths=("/x.ts",), changes=("edit +1 -1 lines",), added="b", removed="a")),
    ("write_to_file", '{"TargetFile": "/w.py", "CodeContent": "x"}',
     ToolCall(K.EDIT, paths=("/w.py",), changes=("write 1 lines",), added="x", removed="")),
    ("apply_patch", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n+z\n*** Add File: b.py\n+q\n*** Delete File: c.py\n*** End Patch",
     ToolCall(K.EDIT, paths=("a.py", "b.py", "c.py"), changes=("update +2 -1 lines", "add +1 lines", "delete"),
              added="y\nz\nq", removed="x")),
    ("patch", '{"patchText": "--- a/x.c\\n+++ b/x.c\\n@@\\n-a\\n+b"}',
     ToolCall(K.EDIT, paths=("x.c",), changes=("update +1 -1 lines",), added="b", removed="a")),
    ("Edit", '{"file_path": "/cut.py", "old_string": "ab', ToolCall(K.EDIT, paths=("/cut.py",), changes=("",),
                                                                     added='{"file_path": "/cut.py", "old_string": "ab', removed="")),
    ("str_replace_editor", '{"command": "view", "path": "/d.py"}', ToolCall(K.READ, paths=("/d.py",), changes=("view",))),
    ("Read", '{"file_path": "/r.py"}', ToolCall(K.READ, paths=("/r.py",))),
    ("Read", "{}", ToolCall(K.READ)),
    ("Grep", '{"pattern": "foo", "path": "src"}', ToolCall(K.SEARCH, paths=("src",))),
    ("Glob", '{"pattern": "**/*.py"}', ToolCall(K.SEARCH, paths=("**/*.py",))),
    ("WebFetch", '{"url": "https://example.org/a"}', ToolCall(K.WEB, paths=("https://example.org/a",))),
    ("web_search", "cuda 13 ptx isa", ToolCall(K.WEB)),
    ("BashOutput", '{"bash_id": "1"}', ToolCall(K.READ, background=True)),
    ("bash_output", '{"id": "1"}', ToolCall(K.OTHER, background=True)),
    # values that hold a newline or a backslash come back from the event table unchanged
    ("Write", '{"file_path": "C:\\\\src\\\\new.py\\nmachine h password p", "content": "x"}',
     ToolCall(K.EDIT, paths=("C:\\src\\new.py\nmachine h password p",), changes=("write 1 lines",), added="x",
              removed="")),
]


@pytest.mark.parametrize(("tool", "text", "want"), CASES, ids=[f"{t}:{x[:30]}" for t, x, _ in CASES])
def test_normalise(tool: str | None, text: str, want: ToolCall) -> None:
    assert normalise(tool, text) == want


def test_the_sink_stores_each_call_and_reads_it_back() -> None:
    sink = EventSink("s", "x.jsonl")
    sink.add(line=1, role="user", kind="text", text="build it")
    for i, (tool, text, _) in enumerate(CASES):
        sink.add(line=i + 2, role="assistant", kind="tool_call", tool=tool, text=text)
        sink.add(line=i + 2, role="tool", kind="tool_result", tool=tool, text="ok")
    rows = sink.frame().to_dicts()
    assert all(r[c] is None for r in rows if r["kind"] != "tool_call" for c in CALL_SCHEMA)
    assert [call_of(r) for r in rows if r["kind"] == "tool_call"] == [want for _, _, want in CASES]
    assert call_of(rows[0]) is None


def test_shell_tools_are_one_list_for_every_reader() -> None:
    assert all(is_shell(t) for t in ("Bash", "PowerShell", "run_shell_command", "container.exec", "mcp__x__exec"))
    assert not any(is_shell(t) for t in ("Edit", "Read", "bash_output", None, ""))


def test_readers_fill_the_call_columns() -> None:
    t = ingest.read(str(ROOT / "tests/fixtures/ingest/claude_code/session.jsonl"))
    calls = t.events.filter(t.events["kind"] == "tool_call")
    assert calls["tool_kind"].to_list() == ["shell", "read", "shell"]
    assert calls["command"][0] == calls["text"][0] == "nvcc --version && make -j8"
    assert calls["paths"][1] == "/home/u/proj/setup.py"


def test_later_stages_know_no_agent_tool_json() -> None:
    """The actions stage and the linker's runs read the call columns, never an agent's tool names or keys."""
    agent_words = re.compile(r"TargetFile|patchText|file_path|filePath|new_string|old_str|apply_patch|"
                             r"run_in_background|bashoutput|str_replace|MultiEdit|run_shell_command|SHELL_TOOLS")
    later = [*sorted((ROOT / "src/logsleuth/actions").glob("*.py")), ROOT / "src/logsleuth/link/runs.py"]
    found = {p.name: agent_words.findall(p.read_text()) for p in later}
    assert {name: words for name, words in found.items() if words} == {}
