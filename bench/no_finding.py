"""List the records of a labelled corpus that get no finding at all (a real error passed in silence).

    python bench/no_finding.py CORPUS.jsonl [CORPUS.jsonl ...] [--quiet]

A record labelled with a failure category that yields no finding of failure severity is listed
with its first lines; a benign record (`none`) that yields one is listed as flagged. Prints, per
corpus, `no finding: N/M failures` and `benign flagged: K/B`. Exits 0 (a measure, not a gate).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from logsleuth.evaluate import NONE, failures_by_record, read_records
from logsleuth.library import load_library
from logsleuth.library.pattern import PatternLibrary


def _role(library: PatternLibrary, category: str) -> str:
    """The role the category vocabulary gives a category ('' when unknown)."""
    cat = library.categories.get(category)
    return cat.role if cat is not None else ""


def head(text: str, lines: int = 3) -> str:
    """The first non-blank lines of a log, for the listing."""
    kept = [ln.strip()[:140] for ln in text.splitlines() if ln.strip()][:lines]
    return " | ".join(kept)


def report(path: str, library: PatternLibrary, quiet: bool) -> tuple[int, int, int, int]:
    """Print one corpus's silent failures and flagged benign records; return the four counts."""
    records = read_records(path)
    found = failures_by_record(records, library)
    quiet_roles = {"success", "progress"}  # a passing run is scored on its success finding, not here
    real = [r for r in records if r.category != NONE and _role(library, r.category) not in quiet_roles]
    benign = [r for r in records if r.category == NONE]
    silent = [r for r in real if not found[r.id]]
    flagged = [r for r in benign if found[r.id]]
    if not quiet:
        for r in silent:
            print(f"  no finding: {r.id} [{r.category}] {head(r.log)}")
        for r in flagged:
            print(f"  benign flagged: {r.id} by {found[r.id][0].pattern}")
    print(f"{path}: no finding: {len(silent)}/{len(real)} failures; benign flagged: {len(flagged)}/{len(benign)}")
    return len(silent), len(real), len(flagged), len(benign)


def main(argv: Sequence[str]) -> int:
    """Report every corpus named on the command line."""
    quiet = "--quiet" in argv
    library = load_library([])
    for path in [a for a in argv if not a.startswith("--")]:
        report(path, library, quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
