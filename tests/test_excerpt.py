"""A failed command's excerpt is its telling line, not the `Exit code 1` header before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logsleuth.analysis import analyze
from logsleuth.classify import _snippet


def _claude(path: Path, outputs: list[str]) -> Path:
    rows = [{"type": "user", "uuid": "u0", "sessionId": "s1", "timestamp": "2026-01-01T10:00:00Z",
             "message": {"role": "user", "content": "build it"}}]
    for i, out in enumerate(outputs):
        rows.append({"type": "assistant", "uuid": f"a{i}", "sessionId": "s1", "timestamp": f"2026-01-01T10:0{i}:01Z",
                     "message": {"role": "assistant", "content": [
                         {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"npm run build{i}"}}]}})
        rows.append({"type": "user", "uuid": f"r{i}", "sessionId": "s1", "timestamp": f"2026-01-01T10:0{i}:05Z",
                     "message": {"role": "user", "content": [
                         {"type": "tool_result", "tool_use_id": f"t{i}", "is_error": True, "content": out}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Exit code 1\nError: Session info not available for id 42", "Error: Session info not available for id 42"),
        ("Exit code 1\n\n> app@1.0.0 build\n> node build.mjs\n\n✘ [ERROR] Could not resolve \"js/app.js\"\n\n1 error",
         '✘ [ERROR] Could not resolve "js/app.js"'),
    ],
)
def test_failure_excerpt_is_the_telling_line(tmp_path: Path, output: str, expected: str) -> None:
    an = analyze(str(_claude(tmp_path / "s.jsonl", [output])))
    texts = [f.text for f in an.findings if f.severity.is_failure]
    assert texts and texts[0] == expected


def test_nothing_telling_keeps_the_status_line() -> None:
    text = "Exit code 1\nsome plain output\n"
    assert _snippet(text, 0, len("Exit code 1")) == "Exit code 1"


def test_status_line_alone_is_kept() -> None:
    assert _snippet("Exit code 2", 0, 11) == "Exit code 2"


def test_other_matches_unchanged() -> None:
    text = "Exit code 1\nnvcc fatal : Unsupported gpu architecture 'compute_120'"
    pos = text.index("nvcc")
    assert _snippet(text, pos, len(text)) == "nvcc fatal : Unsupported gpu architecture 'compute_120'"
