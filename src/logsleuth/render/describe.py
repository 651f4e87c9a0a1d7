"""Actions told in prose: what a change did ("pinned `nvidia-cuda-nvcc<13.1`, which gave 13.0.88"),
whether a sentence of the agent's talks about it, and an editor call as a small diff."""

from __future__ import annotations

from logsleuth.clip import short
from logsleuth.model import Action, ActionKind

_WIDTH = 90  # a command or value quoted inside a sentence

_FLAG_NOISE = {"disable", "enable", "no", "use", "cuda", "with"}


def mentions(text: str, a: Action) -> bool:
    """Does a sentence talk about this change? `--disable-cuda-graph` ~ "disabling graphs"."""
    low = text.lower()
    if a.kind in (ActionKind.ENV_SET, ActionKind.LAUNCH):
        return a.subject in text  # PATH is a variable, "code path" is not
    if a.subject.lower() in low:
        return True
    words = [w for w in a.subject.lower().lstrip("-").replace("_", "-").split("-") if w and w not in _FLAG_NOISE]
    if not words or not all(w.rstrip("s") in low for w in words):
        return False
    if a.subject.startswith("--disable") or a.subject.startswith("--no-"):
        return "disabl" in low or "turn off" in low or "without" in low
    return a.value is not None and a.value.lower() in low


# what the simpler kinds of action did, as a verb phrase (formatted with the action as `a`)
_PHRASES = {
    ActionKind.ENV_UNSET: "unset `{a.subject}`",
    ActionKind.ENV_ACTIVATE: "activated `{a.subject}`",
    ActionKind.FLAG_CHANGED: "switched `{a.subject}` to `{a.value}`",
    ActionKind.FLAG_REMOVED: "dropped `{a.subject}`",
    ActionKind.LAUNCH: "relaunched {a.subject}",
    ActionKind.FILE_EDIT: "edited `{a.subject}`",
    ActionKind.SERVICE_RESTART: "restarted `{a.subject}`",
}
_PACKAGE_VERBS = {ActionKind.INSTALL: "installed", ActionKind.UPGRADE: "upgraded", ActionKind.DOWNGRADE: "downgraded",
                  ActionKind.PIN: "pinned", ActionKind.UNINSTALL: "removed"}


def describe(a: Action) -> str:
    """What an action did, as a verb phrase ("pinned `nvidia-cuda-nvcc<13.1`, which installed 13.0.88")."""
    k = a.kind
    if k is ActionKind.FILE_EDIT and a.value == "rm":  # `rm -rf /tmp/probe` removed it; "edited" was false
        return f"removed `{a.subject}`"
    if k in _PHRASES:
        return _PHRASES[k].format(a=a)
    if k is ActionKind.ENV_SET:
        return f"set `{a.subject}={short(a.value or '', _WIDTH)}`"
    if k in _PACKAGE_VERBS:
        spec = a.value or ""
        target = f"`{a.subject}{spec}`" if spec[:1] in "<>=!~" else f"`{a.subject}`"
        got = f", which gave {a.resolved}" if a.resolved and a.resolved not in spec else ""
        prev = f" (replacing {a.previous})" if a.previous else ""
        return f"{_PACKAGE_VERBS[k]} {target}{got}{prev}"
    if k is ActionKind.FLAG_ADDED:
        return f"added `{a.subject}{' ' + a.value if a.value else ''}` to the launch"
    if k is ActionKind.BUILD:
        return f"rebuilt with `{short(a.command, _WIDTH)}`"
    return f"ran `{short(a.command, _WIDTH)}`"


def edit_diff(raw: str) -> str | None:
    """An editor tool call's old/new strings as a small diff (the JSON itself reads badly)."""
    import orjson

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    path = data.get("file_path") or data.get("filePath") or data.get("path") or ""
    old, new = data.get("old_string") or data.get("oldString"), data.get("new_string") or data.get("newString")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    lines = [f"--- {path}", f"+++ {path}"]
    lines += [f"-{ln}" for ln in old.splitlines()[:12]] + [f"+{ln}" for ln in new.splitlines()[:12]]
    return "\n".join(lines)


def lower_first(title: str) -> str:
    """"Shared library not found" -> "shared library …", but "NCCL …" stays."""
    return title[:1].lower() + title[1:] if title[1:2].islower() else title
