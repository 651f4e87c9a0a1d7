"""Faults of the machine give documented exit codes and leave no temp files (issue 35): a full disk
while the search sidecar is written, an OSError of a fault errno anywhere (exit 3, not 4)."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from logsleuth.cli import main
from logsleuth.errors import ExitCode, exit_code_for
from logsleuth.index import sidecar_write

BUILD_LOG = Path(__file__).parent / "fixtures" / "ingest" / "text" / "build.log"


def test_sqlite_faults_are_exit_3() -> None:
    assert exit_code_for(sqlite3.OperationalError("database or disk is full")) is ExitCode.INPUT
    assert exit_code_for(sqlite3.OperationalError("attempt to write a readonly database")) is ExitCode.INPUT


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES])
def test_fault_errnos_are_exit_3(code: int) -> None:
    assert exit_code_for(OSError(code, "x")) is ExitCode.INPUT


def test_a_full_disk_while_the_sidecar_is_written_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def full(*_: object, **__: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database or disk is full")

    db = tmp_path / "db"
    monkeypatch.setattr(sidecar_write.sqlite3, "connect", full)
    code = main(["index", str(BUILD_LOG), "--db", str(db)])
    err = capsys.readouterr().err
    assert code in (0, 3), err  # the Parquet index holds; search falls back to it
    assert not list(db.glob(".*.tmp")), list(db.iterdir())
    monkeypatch.undo()
    code = main(["search", "error", "--db", str(db)])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "internal error" not in err and not list(db.glob(".*.tmp"))


def test_fault_message_is_one_located_line(capsys: pytest.CaptureFixture[str]) -> None:
    from logsleuth.cli.app import fail

    assert fail(OSError(errno.ENOSPC, "No space left on device")) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device (hint: free some space" in err


def test_search_db_naming_a_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("x\n")
    assert main(["search", "error", "--db", str(tmp_path / "notes.txt")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an index folder (a file)" in err and "hint:" in err
