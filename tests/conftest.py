from __future__ import annotations

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
