from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.ingest import plaintext
from logsleuth.ingest.base import Probe, make_probe
from logsleuth.ingest.detect import detect

FIX = Path(__file__).parent / "fixtures" / "ingest" / "text"


def read_text(tmp_path: Path, content: str | bytes, name: str = "x.log") -> list[dict]:
    p = tmp_path / name
    p.write_bytes(content.encode() if isinstance(content, str) else content)
    t = ingest.read(str(p))
    assert t.report.balanced, t.report
    return t.events.to_dicts()


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir()))
def test_fixtures_detected_as_text_and_balanced(name: str) -> None:
    path = str(FIX / name)
    assert detect(make_probe(path)).name == "text"
    t = ingest.read(path)
    assert t.report.balanced and t.report.events == t.events.height > 0
    assert set(t.events["role"].to_list()) == {"log"} and set(t.events["kind"].to_list()) == {"log"}
    assert t.events["seq"].to_list() == list(range(t.events.height))


def test_sglang_traceback_is_one_event_with_its_first_line() -> None:
    ev = ingest.read(str(FIX / "sglang_server.log")).events.to_dicts()
    tb = next(e for e in ev if "Traceback" in e["text"])
    assert tb["line"] == 5
    assert tb["text"].startswith("[TP0] Scheduler hit an exception: Traceback (most recent call last):")
    assert tb["text"].endswith("RuntimeError: Ninja build failed: ptxas fatal   : Unsupported .version 9.2; current version is '9.0'")
    assert tb["ts"] == datetime(2026, 1, 5, 10, 11, 12, tzinfo=UTC)
    assert ev[0]["text"].startswith("server_args=")  # `[date time] ` stripped, no empty tag left
    # a plain line after a timestamped record continues it
    assert ev[-1]["text"] == "Received sigquit from a child process. It usually means the child failed.\nKilled"


def test_chained_traceback_stays_together(tmp_path: Path) -> None:
    ev = read_text(tmp_path, (
        "starting\n"
        "Traceback (most recent call last):\n"
        '  File "a.py", line 1, in <module>\n'
        "KeyError: 1\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "a.py", line 3, in <module>\n'
        "ValueError: 2\n"
        "\n"
        "after\n"
    ))
    assert [e["line"] for e in ev] == [1, 2, 12]
    assert ev[1]["text"].count("Traceback") == 2 and ev[1]["text"].endswith("ValueError: 2")


def test_nvcc_error_with_context_and_caret_and_ninja_failed_block() -> None:
    ev = ingest.read(str(FIX / "build.log")).events.to_dicts()
    by_line = {e["line"]: e["text"] for e in ev}
    assert by_line[2].splitlines() == [
        "FAILED: CMakeFiles/kern.dir/kern.cu.o ",
        "/usr/local/cuda/bin/nvcc -gencode arch=compute_120,code=sm_120 -c /src/kern.cu -o CMakeFiles/kern.dir/kern.cu.o",
    ]
    err = by_line[4].splitlines()
    assert err[0] == '/src/kern.cu(12): error: identifier "__nv_fp8_e8m0" is undefined'
    assert len(err) == 3 and err[2].strip() == "^"
    assert by_line[8].startswith("/src/kern.cu(31): warning")
    assert by_line[12].startswith("1 error detected")
    assert by_line[14].startswith("Traceback") and by_line[14].endswith("returned non-zero exit status 1.")
    assert 5 not in by_line and 7 not in by_line  # context lines belong to their diagnostic


def test_continuation_lines_and_record_boundaries(tmp_path: Path) -> None:
    ev = read_text(tmp_path, (
        "2026-01-05 10:11:12,345 - sglang - INFO - config:\n"
        "  tp_size: 2\n"
        "unindented continuation\n"
        "2026-01-05 10:11:13,001 - sglang - ERROR - boom\n"
    ))
    assert [e["line"] for e in ev] == [1, 4]
    assert ev[0]["text"] == "sglang - INFO - config:\n  tp_size: 2\nunindented continuation"
    assert ev[0]["ts"] == datetime(2026, 1, 5, 10, 11, 12, 345000, tzinfo=UTC)
    # without timestamps (pip output), each unindented line is its own record
    ev = read_text(tmp_path, "Collecting flash-attn\n  Downloading flash_attn-2.8.0.tar.gz (8.4 MB)\nsome other line\n")
    assert [e["line"] for e in ev] == [1, 3]


def test_ansi_and_timestamp_formats_are_stripped(tmp_path: Path) -> None:
    ev = read_text(tmp_path, (
        "\x1b[32m[2026-01-05 10:11:12 DP0 TP1] \x1b[0mDecode batch. #running-req: 3\n"
        "2026-01-05T10:11:12.123456789+02:00 docker line\n"
        "Jan 05 10:11:12 gpu-node sglang[12]: journal line\n"
        "INFO 04-28 20:50:23 model_runner.py:791] vllm line\n"
        "[2024-09-27 23:42:23,326] [INFO] [real_accelerator.py:203:get_accelerator] deepspeed line\n"
    ))
    assert [e["text"] for e in ev] == [
        "[DP0 TP1] Decode batch. #running-req: 3",
        "docker line",
        "sglang[12]: journal line",
        "INFO model_runner.py:791] vllm line",
        "[INFO] [real_accelerator.py:203:get_accelerator] deepspeed line",
    ]
    assert ev[0]["ts"] == datetime(2026, 1, 5, 10, 11, 12, tzinfo=UTC)
    assert ev[1]["ts"] == datetime(2026, 1, 5, 8, 11, 12, 123456, tzinfo=UTC)  # zone applied
    assert ev[2]["ts"] is None and ev[3]["ts"] is None  # no year: unknown
    assert ev[4]["ts"] == datetime(2024, 9, 27, 23, 42, 23, 326000, tzinfo=UTC)


