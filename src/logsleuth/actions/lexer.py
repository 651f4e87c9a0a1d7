"""A small bash lexer: words with quotes removed (and their raw text), operators, heredoc bodies.

Quotes and escapes follow bash: `\\` escapes outside quotes, `'…'` is literal, inside `"…"` only
`\\$ \\` \\" \\\\` escape; `$(…)`, `${…}`, backquotes and `<(…)` stay in the word as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_OPS = ("&&", "||", ";;", "|&", "&>>", "&>", ">>", "<<<", "<<-", "<<", ">&", "<&", ">|", "<>", ";", "|", "&", "(", ")", ">", "<")


_PLAIN = re.compile(r"[^ \t\r\n;&|()<>\\'\"$`]+")  # a run of characters with no special meaning
_OP_RE = re.compile("|".join(re.escape(o) for o in _OPS))  # longest first, as _OPS lists them
_DQ_PLAIN = re.compile(r'[^"\\$`]+')


class LexError(ValueError):
    """Unbalanced quotes, substitutions or an unterminated escape."""


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # after quote removal; `$(…)`, `${…}` and backquotes kept as written
    raw: str  # as written
    heredoc: str | None = None  # the body, when this word is a heredoc delimiter


@dataclass(frozen=True, slots=True)
class Op:
    op: str
    fd: str = ""  # `2` in `2>&1`


def tokenize(s: str) -> list[Word | Op]:
    """Bash-like lexing; raises LexError on unbalanced quotes or substitutions."""
    toks: list[Word | Op] = []
    buf: list[str] = []
    raw_start = -1
    i, n = 0, len(s)
    pending: list[tuple[int, bool]] = []  # heredoc delimiters (token index, strip tabs) awaiting a body
    want_delim: bool | None = None  # after `<<`/`<<-`: the next word is a delimiter

    def flush(end: int) -> None:
        nonlocal raw_start, want_delim
        if raw_start < 0:
            return
        toks.append(Word("".join(buf), s[raw_start:end]))
        if want_delim is not None:
            pending.append((len(toks) - 1, want_delim))
            want_delim = None
        buf.clear()
        raw_start = -1

    while i < n:
        c = s[i]
        if c in " \t\r":
            flush(i)
            i += 1
            continue
        if c == "\n":
            flush(i)
            toks.append(Op(";"))
            i += 1
            if pending:
                i = _read_heredocs(s, i, toks, pending)
                pending = []
            continue
        if c == "#" and raw_start < 0:
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in ";&|()<>":
            if c in "<>" and i + 1 < n and s[i + 1] == "(" and raw_start < 0:  # process substitution
                raw_start = i
                j = _scan_balanced(s, i + 1)
                buf.append(s[i:j])
                i = j
                continue
            fd = ""
            if c in "<>" and raw_start >= 0 and s[raw_start:i].isdigit():
                fd, buf, raw_start = s[raw_start:i], [], -1
            flush(i)
            op = _OP_RE.match(s, i).group(0)  # type: ignore[union-attr]  # c itself is an operator
            toks.append(Op(op, fd))
            if op in ("<<", "<<-"):
                want_delim = op == "<<-"
            i += len(op)
            continue
        if raw_start < 0:
            raw_start = i
        if c == "\\":
            if i + 1 < n and s[i + 1] == "\n":
                i += 2
                if not buf and raw_start == i - 2:
                    raw_start = -1
                continue
            buf.append(s[i + 1] if i + 1 < n else "\\")
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                raise LexError("unterminated single quote")
            buf.append(s[i + 1 : j])
            i = j + 1
        elif c == '"':
            text, i = _double_quoted(s, i)
            buf.append(text)
        elif c == "$" and s.startswith("$'", i):
            text, i = _ansi_c(s, i)
            buf.append(text)
        elif c == "$" and i + 1 < n and s[i + 1] in "({":
            j = _scan_balanced(s, i + 1)
            buf.append(s[i:j])
            i = j
        elif c == "`":
            j = _scan_backquote(s, i)
            buf.append(s[i:j])
            i = j
        elif m := _PLAIN.match(s, i):
            buf.append(m.group(0))
            i = m.end()
        else:  # a lone `$`
            buf.append(c)
            i += 1
    flush(n)
    return toks


def _double_quoted(s: str, i: int) -> tuple[str, int]:
    out: list[str] = []
    i += 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n and s[i + 1] in '$`"\\\n':
            if s[i + 1] != "\n":
                out.append(s[i + 1])
            i += 2
        elif c == "$" and i + 1 < n and s[i + 1] in "({":
            j = _scan_balanced(s, i + 1)
            out.append(s[i:j])
            i = j
        elif c == "`":
            j = _scan_backquote(s, i)
            out.append(s[i:j])
            i = j
        elif m := _DQ_PLAIN.match(s, i):
            out.append(m.group(0))
            i = m.end()
        else:
            out.append(c)
            i += 1
    raise LexError("unterminated double quote")


def _ansi_c(s: str, i: int) -> tuple[str, int]:
    escapes = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "e": "\x1b", "a": "\a", "r": "\r"}
    out: list[str] = []
    i += 2
    while i < len(s):
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < len(s):
            out.append(escapes.get(s[i + 1], "\\" + s[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    raise LexError("unterminated $'…'")


def _scan_balanced(s: str, i: int) -> int:
    """From an opening `(` or `{` at i, the index after its match (quotes respected)."""
    open_c = s[i]
    close_c = ")" if open_c == "(" else "}"
    depth, j, n = 0, i, len(s)
    while j < n:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'" and open_c == "(":
            k = s.find("'", j + 1)
            if k < 0:
                raise LexError("unterminated single quote in substitution")
            j = k + 1
            continue
        if c == '"':
            _, j = _double_quoted(s, j)
            continue
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise LexError("unbalanced substitution")


def _scan_backquote(s: str, i: int) -> int:
    j = i + 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == "`":
            return j + 1
        j += 1
    raise LexError("unterminated backquote")


def _read_heredocs(s: str, i: int, toks: list[Word | Op], pending: list[tuple[int, bool]]) -> int:
    """Consume heredoc bodies starting at i; a missing terminator takes the rest (truncated input)."""
    for idx, strip in pending:
        word = toks[idx]
        assert isinstance(word, Word)
        end = re.compile(("^\t*" if strip else "^") + re.escape(word.text) + "\r?$", re.M).search(s, i)
        body = s[i : end.start()] if end else s[i:]
        if strip:
            body = re.sub(r"(?m)^\t+", "", body)
        if body and not body.endswith("\n"):
            body += "\n"
        toks[idx] = replace(word, heredoc=body)
        if end is None:
            return len(s)
        nl = s.find("\n", end.end())
        i = len(s) if nl < 0 else nl + 1
    return i
