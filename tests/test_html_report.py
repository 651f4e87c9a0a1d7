"""The HTML report as a tool: the chain as a graph with labelled edges and a legend, references that
link to an embedded transcript, every markdown section, dark/print styles; and the mermaid diagram
folded within mermaid's limits, escaped as mermaid expects, and parsed by mermaid itself.

The browser checks run one headless Chromium (tests/browser/driver.mjs, over the DevTools protocol)
for every page and diagram; they skip when chromium, node or npm (or the npm registry) are absent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from logsleuth.analysis import analyze
from logsleuth.model import GraphNode
from logsleuth.render import graph as graph_render
from logsleuth.render.postmortem import render_html, render_markdown

ROOT = Path(__file__).resolve().parent.parent
BROWSER = Path(__file__).resolve().parent / "browser"
SESSION = ROOT / "sample_logs" / "sglang-sm120" / "session.jsonl"
LOG = ROOT / "sample_logs" / "sglang-sm120" / "server.log"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def session_an() -> Any:
    return analyze(str(SESSION))


def crash_loop(an: Any, n: int = 600) -> Any:
    """The session's graph with its first failure coming back `n` times, one restart between each."""
    g = an.graph
    f1 = g.chain[0]
    extra = tuple(GraphNode(f"r{i}", "action", 1000 + i, f"restart server <{i}>") for i in range(n))
    chain = tuple(x for i in range(n) for x in (f1, f"r{i}"))
    return dataclasses.replace(g, nodes=g.nodes + extra, chain=chain)


def test_mermaid_folds_a_crash_loop_under_the_edge_limit(session_an: Any) -> None:
    text = graph_render.to_mermaid(crash_loop(session_an), session_an.category_title)
    edges = [ln for ln in text.splitlines() if "-->" in ln or "-.->" in ln]
    assert len(edges) < 500, len(edges)
    assert "more steps not drawn" in text
    first = next(ln for ln in text.splitlines() if ln.strip().startswith(session_an.graph.chain[0] + "["))
    assert "×600" in first  # one node, with its count and first/last positions


def test_mermaid_escapes_as_mermaid_expects(session_an: Any) -> None:
    text = graph_render.to_mermaid(session_an.graph, session_an.category_title)
    assert "‹" not in text and "›" not in text
    assert "nvidia-cuda-nvcc#lt;13.1" in text
    assert graph_render.mermaid_text('a "b" <c> #d `e`') == "a #quot;b#quot; #lt;c#gt; #35;d #96;e#96;"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, session_an: Any) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("html")
    out = {"session": base / "session.html", "log": base / "log.html"}
    out["session"].write_text(render_html(session_an), encoding="utf-8")
    out["log"].write_text(render_html(analyze(str(LOG))), encoding="utf-8")
    return out


def test_html_carries_every_markdown_section(reports: dict[str, Path], session_an: Any) -> None:
    html = reports["session"].read_text(encoding="utf-8")
    md = render_markdown(session_an)
    for phrase in ("(the trap)", "Why, in its words", "cured the first failure and revealed the second",
                   "Still unresolved", "What it checked before changing course", "Knowledge required and created"):
        assert (phrase in md) == (phrase in html), phrase
    assert re.findall(r"seen \d+ times", md) == re.findall(r"seen \d+ times", html)  # unresolved counts
    # one self-contained file: no script, nothing fetched
    assert "<script" not in html and not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)
    assert "prefers-color-scheme: dark" in html and "@media print" in html and "pre-wrap" in html


def test_html_chain_is_a_graph_with_labelled_edges(reports: dict[str, Path]) -> None:
    html = reports["session"].read_text(encoding="utf-8")
    svg = re.search(r"<svg.*?</svg>", html, re.S)
    assert svg is not None
    labels = re.findall(r'<text class="elabel"[^>]*>([^<]*)</text>', svg.group(0))
    assert "revealed" in labels and any(x.startswith("catch-22 on ") for x in labels)
    assert 'class="edge e-catch22"' in svg.group(0)
    assert 'class="legend"' in html and "did not fix it" in html


def test_references_link_to_the_embedded_transcript(reports: dict[str, Path]) -> None:
    html = reports["session"].read_text(encoding="utf-8")
    targets = set(re.findall(r'<a class="ref" href="#(msg-\d+)">\[msg \d+\]</a>', html))
    ids = set(re.findall(r'<div class="ev [^"]*" id="(msg-\d+)">', html))
    assert targets and targets <= ids
    assert re.search(r'<div class="ev tool tool_result err" id="msg-16">', html)  # errors highlighted
    log = reports["log"].read_text(encoding="utf-8")
    assert re.search(r'<a class="ref" href="#line-\d+">\[line \d+\]</a>', log) and "[msg " not in log


