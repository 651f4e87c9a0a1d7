"""Normalised tool calls: what a tool call did, whatever agent made it.

A reader writes a call's `text` as the agent gave it: the command line of a shell call, else the
tool input as compact JSON. `normalise(tool, text)` reads that once, here in ingest, into a
ToolCall, and EventSink stores it in the event table's call columns (model.CALL_COLUMNS):

    tool_kind   shell | edit | read | search | web | other
    command     shell: the command line (an argv vector is joined as a shell would quote it)
    paths       edit: the file(s) changed; read/search/web: the path, pattern, query or URL; one per line
    changes     edit: what the call did to each path, one per line, parallel to `paths` ("update +3 -1
                lines", "write 10 lines", "delete"; empty when the input does not say; a
                `str_replace_editor` view, a read, says "view")
    added       edit: the text the call adds (new strings, a whole file written, a patch's `+` lines)
    removed     edit: the text it removes
    background  shell: the agent ran it in the background; read: it reads a background job's output

Every agent's tool names and input keys (Claude Code `Edit`/`MultiEdit`, opencode `patchText`,
Codex `apply_patch`, Gemini `replace`, the `str_replace_based_edit_tool` family, `TargetFile`) are
known here and nowhere after ingest.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from logsleuth.model import ToolKind

SHELL_TOOLS = frozenset({
    "bash", "shell", "exec_command", "local_shell", "run_shell_command", "container.exec", "terminal",
    "run_terminal_cmd", "execute_command", "run_command", "shell_command", "bash_tool", "run_in_terminal",
    "execute_bash", "cmd", "command", "exec", "sh", "zsh", "powershell", "run", "execute", "runcommand",
    "executecommand", "terminal_command", "run_bash", "bash_exec", "shell_exec",
})
EDIT_TOOLS = frozenset({
    "edit", "write", "multiedit", "multi_edit", "notebookedit", "str_replace_editor", "str_replace_based_edit_tool",
    "apply_patch", "applypatch", "patch", "write_file", "replace", "create_file", "edit_file", "edit_notebook",
    "search_replace", "insert_edit_into_file", "replace_string_in_file", "write_to_file", "replace_in_file",
    "create", "str_replace", "insert", "editfile", "writefile",
    "replace_file_content", "multi_replace_file_content",  # Google Antigravity
})
_LOOK_TOOLS: dict[str, ToolKind] = {
    **dict.fromkeys(("read", "read_file", "readfile", "ls", "list", "list_directory", "list_dir", "view",
                     "read_many_files", "view_file", "bashoutput", "notebookread"), ToolKind.READ),
    **dict.fromkeys(("glob", "grep", "search", "codebase_search", "file_search", "grep_search",
                     "search_file_content", "find_files"), ToolKind.SEARCH),
    **dict.fromkeys(("webfetch", "websearch", "web_search", "fetch"), ToolKind.WEB),
}
# Tools that read the output of a job the agent started in the background (Claude Code `BashOutput`).
_OUTPUT_TOOLS = frozenset({"bashoutput", "bash_output", "read_output"})
# First words that make an unknown tool's text a shell command.
_PROGRAMS = frozenset({
    "pip", "pip3", "uv", "python", "python3", "ssh", "docker", "sudo", "bash", "sh", "apt", "apt-get", "conda",
    "mamba", "git", "make", "cmake", "ninja", "export", "cd", "nohup", "kill", "pkill", "systemctl", "service",
    "vllm", "sglang", "torchrun", "curl", "wget", "ls", "cat", "find", "grep", "nvidia-smi", "nvcc", "source",
    "env", "timeout", "kubectl", "pct", "echo", "tail", "head", "sed", "rm", "cp", "mv", "ln", "which", "ps",
    "unset", "ldd", "ldconfig", "tee", "patch", "mkdir", "chmod",
})
_COMMAND_KEYS = ("command", "cmd", "script", "commands", "code")
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename", "absolute_path",
              "absolutePath",
              "TargetFile", "dir_path", "directory", "url", "pattern", "query", "paths")
_PATCH_KEYS = ("patch", "patchText", "patch_text", "input", "diff")
_NEW_KEYS = ("new_string", "newString", "new_str", "new_source", "replacement", "insert_text", "ReplacementContent")
_OLD_KEYS = ("old_string", "oldString", "old_str", "target", "search", "TargetContent")
_CONTENT_KEYS = ("content", "file_text", "contents", "text", "code", "CodeContent")
_PATCH_START = re.compile(r"^(\*\*\* (Begin Patch|Update File|Add File)|\+\+\+ )", re.M)
_PATCH_FILE = re.compile(r"^(\*\*\* (Update|Add|Delete) File:|\+\+\+ )", re.M)
# Cline / aider search-replace blocks: `------- SEARCH` (or `<<<<<<< SEARCH`), old, `=======`, new, `+++++++ REPLACE`
_SEARCH_REPLACE = re.compile(r"^(?:-{7}|<{7}) SEARCH[ \t]*\n(.*?)^={7}[ \t]*\n(.*?)^(?:\+{7}|>{7}) REPLACE", re.M | re.S)
_PATH_IN_TEXT = re.compile(r'"(?:file_path|filePath|path|notebook_path)"\s*:\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call, normalised (see the module docstring for each field)."""

    kind: ToolKind
    command: str | None = None
    paths: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    added: str | None = None
    removed: str | None = None
    background: bool = False


