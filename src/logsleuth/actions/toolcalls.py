"""Which tool is a shell, an editor or a reader, and the drafts of editor/reader calls.

Editor calls carry compact JSON of the tool input (Claude Code `Edit`/`Write`/`MultiEdit`,
opencode `edit`/`write`/`patch`, Codex `apply_patch`, Gemini `replace`/`write_file`, the
`str_replace_based_edit_tool` family); a truncated or non-JSON input still yields its path when
one can be found.
"""

from __future__ import annotations

import json
import re
from typing import Any

from logsleuth.actions.commands import Draft
from logsleuth.actions.shellparse import basename
from logsleuth.model import ActionKind as K

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
})
READ_TOOLS = frozenset({
    "read", "read_file", "readfile", "glob", "grep", "ls", "list", "list_directory", "list_dir", "search",
    "codebase_search", "file_search", "grep_search", "view", "webfetch", "websearch", "web_search", "fetch",
    "read_many_files", "search_file_content", "view_file", "find_files", "bashoutput", "notebookread",
})
# First words that make an unknown tool's text a shell command.
_PROGRAMS = frozenset({
    "pip", "pip3", "uv", "python", "python3", "ssh", "docker", "sudo", "bash", "sh", "apt", "apt-get", "conda",
    "mamba", "git", "make", "cmake", "ninja", "export", "cd", "nohup", "kill", "pkill", "systemctl", "service",
    "vllm", "sglang", "torchrun", "curl", "wget", "ls", "cat", "find", "grep", "nvidia-smi", "nvcc", "source",
    "env", "timeout", "kubectl", "pct", "echo", "tail", "head", "sed", "rm", "cp", "mv", "ln", "which", "ps",
    "unset", "ldd", "ldconfig", "tee", "patch", "mkdir", "chmod",
})
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename", "absolute_path",
              "TargetFile", "dir_path", "directory", "url", "pattern", "query", "paths")
_PATCH_KEYS = ("patch", "patchText", "patch_text", "input", "diff")


def _norm(tool: str) -> tuple[str, str]:
    t = tool.strip().lower()
    return t, re.split(r"__|\.|:", t)[-1]


def is_shell_tool(tool: str) -> bool:
    t, tail = _norm(tool)
    return t in SHELL_TOOLS or tail in SHELL_TOOLS


def is_edit_tool(tool: str) -> bool:
    t, tail = _norm(tool)
    return t in EDIT_TOOLS or tail in EDIT_TOOLS


def is_read_tool(tool: str) -> bool:
    t, tail = _norm(tool)
    return t in READ_TOOLS or tail in READ_TOOLS


def looks_like_command(text: str) -> bool:
    words = text.strip().split()
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words = words[1:]
    return bool(words) and basename(words[0]) in _PROGRAMS


def edit_drafts(tool: str, text: str, *, read: bool = False) -> list[Draft]:
    """Drafts of an editor (or, with read=True, a reader) tool call."""
    data = _json(text)
    name = tool.strip().lower()
    if read:
        target = _first(data, _PATH_KEYS) if isinstance(data, dict) else None
        return [Draft(K.INVESTIGATE, name, (target or text.strip())[:200] or None, _summary(name, target))]
    patch = _first(data, _PATCH_KEYS) if isinstance(data, dict) else None
    if patch is None and not isinstance(data, dict) and re.search(r"^(\*\*\* (Begin Patch|Update File|Add File)|\+\+\+ )", text, re.M):
        patch = text
    if patch is not None and re.search(r"^(\*\*\* (Update|Add|Delete) File:|\+\+\+ )", patch, re.M):
        return [Draft(K.FILE_EDIT, f, s, f"{name} {f}") for f, s in patch_summary(patch)]
    if not isinstance(data, dict):
        m = re.search(r'"(?:file_path|filePath|path|notebook_path)"\s*:\s*"((?:[^"\\]|\\.)*)"', text)
        return [Draft(K.FILE_EDIT, m.group(1), name, f"{name} {m.group(1)}")] if m else []
    path = _first(data, _PATH_KEYS) or "?"
    sub = str(data.get("command") or "")
    if sub == "view":
        return [Draft(K.INVESTIGATE, name, path, f"{name} view {path}")]
    return [Draft(K.FILE_EDIT, path, _edit_summary(name, sub, data), f"{name} {path}")]


def _json(text: str) -> Any:
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        return json.loads(s)
    except ValueError:
        return None


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for k in keys:
        v = data.get(k)
        if isinstance(v, str) and v:
            return v
        if isinstance(v, list) and v and isinstance(v[0], str):
            return v[0]
    return None


def _summary(name: str, target: str | None) -> str:
    return f"{name} {target}" if target else name


def _lines(s: Any) -> int:
    return len(str(s).splitlines()) if s else 0


def _edit_summary(name: str, sub: str, data: dict[str, Any]) -> str:
    edits = data.get("edits")
    if isinstance(edits, list) and edits:
        plus = sum(_lines(_first_any(e, ("new_string", "newString", "new_str"))) for e in edits if isinstance(e, dict))
        minus = sum(_lines(_first_any(e, ("old_string", "oldString", "old_str"))) for e in edits if isinstance(e, dict))
        return f"edit +{plus} -{minus} lines"
    new = _first_any(data, ("new_string", "newString", "new_str", "new_source", "replacement", "insert_text"))
    old = _first_any(data, ("old_string", "oldString", "old_str", "target", "search"))
    if new is not None or old is not None:
        return f"edit +{_lines(new)} -{_lines(old)} lines"
    content = _first_any(data, ("content", "file_text", "contents", "text", "code", "CodeContent"))
    if content is not None or sub == "create" or "write" in name or "create" in name:
        return f"write {_lines(content)} lines"
    return sub or "edit"


def _first_any(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((data[k] for k in keys if k in data and data[k] is not None), None)


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


def edit_texts(raw: str) -> tuple[str, str]:
    """(text added, text removed) by an edit as issued: an edit tool's JSON (one edit, a list of
    edits, a whole file written), a patch (`+`/`-` lines), else the command itself as added text
    (`sed -i`, `cat > f <<EOF`)."""
    data = _json(raw)
    if isinstance(data, dict):
        edits = data.get("edits")
        items: list[Any] = edits if isinstance(edits, list) else [data]
        added: list[str] = []
        removed: list[str] = []
        for e in (e for e in items if isinstance(e, dict)):
            new = _first_any(e, ("new_string", "newString", "new_str", "new_source", "replacement", "insert_text",
                                 "content", "file_text", "contents", "code", "CodeContent"))
            old = _first_any(e, ("old_string", "oldString", "old_str", "target", "search"))
            patch = _first_any(e, ("patch", "patchText", "input", "diff"))
            if isinstance(patch, str) and new is None:
                a, r = _patch_texts(patch)
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
