"""The unclassified residue: error-looking lines no pattern matched, grouped into templates.

Values are masked (timestamps, quoted strings, URLs, paths, hex, versions, numbers) so that the
same message with different values falls into one template; the result suggests new patterns.
All in polars: one split/explode over the error-looking events, one chain of replace_all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

# Case-aware on purpose: "error" and "Error:" are errors, "errors=0" in prose mostly is not.
ERRORISH = (
    r"\berror\b|\bERROR\b|Error:|\bFAILED\b|\bFailed\b|\bfailed\b|\bfatal\b|\bFatal\b|\bFATAL\b"
    r"|Traceback|Exception"
)
TEMPLATE_CHARS = 240

# (regex, replacement) applied in order; every regex is Rust-regex syntax (polars).
MASKS: tuple[tuple[str, str], ...] = (
    (r"\x1b\[[0-9;]*[A-Za-z]", ""),
    (r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?", "<ts>"),
    (r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b", "<ts>"),
    (r"https?://\S+", "<url>"),
    (r"(^|[^\w])'[^'\n]*'", "${1}<str>"),
    (r"(^|[^\w])\"[^\"\n]*\"", "${1}<str>"),
    (r"(^|[\s=(:,\[])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+-]+)+/?", "${1}<path>"),
    (r"\b0x[0-9a-fA-F]+\b", "<hex>"),
    (r"\b[0-9a-f]{8,}\b", "<hex>"),
    (r"\bv?\d+(?:\.\d+)+(?:[-+][\w.]+)?", "<ver>"),
    (r"\b\d+\b", "<num>"),
    (r"\s+", " "),
)


@dataclass(frozen=True, slots=True)
class Unclassified:
    template: str
    count: int
    first_line: int
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"template": self.template, "count": self.count, "first_line": self.first_line,
                "source": self.source}


def template_expr(col: str) -> pl.Expr:
    e = pl.col(col)
    for rx, repl in MASKS:
        e = e.str.replace_all(rx, repl)
    return e.str.strip_chars().str.slice(0, TEMPLATE_CHARS)


def unclassified_templates(ev: pl.DataFrame, matched: pl.DataFrame) -> tuple[Unclassified, ...]:
    """Group the unmatched error-looking lines of tool_result/log events.

    `ev` is the event table with a `_row` index; `matched` holds (`_row`, `off`) of every line a
    pattern matched (off = 0-based line offset within the event text), which are left out.
    """
    kind = pl.col("kind").cast(pl.Utf8)
    lines = (
        ev.lazy()
        .filter(kind.is_in(["tool_result", "log"]) & pl.col("text").str.contains(ERRORISH))
        .select("_row", "session", "seq", "source", "line", kind.alias("kind"),
                l=pl.col("text").str.split("\n"))
        .with_columns(off=pl.int_ranges(0, pl.col("l").list.len()))
        .explode(["l", "off"])
        .filter(pl.col("l").str.contains(ERRORISH))
        .join(matched.lazy().with_columns(pl.col("off").cast(pl.Int64)), on=["_row", "off"], how="anti")
        .with_columns(
            template=template_expr("l"),
            src_line=pl.col("line") + pl.when(pl.col("kind") == "log").then(pl.col("off")).otherwise(0),
        )
        .filter(pl.col("template") != "")
        .sort("session", "seq", "off")
        .group_by("template", maintain_order=True)
        .agg(count=pl.len(), first_line=pl.col("src_line").first(), source=pl.col("source").first())
        .sort(["count", "template"], descending=[True, False])
        .collect()
    )
    return tuple(
        Unclassified(t, int(c), int(fl), s)
        for t, c, fl, s in lines.select("template", "count", "first_line", "source").iter_rows()
    )