def test_crlf_carriage_returns_nul_and_invalid_utf8(tmp_path: Path) -> None:
    filler = "".join(f"filler {i}\n" for i in range(40))
    data = b"first\r\n  cont\r\nprogress 10%\rprogress 100%\r\nbad \xff byte\x00s\n" + filler.encode()
    ev = read_text(tmp_path, data)
    assert ev[0]["text"] == "first\n  cont"
    assert ev[1] == {**ev[1], "line": 3, "text": "progress 100%"}
    assert ev[2]["text"] == "bad \ufffd bytes" and ev[2]["line"] == 4  # used, not skipped


def test_blank_lines_are_ignored_and_counted(tmp_path: Path) -> None:
    p = tmp_path / "b.log"
    p.write_text("\n\nalpha\n\n\nbeta\n\n")
    t = ingest.read(str(p))
    assert [(e["line"], e["text"]) for e in t.events.to_dicts()] == [(3, "alpha"), (6, "beta")]
    assert (t.report.lines, t.report.used, t.report.ignored) == (7, 2, 5)


def test_chunk_boundaries_do_not_split_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every record spans 4 lines, so most chunk boundaries fall inside one
    text = "".join(
        f"[2026-01-05 10:11:{i % 60:02d}] rec {i}: Traceback (most recent call last):\n  File x\n    y()\nE{i}: z\n"
        for i in range(400)
    )
    p = tmp_path / "c.log"
    p.write_text(text)
    whole = ingest.read(str(p))
    frames = list(plaintext.iter_line_frames(make_probe(str(p)), chunk_bytes=1000))
    assert len(frames) > 10
    assert sum(f.height for f in frames) == whole.report.lines == text.count("\n")
    # the reader over small chunks gives exactly the same events as over one chunk
    monkeypatch.setattr(plaintext, "CHUNK_BYTES", 1000)
    small = plaintext.read(make_probe(str(p)))
    assert small.events.equals(whole.events) and small.report == whole.report
    assert small.events.height == 400 and set(small.events["text"].str.count_matches("\n").to_list()) == {3}


def test_byte_chunks_cut_huge_lines() -> None:
    data = b"short\n" + b"x" * (plaintext.MAX_LINE_BYTES * 3) + b"\nafter\n"
    chunks = list(plaintext.iter_byte_chunks(io.BytesIO(data), size=64 * 1024))
    joined = b"".join(chunks)
    assert joined.count(b"\n") == 3 and joined.endswith(b"\nafter\n")
    assert len(joined) < plaintext.MAX_LINE_BYTES + 100


def test_record_cap_splits_runaway_records(tmp_path: Path) -> None:
    n = plaintext.MAX_RECORD_LINES + 5
    ev = read_text(tmp_path, "[2026-01-05 10:11:12] start\n" + "  more\n" * n)
    assert len(ev) == 2 and ev[1]["line"] == plaintext.MAX_RECORD_LINES + 1


def test_stage_functions_for_benchmarks() -> None:
    probe = make_probe(str(FIX / "build.log"))
    lines = plaintext.read_lines_frame(probe)
    assert lines.columns == ["line", "text"] and lines.height == 25
    marked = plaintext.mark_records(plaintext.classify(lines))
    assert {"cls", "tskind", "start", "rec", "used"} <= set(marked.columns)
    assert plaintext.records(marked).height == ingest.read(str(FIX / "build.log")).events.height


def test_sniff_accepts_text_and_rejects_binary() -> None:
    def probe(head: bytes) -> Probe:
        return Probe("x", None, False, head)

    assert plaintext.sniff(probe(b"hello\nworld\n"))
    assert plaintext.sniff(probe("ünïcødé \x1b[31mred\x1b[0m\n".encode()))
    assert not plaintext.sniff(probe(bytes(range(256)) * 4))
    assert not plaintext.sniff(probe(b"\x00\x01\x02\x03" * 100))


def test_cli_events_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(FIX / "sglang_server.log"), "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"]["format"] == "text" and out["report"]["lines"] == 13
    tb = out["events"][4]
    assert tb["line"] == 5 and tb["ts"] == "2026-01-05T10:11:12Z" and tb["role"] == "log"


def test_vllm_prefixed_traceback_lines_fold_into_one_record() -> None:
    ev = ingest.read(str(FIX / "vllm.log")).events.to_dicts()
    err = next(e for e in ev if "Error executing method" in e["text"])
    assert err["line"] == 7
    assert err["text"].splitlines()[1:] == [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 921, in capture',
        "RuntimeError: CUDA error: operation failed due to a previous error during capture",
    ]
    # same prefix but ordinary messages stay separate records
    assert [e["line"] for e in ev if "model_runner.py:79" in e["text"]] == [2, 3]
    assert [e["line"] for e in ev if "NCCL" in e["text"]] == [5, 6]
