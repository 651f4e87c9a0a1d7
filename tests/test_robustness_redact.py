"""Redaction end to end: a session with every kind of secret redact.py knows, rendered as markdown,
HTML and JSON (`analyze`) and as one message's story (`explain`): no secret, nor a telling fragment
of one, survives; the count is reported; hashes, versions and CUDA symbols stay."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from logsleuth.cli import main
from robustness_sessions import ENV_DUMP_SEQ, HOST_SECRETS, KEEP, SECRETS, secrets_session

OUTPUTS = ("md", "html", "json", "explain")
FRAGMENT = 10  # a run of this many characters of a secret's random body counts as a leak


def _render(session: Path, out_dir: Path, what: str, redact: bool) -> str:
    out = out_dir / f"{what}-{'redacted' if redact else 'plain'}.out"
    if what == "explain":
        argv = ["explain", str(session), "--message", str(ENV_DUMP_SEQ), "-o", str(out)]
    else:
        argv = ["analyze", str(session), "--output-format", what, "-o", str(out), "--redact-hosts"]
    if not redact:
        argv = [a for a in argv if a != "--redact-hosts"] + ["--no-redact"]
    assert main(argv) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], str]:
    base = tmp_path_factory.mktemp("redact")
    session = secrets_session(base / "session.jsonl")
    return {(w, r): _render(session, base, w, r) for w in OUTPUTS for r in (True, False)}


def planted(what: str) -> dict[str, str]:
    # explain has no --redact-hosts: host details are only masked on request
    return SECRETS if what == "explain" else {**SECRETS, **HOST_SECRETS}


def leaks(text: str, secrets: dict[str, str]) -> dict[str, str]:
    """kind -> the leaked secret or fragment of its random body."""
    found: dict[str, str] = {}
    for kind, value in secrets.items():
        if value in text:
            found[kind] = value
            continue
        body = value.replace("FAKE", "")
        for i in range(len(body) - FRAGMENT + 1):
            if body[i : i + FRAGMENT] in text:
                found[kind] = "…" + body[i : i + FRAGMENT] + "…"
                break
    return found


def test_every_kind_is_planted_where_an_output_shows_it(outputs: dict[tuple[str, bool], str]) -> None:
    # without redaction the secrets are really there: the checks below are not vacuous
    shown: set[str] = set()
    for what in OUTPUTS:
        shown |= set(leaks(outputs[(what, False)], planted(what)))
    assert shown == set(SECRETS) | set(HOST_SECRETS)


@pytest.mark.parametrize("what", OUTPUTS)
def test_no_secret_survives(outputs: dict[tuple[str, bool], str], what: str) -> None:
    text = outputs[(what, True)]
    assert leaks(text, planted(what)) == {}


@pytest.mark.parametrize("what", OUTPUTS)
def test_redactions_are_counted(outputs: dict[tuple[str, bool], str], what: str) -> None:
    text = outputs[(what, True)]
    shown = len(leaks(outputs[(what, False)], planted(what)))
    if what == "json":
        count = json.loads(text)["redactions"]
        assert json.loads(outputs[(what, False)])["redactions"] == 0
    else:
        m = re.search(r"(\d+) secrets? redacted", text)
        assert m, "the report does not say how many secrets it masked"
        count = int(m.group(1))
        assert not re.search(r"\d+ secrets? redacted", outputs[(what, False)])
    assert count >= shown > 0
    assert "[REDACTED:" in text


@pytest.mark.parametrize("what", OUTPUTS)
def test_no_false_redaction(outputs: dict[tuple[str, bool], str], what: str) -> None:
    plain, masked = outputs[(what, False)], outputs[(what, True)]
    kept = [k for k in KEEP if k in plain]
    assert [k for k in kept if k not in masked] == []
    if what == "json":  # the JSON carries every finding: most of the look-alikes are in it
        assert len(kept) >= 6, kept
