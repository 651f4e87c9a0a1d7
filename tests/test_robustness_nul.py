"""Inputs that are not quite text (issue 35): NULs at a rotated log's head are skipped with a note,
not the whole file refused; devices and silent FIFOs are refused at open with one located line."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.errors import InputError
from logsleuth.ingest import base

ERROR = b"2026-01-01 ERROR RuntimeError: CUDA error: out of memory\n"


def test_nuls_at_a_rotated_logs_head_are_skipped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    path.write_bytes(b"\0" * 512 + ERROR + b"later line\n")
    t = ingest.read(str(path))
    assert t.events["text"].to_list()[0] == ERROR.decode().strip()
    assert t.events["line"].to_list() == [1, 2]
    assert t.report.notes == (f"{path}: skipped 512 NUL bytes at the head (a log truncated by copytruncate or a crash)",)
    assert t.report.to_dict()["notes"] == list(t.report.notes)


def test_a_hole_larger_than_the_head_is_jumped(tmp_path: Path) -> None:
    path = tmp_path / "hole.log"
    with open(path, "wb") as f:
        f.truncate(3 * base.HEAD_BYTES + 7)
        f.seek(0, 2)
        f.write(ERROR)
    t = ingest.read(str(path))
    assert t.events.height == 1 and "skipped 196615 NUL bytes" in t.report.notes[0]


def test_a_nul_run_inside_the_head_is_not_binary(tmp_path: Path) -> None:
    path = tmp_path / "crash.log"
    path.write_bytes(ERROR + b"\0" * 4096 + ERROR)
    assert ingest.read(str(path)).events.height == 2


def test_only_nuls_and_real_binary_are_refused_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "zeros.log").write_bytes(b"\0" * 100_000)
    with pytest.raises(InputError, match=r"zeros\.log: only NUL bytes \(100000\)"):
        ingest.read(str(tmp_path / "zeros.log"))
    (tmp_path / "blob.log").write_bytes(bytes(range(256)) * 64)
    with pytest.raises(InputError, match="binary file"):
        ingest.read(str(tmp_path / "blob.log"))


def test_a_device_is_refused_at_open() -> None:
    start = time.monotonic()
    with pytest.raises(InputError, match=r"/dev/urandom: a device, not a file"):
        ingest.read("/dev/urandom")
    assert time.monotonic() - start < 5  # was: read to the 2 GiB bound first


def test_a_silent_fifo_is_refused_and_a_written_one_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "FIFO_WAIT_S", 0.2)
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="a FIFO that nothing wrote to"):
        ingest.read(str(fifo))  # was: blocked forever

    def writer() -> None:
        with open(fifo, "wb") as f:
            f.write(ERROR)

    threading.Thread(target=writer, daemon=True).start()
    assert ingest.read(str(fifo)).events.height == 1


def test_the_cli_says_it_in_one_line_with_exit_3() -> None:
    proc = subprocess.run([sys.executable, "-m", "logsleuth", "events", "/dev/urandom"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1 and "a device" in proc.stderr
