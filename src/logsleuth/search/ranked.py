"""A ranked hit as a light record: the stored finding (index/record.py), its score and how often
its error occurred in the session. hits.Hit is built from one (`Hit.of`); render.table draws
either. Standard library only, as the lean command-line search (cli.py) needs it.
"""

from __future__ import annotations

from logsleuth.index.record import StoredFinding, finding_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from logsleuth.index.record import StoredAction


class Ranked(StoredFinding):
    """A stored finding as a hit: its score, its occurrences, and its fixes (`resolved_by`)."""

    __slots__ = ("occurrences", "score")
    score: float
    occurrences: int

    def __init__(self, finding: StoredFinding, score: float, occurrences: int) -> None:
        for name in StoredFinding.__slots__:
            self._set(name, getattr(finding, name))
        self._set("score", round(float(score), 3))  # as a hit reports it
        self._set("occurrences", int(occurrences))

    @property
    def fixes(self) -> tuple[StoredAction, ...]:
        return self.resolved_by


def ranked_of(row: Mapping[str, Any]) -> Ranked:
    """A ranked row (a stored row with `score` and `occurrences`: the Parquet path's and the
    sidecar's alike)."""
    return Ranked(finding_of(row), row["score"], row["occurrences"])
