"""Output that cannot drive a terminal: transcripts carry escape sequences (a window title set by
OSC, a screen cleared by CSI, a carriage return that overwrites a line), and printing them raw lets
a log take over the user's terminal. Every command's output goes through `inert`: escape sequences
and control characters other than tab and newline are removed. JSON output never holds raw control
characters (they are escaped), so this changes nothing there; one linear regex pass.
"""

from __future__ import annotations

import re

# CSI (7-bit and the C1 byte U+009B), OSC / DCS / PM / APC strings (to their terminator, or the end
# of the text when unterminated), two-byte escapes, a lone ESC; C0 controls but \t \n, DEL, C1
# controls (U+0080-U+009F as UTF-8), and a carriage return not ending a line.
_CONTROL = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]?|\xc2\x9b[0-?]*[ -/]*[@-~]?"
    rb"|\x1b[\]P^_X][^\x07\x1b]*(?:\x07|\x1b\\)?|\xc2[\x9d\x90\x9e\x9f][^\x07\x1b]*(?:\x07|\x1b\\)?"
    rb"|\x1b[ -~]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|\xc2[\x80-\x9f]"
)


def inert(data: bytes) -> bytes:
    """`data` without terminal control sequences (UTF-8 text; tab, newline and CRLF kept)."""
    return _CONTROL.sub(b"", data)


def inert_text(text: str) -> str:
    return inert(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")


def say(line: str) -> None:
    """One line on stderr (a warning, an error, a note), inert and on one line: file names and
    session ids in it come from the input, and may hold escapes or newlines."""
    import sys

    sys.stderr.write(inert_text(line).replace("\r", "").replace("\n", " ") + "\n")
