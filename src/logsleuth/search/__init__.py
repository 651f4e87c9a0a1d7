"""Search the corpus index: have we seen this error before, and what fixed it?

The modules, each importing only earlier ones (and the index's schema, store and sidecar):

    fuzzy            rapidfuzz's token_set_ratio in the standard library, for a few strings
    render           the answer as text, from plain values
    rank             the ranking: SQL over the sidecar, and the same in Python over Parquet rows
    query            a query read as a finding with the pattern library (Query)
    snapshot_query   the same over the library snapshot a sidecar carries (no library, no polars)
    sidecar          the sidecar's rows read as hits, as plain values (standard library only)
    hits             Hit and SearchResult
    engine           `search`: over the sidecar, over Parquet, or over inputs analysed now
    cli              the lean `logsleuth search` (the console script; the CLI layer, not search's)

This file imports nothing: the lean command-line search must not pay for polars, typing or
dataclasses, and importing any module of this package runs this file first.
"""
