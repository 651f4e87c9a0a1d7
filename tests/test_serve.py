"""`logsleuth serve` over HTTP (Starlette's test client): pages, the JSON API, the token, escaping."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note that it prefers httpx2 to httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from index_sessions import NVRTC, PTXAS, other_ptxas, write
from logsleuth import jsonout
from logsleuth.index import build as indexer
from logsleuth.search import engine
from logsleuth.serve.app import create_app
from serve_helpers import SECRET, XSS, build_corpus, indexed_corpus

LOCAL = "http://127.0.0.1"  # a Host the guard answers to (TestClient's own is "testserver")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_corpus(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def client(db: Path) -> TestClient:
    return TestClient(create_app(db, reasoning=False), base_url=LOCAL)


def test_api_search_has_the_cli_shape(client: TestClient, db: Path) -> None:
    got = client.get("/api/search", params={"q": PTXAS}).json()
    assert got == json.loads(jsonout.dumps(engine.search(PTXAS, db=db).to_dict()))
    assert got["query"]["pattern"] and [r["session"] for r in got["results"]][:2] == ["sess-c22", "sess-ptxas"]
    assert client.get("/api/search").status_code == 400


def test_search_results_group_by_fingerprint_fix_that_held_first(client: TestClient) -> None:
    html = client.get("/search/results", params={"q": PTXAS}).text
    assert "seen 3 times in 2 sessions" in html
    held = html.index("Fix that held: <code>nvidia-cuda-nvcc-cu12</code> 12.9.86 installed")  # the verdict's change, not the command
    assert held < html.index("nvidia-cuda-nvcc-cu12&gt;=12.9") < html.index("nvidia-cuda-nvcc&lt;13.1")  # the catch-22's fix did not hold: after it
    assert "did not hold" in html and 'href="/session?session=sess-ptxas' in html


def test_sessions_api_and_filters(client: TestClient) -> None:
    rows = client.get("/api/sessions").json()["sessions"]
    assert sorted(r["session"] for r in rows) == ["sess-c22", "sess-hostile", "sess-nvrtc", "sess-ptxas"]
    assert set(rows[0]) >= {"session", "source", "format", "start", "failures", "outcome", "root_cause"}
    resolved = client.get("/api/sessions", params={"outcome": "resolved"}).json()["sessions"]
    assert resolved and all(r["outcome"] == "resolved" for r in resolved) and len(resolved) < len(rows)
    assert [r["session"] for r in client.get("/api/sessions", params={"text": "c22"}).json()["sessions"]] == ["sess-c22"]
    assert client.get("/api/sessions", params={"since": "2026-01-13", "until": "2026-01-31"}).json()["sessions"][0]["session"] == "sess-c22"
    cat = rows[0]["root_cause"]
    assert all(r["root_cause"] == cat for r in client.get("/api/sessions", params={"category": cat}).json()["sessions"])
    page = client.get("/sessions", params={"outcome": "unresolved"}).text
    assert "sess-c22" in page and "sess-ptxas" not in page


def test_session_and_fingerprint(client: TestClient) -> None:
    s = next(r for r in client.get("/api/sessions").json()["sessions"] if r["session"] == "sess-ptxas")
    doc = client.get("/api/session", params={"session": "sess-ptxas", "source": s["source"]}).json()
    assert doc["session"] == s and doc["origin"] == "ci" and doc["findings"]
    f = next(f for f in doc["findings"] if f["pattern"] == "ptxas-unsupported-ptx-version")
    fp = client.get(f"/api/fingerprint/{f['pattern']}/{f['fingerprint']}").json()
    assert fp["seen"] == 3 and fp["sessions"] == 2 and len(fp["occurrences"]) == 3
    assert fp["fixes"][0]["held"] is True and fp["fixes"][0]["session"] == "sess-ptxas"
    assert [x["held"] for x in fp["fixes"]][1:] == [False]
    page = client.get(f"/fp/{f['pattern']}/{f['fingerprint']}").text
    assert page.count('href="/session?session=') >= 3
    assert client.get("/api/session", params={"session": "nope", "source": "x"}).status_code == 404
    assert client.get("/fp/nope/nope").status_code == 404


def test_postmortem_page_links_messages(client: TestClient) -> None:
    s = next(r for r in client.get("/api/sessions").json()["sessions"] if r["session"] == "sess-ptxas")
    html = client.get("/session/report", params={"session": "sess-ptxas", "source": s["source"]}).text
    assert 'class="ref" href="#' in html and "[msg " in html


def test_nothing_from_a_transcript_unescaped_and_secrets_masked(client: TestClient) -> None:
    s = next(r for r in client.get("/api/sessions").json()["sessions"] if r["session"] == "sess-hostile")
    pages = [
        client.get("/search/results", params={"q": NVRTC}).text,
        client.get("/session", params={"session": "sess-hostile", "source": s["source"]}).text,
        client.get("/session/report", params={"session": "sess-hostile", "source": s["source"]}).text,
        client.get("/", params={"q": XSS}).text,
        client.get("/sessions", params={"text": XSS}).text,
    ]
    api = client.get("/api/session", params={"session": "sess-hostile", "source": s["source"]})
    assert api.headers["content-type"] == "application/json" and api.headers["x-content-type-options"] == "nosniff"
    assert "sess-hostile" in pages[0] and SECRET not in api.text
    for page in pages:
        assert "<script>alert" not in page and "<img src=x" not in page
        assert SECRET not in page
    assert "&lt;script&gt;alert" in pages[1]  # shown, escaped


def test_token_is_required_for_every_request(db: Path) -> None:
    c = TestClient(create_app(db, token="s3cret", reasoning=False), base_url=LOCAL)
    for path in ("/", "/api/search?q=x", "/api/sessions", "/sessions"):
        assert c.get(path).status_code == 401
        assert c.get(path, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/api/sessions", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    first = c.get("/sessions?token=s3cret", follow_redirects=False)  # a browser's first visit
    assert first.status_code == 303 and "token" not in first.headers["location"]
    assert c.get("/api/sessions").status_code == 200  # the cookie it set


def test_a_concurrent_index_run_is_seen_without_restart(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path / "corpus")
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, origin="ci")
    c = TestClient(create_app(db, reasoning=False), base_url=LOCAL)
    before = {r["session"] for r in c.get("/api/sessions").json()["sessions"]}
    assert "sess-other" not in before and len(c.get("/api/search", params={"q": PTXAS}).json()["results"]) == 2
    write(corpus / "other.jsonl", other_ptxas())
    indexer.build([str(corpus)], db, origin="ci")
    assert "sess-other" in {r["session"] for r in c.get("/api/sessions").json()["sessions"]}
    assert len(c.get("/api/search", params={"q": PTXAS}).json()["results"]) == 3


def test_serve_is_read_only(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path / "corpus")
    db = tmp_path / "db"
    indexer.build([str(corpus)], db, origin="ci")
    (db / "search.sqlite").unlink()
    before = sorted(p.name for p in db.rglob("*"))
    c = TestClient(create_app(db, reasoning=False), base_url=LOCAL)
    assert c.get("/api/search", params={"q": PTXAS}).status_code == 200
    assert sorted(p.name for p in db.rglob("*")) == before


def test_serve_masks_as_mask_tree_does_with_the_tests_it_kept() -> None:
    from logsleuth.render.masking import mask_tree
    from logsleuth.serve.data import masked

    trees = [
        {"a": "mysql -u root -pS3cretPassw0rd db", "b": ["later: S3cretPassw0rd was used", f"token={SECRET}"]},
        {"b": ["later: S3cretPassw0rd was used"], "c": f"again {SECRET}", "d": "nothing secret here"},
    ]
    for tree in trees + trees:  # the second time every string's test is kept
        assert masked(tree) == mask_tree(tree)
    assert SECRET not in str(masked(trees[1])) and "S3cretPassw0rd" not in str(masked(trees[0]))