def is_shell(tool: str | None) -> bool:
    """A shell tool, whatever the agent calls it (`Bash`, `run_shell_command`, `mcp__x__exec`): its
    input's `command` is a command line, and readers write that as the call's text."""
    full, tail = _names(tool)
    return full in SHELL_TOOLS or tail in SHELL_TOOLS


def _names(tool: str | None) -> tuple[str, str]:
    """The tool name in lower case, and its last part (`mcp__fs__read_file` -> read_file)."""
    full = (tool or "").strip().lower()
    return full, re.split(r"__|\.|:", full)[-1]


def normalise(tool: str | None, text: str) -> ToolCall:
    """The normalised form of one tool call, from its tool name and its text as a reader wrote it."""
    full, tail = _names(tool)
    if is_shell(tool):
        return _shell(text)
    if full in EDIT_TOOLS or tail in EDIT_TOOLS:
        return _edit(full, text)
    look = _LOOK_TOOLS.get(full) or _LOOK_TOOLS.get(tail)
    if look is not None:
        data = _json(text)
        target = _first(data, _PATH_KEYS) if isinstance(data, dict) else None
        return ToolCall(look, paths=(target,) if target else (), background=full in _OUTPUT_TOOLS)
    payload = shell_payload(text)
    if isinstance(payload, list) or looks_like_command(payload):
        return _shell(text)
    return ToolCall(ToolKind.OTHER, background=full in _OUTPUT_TOOLS)


def _shell(text: str) -> ToolCall:
    payload = shell_payload(text)
    command = shlex.join(payload) if isinstance(payload, list) else payload
    data = _json(text)
    background = isinstance(data, dict) and data.get("run_in_background") is True
    return ToolCall(ToolKind.SHELL, command=command, background=background)


def shell_payload(text: str) -> str | list[str]:
    """The command of a shell call: the text itself, or the `command`/`cmd` of a JSON input (a
    string, or an argv list)."""
    s = text.strip()
    if not s.startswith(("{", "[")):
        return text
    try:
        data: Any = json.loads(s)
    except (ValueError, RecursionError):  # `[[[[…` a thousand deep: a command, not an input to parse
        return text
    if isinstance(data, dict):
        data = next((data[k] for k in _COMMAND_KEYS if k in data), text)
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        return [str(x) for x in data]
    return data if isinstance(data, str) else text


