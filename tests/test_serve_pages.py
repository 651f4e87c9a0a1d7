"""The team pages as a demanding user reads them (#33, re-verified on the shipped samples): an
attempt told as the change it made, not its sed regex; the same fix made in several sessions one
line; a session's failures of the chain apart from its other error lines; a session that has no
request says what it was about."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note that it prefers httpx2 to httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from index_sessions import LAUNCH, PTXAS, READY, claude_session, ptxas_fixed, write
from logsleuth.enums import ActionKind
from logsleuth.index import build as indexer
from logsleuth.index.record import StoredAction
from logsleuth.search.render import attempt_text
from logsleuth.serve.app import create_app

LOCAL = "http://127.0.0.1"
SED = "sed -i 's#\"/usr/local/cuda-13.1\"#\"/usr/local/cuda-13.0\"#' ptxpack.json"


def sed_tried(session: str) -> str:
    """ptxas fails; a sed edit does not cure it; a newer nvcc does."""
    return claude_session(session, "2026-01-20T09:00:00", [
        (LAUNCH, PTXAS, True),
        (SED, "", False),
        (LAUNCH, PTXAS, True),
        ('uv pip install "nvidia-cuda-nvcc-cu12>=12.9"', "Installed 1 package in 1s\n + nvidia-cuda-nvcc-cu12==12.9.86", False),
        (LAUNCH, READY, False),
    ])


def probe_then_ready(session: str) -> str:
    """A look that fails (a probe, not a failure of the chain), then the goal passes."""
    return claude_session(session, "2026-01-21T09:00:00", [
        ("ls /usr/local/cuda-13.1/bin/nvcc", "ls: cannot access '/usr/local/cuda-13.1/bin/nvcc': No such file or directory", True),
        (LAUNCH, PTXAS, True),
        ('uv pip install "nvidia-cuda-nvcc-cu12>=12.9"', "Installed 1 package in 1s\n + nvidia-cuda-nvcc-cu12==12.9.86", False),
        (LAUNCH, READY, False),
    ])


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    root = tmp_path_factory.mktemp("pages")
    write(root / "c" / "a.jsonl", ptxas_fixed("sess-a", "2026-01-10T09:00:00"))
    write(root / "c" / "b.jsonl", ptxas_fixed("sess-b", "2026-01-11T09:00:00"))
    write(root / "c" / "sed.jsonl", sed_tried("sess-sed"))
    write(root / "c" / "probe.jsonl", probe_then_ready("sess-probe"))
    assert indexer.build([str(root / "c")], root / "db", origin="ci").errors == []
    return TestClient(create_app(root / "db", reasoning=False), base_url=LOCAL)


def test_an_attempt_by_sed_is_told_as_the_change() -> None:
    a = StoredAction(command=SED, kind=ActionKind.FILE_EDIT, subject="ptxpack.json", value="sed", seq=3)
    assert attempt_text(a) == 'edited `ptxpack.json`: `"/usr/local/cuda-13.1"` → `"/usr/local/cuda-13.0"`'
    assert attempt_text(StoredAction(command="cp a b", kind=ActionKind.FILE_EDIT, subject="b")) is None
    assert attempt_text(StoredAction(command="pip install x", kind=ActionKind.INSTALL, subject="x")) is None


def test_search_tells_attempts_as_changes_and_the_same_fix_once(client: TestClient) -> None:
    html = client.get("/", params={"q": PTXAS}).text
    tried = re.search(r"Tried, did not fix it:(.*?)</div>", html, re.S)
    assert tried and "/usr/local/cuda-13.1" in tried.group(1) and "sed -i" not in tried.group(1)
    fixes = re.findall(r'<div class="fix held">(.*?)</div>', html, re.S)
    same = [f for f in fixes if "nvidia-cuda-nvcc-cu12" in f]
    assert len(same) == 1, same  # four sessions made it: one line, the others "also in"
    assert same[0].count("also in") == 3
    doc = client.get("/api/search", params={"q": PTXAS}).json()
    assert len({r["session"] for r in doc["results"]}) >= 4  # the API keeps every session's hit


def test_a_session_page_keeps_the_chain_apart_from_other_error_lines(client: TestClient) -> None:
    sessions = client.get("/api/sessions").json()["sessions"]
    s = next(x for x in sessions if x["session"] == "sess-probe")
    html = client.get("/session", params={"session": s["session"], "source": s["source"]}).text
    chain = re.search(r'<table class="responsive" id="failures">(.*?)</table>', html, re.S)
    assert chain and "ptxas" in chain.group(1) and "cannot access" not in chain.group(1)
    other = re.search(r'<details id="other-errors">.*?other error line.*?(<table.*?</table>)', html, re.S)
    assert other and "not a failure of the chain" in other.group(1)


def test_a_session_without_a_request_says_what_it_was_about(tmp_path: Path) -> None:
    write(tmp_path / "c" / "server.log", f"2026-01-01 10:00:00 start\n2026-01-01 10:00:05 {PTXAS}\n")
    assert indexer.build([str(tmp_path / "c")], tmp_path / "db", origin="ci").errors == []
    c = TestClient(create_app(tmp_path / "db", reasoning=False), base_url=LOCAL)
    html = c.get("/sessions").text
    row = re.search(r'<a href="/session\?session=server[^"]*">server</a>(.*?)</td>', html, re.S)
    assert row and 'class="muted"' in row.group(1) and "ptxas" in row.group(1).lower()
    s = next(x for x in c.get("/api/sessions").json()["sessions"] if x["session"] == "server")
    page = c.get("/session", params={"session": "server", "source": s["source"]}).text
    said = re.search(r'<p id="summary">(.*?)</p>', page, re.S)
    assert said and "[line " in said.group(1) and "[msg " not in said.group(1)  # a log's unit, as its table
