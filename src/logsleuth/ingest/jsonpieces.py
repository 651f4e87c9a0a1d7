"""A pretty-printed JSON document parsed one element of its big top-level array at a time.

`orjson.loads` of a whole 236 MB opencode export holds, at its peak, the bytes, the document it
returns (360 MB) and ~270 MB of its own working memory on top. Parsed element by element, that
working memory is one element's. This works on what `JSON.stringify(doc, null, 2)` writes (what
`opencode export` prints): the array opens on a line `  "key": [` and closes on a line `  ]`, and
each element that is an object opens on a line `    {`. A raw newline is never inside a JSON
string, so those lines are structure, not text.

Everything is checked: the document without the array's elements must parse and hold an empty
array under the key, every element must parse, and only whitespace and one comma may lie between
elements. Anything else (a minified document, other indentation, an element that is not an
object, a duplicate key, malformed JSON) gives None and the caller parses the whole document as
before, so the result is always the one `orjson.loads` gives.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_ELEMENT = re.compile(rb"\n    \{(?=\r?\n)")


def parse(raw: bytes, key: str) -> dict[str, Any] | None:
    """`orjson.loads(raw)` when it is an object whose `key` array can be parsed piece by piece,
    else None (not that shape, or not valid: the caller parses the whole)."""
    opener = re.compile(rb'\n  "' + re.escape(key.encode()) + rb'": \[(?=\r?\n)')
    m = opener.search(raw)
    if m is None:
        return None
    open_end = m.end()  # just past the "["
    close = re.compile(rb"\n  \]").search(raw, open_end)
    if close is None:
        return None
    close_at = close.start() + 1 + 2  # the "]"
    try:
        head = orjson.loads(raw[:open_end] + raw[close_at:])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(head, dict) or head.get(key) != []:
        return None
    starts = [e.start() + 1 for e in _ELEMENT.finditer(raw, open_end - 1, close_at)]
    view = memoryview(raw)
    items: list[Any] = []
    gap_start = open_end
    for i, start in enumerate(starts):
        if not _gap_ok(raw, gap_start, start, comma=i > 0):
            return None
        stop = starts[i + 1] if i + 1 < len(starts) else close.start()
        end = _element_end(raw, start, stop)
        try:
            items.append(orjson.loads(view[start:end]))
        except orjson.JSONDecodeError:
            return None
        gap_start = end
    if not _gap_ok(raw, gap_start, close_at, comma=False):
        return None
    head[key] = items
    return head


def _element_end(raw: bytes, start: int, stop: int) -> int:
    """End of the element in raw[start:stop]: before trailing whitespace and one comma."""
    end = stop
    while end > start and raw[end - 1] in b" \t\r\n":
        end -= 1
    if end > start and raw[end - 1] == ord(","):
        end -= 1
    return end


def _gap_ok(raw: bytes, start: int, stop: int, comma: bool) -> bool:
    """Between two elements: whitespace around one comma; before the first or after the last:
    whitespace only."""
    gap = raw[start:stop].strip(b" \t\r\n")
    return gap == (b"," if comma else b"")
