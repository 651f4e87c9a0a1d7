"""Masking values learned elsewhere (`Redactor._mask_known`) when tens of thousands are known: only
the values whose head a text holds are tried, and the result is the one trying every value in
the order learned gives (the quadratic loop it replaces, kept here as the reference)."""

from __future__ import annotations

import random

import polars as pl

from logsleuth import redact
from logsleuth.index.rows import findings_frame, findings_frames
from logsleuth.redact import Redactor, _placeholder


def _reference(r: Redactor, text: str) -> tuple[str, dict[str, int]]:
    counts: dict[str, int] = {}
    for value, kind in r._known.items():
        if value in text:
            counts[kind] = counts.get(kind, 0) + text.count(value)
            text = text.replace(value, _placeholder(kind))
    return text, counts


def _taught(values: list[tuple[str, str]]) -> Redactor:
    r = Redactor()
    for value, kind in values:
        r.remember(value, kind)
    return r


def test_many_known_values_mask_as_trying_each_in_order() -> None:
    rng = random.Random(5)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    values = [("".join(rng.choice(alphabet) for _ in range(rng.randrange(8, 30))) + "9", "password") for _ in range(3000)]
    # nested and overlapping values, a value with a bracket, values inside placeholders
    base = values[0][0]
    values += [(base[:7] + "1", "secret"), (base + "tail42", "secret"), ("x1]" + base[:5], "secret"),
               ("REDACTED:password]z9", "secret"), ("[REDACTED:pass", "secret"), ("D:password]", "secret")]
    assert len(values) > redact.FEW_KNOWN
    texts = [
        f"login with {base} then {values[5][0]} and {base}tail42",
        f"x1[REDACTED:password]z9 {base[:5]} {values[10][0]}{values[11][0]}",
        f"glued{values[7][0]}{values[7][0]}",
        "nothing to see here",
        "",
        base[:5],
    ] + [" ".join(rng.choice(values)[0][: rng.randrange(3, 30)] for _ in range(6)) for _ in range(300)]
    fast, slow = _taught(values), _taught(values)
    for text in texts:
        want, counts = _reference(slow, text)
        before = dict(fast._counts)
        assert fast._mask_known(text) == want, text
        got = {k: v - before.get(k, 0) for k, v in fast._counts.items() if v - before.get(k, 0)}
        assert got == counts


def test_a_value_made_by_an_earlier_replacement_is_masked() -> None:
    # "abc[REDACTED:password]" only exists once the first value is masked: it must still be tried
    values = [(f"filler{i:04d}x", "secret") for i in range(200)]
    values += [("hunter22secret", "password"), ("abc[REDACTED:password]", "secret")]
    r = _taught(values)
    text = "abchunter22secret and more"
    assert r._mask_known(text) == _reference(_taught(values), text)[0] == "[REDACTED:secret] and more"


def test_findings_frames_split_as_each_group_alone() -> None:
    def row(session: str, seq: int, pattern: str) -> dict[str, object]:
        return {"session": session, "source": "a.log", "seq": seq, "line": seq, "pattern": pattern,
                "severity": "error", "resolved_by": [], "attempts": []}

    groups = [[row("s", 3, "b"), row("s", 1, "z"), row("s", 1, "a")], [], [row("t", 2, "p"), row("a", 9, "q")]]
    for got, rows in zip(findings_frames(groups), groups, strict=True):
        want = findings_frame(rows)
        assert got.schema == want.schema and got.equals(want)
    assert all(f.height == 0 for f in findings_frames([[], []]))
    assert isinstance(findings_frames([[]])[0], pl.DataFrame)
