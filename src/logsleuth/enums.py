"""The vocabulary's enums a stored index row carries: a finding's severity, an action's kind and
a session's outcome. model.py imports them (they are its names too); they live here, importing
nothing but `enum`, because the lean command-line search (search/cli.py) reads index rows as
typed records (index/record.py) and must not pay for model.py's polars and dataclasses.
"""

from __future__ import annotations

import enum


class Severity(enum.StrEnum):
    """Pattern severity. `success` marks progress (server ready, build finished)."""

    SUCCESS = "success"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    FATAL = "fatal"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    @property
    def is_failure(self) -> bool:
        return self.rank >= _SEVERITY_RANK[Severity.ERROR]


_SEVERITY_RANK = {
    Severity.SUCCESS: 0,
    Severity.INFO: 1,
    Severity.WARNING: 2,
    Severity.ERROR: 3,
    Severity.FATAL: 4,
}


class ActionKind(enum.StrEnum):
    INSTALL = "install"
    UNINSTALL = "uninstall"
    UPGRADE = "upgrade"
    DOWNGRADE = "downgrade"
    PIN = "pin"
    ENV_SET = "env_set"
    ENV_UNSET = "env_unset"
    ENV_ACTIVATE = "env_activate"  # source venv/bin/activate, conda activate
    FLAG_ADDED = "flag_added"
    FLAG_REMOVED = "flag_removed"
    FLAG_CHANGED = "flag_changed"
    LAUNCH = "launch"  # a long-running server or job started
    FILE_EDIT = "file_edit"
    SERVICE_RESTART = "service_restart"
    BUILD = "build"
    RUN = "run"  # any other command that changes nothing we track
    INVESTIGATE = "investigate"  # ls, find, cat, nvidia-smi, pip show …

    @property
    def is_fix(self) -> bool:
        return self not in (ActionKind.INVESTIGATE, ActionKind.RUN, ActionKind.LAUNCH)


# what changes a package: puts a version of it in place (INSTALLS) or removes it
INSTALLS = frozenset({ActionKind.INSTALL, ActionKind.UPGRADE, ActionKind.DOWNGRADE, ActionKind.PIN})
PACKAGE_CHANGES = INSTALLS | {ActionKind.UNINSTALL}


class Outcome(enum.StrEnum):
    RESOLVED = "resolved"
    WORKED_AROUND = "worked around"
    UNRESOLVED = "unresolved"
    NO_FAILURE = "no failure"  # nothing failed: not "resolved" (nothing was fixed)
