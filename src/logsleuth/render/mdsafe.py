"""Raw HTML in a rendered markdown document made text: a transcript never writes live HTML.

Transcript text reaches the markdown reports in many places (findings table, quotes, diagnosis
lines, prose, the road) and inside code spans and fences, where it is inert and must stay as it
is (`&lt;` would show literally there). Escaping each value before the template cannot know
what the markdown around it makes of it: a value holding a backtick or a ``` line closes the
code it was put in. So the finished document is read the way a markdown renderer reads it
(markdown-it, CommonMark with GFM tables; rich already depends on it), and every line where the
parser finds raw HTML (an HTML block, an inline tag, a comment, `</details>`) has its tag openers
escaped as `\\<`, which renders as the `<` it was and reads as one in a terminal (`&lt;` did not). The document is parsed again until no HTML
is left (escaping changes what the parser sees, e.g. a code span that now pairs differently).
A document with no `<` that could open a tag is returned untouched without parsing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

# what can open raw HTML in CommonMark: a tag, a closing tag, a comment, a declaration, a
# processing instruction (autolinks `<https://…>` too: harmless, but escaping them costs nothing)
_OPENER = re.compile(r"<(?=[A-Za-z/!?])")
_BRACKET = re.compile(r"(?<!\\)\[")  # a link's or an image's opening bracket, not yet escaped
MAX_PASSES = 16  # each pass escapes at least one opener; a real report needs one or two


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    # every destination makes a link here (markdown-it refuses `javascript:`; another viewer may not)
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


def _html_lines(text: str) -> set[int]:
    """The (0-based) lines of `text` where the parser sees raw HTML (parsed piece by piece: the
    tokens of a whole 200k-row findings table took 1.7 GB; render/mdchunks.py)."""
    from logsleuth.render.mdchunks import html_lines

    return html_lines(text, _parser())


def inert_html(markdown: str) -> str:
    """`markdown` with every raw-HTML opener outside code escaped (code spans and fences kept),
    then every link and image made text (`\\[x](…)`): the reports make none of their own, so
    one is a transcript's (`[x](javascript:…)`, an image that loads from a server when the report
    is viewed)."""
    if _OPENER.search(markdown):
        markdown = _escaped(markdown, _html_lines, lambda line: _OPENER.sub(r"\\<", line))
    if "](" in markdown or "]:" in markdown or "][" in markdown:
        markdown = _escaped(markdown, _link_lines, lambda line: _BRACKET.sub(r"\\[", line))
    return markdown


def _escaped(markdown: str, find: Callable[[str], set[int]], escape: Callable[[str], str]) -> str:
    """`escape` applied to the lines `find` reports until it reports none (escaping changes what
    the parser sees, e.g. a code span that now pairs differently)."""
    for _ in range(MAX_PASSES):
        hits = find(markdown)
        if not hits:
            return markdown
        lines = markdown.split("\n")
        for i in hits:
            if i < len(lines):
                lines[i] = escape(lines[i])
        markdown = "\n".join(lines)
    return escape(markdown)  # not converged (cannot happen: each pass escapes one at least): all of it


def _link_lines(text: str) -> set[int]:
    """The (0-based) lines of `text` where the parser sees a link or an image."""
    from logsleuth.render.mdchunks import LINKS, html_lines

    return html_lines(text, _parser(), kinds=LINKS)


__all__ = ["inert_html"]
