"""ingest/gate.py: the records a plain log's scan keeps for classify, each pattern's regex
confirmed on the lines its literals flagged. Same findings as the full read, fewer records."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from logsleuth import ingest, jsonout
from logsleuth.classify import classify, scan_gate, scan_terms
from logsleuth.ingest import plaintext
from logsleuth.ingest.gate import Gate, single_line
from logsleuth.library import load_library

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted([*ROOT.glob("sample_logs/*/*.log"), *(ROOT / "tests" / "fixtures" / "ingest" / "text").iterdir()])


@pytest.fixture(scope="module")
def lib():  # type: ignore[no-untyped-def]
    return load_library([])


@pytest.mark.parametrize(("regex", "one_line"), [
    (r"Check failed: (?P<check>[^\n]{3,})", True),
    (r"(?m)^error: \w+ \d+$", True),
    (r"\bCUDA error: out of memory\b", True),
    (r"a.b", True),
    (r"(?s)a.b", False),
    (r"(?s:a.b)", False),
    (r"foo\s+bar", False),
    (r"foo[^x]bar", False),
    (r"foo\Wbar", False),
    (r"foo\nbar", False),
    (r"(?<=x)y", False),
    (r"(a)\1", False),
    (r"\p{L}+ error", False),
    (r"[[:alpha:]] error", False),
    (r"[\s&&[^ ]]", False),
    (r"(unclosed", False),
])
def test_single_line(regex: str, one_line: bool) -> None:
    assert single_line(regex) is one_line


def _classified(t, lib) -> bytes:  # type: ignore[no-untyped-def]
    return jsonout.dumps({"report": t.report.to_dict(), **classify(t.events, lib).to_dict()})


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_gated_candidates_classify_like_the_full_read(path: Path, lib) -> None:  # type: ignore[no-untyped-def]
    full = ingest.read(str(path))
    gated = ingest.read_candidates(str(path), None, *scan_terms(lib), gate=scan_gate(lib))
    assert _classified(gated, lib) == _classified(full, lib)
    assert gated.events.height <= full.events.height


def test_gated_same_across_chunk_boundaries(tmp_path: Path, lib, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(9)
    lines = [ln for p in LOGS for ln in p.read_text(errors="replace").splitlines()]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(rng.choice(lines) for _ in range(6000)))
    monkeypatch.setattr(plaintext, "CHUNK_BYTES", 16 * 1024)
    full = ingest.read(str(path))
    gated = ingest.read_candidates(str(path), None, *scan_terms(lib), gate=scan_gate(lib))
    out = _classified(gated, lib)
    assert out == _classified(full, lib) and b'"findings": []' not in out
    assert gated.events.height < full.events.height


def test_a_literal_alone_keeps_no_record(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_text("[2026-01-05 10:11:12] scheduler.py:12 fine\n"
                    "[2026-01-05 10:11:13] x.py:7] Check failed: a == b\n"
                    "[2026-01-05 10:11:14] an error here\n")
    gate = Gate.build([(r"Check failed: [^\n]{3,}", [".py:", "Check failed: "])], [r"\berror\b"])
    plain = ingest.read_candidates(str(path), None, [".py:", "Check failed: "], [r"\berror\b"])
    gated = ingest.read_candidates(str(path), None, [".py:", "Check failed: "], [r"\berror\b"], gate=gate)
    assert plain.events.height == 3
    assert gated.events["seq"].to_list() == [1, 2]  # the 2nd record matches, the 3rd holds an error word


def test_a_match_across_the_stripped_timestamp_is_kept(tmp_path: Path) -> None:
    # the record text is `[TP0] boom`: the pattern's `^\[TP0\]` is only true once the stamp is gone
    path = tmp_path / "x.log"
    path.write_text("[2026-01-05 10:11:12 TP0] boom\n[2026-01-05 10:11:13 TP1] boom\n")
    gate = Gate.build([(r"^\[TP0\] boom", ["boom"])])
    gated = ingest.read_candidates(str(path), None, ["boom"], gate=gate)
    assert gated.events["text"].to_list() == ["[TP0] boom"]
