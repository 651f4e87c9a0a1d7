"""The API's parameters are checked (a bad one is a 400 naming it and what it takes), `limit` on
/api/sessions included: limit=abc answered 200 with every session."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from logsleuth.serve.app import create_app
from serve_helpers import indexed_corpus


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db: Path = indexed_corpus(tmp_path_factory.mktemp("params"))
    return TestClient(create_app(db, reasoning=False), base_url="http://127.0.0.1")


@pytest.mark.parametrize(("query", "name"), [
    ("limit=abc", "limit"), ("limit=0", "limit"), ("category=bogus", "category"), ("since=notadate", "since"),
    ("outcome=bogus", "outcome"), ("until=2026-13-01", "until"),
])
def test_a_bad_parameter_is_a_400_that_names_it(client: TestClient, query: str, name: str) -> None:
    r = client.get("/api/sessions?" + query)
    assert r.status_code == 400 and r.json()["parameter"] == name and r.json()["valid"]


def test_limit_cuts_the_sessions(client: TestClient) -> None:
    every = client.get("/api/sessions").json()["sessions"]
    assert len(every) >= 3
    two = client.get("/api/sessions?limit=2").json()["sessions"]
    assert two == every[:2]  # the newest two
