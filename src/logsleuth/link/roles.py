"""What each category means for a session's story, read from categories.yaml's `role`.

The linker asks these sets, never a list of category names of its own: renaming or adding a
category changes the story only through its role.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass

from logsleuth.library.pattern import Category


@dataclass(frozen=True, slots=True)
class StoryRoles:
    generic: frozenset[str]  # "something failed": chain-worthy only when nothing better exists
    wrapper: frozenset[str]  # a build tool's summary: the failure is named by the lines before it
    attempt: frozenset[str]  # an install command's own failure: the attempt failed, not the story
    not_run: frozenset[str]  # the tool call never ran: its actions changed nothing
    progress: frozenset[str]  # a success that is not the goal (a package installed)
    groups: Mapping[str, str] = dataclasses.field(default_factory=dict)  # category -> its group (cuda, build, …)

    @classmethod
    def of(cls, categories: Mapping[str, Category]) -> StoryRoles:
        def named(*roles: str) -> frozenset[str]:
            return frozenset(name for name, c in categories.items() if c.role in roles)

        return cls(
            # a tool call that never ran and routine non-zero exits say even less than a bare traceback
            generic=named("generic", "not_run", "noise"),
            wrapper=named("wrapper"),
            attempt=named("attempt_failure"),
            not_run=named("not_run"),
            progress=named("progress"),
            groups={name: c.group for name, c in categories.items()},
        )


@functools.cache
def builtin_roles() -> StoryRoles:
    """The roles of the built-in library (callers that link without a library of their own)."""
    from logsleuth.library import load_library

    return StoryRoles.of(load_library([], env=False).categories)
