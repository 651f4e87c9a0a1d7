"""rich's table, rendered row by row from cached cells: the same text for thousands of rows.

rich lays a table out in two steps: column widths from the measurements of every cell (per
column: the widest minimum and the widest maximum), then each row from its cells wrapped to
those widths. A classify run over a 1 GB log has thousands of findings whose cells repeat (the
same pattern, category and error text), and rich spends about a millisecond a row. So:
1. rich lays out a small table holding, per column, only the cells with the widest minimum and
   maximum measurements: the same widths, the same title, header and borders;
2. each distinct cell is wrapped once by rich itself (`Console.render_lines`, as rich's table
   does) and reused; rows are joined with the table's own border characters.
Cells are plain text (`rich.text.Text`): never markup, so `[rank0]` in a log line stays.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

Columns = Sequence[tuple[str, str]]  # (header, overflow)


def _table(title: str, columns: Columns) -> Table:
    table = Table(title=title)
    for name, overflow in columns:
        table.add_column(name, overflow=overflow)  # type: ignore[arg-type]
    return table


def _print(console: Console, renderable: Any) -> str:
    console.file = io.StringIO()
    console.print(renderable)
    out: str = console.file.getvalue()
    return out


def _representatives(console: Console, columns: Columns, rows: Sequence[Sequence[str]]) -> list[list[str]]:
    """Per column, the cells whose measurements set the column's width."""
    reps: list[list[str]] = []
    options = console.options
    for j in range(len(columns)):
        seen: dict[str, tuple[int, int]] = {}
        for row in rows:
            cell = row[j]
            if cell not in seen:
                m = Measurement.get(console, options, Padding(Text(cell), (0, 1)))
                seen[cell] = (m.minimum, m.maximum)
        if not seen:
            reps.append([])
            continue
        widest_min = max(seen, key=lambda c: seen[c][0])
        widest_max = max(seen, key=lambda c: seen[c][1])
        reps.append(sorted({widest_min, widest_max}))
    return reps


def render_table(title: str, columns: Columns, rows: Sequence[Sequence[str]], width: int) -> str:
    """The text `rich` prints for this table (cells as plain Text), in time linear in distinct cells."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    reps = _representatives(console, columns, rows)
    small = _table(title, columns)
    for i in range(max((len(r) for r in reps), default=0)):
        small.add_row(*(Text(r[i]) if i < len(r) else Text("") for r in reps))
    text = _print(console, small)
    if not rows:
        return _print(console, _table(title, columns))
    lines = text.split("\n")
    sep = next((k for k, ln in enumerate(lines) if ln.startswith("┡")), None)
    bottom = next((k for k in range(len(lines) - 1, -1, -1) if lines[k].startswith("└")), None)
    if sep is None or bottom is None:  # an unexpected layout: let rich do all of it
        full = _table(title, columns)
        for row in rows:
            full.add_row(*(Text(c) for c in row))
        return _print(console, full)
    widths = [len(part) for part in lines[sep][1:-1].split("╇")]
    cache: list[dict[str, list[str]]] = [{} for _ in columns]
    out = lines[: sep + 1]
    for row in rows:
        cells = [_cell(console, cache[j], c, widths[j], columns[j][1]) for j, c in enumerate(row)]
        height = max(len(c) for c in cells)
        for k in range(height):
            out.append("│" + "│".join(c[k] if k < len(c) else " " * w for c, w in zip(cells, widths, strict=True)) + "│")
    out.append(lines[bottom])
    return "\n".join(out) + "\n"


def _cell(console: Console, cache: dict[str, list[str]], cell: str, width: int, overflow: str) -> list[str]:
    got = cache.get(cell)
    if got is None and len(cell) + 2 <= width and cell.isascii() and cell.isprintable() and cell == cell.strip():
        # fits on one line as it is: rich pads it by one space on the left, spaces to the width
        got = cache[cell] = [" " + cell + " " * (width - 1 - len(cell))]
    elif got is None:
        options = console.options.update(width=width, justify=None, no_wrap=False, overflow=overflow,  # type: ignore[arg-type]
                                         height=None, highlight=False)
        rendered = console.render_lines(Padding(Text(cell), (0, 1)), options, pad=True)
        got = cache[cell] = ["".join(seg.text for seg in line) for line in rendered]
    return got
