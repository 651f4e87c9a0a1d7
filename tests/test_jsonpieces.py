"""ingest/jsonpieces.py: a pretty-printed document parsed element by element gives exactly what
`orjson.loads` gives, or None (and the reader parses the whole) — never something else."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth import ingest
from logsleuth.ingest import jsonpieces

FIX = Path(__file__).resolve().parent / "fixtures" / "ingest" / "opencode"


def _export(messages: list[object], **extra: object) -> bytes:
    doc = {"info": {"id": "ses_1", "title": "t"}, "messages": messages, **extra}
    return json.dumps(doc, indent=2).encode()


def _msg(i: int, text: str = "hello") -> dict[str, object]:
    return {"info": {"id": f"msg_{i}", "role": "assistant"}, "parts": [{"id": f"prt_{i}", "type": "text", "text": text}]}


def test_the_fixture_export_parses_in_pieces_as_a_whole() -> None:
    raw = (FIX / "export.json").read_bytes()
    doc = jsonpieces.parse(raw, "messages")
    assert doc is not None and doc == orjson.loads(raw) and len(doc["messages"]) > 3


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps({"info": {}, "messages": [_msg(1), _msg(2)]}).encode(),  # minified
        json.dumps({"info": {}, "messages": [_msg(1)]}, indent=4).encode(),  # other indentation
        _export([_msg(1), "a string", _msg(2)]),  # an element that is not an object
        _export([_msg(1), {}, _msg(2)]),  # an empty object opens and closes on one line
        _export([]),  # nothing to split
        _export([_msg(1)]).replace(b'"parts"', b'"parts" x', 1),  # malformed inside an element
        _export([_msg(1), _msg(2)]).replace(b"    },\n    {", b"    }\n    {", 1),  # a comma missing
        _export([_msg(1), _msg(2)]).replace(b"    }\n  ]", b"    },\n  ]", 1),  # a trailing comma
        _export([_msg(1)])[:-3],  # truncated
        _export([_msg(1)]) + b"\n{}",  # trailing garbage
        _export([_msg(1)])[:-2] + b',\n  "messages": [\n    {\n      "a": 1\n    }\n  ]\n}',  # the key twice
    ],
    ids=["minified", "indent4", "non-object", "empty-object", "empty", "malformed", "no-comma",
         "trailing-comma", "truncated", "garbage", "duplicate-key"],
)
def test_other_shapes_are_left_to_the_whole_parse(raw: bytes) -> None:
    assert jsonpieces.parse(raw, "messages") is None


def test_line_endings_and_escaped_structure_in_strings() -> None:
    tricky = 'a\n    {\n  ]\n  "messages": [\n"}'  # escaped in JSON: never a raw line
    raw = _export([_msg(1, tricky), _msg(2), _msg(3, "\\")])
    for data in (raw, raw.replace(b"\n", b"\r\n")):
        doc = jsonpieces.parse(data, "messages")
        assert doc is not None and doc == orjson.loads(data)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    messages=st.lists(st.dictionaries(_text, _json, min_size=1, max_size=4), max_size=6),
    info=st.dictionaries(_text, _json, max_size=3),
    ascii_only=st.booleans(),
)
def test_any_pretty_printed_document_gives_what_orjson_gives(messages, info, ascii_only) -> None:  # type: ignore[no-untyped-def]
    raw = json.dumps({"info": info, "messages": messages}, indent=2, ensure_ascii=ascii_only).encode()
    got = jsonpieces.parse(raw, "messages")
    assert got == orjson.loads(raw) if messages else got is None


@settings(max_examples=200, deadline=None)
@given(pos=st.integers(0, 10**6), byte=st.integers(0, 255))
def test_a_corrupted_byte_never_gives_another_document(pos: int, byte: int) -> None:
    raw = bytearray(_export([_msg(1, "x" * 20), _msg(2, "ptxas fatal"), _msg(3)]))
    raw[pos % len(raw)] = byte
    data = bytes(raw)
    got = jsonpieces.parse(data, "messages")
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        assert got is None
        return
    assert got is None or got == whole


def test_the_reader_gives_the_same_events_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "export.json"
    path.write_bytes((FIX / "export.json").read_bytes())
    pieces = ingest.read(str(path))
    monkeypatch.setattr(jsonpieces, "parse", lambda *_a, **_k: None)
    whole = ingest.read(str(path))
    assert pieces.events.equals(whole.events) and pieces.events.height > 5
    assert pieces.report.to_dict() == whole.report.to_dict()
