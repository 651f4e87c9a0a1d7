"""Is a match error *output*, or error text that is only quoted?

Documentation prose quotes errors in inline code (`RTX 3090 ... is not compatible`), source code
defines error strings (raise RuntimeError("CUDA error: ...")) and `grep` prints both with a
`path:line:` prefix. None of these is a failure that happened. Judged on the match's own line,
so a pasted error (a line that is only the error, even in backticks) still counts — except where
the lines around it make it documentation: a listing of error/status names (`ingest/listing.py`),
a markdown table, a markdown heading, a list item that only quotes the error in a doc page.
"""

from __future__ import annotations

import bisect
import functools
import re

from logsleuth.ingest.listing import in_listing

# `path/file.ext:12:` or `file.ext-12-` (grep -n / rg -n, context lines), not `file.c:12:5: error:`,
# nor tsc's default (pretty) `src/index.ts:2:15 - error TS2307: …`, nor Python's own `…/torch/cuda/__init__.py:88: UserWarning: …` (a warning as emitted). The name
# starts where a run of name characters starts (the look-behind): tried from every position of a
# run, the pattern was quadratic in a line's first whitespace-free run (80,000 characters: 17 s)
_GREP = re.compile(
    r"^\S*?(?<![\w.-])[\w.-]+\.(?:py|pyi|pyx|c|cc|cpp|cxx|cu|cuh|h|hh|hpp|rs|go|js|jsx|ts|tsx|mjs|java|kt|rb|ex|exs|"
    r"md|rst|txt|ya?ml|json|toml|cfg|ini|sh|cmake|j2|html)[:-]\d+[:-](?!\d+(?::| - (?:error|warning) ))(?!\s*(?:fatal error|error|warning|note)\b|\s*[A-Z]\w*(?:Warning|Error):)"
)
_BARE_GREP = re.compile(r"^\d+[:-]")
# a statement that builds an error string: raise/throw/return, assignment, a logging/format call,
# a C macro, a JSON/dict key
_CODE = re.compile(
    r"""^\s*(?:[-+]\s*)?(?:raise\b|throw\b|return\b|assert\b|yield\b|\#\s*define\b|"""
    r"""(?:const\s+|let\s+|var\s+|static\s+|final\s+)?[\w.\[\]]+\s*\+?=\s*(?:[frbu]{0,2}["']|[\w.]+\()|"""
    r"""[\w.]*(?:print|printf|fprintf|format|warn|warning|error|panic!|log\w*|TORCH_CHECK|AT_ERROR|"""
    r"""TORCH_WARN|C10_THROW_ERROR|RuntimeError|ValueError|Exception)\s*\(|"""
    r"""["'][^"']*["']\s*:)"""
)
# a structured error record's message field (torchelastic's error file, a JSON log line): the value is the
# exception as it was raised, output and not code that builds one
_RECORD_MESSAGE = re.compile(r'^\s*"(?:message|error|msg)"\s*:\s*"[A-Z]\w*(?:Error|Exception): ')
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
# a markdown table's delimiter row (`|---|:--:|`, or `-- | --` as a rendered table is copied back from GitHub)
_STATUS_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # CUBLAS_STATUS_EXECUTION_FAILED, CUDA_ERROR_X
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-{2,}:?\s*+(?:\|\s*+:?-{2,}:?\s*+)+\|?\s*$")
# a markdown heading (`## CUDA error: an illegal memory access was encountered` names a doc section)
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")
# a list item whose content is one inline code span (`1. `NVIDIA … is not compatible …``), or an rst role
# (`-  :ref:`Error Message "…" Displayed in Logs <…>``)
_CODE_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?::[\w:]+:)?`[^`]+`[.:,;]?[ \t]*$")
_RST_ROLE_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+:[\w:]+:`")
# markdown around a list item that makes the event a page: a link, a heading, a nested list item
_DOC_MARKUP = re.compile(r"\[[^\]\n]+\]\([^)\s]+\)|^#{1,6}[ \t]+\S|^[ \t]+(?:[-*+]|\d{1,3}[.)])[ \t]+\S", re.M)
LISTING_REACH = 24  # lines either side of a match that `in_listing` looks at
PROSE_WORDS = 4  # words outside inline code that make a line prose rather than a pasted error


def _line_of(text: str, pos: int, end: int) -> tuple[str, int, int]:
    start = text.rfind("\n", 0, pos) + 1
    stop = text.find("\n", pos)
    stop = len(text) if stop < 0 else stop
    return text[start:stop], pos - start, min(end, stop) - start


