"""`logsleuth serve` in a real headless Chromium (the system's /usr/bin/chromium, driven by
Playwright): type a query, see the fix that held, open the session, follow a `[msg N]` link.
Skipped when Chromium or Playwright is absent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from index_sessions import PTXAS  # noqa: E402
from logsleuth.index import build as indexer  # noqa: E402
from logsleuth.serve.app import create_app  # noqa: E402
from serve_helpers import build_corpus, running  # noqa: E402

CHROMIUM = os.environ.get("LOGSLEUTH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.chromium, pytest.mark.skipif(not CHROMIUM, reason="no chromium binary")]


def test_type_a_query_see_the_fix_open_the_session_follow_a_message(tmp_path: Path) -> None:
    build_corpus(tmp_path / "corpus")
    assert indexer.build([str(tmp_path / "corpus")], tmp_path / "db", origin="ci").errors == []
    shots = Path(os.environ.get("LOGSLEUTH_SCREENSHOTS") or tmp_path)
    with running(create_app(tmp_path / "db", reasoning=False)) as base, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(base + "/")
            page.locator("#q").press_sequentially(PTXAS[:60], delay=5)  # results as you type
            held = page.locator(".fix.held").first
            held.wait_for(timeout=15_000)
            assert "Fix that held" in held.inner_text() and "nvidia-cuda-nvcc-cu12>=12.9" in held.inner_text()
            assert "seen 3 times in 2 sessions" in page.locator(".group").first.inner_text()
            page.screenshot(path=str(shots / "serve-search.png"), full_page=True)

            held.get_by_role("link", name="sess-ptxas").click()
            page.wait_for_url("**/session?**")
            assert "Session sess-ptxas" in page.locator("h1").inner_text()
            page.screenshot(path=str(shots / "serve-session.png"), full_page=True)

            page.locator("#postmortem").click()
            ref = page.locator("a.ref[href^='#']").first
            ref.wait_for(timeout=30_000)
            target = (ref.get_attribute("href") or "")[1:]
            assert target
            ref.click()
            page.wait_for_function("h => location.hash === h", arg="#" + target)
            landed = page.locator(f"[id='{target}']")
            assert landed.count() == 1 and landed.is_visible()
            page.screenshot(path=str(shots / "serve-report.png"))
        finally:
            browser.close()
