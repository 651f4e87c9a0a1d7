"""HTML safety of the markdown outputs: transcript text never reaches a markdown report (or
`explain`) as live HTML, in any section; inside code spans and fences it stays as it was."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from logsleuth.cli import main
from logsleuth.render import postmortem
from logsleuth.render.mdsafe import inert_html
from robustness_sessions import BACKTICKS, BREAKOUT, IMG, SCRIPT, SVG, hostile_session

COMMENT = "<!-- PWNED-comment"
DETAILS = "</details><details open><summary>PWNED-details</summary>"
FENCE = "```\n<script>document.title='PWNED-fence-line'</script>"
P = f"{SCRIPT} {IMG} {COMMENT} --> {DETAILS} {BACKTICKS} {SVG} {BREAKOUT}"
# what markdown itself produces; anything else was injected
MARKDOWN_TAGS = {"h1", "h2", "h3", "p", "pre", "code", "ul", "ol", "li", "blockquote", "strong", "em",
                 "table", "thead", "tbody", "tr", "th", "td", "a", "img", "hr", "br"}


class _Live(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MARKDOWN_TAGS or any(a.startswith("on") for a, _ in attrs):
            self.found.append(f"<{tag} {attrs}>")

    def handle_endtag(self, tag: str) -> None:
        if tag not in MARKDOWN_TAGS:
            self.found.append(f"</{tag}>")

    def handle_comment(self, data: str) -> None:
        self.found.append(f"<!--{data[:20]}")


def live_html(markdown: str) -> list[str]:
    """The injected elements and comments of `markdown` rendered by a CommonMark renderer that
    passes raw HTML through (as GitHub, VS Code and most viewers do, before any sanitiser)."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    parser = _Live()
    parser.feed(html)
    return parser.found


# -- the escaping itself -------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("a <script>x</script> b", "a \\<script>x\\</script> b"),
    ("> quoted <!-- hidden -->", "> quoted \\<!-- hidden -->"),
    ("</details>", "\\</details>"),
    ("x\n\n<div>\nblock\n</div>", "x\n\n\\<div>\nblock\n\\</div>"),
    ("| a |\n|---|\n| <img src=x onerror=y> |", "| a |\n|---|\n| \\<img src=x onerror=y> |"),
    # a code span opened on the line before pairs with the first backtick here: <script> is outside
    ("a `b\nc` <script> `d`", "a `b\nc` \\<script> `d`"),
])
def test_raw_html_is_escaped(text: str, expected: str) -> None:
    assert live_html(text), "the case must be live HTML to begin with"
    assert inert_html(text) == expected
    assert not live_html(inert_html(text))


@pytest.mark.parametrize("text", [
    "```\n<script>x</script>\n```",  # a fence: shown as written
    "run `grep '<b>' x.html`",  # a code span alone on its line
    "x < 5, a<b, 1 <= 2",  # comparisons are no tags
    "no markup at all",
])
def test_inert_text_is_left_as_is(text: str) -> None:
    assert inert_html(text) == text


def test_a_line_that_closes_the_fence_it_was_put_in_is_escaped_after_it() -> None:
    md = "```\n" + FENCE + "\n```\n"
    assert live_html(md)
    out = inert_html(md)
    assert not live_html(out)
    assert "\\<script>document.title='PWNED-fence-line'\\</script>" in out


# -- every section of the postmortem -------------------------------------------------------------------


