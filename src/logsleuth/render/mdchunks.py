"""Where a markdown document holds raw HTML, found piece by piece: the same lines as one parse.

markdown-it keeps a token object per block, table cell and inline span of the whole document
(~350 bytes each): a report of a 100 MB error-dense log (a 200k-row findings table) made ~3.4M
of them, 1.7 GB. Here the document is parsed in pieces that parse alone exactly as they do in
the whole, and each piece's tokens are dropped once read:

- a piece ends before an ATX heading at column 0 that follows a blank line: nothing open at the
  top level runs on into it, except a fenced code block or an HTML block left open (a block
  whose tokens reach into the piece's trailing blank lines): then the piece takes the next one;
- a long table is cut every `rows` rows, each slice parsed under the table's own header and
  delimiter lines (a body row parses alone: its cells, the columns and alignment of the header,
  its own line's terminator test); a slice must parse as that one table and nothing else, and
  the table's running count of missing cells (markdown-it ends a table past 65,536) is checked
  across the cuts, or the piece is parsed whole;
- link reference definitions are global: when any line could end one's label (`]:`), a first
  pass over the pieces up to the last such line (block rules only) collects them, so every
  piece resolves references as the whole would. That pass takes a long table's rows on trust (a table row holds no definition);
  if the second pass finds one of those slices is not all table, both passes run again without
  the shortcut.

Any piece whose parse does not meet those checks is parsed whole, as before (correct, just big).
A document holding `\\r` (markdown-it counts a lone CR as a line break) is parsed whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

ROWS = 2000  # table rows parsed at a time
_DELIMITER_CHARS = frozenset("|:- \t")
_MARKS = " \t>*+-0123456789.)"  # indentation, blockquote and list item marks before a block

Parse = Callable[[str, dict[str, Any]], list[Any]]


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def _heading(line: str) -> bool:
    """An ATX heading at column 0 (`## …`; no regex: render/ reads no text with one)."""
    n = len(line) - len(line.lstrip("#"))
    return 1 <= n <= 6 and (len(line) == n or line[n] in " \t")


HTML = frozenset({"html_inline", "html_block"})  # what `html_lines` looks for by default
LINKS = frozenset({"link_open", "image"})  # links and images (the reports make none of their own)
# The characters without which a text holds none of `kinds` (CommonMark, no linkify): raw HTML opens
# with `<`; a link or an image with `[` (`![`), an autolink with `<`. A piece or a table slice
# holding none is parsed by the block rules only (the inline pass was ~60 % of a report's parse),
# which make the same block tokens and the same reference definitions.
_TRIGGERS = {HTML: "<", LINKS: "<["}


def _html_of(tokens: list[Any], offset: int, skip_below: int = 0, kinds: frozenset[str] = HTML) -> Iterator[int]:
    """The lines (offset added) where `tokens` hold what `kinds` names (raw HTML, or links and
    images); lines below `skip_below` left out."""
    for tok in tokens:
        inline = tok.type == "inline" and any(c.type in kinds for c in tok.children or ())
        if tok.map and (tok.type in kinds or inline):
            for i in range(max(tok.map[0], skip_below), tok.map[1]):
                yield i + offset


def _reaches_end(tokens: list[Any], lines: list[str]) -> bool:
    """A top-level block of the piece runs into its trailing blank lines (an open fence or HTML
    block runs to the end of whatever it is given: the next piece may belong to it)."""
    last = len(lines)
    while last and _blank(lines[last - 1]):
        last -= 1
    return any(t.level == 0 and t.map and t.map[1] > last for t in tokens)


class _Skimmed(Exception):
    """A table the reference pass took on trust turned out not to be one all the way."""


@dataclass
class _Pass:
    parse: Parse
    env: dict[str, Any]
    rows: int
    skim: bool = False  # the reference pass: table rows hold no definitions, their slices are skipped
    trusted: bool = False  # this pass relies on a skim (a table that fails its check must restart)
    kinds: frozenset[str] = HTML  # the tokens looked for


def html_lines(text: str, md: Any, rows: int = ROWS, kinds: frozenset[str] = HTML) -> set[int]:
    """The (0-based) lines of `text` where markdown-it (`md`, a `MarkdownIt`) sees raw HTML (or
    what `kinds` names), as one `md.parse(text)` finds them, with a bounded number of tokens
    alive at a time."""
    triggers = _TRIGGERS.get(kinds)

    def full(src: str, env: dict[str, Any]) -> list[Any]:
        if triggers is not None and not any(c in src for c in triggers):
            return block(src, env)  # no inline can hold one: the blocks are what a full parse makes
        return list(md.parse(src, env))

    def block(src: str, env: dict[str, Any]) -> list[Any]:  # core's normalize, then the block rules
        return md.block.parse(src.replace("\0", "\ufffd"), md, env, []) or []

    if "\r" in text:
        return set(_html_of(full(text, {}), 0, kinds=kinds))
    lines = text.split("\n")
    last = _last_definition(lines)
    for skim in (True, False):
        env: dict[str, Any] = {}
        if last >= 0:  # references first, in document order (the first definition of a label wins)
            for _ in _pieces(lines, _Pass(block, env, rows, skim=skim, kinds=kinds), stop=last):
                pass
        out: set[int] = set()
        try:
            for found in _pieces(lines, _Pass(full, env, rows, trusted=skim and last >= 0, kinds=kinds)):
                out.update(found)
        except _Skimmed:
            continue
        return out
    raise AssertionError("unreachable: the second round skims nothing")


def _last_definition(lines: list[str]) -> int:
    """The last line that could end a link reference definition's label (`[label]:` first on its
    line after indentation and container marks, or `]:` closing a label begun on a line above),
    or -1: no line after it can define a reference, so the reference pass stops there."""
    last = -1
    for i, line in enumerate(lines):
        at = line.find("]:")
        if at >= 0 and (line.lstrip(_MARKS).startswith("[") or "[" not in line[:at] or "\\" in line):
            last = i
    return last


def _pieces(lines: list[str], run: _Pass, stop: int | None = None) -> Iterator[list[int]]:
    """The HTML lines piece by piece (up to the piece holding line `stop`, when given)."""
    starts = [i for i in range(1, len(lines)) if _heading(lines[i]) and _blank(lines[i - 1])]
    bounds = [0, *starts, len(lines)]
    begin = 0
    for k in range(1, len(bounds)):
        end = bounds[k]
        found = _piece(lines[begin:end], run, last=k == len(bounds) - 1)
        if found is None:  # runs on into the next piece: take it too
            continue
        yield [i + begin for i in found]
        begin = end
        if stop is not None and begin > stop:
            return


def _piece(lines: list[str], run: _Pass, last: bool) -> list[int] | None:
    """The HTML lines of one piece, or None when its last block may run on past it. A long table
    is parsed in slices, then what follows it (from the blank line that ended it, a fresh start
    at the top level) as a piece of its own."""
    table = _long_table(lines, run.rows)
    if table is not None:
        found = _sliced(lines, table, run)
        if found is not None:
            rest = _piece(lines[table[1]:], run, last)
            if rest is None:
                return None
            return found + [i + table[1] for i in rest]
    if last:
        tokens = run.parse("\n".join(lines), run.env)
    else:  # the piece ends in a blank line: a final newline makes markdown-it count it too
        tokens = run.parse("\n".join(lines) + "\n", run.env)
        if _reaches_end(tokens, lines):
            return None
    return list(_html_of(tokens, 0, kinds=run.kinds))


def _long_table(lines: list[str], rows: int) -> tuple[int, int] | None:
    """(header line, end of the table's non-blank run) of the first table candidate in `lines`
    with more than `rows` rows: a line with a pipe, then a delimiter row, then rows up to a blank
    line. A candidate only: the parse confirms it is one."""
    for i in range(len(lines) - 1):
        if "|" in lines[i] and "-" in lines[i + 1] and _DELIMITER_CHARS.issuperset(lines[i + 1]):
            end = i + 2
            while end < len(lines) and not _blank(lines[end]):
                end += 1
            if end - (i + 2) > rows:
                return i, end
    return None


def _table_at(tokens: list[Any], line: int) -> Any:
    """The top-level table_open token starting at `line`, if any."""
    return next((t for t in tokens if t.type == "table_open" and t.level == 0 and t.map and t.map[0] == line), None)


def _only_table(tokens: list[Any], n: int) -> bool:
    """`tokens` are one top-level table covering lines 0..n, nothing else."""
    top = [t for t in tokens if t.level == 0]
    return bool(top) and top[0].type == "table_open" and top[-1].type == "table_close" \
        and sum(t.type == "table_open" for t in top) == 1 and list(top[0].map or ()) == [0, n]


def _missing_cells_ok(lines: list[str], header: int, end: int, columns: int) -> bool:
    """markdown-it ends a table once its rows lack more than 65,536 cells in all (a running sum,
    negative for rows with extra cells). A slice's own parse ends its table where the slice's
    sum passes that; the sum over the whole table must stay under it too."""
    from markdown_it.common.utils import mdTrim
    from markdown_it.rules_block.table import MAX_AUTOCOMPLETED_CELLS, escapedSplit

    total = 0
    for line in lines[header + 2:end]:
        cells = escapedSplit(mdTrim(line.lstrip(" \t")))
        if cells and cells[0] == "":
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        total += columns - len(cells)
        if total > MAX_AUTOCOMPLETED_CELLS:
            return False
    return True


def _sliced(lines: list[str], table: tuple[int, int], run: _Pass) -> list[int] | None:
    """The HTML lines of the piece up to the table's end, the table `rows` rows at a time; None
    when a slice does not parse as the whole would (the caller parses the piece whole)."""
    header, end = table
    head = lines[header:header + 2]
    cut = header + 2 + run.rows
    tokens = run.parse("\n".join(lines[:cut]), run.env)
    first = _table_at(tokens, header)
    if first is None or list(first.map) != [header, cut] or tokens[-1].type != "table_close":
        return None
    columns = sum(t.type == "th_open" for t in tokens[tokens.index(first):])
    if not _missing_cells_ok(lines, header, end, columns):
        return None
    found = list(_html_of(tokens, 0, kinds=run.kinds))
    del tokens, first
    if run.skim:  # checked by the pass that reads them
        return found
    for at in range(cut, end, run.rows):
        chunk = lines[at:min(at + run.rows, end)]
        tokens = run.parse("\n".join([*head, *chunk]), run.env)
        if not _only_table(tokens, len(chunk) + 2):
            if run.trusted:  # the reference pass skipped these lines: it may have missed a definition
                raise _Skimmed
            return None
        found.extend(_html_of(tokens, at - 2, skip_below=2, kinds=run.kinds))  # the header's lines are counted once
    return found


__all__ = ["HTML", "LINKS", "ROWS", "html_lines"]
