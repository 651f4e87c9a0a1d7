"""The markdown and HTML postmortems are two views of one report model, rendered from one list of
sections: every section of one is in the other (but those declared to belong to one medium), in
the same order, and the JSON document is the same model as data."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from logsleuth.analysis import analyze
from logsleuth.render import postmortem
from logsleuth.render.compose import build_report
from logsleuth.render.refs import citing
from logsleuth.render.report import STORY, Report
from logsleuth.render.sections import MEDIA, SECTIONS, sections_for

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "src" / "logsleuth" / "templates"
SAMPLES = ["sample_logs/sglang-sm120/session.jsonl", "sample_logs/sglang-sm120/server.log",
           "sample_logs/no-cuda/session.jsonl", "sample_logs/vllm-arch/vllm-serve.log"]


def test_every_section_has_a_template_per_medium_it_is_shown_in() -> None:
    ids = [s.id for s in SECTIONS]
    assert len(ids) == len(set(ids))
    for s in SECTIONS:
        for medium in MEDIA:
            exists = (TEMPLATES / s.template(medium)).is_file()
            assert exists == s.shown_in(medium), f"{s.template(medium)}: {'missing' if not exists else 'unused'}"
        assert bool(s.only) == bool(s.why_only), f"{s.id}: a one-medium section says why"
    assert {p.name for p in (TEMPLATES / "sections").iterdir()} == {
        s.template(m).removeprefix("sections/") for s in SECTIONS for m in MEDIA if s.shown_in(m)}


@pytest.fixture(scope="module", params=SAMPLES)
def rendered(request: pytest.FixtureRequest) -> tuple[str, str, Report]:
    import os

    os.chdir(ROOT)
    an = analyze(request.param)
    with citing(an):
        report = build_report(an)
    return postmortem.render_markdown(an), postmortem.render_html(an), report


def test_markdown_and_html_show_the_same_sections_in_the_same_order(rendered: tuple[str, str, Report]) -> None:
    md, html, report = rendered
    only = {s.heading(report) for s in SECTIONS if s.only}
    md_heads = [h for h in re.findall(r"^## (.+)$", md, flags=re.M) if h not in only]
    html_heads = [h for h in re.findall(r"<h2>(.+?)</h2>", html) if h not in only]
    assert md_heads == html_heads
    assert md_heads[0] == "Introduction" and "Appendix: findings" in md_heads
    # and exactly the sections the list says, with their anchors
    ids = re.findall(r'<section id="([^"]+)">', html)
    assert ids == [s.id for s in sections_for(report, "html")]


def test_a_section_is_shown_by_its_condition_in_both_media(rendered: tuple[str, str, Report]) -> None:
    md, html, report = rendered
    road = bool(report.road)
    assert ("## The road" in md) == road == ("<h2>The road</h2>" in html)
    assert ("## The catch-22" in md) == bool(report.catch22) == ('<section id="catch22">' in html)


def test_the_json_document_is_the_model_as_data(rendered: tuple[str, str, Report]) -> None:
    _, _, report = rendered
    doc = report.document()
    assert list(doc["story"]) == list(STORY)
    assert doc["title"] == report.title and doc["intro"]["failures"] == report.intro.failures
    assert [s["title"] for s in doc["story"]["road"]] == [s.title for s in report.road]


def test_no_renderer_reads_transcript_text_with_a_regex_of_its_own() -> None:
    # facts come from the library's fact patterns (logsleuth/facts.py); render/ may only use
    # regexes on its own output: escaping (mdsafe), links and code spans (postmortem), citations (refs)
    # masking.py: one regex to tell a PEM body row when masking a secret, not to read facts
    allowed = {"mdsafe.py", "postmortem.py", "refs.py", "masking.py"}
    users = set()
    for path in sorted((ROOT / "src" / "logsleuth" / "render").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n in ("re", "regex") for n in names):
                users.add(path.name)
    assert users <= allowed, users - allowed