def _everywhere(real: Any, seq: int) -> Any:
    """The real report (whatever fields it grows) with the payloads in every text every section shows."""
    from dataclasses import replace

    from logsleuth import facts as F
    from logsleuth.render import report as R
    from logsleuth.render.compose import fold_road

    q = (P, FENCE)
    path = R.TrapPath(P, P, seq, (P,), P)
    road = (R.Step("f1", P, "x", seq, P, q, P, R.Cited(P, seq), (R.Attempt(P, seq),), (R.Cited(P, seq),),
                   R.Command(FENCE, seq, "bash"), 3, R.Fix(P, seq, seq, True)),)
    groups, hidden = fold_road(road)
    machine = F.Machine((F.Gpu(P, 2, seq),), F.Cited(P, seq), F.Cited(P, seq), None, (F.Host(P, seq),))
    intro = replace(real.intro, goal=(F.Cited(P, seq), F.Cited(P, seq)), machine=machine,
                    stack=(F.PackageVersion(P, P, seq, "shown"),), format=P, session=P, events=3, messages=2,
                    duration=P, coverage=(P,), failures=2)
    return replace(
        real, title=P, intro=intro, outcome="resolved", road=road, road_groups=groups, road_hidden=hidden,
        success=R.Success(seq, q, P),
        catch22=(R.Trap(P, True, "", (path, path), (R.Cited(P, seq),), ()),),
        diagnosis=R.Diagnosis((R.Quote(P, seq, "diagnosis"),), (R.Check(P, seq, (P, P), seq),),
                              (R.Pivot(P, (P,), seq, R.Cited(P, seq), P),)),
        assumptions=(R.Assumption(P, seq, P, P, seq),),
        knowledge=R.Knowledge((R.Required(P, P, seq),), (R.Cited(P, seq),), (R.Established(P, seq, seq),)),
        root_cause=R.RootCause(P, seq, P, True),
        resolution=(R.Change(P, seq, P),),
        recipe=(P, FENCE),
        unresolved=(R.Unresolved(P, seq, 2),),
        mermaid=FENCE,
        timeline=(R.TimelineRow(seq, "failure", P, "10:00"),),
        appendix=(R.FindingRow(seq, P, 1, P, P, "error", P),),
        unclassified=(R.Unclassified(P, 2, 1),),
        record="transcript",
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_session(tmp_path_factory.mktemp("md") / "session.jsonl")


def _render_everywhere(session: Path, monkeypatch: pytest.MonkeyPatch, escape: bool = True) -> str:
    from logsleuth.analysis import analyze

    real = postmortem.build_report
    # the real report (whatever fields the templates grow) with payloads in every section
    monkeypatch.setattr(postmortem, "build_report", lambda an: _everywhere(real(an), 3))
    if not escape:
        monkeypatch.setattr(postmortem, "inert_html", lambda text: text)
    return postmortem.render_markdown(analyze(str(session)), redact=False)


def _sections(md: str) -> dict[str, str]:
    parts = re.split(r"^(#{1,2} .*)$", md, flags=re.M)
    return {parts[i].strip(): parts[i] + parts[i + 1] for i in range(1, len(parts) - 1, 2)}


EXPECTED_SECTIONS = ("## Introduction", "## The road", "## The catch-22", "## The diagnostic process",
                     "## Assumptions", "## Knowledge required", "## Root cause", "## The chain as a diagram",
                     "## Timeline", "## Appendix: findings")


def test_every_section_holds_the_payloads_unescaped_without_the_pass(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the checks below can fail
    sections = _sections(_render_everywhere(session, monkeypatch, escape=False))
    for name in EXPECTED_SECTIONS:
        heading = next(h for h in sections if h.startswith(name))
        if name != "## The chain as a diagram":  # the mermaid block is a fence: inert even raw, but for FENCE
            assert live_html(sections[heading]), f"{heading}: the payloads did not reach it"


def test_no_section_of_the_postmortem_holds_live_html(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    md = _render_everywhere(session, monkeypatch)
    # read as a whole, as a viewer does (a quoted ``` line may turn what follows into code)
    assert not live_html(md)
    sections = _sections(md)
    for name in EXPECTED_SECTIONS:
        heading = next(h for h in sections if h.startswith(name))
        assert "PWNED" in sections[heading], f"{heading}: the payload text is gone"  # shown as text, not dropped


def test_code_spans_and_fences_keep_what_they_quote(session: Path) -> None:
    # the real pipeline on the hostile session: quotes in fences as written, prose escaped
    out = session.parent / "report.md"
    assert main(["analyze", str(session), "-o", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert not live_html(md)
    fenced = re.findall(r"^```\n(.*?)^```$", md, flags=re.M | re.S)
    assert any("<script>document.title='PWNED-script'" in f for f in fenced), "a fenced quote was altered"
    assert "\\<script>document.title='PWNED-script'" in md  # the same text in prose, escaped
    table = md[md.index("## Appendix: findings"):]
    assert "\\<script>" in table and "<script>" not in table.replace("\\<script>", "")


def test_explain_holds_no_live_html(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for seq in range(10):
        assert main(["explain", str(session), "-m", str(seq)]) == 0
        md = capsys.readouterr().out
        assert not live_html(md), f"message {seq}"
