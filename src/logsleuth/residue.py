"""The unclassified residue: error-looking lines no pattern matched, grouped into templates.

Values are masked (timestamps, quoted strings, URLs, paths, hex, versions, numbers) so that the
same message with different values falls into one template; the result suggests new patterns.
All in polars: one split/explode over the error-looking events, one chain of replace_all.
"""

from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=1)
def _secret_shapes() -> str:
    """Every token recognisable by its shape (redact.py), as one Rust regex. A token is one value:
    templating its digit runs (`sk-ant-…-7-…` as `-<num>-`) cut it into pieces that no masking
    rule recognises, and its tail reached the report."""
    from logsleuth.redact import token_shapes
    from logsleuth.redact_scan import superset

    return r"\b(?:" + "|".join(f"(?:{superset(p)})" for p in token_shapes()) + ")"


def template_expr(col: str) -> pl.Expr:
    e = pl.col(col).str.replace_all(_secret_shapes(), "<secret>")
    for rx, repl in MASKS:
        e = e.str.replace_all(rx, repl)
    return e.str.strip_chars().str.slice(0, TEMPLATE_CHARS)


# Error-looking events are split into lines this many bytes of text at a time: splitting them all
# at once copied most of a long session's tool output (+60 MB peak on a 200 MiB session; 16 MB
# batches +72 MB of allocator growth, 4 MB +31 MB at the same speed, 1 MB +13 MB but 1.5x slower).
BATCH_BYTES = 4 * 1024 * 1024


def unclassified_templates(ev: pl.DataFrame, matched: pl.DataFrame) -> tuple[Unclassified, ...]:
    """Group the unmatched error-looking lines of tool_result/log events.

    `ev` is the event table with a `_row` index; `matched` holds (`_row`, `off`) of every line a
    pattern matched (off = 0-based line offset within the event text), which are left out.
    Lines are counted per template; each template keeps its first line in (session, seq, line) order.
    """
    kind = pl.col("kind").cast(pl.Utf8)
    cand = (
        ev.lazy()
        .filter(kind.is_in(["tool_result", "log"]) & pl.col("text").str.contains(ERRORISH))
        .select("_row", "session", "seq", size=pl.col("text").str.len_bytes())
        .sort("session", "seq")
        .collect()
    )
    if not cand.height:
        return ()
    # batches in (session, seq) order: a template's first line is in the first batch that has it
    batch = (cand["size"].cum_sum() // BATCH_BYTES).to_list()
    rows = cand["_row"].to_list()
    groups: dict[int, list[int]] = {}
    for b, r in zip(batch, rows, strict=True):
        groups.setdefault(b, []).append(r)
    hits = matched.lazy().with_columns(pl.col("off").cast(pl.Int64))
    parts = [
        ev.lazy()
        .filter(pl.col("_row").is_in(pl.Series(group, dtype=ev.schema["_row"]).implode()))
        .select("_row", "session", "seq", "source", "line", kind.alias("kind"), l=pl.col("text").str.split("\n"))
        .with_columns(off=pl.int_ranges(0, pl.col("l").list.len()))
        .explode(["l", "off"])
        .filter(pl.col("l").str.contains(ERRORISH))
        .join(hits, on=["_row", "off"], how="anti")
        .with_columns(
            template=template_expr("l"),
            src_line=pl.col("line") + pl.when(pl.col("kind") == "log").then(pl.col("off")).otherwise(0),
        )
        .filter(pl.col("template") != "")
        .sort("session", "seq", "off")
        .group_by("template", maintain_order=True)
        .agg(count=pl.len(), first_line=pl.col("src_line").first(), source=pl.col("source").first())
        .collect()
        for _, group in sorted(groups.items())
    ]
    lines = (
        pl.concat(parts)
        .group_by("template", maintain_order=True)
        .agg(pl.col("count").sum(), pl.col("first_line").first(), pl.col("source").first())
        .sort(["count", "template"], descending=[True, False])
    )
    return tuple(
        Unclassified(t, int(c), int(fl), s)
        for t, c, fl, s in lines.select("template", "count", "first_line", "source").iter_rows()
    )