def looks_like_command(text: str) -> bool:
    """An unknown tool's text that starts with a known program (after `X=1` assignments)."""
    words = text.strip().split()
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words = words[1:]
    return bool(words) and words[0].rstrip("/").rsplit("/", 1)[-1] in _PROGRAMS


def _edit(name: str, text: str) -> ToolCall:
    data = _json(text)
    added, removed = edit_texts(text)
    edit = ToolKind.EDIT
    patch = _first(data, _PATCH_KEYS) if isinstance(data, dict) else None
    if patch is None and not isinstance(data, dict) and _PATCH_START.search(text):
        patch = text
    if patch is not None and _PATCH_FILE.search(patch):
        files = patch_summary(patch)
        return ToolCall(edit, paths=tuple(f for f, _ in files), changes=tuple(s for _, s in files),
                        added=added, removed=removed)
    if not isinstance(data, dict):
        m = _PATH_IN_TEXT.search(text)  # a truncated or non-JSON input: its path, when one shows
        return ToolCall(edit, paths=(m.group(1),) if m else (), changes=("",) if m else (), added=added,
                        removed=removed)
    path = _first(data, _PATH_KEYS) or "?"
    sub = str(data.get("command") or "")
    if sub == "view":  # `str_replace_editor view`: a read
        return ToolCall(ToolKind.READ, paths=(path,), changes=("view",))
    return ToolCall(edit, paths=(path,), changes=(_edit_summary(name, sub, data),), added=added, removed=removed)


def _json(text: str) -> Any:
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        return None


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for k in keys:
        v = data.get(k)
        if isinstance(v, str) and v:
            return v
        if isinstance(v, list) and v and isinstance(v[0], str):
            return v[0]
    return None


