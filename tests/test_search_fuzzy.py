"""search.fuzzy (the standard-library token_set_ratio) agrees with rapidfuzz to the bit."""

from __future__ import annotations

import random

import pytest
from rapidfuzz import fuzz, utils

from logsleuth.search import fuzzy

WORDS = ["cuda", "error", "out", "of", "memory", "nvcc", "fatal", "Unsupported", "gpu", "sm_90", "libnvrtc.so.13",
         "RuntimeError:", "NCCL", "WARN", "a", "b", "ä", "Ölfass", "x_y", "--flag", "", "12", "1.2.3", "(null)", "cut…", "—", "✗"]
ASCII = [w for w in WORDS if w.isascii()] + ["cut…", "a→b"]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))


def test_token_set_ratio_equals_rapidfuzz_exactly() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        a, b = _text(rng), _text(rng)
        assert fuzzy.token_set_ratio(a, b) == fuzz.token_set_ratio(a, b), (a, b)
        pa, pb = fuzzy.default_process(a), fuzzy.default_process(b)
        assert (pa, pb) == (utils.default_process(a), utils.default_process(b))
        assert fuzzy.token_set_ratio(pa, pb) == fuzz.token_set_ratio(pa, pb), (a, b)


def test_ratio_many_is_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    texts = [" ".join(rng.choice(ASCII) for _ in range(rng.randint(1, 12))) for _ in range(60)]
    query = "CUDA error: out of memory…"
    want = {t: fuzz.token_set_ratio(utils.default_process(query), utils.default_process(t)) / 100 for t in texts}

    def refuse(*a: object) -> float:
        raise AssertionError("rapidfuzz called for a few ASCII texts")

    monkeypatch.setattr(fuzz, "token_set_ratio", refuse)
    assert fuzzy.ratio_many(query, texts) == want  # in pure Python
    monkeypatch.undo()
    monkeypatch.setattr(fuzzy, "PURE_LIMIT", 0)
    assert fuzzy.ratio_many(query, texts) == want  # with rapidfuzz
    assert max(want.values()) <= 1.0 and min(want.values()) < 1.0
