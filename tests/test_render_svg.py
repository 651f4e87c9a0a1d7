"""The chain drawing is made twice, for a wide screen and a narrow one (#33: at 420 px the one
820-px drawing scrolled inside its box, its lanes and their labels cut off). Each drawing's
content stays inside its own width; the report's stylesheet shows the one that fits."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from logsleuth.analysis import analyze
from logsleuth.render.svg import NARROW, WIDE, chain_svg

ROOT = Path(__file__).resolve().parent.parent
# rec-cuhist: a failure that came back (a lane on the right); the seed: a catch-22 (a lane on the left)
SESSIONS = [ROOT / "tests/real_sessions/rec-cuhist/session.jsonl", ROOT / "sample_logs/sglang-sm120/session.jsonl"]


def drawings(path: Path) -> dict[str, str]:
    an = analyze(str(path))
    svg = chain_svg(an.graph, an.category_title)
    return {m.group(1): m.group(0) for m in re.finditer(r'<svg [^>]*class="chain (\w+)".*?</svg>', svg, re.S)}


def xs(svg: str) -> list[float]:
    """Every x the drawing puts something at (attributes, path points, translations)."""
    svg = re.sub(r"<defs>.*?</defs>", "", svg, flags=re.S)
    out = [float(v) for v in re.findall(r'\b(?:x|x1|x2)="(-?\d+)"', svg)]
    out += [float(v) for v in re.findall(r'translate\((-?\d+) ', svg)]
    for d in re.findall(r' d="M ([^"]+)"', svg):
        toks = d.replace("M", " ").split()
        out += [float(toks[0])] + [float(toks[i + 1]) for i, t in enumerate(toks) if t == "H"]
    return out


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name)
def test_two_drawings_each_inside_its_width(path: Path) -> None:
    d = drawings(path)
    assert set(d) == {"wide", "narrow"}
    for lay in (WIDE, NARROW):
        svg = d[lay.name]
        assert f'width="{lay.width}"' in svg
        points = xs(svg)
        assert min(points) >= 8 and max(points) <= lay.width - 14, (lay.name, min(points), max(points))
        # each drawing's arrows use its own markers: a hidden drawing's markers draw nothing
        used = set(re.findall(r"url\(#([\w-]+)\)", svg))
        assert used and used <= set(re.findall(r'<marker id="([\w-]+)"', svg))
    assert not set(re.findall(r'<marker id="([\w-]+)"', d["wide"])) & set(re.findall(r'<marker id="([\w-]+)"', d["narrow"]))
    # the narrow drawing writes a back edge's label along its lane, not beside it
    if '<g class="edge e-recurred"><path' in d["narrow"]:
        assert re.search(r'rotate\(90\)" text-anchor="middle">recurred<', d["narrow"])


def test_narrow_boxes_wrap_shorter() -> None:
    d = drawings(SESSIONS[1])
    texts = re.findall(r'<text x="\d+" y="\d+" text-anchor="middle">([^<]*)</text>', d["narrow"])
    assert texts and max(len(html.unescape(t)) for t in texts) <= NARROW.wrap
