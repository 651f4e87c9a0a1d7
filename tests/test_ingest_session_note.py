"""`analyze` on an input holding several sessions, without --session: one stderr line says which
session the report covers, why, and how to pick another; nothing when there is one session or
when --session picked it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from logsleuth.cli import main

AIDER = Path(__file__).parent / "fixtures" / "ingest" / "aider" / "sglang.aider.chat.history.md"


@pytest.fixture
def two_sessions(tmp_path: Path) -> Path:
    path = tmp_path / ".aider.chat.history.md"
    shutil.copy(AIDER, path)
    return path


def _notes(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("logsleuth: note:")]


def test_note_names_the_session_and_how_to_pick_another(two_sessions: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    starts = re.findall(r"^# aider chat started at (\S+) (\S+)$", two_sessions.read_text(), re.M)
    assert len(starts) == 2
    assert main(["analyze", str(two_sessions)]) == 0
    out, err = capsys.readouterr()
    (note,) = _notes(err)
    first = f"{two_sessions.name.removesuffix('.md')}@{starts[0][0]}T{starts[0][1]}"
    assert note == (
        f"logsleuth: note: {two_sessions} holds 2 sessions; analysed {first} (the largest, 14 events); "
        f"pick another with --session ID (see logsleuth sessions {two_sessions})"
    )
    assert f"session `{first}`" in out  # the report covers the session the note names


def test_no_note_with_session_or_one_session(two_sessions: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--session", "x", str(two_sessions)]) == 2  # no such session: an error, no note
    assert not _notes(capsys.readouterr().err)
    second = re.findall(r"^# aider chat started at (\S+) (\S+)$", two_sessions.read_text(), re.M)[1]
    assert main(["analyze", "--session", f".aider.chat.history@{second[0]}T{second[1]}", str(two_sessions)]) == 0
    assert not _notes(capsys.readouterr().err)
    single = tmp_path / "one" / ".aider.chat.history.md"
    single.parent.mkdir()
    text = two_sessions.read_text()
    single.write_text(text[: text.index("# aider chat started at", 10)])  # the first session, whole
    assert main(["analyze", str(single)]) == 0
    assert not _notes(capsys.readouterr().err)


def test_a_transcript_before_larger_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder with a transcript and a longer plain log: the transcript is analysed, and the note
    says why it was chosen though it is not the largest."""
    folder = tmp_path / "case"
    folder.mkdir()
    text = AIDER.read_text()
    (folder / ".aider.chat.history.md").write_text(text[: text.index("# aider chat started at", 10)])
    (folder / "serve.log").write_text("".join(f"2026-01-05 10:{i:02d}:00 INFO step {i}\n" for i in range(40)))
    assert main(["analyze", str(folder)]) == 0
    (note,) = _notes(capsys.readouterr().err)
    assert "holds 2 sessions; analysed .aider.chat.history@2026-01-05T10:00:00 (the transcript with the most events, 14;" in note
    assert note.endswith("larger ones are plain logs); pick another with --session ID "
                         f"(see logsleuth sessions {folder})")
