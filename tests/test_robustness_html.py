"""HTML safety: hostile log text renders inert in `analyze --output-format html`, checked statically
and in real headless Chromium (skipped when /usr/bin/chromium is absent)."""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from logsleuth.cli import main
from robustness_sessions import IMG, LINK, MD_LINK, SCRIPT, SVG, hostile_session

CHROMIUM = Path("/usr/bin/chromium")
# every element the report template and the chain SVG produce; anything else was injected
TEMPLATE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "section", "p", "span", "code",
    "figure", "svg", "defs", "marker", "path", "g", "rect", "text", "line", "div", "pre", "details",
    "summary", "ul", "li", "strong", "em", "blockquote", "table", "thead", "tbody", "tr", "th", "td",
    "a", "nav",  # reference links to the embedded transcript, the table of contents
}


class _Doc(HTMLParser):
    """Tags (with attributes), the title and the text content of an HTML document."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.title = ""
        self._in_title = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_title:
            self.title += data

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("html")
    session = hostile_session(base / "session.jsonl")
    out = base / "report.html"
    assert main(["analyze", str(session), "--output-format", "html", "-o", str(out)]) == 0
    return out


def assert_inert(doc: _Doc, where: str) -> None:
    tags = {t for t, _ in doc.tags}
    assert tags <= TEMPLATE_TAGS, f"{where}: injected elements {sorted(tags - TEMPLATE_TAGS)}"
    # the chain, drawn wide and narrow (render/svg.py): no third one from the payloads
    assert doc.count("svg") == 2 and doc.count("style") == 1 and doc.count("script") == 0, where
    for tag, attrs in doc.tags:
        events = [a for a in attrs if a.startswith("on")]
        assert not events, f"{where}: <{tag}> has event handler attributes {events}"
        for name in ("href", "src", "action", "formaction", "xlink:href"):
            value = (attrs.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "http:", "https:", "//")), f"{where}: <{tag} {name}={value}>"
        assert "data-pwned" not in attrs, f"{where}: a payload ran and marked <{tag}>"
    assert "PWNED" not in doc.title, f"{where}: a payload set the title to {doc.title!r}"
    # the payloads are still there, as text a reader can see
    for payload in (SCRIPT, IMG, MD_LINK, SVG, LINK):
        assert payload in doc.all_text, f"{where}: payload lost: {payload[:40]}"


def test_report_escapes_every_payload(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    doc = _Doc(html)
    assert_inert(doc, "report source")
    # nothing to fetch: the CSP forbids everything but inline styles and data: images
    csp = [a for t, a in doc.tags if t == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy"]
    assert csp and "default-src 'none'" in (csp[0].get("content") or "")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    # the stylesheet's own text (the embedded transcript may quote `url(https://…)` as inert text)
    style = "".join(re.findall(r"<style>(.*?)</style>", html, re.S))
    assert not re.search(r"url\(\s*['\"]?\s*(?:https?:)?//", style, re.I), "a stylesheet fetches something"
    assert "<script" not in html.lower()


# -- real Chromium -----------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="headless chromium is not installed")


def dump_dom(page: Path, profile: Path) -> str:
    proc = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<body" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chromium-profile")


@needs_chromium
@pytest.mark.chromium
def test_chromium_harness_detects_a_payload_that_runs(tmp_path: Path, profile: Path) -> None:
    # the control: the same payloads unescaped and without a CSP do run, so the checks below can fail
    page = tmp_path / "control.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>ok</title></head><body><p>{SCRIPT}{IMG}</p></body></html>")
    doc = _Doc(dump_dom(page, profile))
    assert doc.title.startswith("PWNED")
    assert any("data-pwned" in attrs for _, attrs in doc.tags)


@needs_chromium
@pytest.mark.chromium
@pytest.mark.parametrize("csp", [True, False], ids=["as-shipped", "without-csp"])
def test_chromium_runs_no_payload(report: Path, tmp_path: Path, profile: Path, csp: bool) -> None:
    html = report.read_text(encoding="utf-8")
    if not csp:  # escaping alone must make the payloads inert; the CSP is the second wall
        html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
        assert "Content-Security-Policy" not in html
    page = tmp_path / "page.html"
    page.write_text(html, encoding="utf-8")
    doc = _Doc(dump_dom(page, profile))
    assert_inert(doc, "chromium DOM")
    assert doc.title == _Doc(html).title


@needs_chromium
@pytest.mark.chromium
def test_chromium_renders_the_sections(report: Path, profile: Path) -> None:
    dom = dump_dom(report, profile)
    doc = _Doc(dom)
    assert doc.title.strip() and "PWNED" not in doc.title
    h1 = re.search(r'<h1 id="title">(.*?)</h1>', dom, re.S)
    assert h1 and h1.group(1).strip() == doc.title.strip()
    ids = {a.get("id") for t, a in doc.tags if t == "section"}
    assert {"introduction", "chain", "road", "resolution", "timeline", "findings"} <= ids
    chain = re.search(r'<section id="chain">(.*?)</section>', dom, re.S)
    assert chain and "<svg" in chain.group(1) and '<g class="node failure">' in chain.group(1)
    assert "No kernel image" in chain.group(1)
    recipe = re.search(r'<pre id="recipe">(.*?)</pre>', dom, re.S)
    assert recipe and "pip install vllm==0.11.0" in recipe.group(1)
