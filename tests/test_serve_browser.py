"""`logsleuth serve` in a real headless Chromium (the system's /usr/bin/chromium, driven by
Playwright): search as you type and without JavaScript, the failure page, the session, the
postmortem and back; every link on each page answers; no horizontal scroll at 1400 and 420 px
with the fix column on screen; no console errors (the CSP blocks nothing the pages need).
Skipped when Chromium or Playwright is absent. LOGSLEUTH_SCREENSHOTS=DIR keeps the screenshots."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from index_sessions import PTXAS, claude_session, write  # noqa: E402
from logsleuth.index import build as indexer  # noqa: E402
from logsleuth.serve.app import create_app  # noqa: E402
from serve_helpers import build_corpus, running  # noqa: E402

CHROMIUM = os.environ.get("LOGSLEUTH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.chromium, pytest.mark.skipif(not CHROMIUM, reason="no chromium binary")]
LONG = "RuntimeError: " + "/opt/venv/lib/python3.12/site-packages/torch/" * 60 + " failed"  # one 2.8 KB line


def long_line_session() -> str:
    return claude_session("sess-long", "2026-03-01T09:00:00", [("python train.py", LONG, True)])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("browser")
    build_corpus(root / "corpus")
    write(root / "corpus" / "long.jsonl", long_line_session())
    assert indexer.build([str(root / "corpus")], root / "db", origin="ci").errors == []
    with running(create_app(root / "db", reasoning=False)) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def shots() -> Path | None:
    where = os.environ.get("LOGSLEUTH_SCREENSHOTS")
    return Path(where) if where else None


def snap(page: Any, name: str) -> None:
    if (d := shots()) is not None:
        d.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(d / f"{name}.png"), full_page=True)


def watched(browser: Any, width: int, js: bool = True) -> tuple[Any, list[str]]:
    ctx = browser.new_context(viewport={"width": width, "height": 1000}, java_script_enabled=js)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def no_sideways_scroll(page: Any) -> None:
    sw, cw = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sw <= cw, f"{page.url}: the page scrolls sideways ({sw} > {cw} px)"


def chain_fits(page: Any) -> None:
    """The chain drawing the page shows fits its box: nothing scrolls or is cut inside the figure
    (#33: at 420 px the 820-px drawing was clipped), and what it draws lies inside its own width."""
    shown = page.evaluate("""() => [...document.querySelectorAll('svg.chain')]
        .filter(s => getComputedStyle(s).display !== 'none')
        .map(s => { const b = s.getBBox(), f = s.parentElement;
                    return [s.getAttribute('class'), b.x, b.x + b.width, s.viewBox.baseVal.width,
                            f.scrollWidth, f.clientWidth]; })""")
    assert len(shown) == 1, shown
    _name, left, right, width, scroll, client = shown[0]
    assert scroll <= client and left >= 0 and right <= width, shown


def links_answer(page: Any, base: str) -> None:
    """Every same-site link of the page answers 200 (fragments: the page they are on)."""
    hrefs = page.eval_on_selector_all("a[href]", "as => [...new Set(as.map(a => a.href.split('#')[0]))]")
    for href in hrefs:
        if href.startswith(base):
            r = page.request.get(href)
            assert r.status == 200, f"{page.url}: {href} answered {r.status}"


@pytest.mark.parametrize("width", [1400, 420])
def test_search_failure_page_session_postmortem_and_back(site: str, browser: Any, width: int) -> None:
    page, errors = watched(browser, width)
    page.goto(site + "/")
    page.locator("#q").press_sequentially(PTXAS[:60], delay=5)  # results as you type
    held = page.locator(".fix.held").first
    held.wait_for(timeout=15_000)
    assert "Fix that held" in held.inner_text() and "nvidia-cuda-nvcc-cu12" in held.inner_text()
    assert "seen 3 times in 2 sessions" in page.locator(".group").first.inner_text()
    assert "/?q=" in page.url  # a link to share
    no_sideways_scroll(page)
    snap(page, f"search-{width}")
    links_answer(page, site)

    page.locator(".group a").first.click()  # the failure page of that error
    page.wait_for_url("**/fp/**")
    assert "PTX" in page.locator("h1").inner_text() or "ptxas" in page.locator("h1").inner_text().lower()
    no_sideways_scroll(page)
    snap(page, f"fingerprint-{width}")
    links_answer(page, site)

    page.get_by_role("link", name="sess-ptxas").first.click()
    page.wait_for_url("**/session?**")
    assert page.locator("#failures tbody tr").count() >= 1
    fixcell = page.locator("#failures td.fixcell").first
    box = fixcell.bounding_box()
    assert fixcell.is_visible() and box["x"] + 50 < width and box["x"] + box["width"] <= width
    no_sideways_scroll(page)
    snap(page, f"session-{width}")
    links_answer(page, site)

    page.locator("#postmortem").click()
    ref = page.locator("a.ref[href^='#']").first
    ref.wait_for(timeout=30_000)
    target = (ref.get_attribute("href") or "")[1:]
    ref.click()
    page.wait_for_function("h => location.hash === h", arg="#" + target)
    assert page.locator(f"[id='{target}']").is_visible()
    no_sideways_scroll(page)
    chain_fits(page)
    assert ("narrow" if width < 640 else "wide") in page.locator("svg.chain:visible").get_attribute("class")
    links_answer(page, site)
    snap(page, f"postmortem-{width}")
    page.locator("#back").click()  # back to the session it came from
    page.wait_for_url("**/session?**")
    assert page.locator("#failures").is_visible()
    assert errors == []


def test_long_lines_wrap_and_the_fix_column_stays_on_screen(site: str, browser: Any) -> None:
    for width in (1400, 420):
        page, errors = watched(browser, width)
        page.goto(site + "/sessions")
        no_sideways_scroll(page)
        snap(page, f"sessions-{width}")
        page.get_by_role("link", name="start the sglang server").first.wait_for()
        rows = page.locator("#sessions tbody tr")
        assert rows.count() == 5
        page.goto(site + "/sessions")
        link = page.locator("#sessions a", has_text="").filter(has_text="start the sglang server")
        assert link.count() >= 1
        s = page.evaluate("fetch('/api/sessions').then(r => r.json())")["sessions"]
        long = next(x for x in s if x["session"] == "sess-long")
        from urllib.parse import urlencode

        page.goto(site + "/session?" + urlencode({"session": long["session"], "source": long["source"]}))
        no_sideways_scroll(page)
        box = page.locator("#failures td.fixcell").first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width
        snap(page, f"session-long-{width}")
        assert errors == []


def test_search_works_without_javascript(site: str, browser: Any) -> None:
    page, _ = watched(browser, 1400, js=False)
    page.goto(site + "/")
    page.locator("#q").fill(PTXAS)
    page.locator("#q").press("Enter")
    page.wait_for_url("**/?q=**")
    assert "Fix that held" in page.locator("#results").inner_text()
    page.goto(site + "/?q=" + "CUDA%20out%20of%20memory.%20Tried%20to%20allocate%202.00%20GiB")
    advice = page.locator("#advice")
    assert advice.is_visible() and "Usual fixes" in advice.inner_text()
    snap(page, "search-advice-nojs")


def test_a_long_paste_is_searched_without_javascript(site: str, browser: Any) -> None:
    """A 100 KB traceback fits no address: the form POSTs it (#33: without JavaScript the GET form
    answered 414); a short query posted is sent on to its `/?q=` link, to share."""
    page, errors = watched(browser, 1400, js=False)
    page.goto(site + "/")
    frames = '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/x.py", line 9, in f\n    g()\n' * 1200
    page.locator("#q").fill("Traceback (most recent call last):\n" + frames + PTXAS)
    page.locator("#q").press("Enter")
    page.wait_for_load_state()
    assert page.url.rstrip("/") == site and "Fix that held" in page.locator("#results").inner_text()
    assert "was long" in page.locator("main").inner_text()
    page.locator("#q").fill("Unsupported .version 9.2")
    page.locator("#q").press("Enter")
    page.wait_for_url("**/?q=Unsupported**")
    assert page.locator(".group").count() >= 1 and errors == []


def test_dark_mode_and_unknown_routes(site: str, browser: Any) -> None:
    page, errors = watched(browser, 1400)
    page.emulate_media(color_scheme="dark")
    page.goto(site + "/sessions")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg != "rgb(246, 247, 249)"
    snap(page, "sessions-dark")
    r = page.goto(site + "/nope")
    assert r is not None and r.status == 404 and page.locator("a[href='/']").count() >= 1
    assert errors == [] or all("404" in e for e in errors)
