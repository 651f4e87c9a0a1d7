"""The drafts of editor and reader calls, from the call as ingest normalised it (ingest/tools.py).

No agent's tool names or input keys are known here: an edit names its paths and what it did to
each, a read, search or web call what it looks at.
"""

from __future__ import annotations

from logsleuth.actions.commands import Draft
from logsleuth.ingest.tools import ToolCall
from logsleuth.model import ActionKind as K
from logsleuth.model import ToolKind

LOOKS = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.WEB})


def edit_drafts(name: str, call: ToolCall) -> list[Draft]:
    """One file edit per path (`name`: the tool as the agent called it, lower case); a path whose
    change the input does not say is changed by `name`."""
    return [Draft(K.FILE_EDIT, p, c or name, f"{name} {p}") for p, c in zip(call.paths, call.changes, strict=True)]


def look_drafts(name: str, call: ToolCall, text: str) -> list[Draft]:
    """The investigation of a read, search or web call: what it looks at, else its input."""
    target = call.paths[0] if call.paths else None
    if call.changes == ("view",):  # an editor's view: the file viewed, named as such
        return [Draft(K.INVESTIGATE, name, target, f"{name} view {target}")]
    return [Draft(K.INVESTIGATE, name, (target or text.strip())[:200] or None, f"{name} {target}" if target else name)]
