from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = ROOT / "sample_logs"


@pytest.fixture
def shared() -> Path:
    """../shared when present (read-only); tests that need it skip cleanly without it."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent")
    return SHARED


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The pattern-library cache of the test run lives in a temporary folder, not ~/.cache."""
    old = os.environ.get("LOGSLEUTH_CACHE_DIR")
    os.environ["LOGSLEUTH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("LOGSLEUTH_CACHE_DIR", None)
    else:
        os.environ["LOGSLEUTH_CACHE_DIR"] = old
