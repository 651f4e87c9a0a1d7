"""The corpus index: every finding of every session seen, and what resolved it, as plain Parquet.

Layout under the index directory (`$XDG_DATA_HOME/logsleuth`, default ~/.local/share/logsleuth,
or `--db DIR`):

    files.parquet                  the manifest (MANIFEST_SCHEMA): one row per indexed input
    findings/part-<hash>.parquet   one part per input (all its sessions), or per batch of small
                                   inputs (batch.py; rows told apart by origin + source)
    findings.parquet               all listed parts in one file, for search (compact.py)
    search.sqlite                  the same rows for the command-line search (sidecar.py)
    .lock                          flock'd for the whole of an `index` run

The manifest is the commit point: parts are written to a temporary name and renamed into place
first, the manifest is replaced (temp file + fsync + os.replace) after them, and readers only
trust the parts it lists. A part's name hashes the input's path, content, the pattern library and
the index version (a batch's part: those of all its inputs), so a changed input gets a new part
and an old manifest never points at new data; a shared part that loses an input is rewritten
under a new name with the rows of the others before the manifest lists it (parts.split_shared).
A run killed at any point leaves the previous (or an intermediate) committed state; parts
nobody lists are deleted by the next run. The compact findings.parquet is written after the
last commit of a run and is read only when it records the exact parts the manifest lists; the
search sidecar after it, read only when it records the digest of the committed manifest.

An input is identified by its origin (`--origin`, default the host name) and absolute path: the
same path indexed from two machines into one shared index is two inputs.

The modules, each importing only earlier ones (and the stages before the index):

    schema     the Parquet schemas of a part and of the manifest, the index version
    files      where the index lives, the inputs under a root, an input's identity
    compact    the compact findings.parquet and atomic writes
    store      reading the committed state (manifest, parts or compact file)
    lock       the run's lock
    rows       the index rows of one analysed session
    analyse    one input analysed into its rows (Task, FileOutcome)
    textbatch, batch   many small inputs analysed in one pass
    pool       the analysis on several cores
    parts      part names and the rewrite of a shared part
    patterns   the pattern library loaded once; the default one's snapshot for the sidecar
    sidecar    the search sidecar's format and currency check (standard library only)
    sidecar_write   writing the sidecar
    build      an `index` run: plan, analyse, write, commit

This file imports nothing: the lean command-line search reads index.sidecar without polars.
"""
