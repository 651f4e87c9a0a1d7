"""The piecewise markdown parse (render/mdchunks.py) finds exactly the raw-HTML lines one parse of
the whole document finds, on the reports and on documents built to break its cuts; and keeps
the tokens alive at a time bounded on a long findings table."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from logsleuth.render import mdchunks
from logsleuth.render.mdsafe import _parser

ROOT = Path(__file__).resolve().parent.parent
ROW = "| {n} | a.log:{n} | error | p{n} | {text} |"
HEAD = "| msg | source:line | severity | pattern | text |\n|---:|---|---|---|---|"


def whole(text: str) -> set[int]:
    out: set[int] = set()
    for tok in _parser().parse(text):
        inline = tok.type == "inline" and any(c.type == "html_inline" for c in tok.children or ())
        if tok.map and (tok.type == "html_block" or inline):
            out.update(range(tok.map[0], tok.map[1]))
    return out


def table(rows: list[str]) -> str:
    return HEAD + "\n" + "\n".join(rows)


CELLS = ["plain", "<b>bold</b>", "`<i>code</i>`", "a \\| b <x>", "<!-- c -->", "[ref]", "[x][<a>]", "<https://e.x>",
         "` unclosed <y>", "*<em>*", "&lt;z>", "<pre>"]
TAILS = [
    "",
    "\n\n## Next\n\n<div>\nlive\n</div>\n",
    "\n\n```\n<script>open fence\n\n## not a heading\n<b>x</b>\n",
    "\n\n<pre>\nopen html block\n\n## inside pre\n<b>y</b>\n",
    "\n\n<!-- open comment\n\n## inside comment\n",
    "\nlazy row <b>z</b>\n    indented <i>row</i>\n> quote <u>q</u>\n\n## after\n",
    "\n\n[ref]: /url\n[<a>]: /u2\n\n## defs\n[ref] <k>\n",
    "\n\n- item\n\n  <b>in item</b>\n\n## h\n\n    code <x>\n\n## h2\n<p>\n",
]


def documents() -> list[str]:
    rng = random.Random(5)
    docs = []
    for tail in TAILS:
        for n in (3, 7, 12):
            rows = [ROW.format(n=i, text=rng.choice(CELLS)) for i in range(n)]
            if n == 12:
                rows[5] = "| only | two |"  # missing cells
                rows[8] = "| a | b | c | d | e | f | g <h> |"  # extra cells
                broken = list(rows)
                broken[6] = rng.choice(["> quote <u>q</u>", "```", "    <i>indented</i>", "<div>", "# h <b>"])
                docs.append("## A\n\n" + table(broken) + tail)  # a row that ends the table mid-way
            docs.append("# T\n\n## Appendix\n\n" + table(rows) + tail)
            docs.append("intro <b>x</b>\n\n```\n<open>\n\n## h\n" + table(rows) + tail)
            docs.append("## A\n\n" + table(rows[:2]) + "\n\n## B\n\n" + table(rows) + "\n" + table(rows) + tail)
    return docs


@pytest.mark.parametrize("rows", [1, 2, 3, 5])
def test_pieces_find_what_the_whole_parse_finds(rows: int) -> None:
    for doc in documents():
        assert mdchunks.html_lines(doc, _parser(), rows=rows) == whole(doc), doc


@pytest.mark.parametrize("limit", [0, 2, 4, 7])
def test_missing_cells_limit_across_slices(limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """markdown-it ends a table once the running count of missing cells passes its limit: a cut
    table must end where the whole one does, though no slice alone passes the limit."""
    import importlib

    md_table = importlib.import_module("markdown_it.rules_block.table")  # the package exports a function of that name
    monkeypatch.setattr(md_table, "MAX_AUTOCOMPLETED_CELLS", limit)
    # a cell `x | <b>y</b> ` is HTML in a table row (the pipe splits the code span), code in a paragraph
    rows = ["| `x | <b>y</b> ` | p | q | r |" for _ in range(12)]
    rows[1] = rows[4] = rows[7] = rows[10] = "| short | row |"  # three cells missing each
    for long_row in (False, True):
        if long_row:
            rows[0] = "| a | b | c | d | e | f | g | h |"  # three cells too many
        doc = "## A\n\n" + table(rows) + "\nafter\n\n## B\n"
        for rows_at_a_time in (1, 2, 3):
            assert mdchunks.html_lines(doc, _parser(), rows=rows_at_a_time) == whole(doc)


def test_reports_and_cr_documents() -> None:
    docs = [p.read_text() for p in sorted((ROOT / "reports").rglob("*.md"))][:40]
    docs.append("a\r\n<b>x</b>\r\n\r\n## h\r<i>y</i>\n")
    assert len(docs) > 5
    for doc in docs:
        for rows in (2, 50):
            assert mdchunks.html_lines(doc, _parser(), rows=rows) == whole(doc)


class _Counting:
    """A markdown-it parser that records the most tokens one parse returned."""

    def __init__(self) -> None:
        self.md = _parser()
        self.block = self.md.block
        self.most = 0

    def parse(self, src: str, env: Any = None) -> Any:
        tokens = self.md.parse(src, env)
        self.most = max(self.most, len(tokens))
        return tokens

    def __getattr__(self, name: str) -> Any:  # the block rules, handed this parser, read its options
        return getattr(self.md, name)

    def __getitem__(self, name: str) -> Any:  # and its parsers by name (`md["block"]`)
        return self.md[name]


def test_long_table_is_parsed_in_slices() -> None:
    rows = [ROW.format(n=i, text="<b>x</b>" if i % 97 == 0 else "text") for i in range(5000)]
    doc = "# T\n\n## Appendix\n\n" + table(rows) + "\n\n## After\n\nend <i>i</i>\n"
    counting = _Counting()
    assert mdchunks.html_lines(doc, counting, rows=500) == whole(doc)
    assert counting.most < 20 * 600  # one slice's tokens (17 a row), not the table's 85,000


def test_a_definition_among_skimmed_table_rows() -> None:
    """The reference pass skips a long table's later slices; a slice that is not all table (a
    heading ends it, a definition follows) makes both passes run again: the reference defined
    there changes an earlier piece (`[x][<a>]` is a link with it, raw HTML without)."""
    rows = [ROW.format(n=i, text="t") for i in range(12)]
    rows[7] = "# h"
    rows[8] = "[<a>]: /u2"
    doc = "## A\n\n[x][<a>] text\n\n## B\n\n" + table(rows) + "\n\n## C\n"
    for rows_at_a_time in (2, 3):
        assert mdchunks.html_lines(doc, _parser(), rows=rows_at_a_time) == whole(doc) == set()
    assert whole(doc.replace("[<a>]: /u2", "no definition")) == {2}


@pytest.mark.parametrize("definition", ["[<a b>]: /u", "[<a\nb>]: /u", "> - [<a b>]: /u", "  [<a b>]:\n  /u"])
def test_a_definition_after_everything(definition: str) -> None:
    """The reference pass stops after the last line that could close a label: a definition at
    the very end (one line or two, inside containers) still reaches a use at the very start."""
    rows = [ROW.format(n=i, text="t") for i in range(12)]
    doc = "## A\n\n[x][<a b>] text\n\n## B\n\n" + table(rows) + "\n\n## C\n\n" + definition + "\n"
    for rows_at_a_time in (2, 50):
        assert mdchunks.html_lines(doc, _parser(), rows=rows_at_a_time) == whole(doc) == set()


def _whole_of(text: str, kinds: frozenset[str]) -> set[int]:
    out: set[int] = set()
    for tok in _parser().parse(text):
        inline = tok.type == "inline" and any(c.type in kinds for c in tok.children or ())
        if tok.map and (tok.type in kinds or inline):
            out.update(range(tok.map[0], tok.map[1]))
    return out


_PARTS = ["## H", "", "text", "<b>x</b>", "[x](/u)", "![i](/p)", "[ref]", "[ref]: /d", "<https://e.x>",
          "```", "> quote [y][ref]", "- item <i>", "    code <c>", HEAD, "| 1 | a | b | c | d |",
          "| 2 | [l](/u) | b | c | <br> |", "&lt;z>", "\\[esc](x)"]


@pytest.mark.parametrize("seed", range(40))
def test_pieces_without_a_trigger_character_find_the_same_lines(seed: int) -> None:
    """Pieces and table slices holding no `<` (no `[` either, for links) skip the inline parse;
    what they find, for raw HTML and for links, is what one parse of the whole finds."""
    rnd = random.Random(seed)
    lines = [rnd.choice(_PARTS) for _ in range(rnd.randint(5, 60))]
    doc = "\n".join(lines)
    for kinds in (mdchunks.HTML, mdchunks.LINKS):
        assert mdchunks.html_lines(doc, _parser(), rows=2, kinds=kinds) == _whole_of(doc, kinds), (kinds, doc)
