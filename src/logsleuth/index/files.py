"""Where the index lives, where agents keep their sessions, the inputs under a root, and the
identity of an input file (size + mtime first, then a content hash) for incremental indexing."""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from logsleuth.errors import InputError, Location

# ---------------------------------------------------------------- locations


def default_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "logsleuth"


def default_origin() -> str:
    """Who indexed an input unless `index --origin` names someone: this machine's host name."""
    return socket.gethostname() or "localhost"


def auto_roots() -> list[str]:
    """Where the supported agents keep their sessions on this machine (HOME/XDG/tool vars respected)."""
    home = Path(os.path.expanduser("~"))
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    claude = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    codex = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    candidates = [
        claude / "projects",
        codex / "sessions",
        data / "opencode" / "storage",
        data / "opencode" / "opencode.db",
    ]
    if candidates[3].exists():
        # opencode 1.2+ migrates storage/ into opencode.db and leaves the folder behind: indexing
        # both would count every migrated session twice, and the database holds them all
        candidates.remove(candidates[2])
    roots = [str(p) for p in candidates if p.exists()]
    roots += sorted(str(p) for p in (home / ".gemini" / "tmp").glob("*/chats") if p.is_dir())
    return roots


def discover(root: str, not_used: list[str] | None = None) -> list[str]:
    """The inputs under `root` (ingest.discover, which also collects `not_used`), or an
    InputError when it does not exist."""
    from logsleuth import ingest

    if not os.path.exists(root):
        raise InputError("no such file or directory", Location(root), "check the path")
    return ingest.discover(root, not_used)


# ---------------------------------------------------------------- file identity


@dataclass(frozen=True, slots=True)
class Stat:
    size: int
    mtime_ns: int


def members_of(path: Path) -> list[Path]:
    """The files an input is read from: a folder's files, a Claude Code session's subagent files,
    an SQLite database's write-ahead log."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file())
    out = [path]
    sidecar = path.with_name(path.name + "-wal")
    if sidecar.is_file():
        out.append(sidecar)
    if path.suffix == ".jsonl":
        sub = path.with_suffix("") / "subagents"
        if sub.is_dir():
            out += sorted(p for p in sub.rglob("*") if p.is_file())
    return out


def stat_of(path: Path, members: list[Path] | None = None) -> Stat:
    """Size and newest mtime of the input's files (`members`: `members_of(path)`, when known)."""
    size = mtime = 0
    for m in members_of(path) if members is None else members:
        st = m.stat()
        size += st.st_size
        mtime = max(mtime, st.st_mtime_ns)
    return Stat(size, mtime)


def content_hash(path: Path, members: list[Path] | None = None) -> str:
    h = hashlib.sha256()
    members = members_of(path) if members is None else members
    base = path if members != [path] and path.is_dir() else path.parent
    for m in members:
        if m != path:
            h.update(b"\x00" + os.path.relpath(m, base).encode() + b"\x00")
        with open(m, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()