def _first_any(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((data[k] for k in keys if k in data and data[k] is not None), None)


def _lines(s: Any) -> int:
    return len(str(s).splitlines()) if s else 0


def _edit_summary(name: str, sub: str, data: dict[str, Any]) -> str:
    edits = data.get("edits")
    if isinstance(edits, list) and edits:
        plus = sum(_lines(_first_any(e, ("new_string", "newString", "new_str"))) for e in edits if isinstance(e, dict))
        minus = sum(_lines(_first_any(e, ("old_string", "oldString", "old_str"))) for e in edits if isinstance(e, dict))
        return f"edit +{plus} -{minus} lines"
    new = _first_any(data, _NEW_KEYS)
    old = _first_any(data, _OLD_KEYS)
    diff = data.get("diff")
    if new is None and old is None and isinstance(diff, str) and _SEARCH_REPLACE.search(diff):
        new, old = _search_replace_texts(diff)
    if new is not None or old is not None:
        return f"edit +{_lines(new)} -{_lines(old)} lines"
    content = _first_any(data, _CONTENT_KEYS)
    if content is not None or sub == "create" or "write" in name or "create" in name:
        return f"write {_lines(content)} lines"
    return sub or "edit"


def patch_summary(patch: str) -> list[tuple[str, str]]:
    """[(file, "update +a -b lines" | "add +n lines" | "delete")] for an apply_patch or unified diff."""
    files: dict[str, list[int | str]] = {}
    cur: str | None = None
    for line in patch.splitlines():
        m = re.match(r"^\*\*\* (Update|Add|Delete) File: (.+)$", line)
        if m:
            cur = m.group(2).strip()
            files.setdefault(cur, [m.group(1).lower(), 0, 0])
            continue
        m = re.match(r"^\+\+\+ (?:b/)?(\S+)", line)
        if m and m.group(1) != "/dev/null":
            cur = m.group(1)
            files.setdefault(cur, ["update", 0, 0])
            continue
        if cur is None or line.startswith(("***", "---", "@@")):
            if cur is not None and (mv := re.match(r"^\*\*\* Move to: (.+)$", line)):
                files[cur][0] = f"move to {mv.group(1).strip()}"
            continue
        if line.startswith("+"):
            files[cur][1] = int(files[cur][1]) + 1
        elif line.startswith("-"):
            files[cur][2] = int(files[cur][2]) + 1
    out = []
    for f, (op, plus, minus) in files.items():
        if op == "delete":
            out.append((f, "delete"))
        elif op == "add":
            out.append((f, f"add +{plus} lines"))
        else:
            out.append((f, f"{op} +{plus} -{minus} lines"))
    return out


def _search_replace_texts(diff: str) -> tuple[str, str]:
    """(text added, text removed) by the search-replace blocks of one diff."""
    blocks = _SEARCH_REPLACE.findall(diff)
    return "".join(new for _, new in blocks).rstrip("\n"), "".join(old for old, _ in blocks).rstrip("\n")


def edit_texts(raw: str) -> tuple[str, str]:
    """(text added, text removed) by an edit as issued: an edit tool's JSON (one edit, a list of
    edits, a whole file written), a patch (`+`/`-` lines), else the text itself as added text
    (`sed -i`, `cat > f <<EOF`)."""
    data = _json(raw)
    if isinstance(data, dict):
        edits = data.get("edits")
        items: list[Any] = edits if isinstance(edits, list) else [data]
        added: list[str] = []
        removed: list[str] = []
        for e in (e for e in items if isinstance(e, dict)):
            new = _first_any(e, (*_NEW_KEYS, "content", "file_text", "contents", "code", "CodeContent"))
            old = _first_any(e, _OLD_KEYS)
            patch = _first_any(e, ("patch", "patchText", "input", "diff"))
            if isinstance(patch, str) and new is None:
                a, r = _search_replace_texts(patch) if _SEARCH_REPLACE.search(patch) else _patch_texts(patch)
                added.append(a)
                removed.append(r)
            added.append(str(new or ""))
            removed.append(str(old or ""))
        return "\n".join(t for t in added if t), "\n".join(t for t in removed if t)
    if re.search(r"^(\*\*\* (Update|Add) File:|\+\+\+ )", raw, re.M):
        return _patch_texts(raw)
    return raw, ""


def _patch_texts(patch: str) -> tuple[str, str]:
    lines = patch.splitlines()
    plus = [x[1:] for x in lines if x.startswith("+") and not x.startswith("+++")]
    minus = [x[1:] for x in lines if x.startswith("-") and not x.startswith("---")]
    return "\n".join(plus), "\n".join(minus)


def call_of(row: Mapping[str, Any]) -> ToolCall | None:
    """The ToolCall an event row's call columns hold (model.CALL_SCHEMA; EventSink writes them);
    None for an event that is no tool call."""
    kind = row.get("tool_kind")
    if kind is None:
        return None
    tk = ToolKind(kind)
    return ToolCall(
        tk,
        command=row.get("command"),
        paths=split_values(tk, row.get("paths")),
        changes=split_values(tk, row.get("changes")),
        added=row.get("added"),
        removed=row.get("removed"),
        background=bool(row.get("background")),
    )


def join_values(kind: ToolKind, values: tuple[str, ...]) -> str | None:
    """`paths`/`changes` as one string column: an edit's values a line each (a backslash or newline
    inside one escaped, so that they split back exactly); a look's one target as it is."""
    if not values:
        return None
    if kind is not ToolKind.EDIT:
        return values[0]
    return "\n".join(v.replace("\\", "\\\\").replace("\n", "\\n") for v in values)


def split_values(kind: ToolKind, joined: str | None) -> tuple[str, ...]:
    """The values `join_values` joined."""
    if joined is None:
        return ()
    if kind is not ToolKind.EDIT:
        return (joined,)
    return tuple(_ESCAPED.sub(lambda m: "\n" if m.group(1) == "n" else "\\", v) for v in joined.split("\n"))


_ESCAPED = re.compile(r"\\(\\|n)")
