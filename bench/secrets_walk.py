"""Plant a set of secret shapes in every input format and walk every surface for leaks (issue 35).

    python bench/secrets_walk.py              # the 55 fitted shapes (tests/secret_families.shape_plants)
    python bench/secrets_walk.py --heldout    # the 37 held-out ones (bench/secrets_heldout.py): totals only
    python bench/secrets_walk.py --heldout --names   # ... and which kinds leaked where (after the one scoring)
    python bench/secrets_walk.py --heldout2   # the 83 of bench/secrets_heldout2.py (a helper's, 2026-12-07): totals only
    python bench/secrets_walk.py --heldout3   # the 82 of bench/secrets_heldout3.py (a helper's, 2026-12-07): totals only

Each shape is planted, like tests/robustness_secrets.py plants its kinds, into every free-text
field of a seed file of each of the 12 formats (one line of all of them after an error text, and
one per line). The surfaces: `events`, `classify`, `graph`, `analyze` (JSON, markdown, HTML),
`explain` of each format; `index` of all of them, every file of the index folder read back as
bytes (Parquet, the SQLite search sidecar, anything else) and the Parquet files decoded; `search`
(JSON and text) over the index; `serve`'s pages and API (in process): search, the sessions list,
each session, its postmortem and each error fingerprint. A leak is the value, or a 10-character
run of it that is not constant text of its shape (runs equal under another seed are left out),
in the text, case folded, HTML entities decoded. `--no-redact` on `events -O json` shows that
every shape was really planted.
"""

from __future__ import annotations

import argparse
import html
import re
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from secrets_matrix import run

from robustness_fuzz import FORMATS, fmt_id
from robustness_secrets import write_planted

Plants = dict[str, tuple[str, str]]
CLI = ("events -O json", "classify -O json", "graph -O json", "analyze -O json", "analyze -O md",
       "analyze -O html", "explain -m 1")
QUERIES = ("RuntimeError: CUDA error: out of memory", "password", "token")
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9\-]+\]?")
RUN = 10


def probes(plants: Plants, other: Plants) -> dict[str, list[str]]:
    """kind -> the runs that betray its value: the whole value and its 10-character runs, less the
    runs that the same shape drawn from another seed also has (a prefix, an encoded constant)."""
    out: dict[str, list[str]] = {}
    for kind, (_, value) in plants.items():
        alt = other[kind][1]
        runs = [value] + [value[i : i + RUN] for i in range(0, max(0, len(value) - RUN) + 1, 3)]
        out[kind] = [r for r in runs if r not in alt and "\n" not in r]
    return out


def leaked(text: str, runs: dict[str, list[str]]) -> set[str]:
    text = _PLACEHOLDER.sub("[R]", text)
    views = (text, html.unescape(text))
    low = tuple(v.lower() for v in views)
    return {k for k, rs in runs.items() if any(r in v for r in rs for v in views) or
            any(r.lower() in v for r in rs for v in low)}


def index_texts(db: Path) -> dict[str, str]:
    """Every file of the index as bytes (latin-1), the Parquet files decoded, SQLite dumped."""
    import polars as pl

    out: dict[str, str] = {}
    for p in sorted(q for q in db.rglob("*") if q.is_file()):
        name = str(p.relative_to(db))
        out[f"index bytes {p.suffix or p.name}"] = out.get(f"index bytes {p.suffix or p.name}", "") + p.read_bytes().decode("latin-1")
        if p.suffix == ".parquet":
            out["index parquet rows"] = out.get("index parquet rows", "") + pl.read_parquet(p).write_ndjson()
        elif p.suffix in (".sqlite", ".db") and not name.endswith("-journal"):
            with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as con:
                out["index sqlite rows"] = out.get("index sqlite rows", "") + "\n".join(con.iterdump())
    return out


