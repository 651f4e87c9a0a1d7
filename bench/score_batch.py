"""Score the classifier once on a fresh held-out batch of real excerpts (issue #34's measure).

    python bench/score_batch.py BATCH.jsonl [--exclude-source URL ...] [-v]

BATCH: one {"id", "text", "label", "source"} a line; `label` is a category of the taxonomy, "benign",
or "other:<name>" (a real failure outside the taxonomy: right when it gets any failure finding). Prints
the accuracy over all records, per kind, the "no finding" share of real failures and the benign
records flagged. A measure, not a gate: exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from logsleuth.evaluate import NONE, evaluate, failures_by_record, read_records
from logsleuth.library import load_library


def _as_records(batch: Path, excluded: set[str], out: Path) -> dict[str, str]:
    """Write the batch as the evaluator's records; return id -> label as given."""
    labels: dict[str, str] = {}
    with out.open("w") as f:
        for line in batch.read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("source") in excluded:
                continue
            label = r["label"]
            cat = NONE if label == "benign" else ("tool_error" if label.startswith("other:") else label)
            labels[r["id"]] = label
            f.write(json.dumps({"id": r["id"], "category": cat, "log": r["text"]}) + "\n")
    return labels


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("batch")
    ap.add_argument("--exclude-source", action="append", default=[], metavar="URL")
    ap.add_argument("-v", "--verbose", action="store_true", help="list each wrong record")
    args = ap.parse_args(argv)
    library = load_library()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        labels = _as_records(Path(args.batch), set(args.exclude_source), path)
        result = evaluate(str(path), library)
        found = failures_by_record(read_records(str(path)), library)
    right = {"taxonomy": [0, 0], "other": [0, 0], "benign": [0, 0]}
    silent = 0
    for p in result.outcomes:
        label = labels[p.id]
        kind = "benign" if label == "benign" else "other" if label.startswith("other:") else "taxonomy"
        ok = bool(found[p.id]) if kind == "other" else p.correct
        right[kind][0] += ok
        right[kind][1] += 1
        if kind != "benign" and not found[p.id]:
            silent += 1
        if args.verbose and not ok:
            print(f"  wrong {p.id}: expected {label}, got {p.predicted} ({p.pattern})")
    total = sum(r[0] for r in right.values()), sum(r[1] for r in right.values())
    real = right["taxonomy"][1] + right["other"][1]
    print(f"{args.batch}: {total[1]} records")
    print(f"  accuracy        {total[0] / max(total[1], 1):.3f}  ({total[0]}/{total[1]})")
    for kind, (ok, n) in right.items():
        print(f"  {kind:<15} {ok / max(n, 1):.3f}  ({ok}/{n})")
    print(f"  no finding      {silent}/{real} real failures")
    print(f"  benign flagged  {right['benign'][1] - right['benign'][0]}/{right['benign'][1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
