"""The one place that formats a reference to an event: `[msg N]` in a transcript, `[line N]` in a log.

Reports cite the event seq everywhere (`Story`, the templates, the chain drawings). A plain log has
no messages, so its reports cite the source line a reader can open the log at instead. The style is
set once per rendering (`citing`) and read by `cite`, so the prose builders need no extra argument.
"""

from __future__ import annotations

import re
from collections.abc import ItemsView, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logsleuth.analysis import Analysis


@dataclass(frozen=True, slots=True)
class CiteStyle:
    unit: str = "msg"  # "msg" (seq) or "line" (source line)
    lines: Mapping[int, int] = field(default_factory=dict)  # seq -> source line, for "line"

    def number(self, seq: int) -> int:
        return self.lines.get(seq, seq) if self.unit == "line" else seq


_DEFAULT = CiteStyle()
_STYLE: ContextVar[CiteStyle | None] = ContextVar("logsleuth_cite_style", default=None)

# what `cite` produces, for renderers that turn references into links (the HTML report)
REF_RE = re.compile(r"\[(msg|line) (\d+)\]")


def style() -> CiteStyle:
    return _STYLE.get() or _DEFAULT


def cite(seq: int | None) -> str:
    """`[msg 12]` (transcripts) or `[line 49]` (plain logs); empty for no event."""
    if seq is None:
        return ""
    st = style()
    return f"[{st.unit} {st.number(seq)}]"


_VERDICT_REF = re.compile(r"\[msg (\d+)\]")


def recite(obj: Any) -> Any:
    """The verdict's `[msg N]` (it cites seqs) in the style of this rendering, in a string or a
    nested structure of them (a plain log's report cites `[line N]`)."""
    if isinstance(obj, str):
        return _VERDICT_REF.sub(lambda m: cite(int(m.group(1))), obj) if style().unit != "msg" else obj
    if isinstance(obj, dict):
        return {k: recite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(recite(v) for v in obj)
    return obj


def is_log(events: Any) -> bool:
    """A record made of log lines only (no user, assistant or tool messages)."""
    roles = set(events["role"].unique().to_list()) if events.height else set()
    return bool(roles) and roles <= {"log"}


def style_for(an: Analysis) -> CiteStyle:
    events = an.events  # a filter per access: once
    if not is_log(events):
        return CiteStyle()
    ev = events.select("seq", "line")
    if ev["line"].null_count() or ev["seq"].null_count() or ev["seq"].n_unique() != ev.height:
        return CiteStyle("line", dict(zip(ev["seq"].to_list(), ev["line"].to_list(), strict=True)))
    return CiteStyle("line", SeqLines(ev["seq"].to_numpy(), ev["line"].to_numpy()))


class SeqLines(Mapping[int, int]):
    """seq -> source line as two arrays (a dict of a million-line log's events was ~45 MB, for a
    report that cites a few hundred); iterates in the events' order, as the dict did."""

    def __init__(self, seqs: Any, lines: Any):
        import numpy as np

        self._seqs, self._lines = seqs, lines
        self._order = np.argsort(seqs, kind="stable")
        self._sorted = seqs[self._order]

    def __getitem__(self, seq: int) -> int:
        import numpy as np

        i = int(np.searchsorted(self._sorted, seq))
        if i < len(self._sorted) and self._sorted[i] == seq:
            return int(self._lines[self._order[i]])
        raise KeyError(seq)

    def __iter__(self) -> Iterator[int]:
        return iter(self._seqs.tolist())

    def __len__(self) -> int:
        return len(self._seqs)

    def items(self) -> ItemsView[int, int]:  # every pair at once (the HTML transcript's index)
        return dict(zip(self._seqs.tolist(), self._lines.tolist(), strict=True)).items()


@contextmanager
def citing(an: Analysis | CiteStyle) -> Iterator[CiteStyle]:
    """Cite in the style that fits `an` while the block runs (nests; restored afterwards)."""
    st = an if isinstance(an, CiteStyle) else style_for(an)
    token = _STYLE.set(st)
    try:
        yield st
    finally:
        _STYLE.reset(token)


def anchor(unit: str, number: int) -> str:
    """The id of the transcript entry a reference links to in the HTML report."""
    return f"{unit}-{number}"