def test_transcript_entries_are_masked(tmp_path: Path) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    lines = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", "sessionId": "s",
         "message": {"role": "user", "content": f"use token {secret} and start the server"}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    html = render_html(analyze(str(path)))
    assert 'id="msg-0"' in html and secret not in html


# -- headless Chromium ---------------------------------------------------------------------------


def _mermaid_js() -> Path | None:
    """mermaid from the npm registry, installed once into a cache folder keyed by package.json."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    spec = (BROWSER / "package.json").read_bytes()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "logsleuth-tests"
    where = cache / f"npm-{hashlib.sha256(spec).hexdigest()[:12]}"
    js = where / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
    if not js.is_file():
        where.mkdir(parents=True, exist_ok=True)
        (where / "package.json").write_bytes(spec)
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev"],
                              cwd=where, capture_output=True, text=True, timeout=240)
        if proc.returncode != 0 or not js.is_file():
            return None
    return js


@pytest.fixture(scope="module")
def browser(reports: dict[str, Path], session_an: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = shutil.which("node")
    if not CHROMIUM.exists() or node is None:
        pytest.skip("headless chromium or node is not installed")
    base = tmp_path_factory.mktemp("browser")
    shots = Path(os.environ.get("LOGSLEUTH_SCREENSHOTS", base))
    shots.mkdir(parents=True, exist_ok=True)
    mermaid = _mermaid_js()
    diagrams = [graph_render.to_mermaid(session_an.graph, session_an.category_title),
                graph_render.to_mermaid(crash_loop(session_an), session_an.category_title)]
    jobs = {"chromium": str(CHROMIUM), "mermaid": str(mermaid) if mermaid else None, "diagrams": diagrams,
            "reports": [{"html": str(p), "shots": str(shots), "name": k} for k, p in sorted(reports.items())]}
    (base / "jobs.json").write_text(json.dumps(jobs))
    proc = subprocess.run([node, "--experimental-websocket", str(BROWSER / "driver.mjs"), str(base / "jobs.json"),
                           str(base / "results.json")], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(json.loads((base / "results.json").read_text()), mermaid=mermaid)


@pytest.mark.chromium
def test_mermaid_itself_accepts_the_diagrams(browser: dict[str, Any]) -> None:
    if browser["mermaid"] is None:
        pytest.skip("the mermaid npm package could not be installed (npm registry unreachable)")
    normal, loop = browser["diagrams"]
    assert normal["ok"], normal["error"]
    assert loop["ok"], loop["error"]  # 600 repeats, folded: under the 500-edge and text-size limits
    assert any("nvidia-cuda-nvcc<13.1" in label for label in normal["labels"]), normal["labels"]


@pytest.mark.chromium
@pytest.mark.parametrize("name", ["session", "log"])
def test_clicking_a_reference_lands_on_the_message(browser: dict[str, Any], name: str) -> None:
    page = next(r for r in browser["reports"] if r["name"] == name)
    assert page["link"] is not None
    after = page["after"]
    assert after["hash"] == page["link"]["href"] and after["found"]
    assert after["detailsOpen"], "the collapsed transcript opened on the jump"
    assert 0 <= after["top"] < after["height"] / 2, after  # scrolled to the entry
    assert after["text"].startswith("[msg " if name == "session" else "[line ")
    assert page["layout"]["scrollWidth"] <= page["layout"]["clientWidth"] + 1, "something scrolls sideways"
    assert page["darkBackground"] != "rgb(255, 255, 255)" and page["printTranscriptDisplay"] == "none"
    for shot in page["shots"]:
        assert Path(shot).stat().st_size > 5000


def test_markdown_folds_a_crash_loop_like_the_html(tmp_path: Path) -> None:
    """A server that crash-loops (the same failure after each restart) is one step with a count in
    the markdown road too, not one step per restart."""
    lines = LOG.read_text(encoding="utf-8").splitlines()[:60]
    oom = ["[2026-01-01 00:00:00] restarting the scheduler"] * 30 + [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.52 GiB"]
    loop = tmp_path / "loop.log"
    loop.write_text("\n".join((lines + oom) * 40) + "\n", encoding="utf-8")
    an = analyze(str(loop))
    md = render_markdown(an)
    road = md.split("## The road", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^### \d+\. ", road, re.M)
    assert len(steps) <= 3, road[:2000]
    assert re.search(r"came back \d+ more times", road), road[:2000]
    html = render_html(an)
    assert len(re.findall(r"<h3>\d+\. ", html.split('id="road"', 1)[1].split("</section>", 1)[0])) == len(steps)