def in_prose_code_span(line: str, pos: int, end: int) -> bool:
    """The match sits inside `inline code` on a line that is mostly prose."""
    if line.count("`", 0, pos) % 2 == 0 or "`" not in line[end:]:
        return False
    outside = re.sub(r"`[^`]*`", " ", line)
    return len(_WORD.findall(outside)) >= PROSE_WORDS


def in_markdown_table(text: str, pos: int) -> bool:
    """The match sits in a cell of a markdown table (documentation listing error codes).

    A row alone is not enough (loguru's `time | LEVEL | msg` and nvidia-smi's boxes have pipes too): the block of
    adjacent lines holding `|` must include a delimiter row.
    """
    starts, in_table = _table_rows(text)
    return in_table[bisect.bisect_right(starts, pos) - 1]


@functools.lru_cache(maxsize=4)
def _table_rows(text: str) -> tuple[list[int], list[bool]]:
    """(offset of each line, whether the line is in a markdown table) of a text, made once per
    text: asked per match, a split of the whole text made one long tool output with many
    matches quadratic."""
    lines = text.split("\n")
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    in_table = [False] * len(lines)
    i = 0
    while i < len(lines):  # each block of adjacent lines holding `|`, once
        if "|" not in lines[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and "|" in lines[j + 1]:
            j += 1
        if any(_TABLE_RULE.match(lines[k]) for k in range(i, j + 1)):
            in_table[i : j + 1] = [True] * (j + 1 - i)
        i = j + 1
    return starts, in_table


def is_table_cell(line: str, pos: int, end: int) -> bool:
    """The match is a whole cell of a table row (`CUBLAS_STATUS_X | The GPU program failed …`, `| `code` | … |`).

    Readers split a row from its delimiter row, so the row is judged on its own line: the match must fill a cell,
    and either the row is a pipe table (`| … |`) or the cell is a bare status name (a copied rendered table drops
    the outer pipes). Output with pipes (`Tests  1 failed | 1 passed`, loguru's `| ERROR |`) is neither.
    """
    before, after = line[:pos].rstrip(" \t`"), line[end:].lstrip(" \t`")
    if not after.startswith("|") or not (before.lstrip() in ("", "|") or before.endswith("|")):
        return False
    row = line.strip()
    return (row.startswith("|") and row.endswith("|")) or bool(_STATUS_NAME.fullmatch(line[pos:end]))


def in_string_literal(line: str, pos: int) -> bool:
    """The match is inside a quoted string of a line that is code building an error message."""
    before = line[:pos]
    opened = any(before.count(q) % 2 == 1 for q in ('"', "'"))
    return opened and bool(_CODE.match(line)) and not _RECORD_MESSAGE.match(line)


def lines_around(text: str, pos: int, reach: int) -> tuple[list[str], int]:
    """Up to `reach` lines either side of the line holding `pos`, and that line's index among them."""
    start = text.rfind("\n", 0, pos) + 1
    lo = start
    for _ in range(reach):
        if lo == 0:
            break
        lo = text.rfind("\n", 0, lo - 1) + 1
    hi = pos
    for _ in range(reach + 1):
        nl = text.find("\n", hi)
        if nl < 0:
            hi = len(text)
            break
        hi = nl + 1
    return text[lo:hi].split("\n"), text.count("\n", lo, start)


def in_doc_listing(text: str, pos: int) -> bool:
    """The match sits in a documentation listing of error/status names (see `ingest/listing.py`)."""
    lines, row = lines_around(text, pos, LISTING_REACH)
    return in_listing(lines, row)


def is_doc_item(text: str, line: str) -> bool:
    """The line is a heading, or a list item that only quotes (inline code) in a page with markdown around it."""
    if _HEADING.match(line):
        return True
    if not _CODE_ITEM.match(line):
        return False
    return bool(_RST_ROLE_ITEM.match(line)) or _doc_markup(text) > (1 if _DOC_MARKUP.match(line) else 0)


@functools.lru_cache(maxsize=4)
def _doc_markup(text: str) -> int:
    """How much page markup a text holds (counted once per text, not per match)."""
    return len(_DOC_MARKUP.findall(text))


def is_quoted(text: str, pos: int, end: int) -> bool:
    """True when the match at text[pos:end] is quoted (docs, code, grep hits), not emitted."""
    line, lpos, lend = _line_of(text, pos, end)
    if _GREP.match(line) and lpos > 0:
        return True
    bare = _BARE_GREP.match(line)  # `grep -n` over one file prints `628:` alone before the line
    if bare and lpos >= bare.end() and in_string_literal(line[bare.end():], lpos - bare.end()):
        return True
    if in_markdown_table(text, pos) or is_table_cell(line, lpos, lend):
        return True
    if is_doc_item(text, line) or in_doc_listing(text, pos):
        return True
    return in_prose_code_span(line, lpos, lend) or in_string_literal(line, lpos)