def serve_texts(db: Path) -> dict[str, str]:
    """What serve's pages and API answer for the whole index."""
    import warnings
    from urllib.parse import quote

    warnings.simplefilter("ignore")  # starlette: httpx in TestClient is deprecated
    from starlette.testclient import TestClient

    from logsleuth.serve.app import create_app
    from logsleuth.serve.postmortems import Postmortems

    out: dict[str, str] = defaultdict(str)
    app = create_app(db, reasoning=False, postmortems=Postmortems(processes=1))
    # a postmortem that fails (a session id holding a secret is masked, then not found) answers 500
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        def get(surface: str, url: str) -> Any:
            r = c.get(url)
            out[surface] += r.text
            return r

        for q in QUERIES:
            get("serve page /", f"/?q={quote(q)}")
            get("serve page /search/results", f"/search/results?q={quote(q)}")
            get("serve api /api/search", f"/api/search?q={quote(q)}")
        get("serve page /sessions", "/sessions")
        sessions = get("serve api /api/sessions", "/api/sessions").json()["sessions"]
        fps: set[tuple[str, str]] = set()
        for s in sessions:
            args = f"session={quote(s['session'])}&source={quote(s['source'])}"
            get("serve page /session", f"/session?{args}")
            get("serve page /session/report", f"/session/report?{args}")
            doc = get("serve api /api/session", f"/api/session?{args}").json()
            fps |= {(f["pattern"], f["fingerprint"]) for f in doc.get("findings", []) if f.get("fingerprint")}
        for pattern, fp in sorted(fps):
            get("serve page /fp", f"/fp/{quote(pattern)}/{quote(fp)}")
            get("serve api /api/fingerprint", f"/api/fingerprint/{quote(pattern)}/{quote(fp)}")
    return dict(out)


def walk(plants: Plants, runs: dict[str, list[str]], say: Callable[[str], None] = print) -> dict[str, Any]:
    """surface -> format -> kinds leaked, and the kinds seen without masking."""
    found: dict[str, dict[str, set[str]]] = defaultdict(dict)
    seen: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "planted"
        planted = {fmt_id(f): write_planted(f, root / fmt_id(f).replace(":", "_"), plants) for f in FORMATS}
        for fid, path in planted.items():
            t0 = time.monotonic()
            seen |= leaked(run(["events", "-O", "json", str(path), "--no-redact"]), runs)
            for cmd in CLI:
                found[cmd][fid] = leaked(run([*cmd.split(), str(path)]), runs)
            say(f"  {fid}: {time.monotonic() - t0:.0f} s")
        db = Path(tmp) / "db"
        run(["index", str(root), "--db", str(db)])
        for surface, text in index_texts(db).items():
            found[surface]["all"] = leaked(text, runs)
        for q in QUERIES:
            for fmt in ("-O json", ""):
                found[f"search {fmt or 'text'}"].setdefault("all", set()).update(
                    leaked(run(["search", q, "--db", str(db), *fmt.split()]), runs))
        for surface, text in serve_texts(db).items():
            found[surface]["all"] = leaked(text, runs)
    return {"found": found, "seen": seen}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heldout", action="store_true")
    ap.add_argument("--heldout2", action="store_true", help="the second held-out set (bench/secrets_heldout2.py)")
    ap.add_argument("--heldout3", action="store_true", help="the third held-out set (bench/secrets_heldout3.py)")
    ap.add_argument("--names", action="store_true", help="name the kinds leaked (always for the fitted part)")
    args = ap.parse_args()
    if args.heldout3:
        from secrets_heldout3 import heldout_plants as heldout3_plants

        plants, other = heldout3_plants(), heldout3_plants(99)
    elif args.heldout2:
        from secrets_heldout2 import heldout_plants as heldout2_plants

        plants, other = heldout2_plants(), heldout2_plants(99)
    elif args.heldout:
        from secrets_heldout import heldout_plants

        plants, other = heldout_plants(), heldout_plants(99)
    else:
        from secret_families import shape_plants

        plants, other = shape_plants(), shape_plants(99)
    names = args.names or not (args.heldout or args.heldout2 or args.heldout3)
    t0 = time.monotonic()
    got = walk(plants, probes(plants, other), say=lambda s: print(s, file=sys.stderr))
    found, seen = got["found"], got["seen"]
    print(f"{len(plants)} shapes planted into {len(FORMATS)} formats; {len(seen)} seen with --no-redact "
          f"({time.monotonic() - t0:.0f} s)\n")
    print("| surface | formats | kinds leaked (sum over formats) | distinct kinds |")
    print("|---|---:|---:|---:|")
    total: set[str] = set()
    triples = 0
    for surface, per in found.items():
        kinds = set().union(*per.values())
        total |= kinds
        triples += sum(len(v) for v in per.values())
        print(f"| {surface} | {len(per)} | {sum(len(v) for v in per.values())} | {len(kinds)} |")
    print(f"\n{len(total)} of {len(plants)} shapes leak somewhere; {triples} (shape, surface, format) triples")
    if names:
        where: dict[str, set[str]] = defaultdict(set)
        for surface, per in found.items():
            for kinds in per.values():
                for k in kinds:
                    where[k].add(surface)
        for k in sorted(where):
            print(f"- {k}: {len(where[k])} surfaces")
        missing = sorted(set(plants) - seen)
        if missing:
            print(f"not seen even with --no-redact: {missing}")


if __name__ == "__main__":
    main()
