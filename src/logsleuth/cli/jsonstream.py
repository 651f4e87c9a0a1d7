"""A JSON document written piece by piece: its big arrays one element at a time.

`jsonout.dumps` of a whole document holds every element as a dict and the whole text at once
(`events -O json` of a 100 MB log: 5.8 GB). Here the document is dumped with each big array
standing in as `[0]`, cut at those stand-ins, and each element dumped on its own and indented as
orjson indents it there: the bytes are the same as one `jsonout.dumps(document)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

CHUNK = 4096  # elements dumped and written at a time


def chunks(head: dict[str, Any], arrays: dict[str, tuple[int, Iterable[Any]]]) -> Iterator[bytes]:
    """The indented document `head` with `arrays` (key -> (length, elements)) added at its top
    level, in that order, as byte chunks."""
    from logsleuth import jsonout

    doc = dict(head)
    for key, (n, _) in arrays.items():
        doc[key] = [0] if n else []
    pieces = jsonout.dumps(doc).split(b"\n    0\n")
    streamed = [(key, items) for key, (n, items) in arrays.items() if n]
    yield pieces[0] + (b"\n" if streamed else b"")
    for i, (_, items) in enumerate(streamed):
        buf: list[bytes] = []
        first = True
        for item in items:
            buf.append((b"    " if first else b",\n    ") + jsonout.dumps(item).replace(b"\n", b"\n    "))
            first = False
            if len(buf) >= CHUNK:
                yield b"".join(buf)
                buf = []
        yield b"".join(buf) + b"\n" + pieces[i + 1] + (b"\n" if i + 1 < len(streamed) else b"")


def lines(items: Iterable[Any]) -> Iterator[bytes]:
    """JSON lines, CHUNK at a time."""
    from logsleuth import jsonout

    buf: list[bytes] = []
    for item in items:
        buf.append(jsonout.dumps(item, indent=False) + b"\n")
        if len(buf) >= CHUNK:
            yield b"".join(buf)
            buf = []
    yield b"".join(buf)


def mapped(seq: Sequence[Any], fn: Callable[[int, Any], Any]) -> tuple[int, Iterator[Any]]:
    """(len, fn(i, x) for each x): an array made element by element as it is written."""
    return len(seq), (fn(i, x) for i, x in enumerate(seq))


def write(parts: Iterable[bytes]) -> None:
    """Write to stdout as the parts come, terminal controls stripped (as `emit` does), ending
    with one newline."""
    import sys

    from logsleuth.termsafe import inert

    out = sys.stdout.buffer
    last = b""
    for part in parts:
        if part:
            out.write(inert(part))
            last = part
    if not last.endswith(b"\n"):
        out.write(b"\n")
    out.flush()
