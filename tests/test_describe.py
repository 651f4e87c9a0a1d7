"""Actions told in prose: the verb matches what the command did (a claim checked against the call)."""

from __future__ import annotations

from logsleuth.model import Action, ActionKind
from logsleuth.render.describe import describe


def _action(kind: ActionKind, subject: str, value: str | None, command: str) -> Action:
    return Action(kind, subject, value, "s", 20, "f", 1, command)


def test_a_removal_is_told_as_removed_not_edited() -> None:
    # heldout4 glibcpin [msg 20]: `rm -rf /tmp/nvqprobe && make && make test` was told "it edited `/tmp/nvqprobe`"
    a = _action(ActionKind.FILE_EDIT, "/tmp/nvqprobe", "rm", "rm -rf /tmp/nvqprobe")
    assert describe(a) == "removed `/tmp/nvqprobe`"


def test_an_edit_is_still_an_edit() -> None:
    a = _action(ActionKind.FILE_EDIT, "src/a.c", None, "sed -i s/x/y/ src/a.c")
    assert describe(a) == "edited `src/a.c`"
