"""Reproducers of the crash classes of issue 20, one per class, each fixed where it arose:
bounded captures, located errors, skipped records; streams read once with a bound; bounded
decompression; linear time on adversarial input; one-line usage errors; inert terminal output."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.errors import InputError

CC = Path(__file__).parent / "fixtures" / "ingest" / "claude_code" / "session.jsonl"
CODEX_NAME = "rollout-2026-03-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- bounded captures --------------------------------------------------------------------------


def test_thousands_of_digits_in_a_version_or_architecture() -> None:
    from logsleuth.actions.packages import compare_versions, version_key
    from logsleuth.library.knowledge import _norm_sm, _same_release

    huge = "9" * 5000
    assert _same_release(huge, f"{huge}.1") is True
    assert _norm_sm(f"{huge}.{huge}")  # no "Exceeds the limit (4300 digits)"
    assert version_key(f"{huge}.1rc{huge}")[1] == -1
    assert compare_versions(f"1.{huge}", "1.2") == 1


def _cc_records(exit_text: str, tool_use_result: object) -> list[dict[str, object]]:
    base = {"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z"}
    return [
        {**base, "type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}},
        {**base, "type": "user", "uuid": "u1", "toolUseResult": tool_use_result, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": exit_text, "is_error": True}]}},
    ]


@pytest.mark.parametrize("exit_text,tool_use_result", [
    ("Exit code " + "9" * 5000 + "\nmake: *** error", None),
    ("make: *** error", {"exitCode": 2**80}),
])
def test_claude_code_keeps_a_tool_result_whose_exit_code_overflows(tmp_path: Path, exit_text: str,
                                                                   tool_use_result: object) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _cc_records(exit_text, tool_use_result)) + "\n")
    t = ingest.read(str(path), "claude-code")
    assert t.report.skipped == ()
    results = t.events.filter(t.events["kind"] == "tool_result")
    assert results.height == 1 and results["is_error"][0] is True  # the record kept, only the code dropped
    assert results["exit_code"][0] is None


def test_codex_keeps_a_tool_result_whose_exit_code_overflows(tmp_path: Path) -> None:
    recs = [
        {"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
         "payload": {"id": "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "cwd": "/w"}},
        {"timestamp": "2026-03-01T10:00:01Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls"]}), "call_id": "c1"}},
        {"timestamp": "2026-03-01T10:00:02Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c1", "output": "Exit code: " + "9" * 5000 + "\nOutput:\nboom"}},
    ]
    path = tmp_path / CODEX_NAME
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    t = ingest.read(str(path), "codex")
    assert t.report.skipped == ()
    assert "boom" in " ".join(t.events.filter(t.events["kind"] == "tool_result")["text"].to_list())


# -- opencode storage and database -------------------------------------------------------------


def test_opencode_storage_with_ids_no_file_system_can_name(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    (root / "session" / "proj").mkdir(parents=True)
    (root / "session" / "proj" / "a.json").write_text(json.dumps({"id": "ses_" + "x" * 300, "time": {"created": 1}}))
    (root / "session" / "proj" / "b.json").write_text(json.dumps({"id": "ses_\u0000nul", "time": {"created": 2}}))
    (root / "message" / "ses_ok").mkdir(parents=True)
    (root / "message" / "ses_ok" / "msg_1.json").write_text(
        json.dumps({"id": "msg_1", "sessionID": "ses_ok", "role": "user", "time": {"created": 3}}))
    (root / "part" / "msg_1").mkdir(parents=True)
    (root / "part" / "msg_1" / "prt_1.json").write_text(
        json.dumps({"id": "prt_1", "messageID": "msg_1", "sessionID": "ses_ok", "type": "text", "text": "hello"}))
    t = ingest.read(str(root), "opencode-storage")  # was OSError: [Errno 36] File name too long
    assert t.events["text"].to_list() == ["hello"]


def test_opencode_db_whose_schema_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE message (id text, session_id text, data text); CREATE TABLE part (id text, message_id text, data text);"
        "CREATE TABLE qqqqqq (a text);")
    conn.commit()
    conn.close()
    raw = path.read_bytes().replace(b"CREATE TABLE qqqqqq (a text)", b"CREATE TABLE \xff\xfe\xfd\xfc\xfb\xfa (a tex(")
    path.write_bytes(raw.replace(b"qqqqqq", b"\xff\xfe\xfd\xfc\xfb\xfa"))
    with pytest.raises(InputError) as err:
        ingest.read(str(path), "opencode-db")
    assert "opencode.db" in err.value.one_line()


def test_minified_export_locations_are_lines_of_the_file(tmp_path: Path) -> None:
    doc = json.loads((Path(__file__).parent / "fixtures" / "ingest" / "opencode" / "export.json").read_text())
    for msg in doc["messages"]:
        msg["parts"].append({"id": "prt_bad", "type": "tool", "state": "not an object"})
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))  # one line
    import gzip

    gz = tmp_path / "export.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    for p in (path, gz):
        t = ingest.read(str(p), "opencode-export")
        assert t.report.skipped and {s.line for s in t.report.skipped} == {1}
        assert set(t.events["line"].to_list()) <= {1}


def test_json_integers_past_the_digit_limit(tmp_path: Path) -> None:
    """Found by the long fuzz run (bench/fuzz_cov.py, seed 11): a mutated opencode export with an
    integer of ~200,000 digits made the stdlib decoder raise "Exceeds the limit (4300 digits)"
    (exit 4). Every reader that parses with `json` now reads such a literal as a float."""
    fixtures = Path(__file__).parent / "fixtures" / "ingest" / "opencode"
    huge = "9" * 200_000
    text = (fixtures / "export.json").read_text()
    doc = json.loads(text)
    doc["info"]["time"] = {"created": 1}
    export = tmp_path / "export.json"
    export.write_text(json.dumps(doc).replace('"created": 1', f'"created": {huge}', 1))
    alone = ingest.read(str(fixtures / "export.json"), "opencode-export")
    t = ingest.read(str(export), "opencode-export")
    assert t.events.height == alone.events.height
    lines = (fixtures / "run.jsonl").read_text().splitlines()
    run_file = tmp_path / "run.jsonl"
    run_file.write_text("\n".join([lines[0][:-1] + f', "n": {huge}}}', *lines[1:]]) + "\n")
    got = ingest.read(str(run_file), "opencode-run")
    assert got.events.height == ingest.read(str(fixtures / "run.jsonl"), "opencode-run").events.height


# -- exit 4 turned into clear errors -----------------------------------------------------------


def test_clear_errors_instead_of_internal_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import polars as pl

    bom = tmp_path / "bom.log"
    bom.write_bytes(b"\xef\xbb\xbf")
    assert run(["events", str(bom), "--format", "text"], capsys)[0] in (0, 3)
    code, _, err = run(["analyze", str(CC), "-o", "/"], capsys)
    assert (code, err.count("\n")) == (2, 1) and "folder" in err
    code, _, err = run(["analyze", str(CC), "--session", "nosuch"], capsys)
    assert code == 2 and "one of:" in err and err.count("\n") == 1
    a_file = tmp_path / "db-file"
    a_file.write_text("x")
    assert run(["index", str(CC), "--db", str(a_file)], capsys)[0] == 3
    assert run(["search", "CUDA error", "--db", str(a_file)], capsys)[0] == 3
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    pl.DataFrame({"a": [1]}).write_parquet(foreign / "files.parquet")
    code, _, err = run(["index", str(CC), "--db", str(foreign)], capsys)
    assert code == 3 and "--force" in err
    assert run(["index", str(CC), "--db", str(foreign), "--force"], capsys)[0] == 0  # --force rebuilds it
    (foreign / "files.parquet").write_bytes(b"garbage")
    assert run(["index", str(CC), "--db", str(foreign), "--force"], capsys)[0] == 0
    for part in (foreign / "findings").glob("part-*"):
        part.unlink()
    code, _, err = run(["index", str(CC), "--db", str(foreign), "-O", "json"], capsys)
    assert code == 0 and json.loads(_)["files"] == 1  # the lost part is re-analysed
    monkeypatch.setenv("LOGSLEUTH_INDEX_JOBS", "two")
    code, _, err = run(["index", str(CC), "--db", str(tmp_path / "db2")], capsys)
    assert code == 2 and "LOGSLEUTH_INDEX_JOBS" in err


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["analyze"], ["events", "--bogus", "x"], ["--max-input", "lots", "events", "x"]):
        code, _, err = run(argv, capsys)
        assert code == 2 and err.count("\n") == 1 and err.startswith("logsleuth: error: "), (argv, err)


# -- streams, FIFOs, bombs ---------------------------------------------------------------------


def test_a_fifo_is_read_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "wb") as f:
            f.write(b"RuntimeError: CUDA error: out of memory\n")

    threading.Thread(target=writer, daemon=True).start()
    t = ingest.read(str(fifo), None)  # was: opened twice, blocked forever
    assert t.events.height == 1


def test_a_fifo_inside_a_folder_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "run.log").write_text("RuntimeError: CUDA error: out of memory\n")
    os.mkfifo(tmp_path / "pipe.log")
    proc = subprocess.run([sys.executable, "-m", "logsleuth", "index", str(tmp_path), "--db", str(tmp_path / "db")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_endless_streams_stop_at_the_bound(tmp_path: Path) -> None:
    env = {**os.environ, "LOGSLEUTH_MAX_INPUT": "4M"}
    cmd = [sys.executable, "-m", "logsleuth", "events", "/dev/zero", "--format", "text"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    # a device is refused at open (issue 35: /dev/urandom was read to the bound first)
    assert proc.returncode == 3 and "a device, not a file" in proc.stderr and proc.stderr.count("\n") == 1
    yes = subprocess.Popen(["yes", "RuntimeError: boom"], stdout=subprocess.PIPE)
    try:
        proc = subprocess.run([sys.executable, "-m", "logsleuth", "events", "-", "--format", "text"], stdin=yes.stdout,
                              capture_output=True, text=True, timeout=60, env=env)
    finally:
        yes.kill()
        yes.wait()
    assert proc.returncode == 3 and "limit" in proc.stderr


@pytest.mark.parametrize("codec", ["zstd", "gzip"])
def test_decompression_bomb_is_refused(tmp_path: Path, codec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip

    import zstandard

    data = b"x" * (80 * 1024 * 1024) + b"\n"
    path = tmp_path / f"bomb.log.{'zst' if codec == 'zstd' else 'gz'}"
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(data) if codec == "zstd" else gzip.compress(data, 1))
    if codec == "gzip":  # gzip cannot pass 1032x: its bomb is bounded by size
        monkeypatch.setenv("LOGSLEUTH_MAX_INPUT", "32M")
    with pytest.raises(InputError) as err:
        ingest.read(str(path), "text")
    assert "decompress" in err.value.one_line() and "--max-input" in (err.value.hint or "")
    monkeypatch.setenv("LOGSLEUTH_MAX_INPUT", "1G")  # a limit the user set is trusted: no ratio check
    assert ingest.read(str(path), "text").report.lines == 1


# -- linear time on adversarial input ------------------------------------------------------------


@pytest.mark.parametrize("data", [
    b"\x1b[" * 400_000 + b"\n", b"\x1b]" * 400_000, b"\x1b" * 800_000, b"\r" * 800_000 + b"x\n",
    bytes(range(1, 32)) * 30_000,
], ids=["csi-run", "osc-run", "esc-run", "cr-run", "all-separators"])
def test_plaintext_is_linear_on_escape_runs(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "esc.log"
    path.write_bytes(data)
    t0 = time.monotonic()
    ingest.read(str(path), "text")
    assert time.monotonic() - t0 < 5


def test_a_huge_shell_command_is_split_in_linear_time() -> None:
    from logsleuth.actions.shellparse import commands

    body = "".join(f"x{i} = f('K{i}', [1, 2], {{'a': {i}}})  # s\n" for i in range(40_000))
    t0 = time.monotonic()
    cmds = commands("python3 -c '" + body + "' && ls; echo a | b")
    assert time.monotonic() - t0 < 5 and [c.prog for c in cmds][:1] == ["python3"]


def test_terminal_output_is_inert(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    log = tmp_path / "esc.log"
    log.write_bytes(b"hello \x1b]0;pwned\x07 \x1b[2J RuntimeError: CUDA error: out of memory\rX\n\xc2\x9b31m\n")
    for argv in (["events", str(log), "--format", "text"], ["classify", str(log)], ["analyze", str(log)]):
        assert main(argv) == 0
        out = capfdbinary.readouterr().out
        assert b"\x1b" not in out and b"\xc2\x9b" not in out and b"\r" not in out.replace(b"\r\n", b""), argv
