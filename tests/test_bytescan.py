"""Hyperscan over raw bytes (ingest/bytescan.py) answers "which lines hold a needle" with a
superset of the polars test it replaces, or not at all; logscan gives the same records either way."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from logsleuth import ingest, jsonout
from logsleuth.classify import classify, scan_terms
from logsleuth.ingest import bytescan, logscan, plaintext
from logsleuth.library import load_library

pytest.importorskip("hyperscan")

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted([*ROOT.glob("sample_logs/*/*.log"), *(ROOT / "tests" / "fixtures" / "ingest" / "text").iterdir()])


@pytest.fixture(scope="module")
def terms() -> tuple[list[str], list[str]]:
    return scan_terms(load_library([]))


def _polars_hits(data: bytes, needles: list[str], regexes: list[str]) -> np.ndarray:
    lines = plaintext._clean(plaintext.split_lines(data), data)
    return lines.str.contains(logscan.needle_regex(needles, regexes)).fill_null(False).to_numpy()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_line_polars_finds_hyperscan_finds(
    path: Path, terms: tuple[list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bytescan, "MAX_HITS_PER_LINE", 100.0)  # small logs are mostly matches
    needles, regexes = terms
    scanner = bytescan.compile_scanner(logscan.seam_safe(needles), regexes)
    assert scanner is not None
    data = path.read_bytes()
    hits = scanner.line_hits(data, plaintext.split_lines(data))
    if hits is None:  # colours, carriage returns, NULs or invalid UTF-8: polars answers
        valid = data.decode("utf-8", "replace").encode() == data
        assert any(c in data for c in (b"\x1b", b"\r", b"\x00")) or not valid
        return
    expected = _polars_hits(data, needles, regexes)
    assert hits.shape == expected.shape
    assert not (expected & ~hits).any()


def test_no_answer_where_raw_bytes_are_not_the_lines() -> None:
    scanner = bytescan.compile_scanner(["needle"])
    assert scanner is not None
    for data in (b"a needle\n\x1b[31mred\x1b[0m\n", b"a needle\r\n", b"ne\x00edle\n", b"\xff\xfe needle\n"):
        assert scanner.line_hits(data, plaintext.split_lines(data)) is None, data
    plain = b"first\nthe needle here\n\nlast needle"
    assert scanner.line_hits(plain, plaintext.split_lines(plain)).tolist() == [False, True, False, True]


def test_small_plain_files_skip_the_database(tmp_path: Path) -> None:
    small, big = tmp_path / "small.log", tmp_path / "big.log"
    small.write_bytes(b"x\n" * 10)
    with open(big, "wb") as f:
        f.truncate(logscan.SCANNER_MIN_BYTES)
    assert not logscan._big(ingest.base.make_probe(str(small)))
    assert logscan._big(ingest.base.make_probe(str(big)))


def test_no_answer_when_matches_are_everywhere() -> None:
    scanner = bytescan.compile_scanner(["x"])
    assert scanner is not None
    data = b"x\n" * 5000
    assert scanner.line_hits(data, plaintext.split_lines(data)) is None


def test_word_boundaries_are_a_superset() -> None:
    scanner = bytescan.compile_scanner([], [r"\berror\b"])
    assert scanner is not None
    data = "an error here\nxerror\nerrorx\néerror\nerror_x\n".encode()
    hits = scanner.line_hits(data, plaintext.split_lines(data))
    expected = _polars_hits(data, [], [r"\berror\b"])
    assert expected.tolist() == [True, False, False, False, False]
    assert hits is not None and not (expected & ~hits).any() and hits[3]  # ASCII \b: `é` is no word char


@pytest.mark.parametrize("scanner", [True, False], ids=["hyperscan", "polars"])
def test_records_are_the_same_with_or_without_hyperscan(
    tmp_path: Path, scanner: bool, terms: tuple[list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = load_library([])
    rng = random.Random(11)
    lines = [ln for p in LOGS for ln in p.read_text(errors="replace").splitlines()]
    path = tmp_path / "mixed.log"
    # error lines diluted in routine ones, as in a real log: past one hit in 20 lines the scanner
    # hands a chunk to polars (MAX_HITS_PER_LINE), and this test is about the scanner's answers
    path.write_text("\n".join(rng.choice(lines) if rng.random() < 0.2 else f"INFO step {i} loss {rng.random():.4f}"
                              for i in range(5000)))
    monkeypatch.setattr(plaintext, "CHUNK_BYTES", 32 * 1024)
    answered: list[bool] = []
    if scanner:  # a small file: force the scanner, and check that it answered
        monkeypatch.setattr(logscan, "SCANNER_MIN_BYTES", 0)
        line_hits = bytescan.ByteScanner.line_hits

        def spy(self, data, lines):  # type: ignore[no-untyped-def]
            out = line_hits(self, data, lines)
            answered.append(out is not None)
            return out

        monkeypatch.setattr(bytescan.ByteScanner, "line_hits", spy)
    else:
        monkeypatch.setattr(bytescan, "compile_scanner", lambda *a, **k: None)
    full = ingest.read(str(path))
    fast = ingest.read_candidates(str(path), None, *terms)
    a = jsonout.dumps(classify(full.events, lib).to_dict())
    b = jsonout.dumps(classify(fast.events, lib).to_dict())
    assert a == b and b'"findings": []' not in b
    assert any(answered) if scanner else not answered


def test_the_compiled_database_is_kept_and_reused(
    terms: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first scanner of a library is compiled and stored; the next is loaded from the cache
    folder and answers the same; a stored file that does not load is compiled again."""
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bytescan, "MAX_HITS_PER_LINE", 100.0)
    needles, regexes = logscan.seam_safe(terms[0]), terms[1]
    data = b"".join(p.read_bytes() for p in LOGS if p.suffix == ".log")
    data = data.replace(b"\r", b"").replace(b"\x1b", b"").replace(b"\x00", b"")
    lines = plaintext.split_lines(data)
    first = bytescan.compile_scanner(needles, regexes)
    assert first is not None
    stored = list(tmp_path.glob("hyperscan-*.db"))
    assert len(stored) == 1
    monkeypatch.setattr(bytescan, "_store", lambda *a: pytest.fail("compiled again"))
    again = bytescan.compile_scanner(needles, regexes)
    assert again is not None
    want = first.line_hits(data, lines)
    assert want is not None and want.any()
    assert np.array_equal(again.line_hits(data, lines), want)
    stored[0].write_bytes(b"not a database")
    monkeypatch.undo()
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bytescan, "MAX_HITS_PER_LINE", 100.0)
    rebuilt = bytescan.compile_scanner(needles, regexes)
    assert rebuilt is not None and np.array_equal(rebuilt.line_hits(data, lines), want)
    assert stored[0].read_bytes() != b"not a database"
