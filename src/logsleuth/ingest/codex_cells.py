"""Codex "code mode" cells: a `custom_tool_call` named `exec` whose input is JavaScript that calls one
tool (`const r = await tools.exec_command({cmd:"npm test", workdir:"…"}); text(r.output)`,
`const patch = "*** Begin Patch…"; text(await tools.apply_patch(patch));`). The cell is one call; what
it does is the tool it calls, so it is read as that tool with that tool's input (a shell command, a
patch). The nested tool's own end event (`patch_apply_end` with a call id `exec-…`) is part of the
cell, not a call of its own (two real rollouts of codex 0.13x: 9 of 59 calls counted twice)."""

from __future__ import annotations

import json
import re

CELL_TOOL = "exec"
NESTED_PREFIX = "exec-"  # the call id Codex gives a tool called from inside a cell
_TOOL_CALL = re.compile(r"\btools\.(\w{1,40})\(")
_DOUBLE = re.compile(r'"(?:[^"\\\n]|\\.)*+"')
_SINGLE = re.compile(r"'(?:[^'\\\n]|\\.)*+'")


def cell_call(src: str) -> tuple[str, str] | None:
    """(tool, input) of the one tool a cell calls, when it calls one whose input reads plainly."""
    tools = set(_TOOL_CALL.findall(src))
    if len(tools) != 1:
        return None
    tool = tools.pop()
    if tool == "exec_command":
        cmd = _keyed(src, "cmd")
        return (tool, cmd) if cmd else None
    if tool == "apply_patch":
        patch = next((s for s in _strings(src) if "*** Begin Patch" in s), None)
        return (tool, patch) if patch else None
    return None


def _keyed(src: str, key: str) -> str | None:
    """The string literal given for `key` in the first object literal that names it."""
    m = re.search(rf"""(?:\b{key}|"{key}"|'{key}')\s*:\s*""", src)
    if m is None:
        return None
    rest = src[m.end():]
    lit = _DOUBLE.match(rest) or _SINGLE.match(rest)
    return _unquote(lit.group()) if lit is not None else None


def _strings(src: str) -> list[str]:
    return [s for s in (_unquote(m.group()) for m in _DOUBLE.finditer(src)) if s is not None]


def _unquote(lit: str) -> str | None:
    """A JavaScript string literal's value (double or single quoted; JSON escapes)."""
    body = lit[1:-1]
    if lit[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    try:
        value = json.loads(f'"{body}"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None
