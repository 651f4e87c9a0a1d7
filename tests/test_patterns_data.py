"""The pattern library *data* (patterns/**.yaml), checked straight from the YAML files.

Independent of the loader in logsleuth.library on purpose: these tests pin the data itself —
every regex compiles in Python `regex` and in polars (Rust `regex`), every example behaves,
prefilter literals really are necessary, no pattern of another category outranks a pattern on its
own examples, and the library classifies the labelled corpus in ../shared.

Run as a script (`python tests/test_patterns_data.py`) to print the corpus accuracy and misses.
"""

from __future__ import annotations

import json
import re as stdre
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import regex
import yaml

from logsleuth.library import load_library

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = ROOT / "patterns"
META = PATTERNS / "_meta"

SEVERITY_RANK = {"success": 0, "info": 1, "warning": 2, "error": 3, "fatal": 4}
REQUIRED = (
    "id",
    "title",
    "category",
    "severity",
    "priority",
    "regex",
    "prefilter",
    "fingerprint",
    "explain",
    "fixes",
    "references",
    "examples",
)
GROUPS = {"cuda", "build", "runtime", "gpu", "distributed", "packaging", "agent", "progress", "tooling"}
ROLES = {"failure", "generic", "wrapper", "attempt_failure", "not_run", "diagnostic", "success", "progress", "noise"}
KINDS = {"text", "reasoning", "tool_call", "tool_result", "log"}
DEFAULT_KINDS = ("tool_result", "log")
SNAKE = stdre.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
# Rust `regex` has none of these; polars would reject the pattern (or, worse, Python-only semantics).
NON_PORTABLE = stdre.compile(r"\(\?<?[=!]|\(\?>|\\[1-9]|\(\?P=|[*+?}]\+")
ACCURACY_FLOOR = 0.95


@dataclass(frozen=True)
class Example:
    text: str
    captures: Mapping[str, str] = field(default_factory=dict)
    kind: str | None = None
    command: str | None = None


@dataclass(frozen=True)
class Pat:
    id: str
    path: Path
    data: Mapping[str, Any]

    @property
    def category(self) -> str:
        return str(self.data["category"])

    @property
    def severity(self) -> str:
        return str(self.data["severity"])

    @property
    def priority(self) -> int:
        return int(self.data["priority"])

    @property
    def rx(self) -> Any:
        return _compile(self.data["regex"])

    @property
    def prefilter(self) -> list[str]:
        pf = self.data["prefilter"]
        return [pf] if isinstance(pf, str) else list(pf)

    @property
    def scope(self) -> Mapping[str, Any]:
        return self.data.get("scope") or {}

    def examples(self, which: str) -> list[Example]:
        out = []
        for item in (self.data.get("examples") or {}).get(which) or []:
            item = {"text": item} if isinstance(item, str) else item
            caps = {str(k): str(v) for k, v in (item.get("captures") or {}).items()}
            out.append(Example(item["text"], caps, item.get("kind"), item.get("command")))
        return out

    def applies(self, ex: Example) -> bool:
        """Does this pattern's scope admit the example's event (kind, paired command)?"""
        kinds = self.scope.get("kinds")
        if kinds is not None and (ex.kind or "tool_result") not in kinds:
            return False
        if ex.kind is not None and kinds is None and ex.kind not in (*DEFAULT_KINDS, "text"):
            return False
        command = self.scope.get("command")
        return command is None or (ex.command is not None and regex.search(command, ex.command) is not None)

    def search(self, text: str) -> Any:
        if not any(lit in text for lit in self.prefilter):
            return None
        return self.rx.search(text, timeout=2.0)


@cache
def _compile(rx: str) -> Any:
    return regex.compile(rx)


@cache
def load_patterns() -> tuple[Pat, ...]:
    pats = []
    for path in sorted(PATTERNS.rglob("*.yaml")):
        if any(part.startswith("_") for part in path.relative_to(PATTERNS).parts[:-1]):
            continue  # _meta/, _facts/ (fact patterns, tests/test_fact_patterns.py): as the loader skips them
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        pats.append(Pat(str(data.get("id")), path, data))
    return tuple(pats)


@cache
def load_meta(name: str) -> Any:
    return yaml.safe_load((META / f"{name}.yaml").read_text(encoding="utf-8"))


def categories() -> dict[str, Mapping[str, Any]]:
    return {c["name"]: c for c in load_meta("categories")["categories"]}


def ids(pats: tuple[Pat, ...]) -> list[str]:
    return [p.id for p in pats]


def all_examples(which: str) -> Iterator[tuple[Pat, int, Example]]:
    for p in load_patterns():
        for i, ex in enumerate(p.examples(which)):
            yield p, i, ex


# --- fields and vocabulary --------------------------------------------------------------------


def test_library_is_substantial() -> None:
    assert len(load_patterns()) >= 60


@pytest.mark.parametrize("pat", load_patterns(), ids=ids(load_patterns()))
def test_fields(pat: Pat) -> None:
    d = pat.data
    missing = [k for k in REQUIRED if k not in d]
    assert not missing, f"{pat.path}: missing {missing}"
    assert pat.id == pat.path.stem, "id must equal the file stem"
    assert pat.path.parent.parent == PATTERNS, "one directory level: patterns/<family>/<id>.yaml"
    assert pat.category in categories(), f"unknown category {pat.category}"
    assert pat.severity in SEVERITY_RANK
    assert isinstance(d["priority"], int) and not isinstance(d["priority"], bool)
    assert pat.prefilter and all(isinstance(s, str) and len(s) >= 4 for s in pat.prefilter)
    groups = set(pat.rx.groupindex)
    assert set(d["fingerprint"] or []) <= groups, "fingerprint names a capture the regex lacks"
    assert len(pat.examples("match")) >= 2, "at least two match examples"
    assert len(pat.examples("no_match")) >= 1, "at least one no_match example"
    assert all(isinstance(u, str) and u.startswith("https://") for u in d["references"])
    group = categories()[pat.category]["group"]
    assert (pat.severity == "success") == (group == "progress"), "success <=> a progress category"
    scope = pat.scope
    assert set(scope) <= {"kinds", "is_error", "command"}
    assert set(scope.get("kinds") or []) <= KINDS


def test_ids_unique_and_related_exist() -> None:
    pats = load_patterns()
    known = set(ids(pats))
    assert len(known) == len(pats)
    for p in pats:
        dangling = set(p.data.get("related") or []) - known
        assert not dangling, f"{p.id}: related ids {dangling} do not exist"


def test_categories_file() -> None:
    cats = load_meta("categories")["categories"]
    names = [c["name"] for c in cats]
    assert len(names) == len(set(names))
    for c in cats:
        assert SNAKE.match(c["name"]), c["name"]
        assert c["group"] in GROUPS and c["title"] and c["description"]
        assert c["role"] in ROLES, c["name"]


def test_roles_agree_with_severities() -> None:
    """A success (or progress) category holds only success patterns, and a failure category none."""
    roles = {c["name"]: c["role"] for c in load_meta("categories")["categories"]}
    for p in load_patterns():
        severity, category = p.data["severity"], p.data["category"]
        if roles[category] in ("success", "progress"):
            assert severity == "success", p.id
        else:
            assert severity != "success", f"{p.id}: success pattern in {roles[category]} category {category}"


def test_every_category_has_a_pattern() -> None:
    # a pattern file, or a pattern the status table (_meta/status_names.yaml) makes
    used = {p.category for p in load_patterns()} | {p.category for p in load_library().patterns}
    assert set(categories()) - used == set()


def test_meta_tables() -> None:
    ptx = load_meta("ptx_isa")["ptx_isa"]
    by_cuda = {r["cuda"]: r["ptx"] for r in ptx}
    assert by_cuda["12.8"] == "8.7" and by_cuda["12.6"] == "8.5" and by_cuda["13.2"] == "9.2"
    assert all(r["min_driver"] for r in ptx)
    cc = {r["sm"]: r for r in load_meta("compute_capability")["compute_capability"]}
    assert cc["120"]["arch"] == "Blackwell" and cc["120"]["cc"] == "12.0"
    assert any("RTX PRO 6000" in g for g in cc["120"]["gpus"])
    assert cc["90"]["arch"] == "Hopper" and cc["89"]["arch"].startswith("Ada")
    drv = {r["cuda"]: r["min_driver_linux"] for r in load_meta("cuda_driver")["cuda_driver"]}
    assert drv["13.0"] == "r580" and drv["12.8"] == "r570"


# --- regexes: both engines ---------------------------------------------------------------------


@pytest.mark.parametrize("pat", load_patterns(), ids=ids(load_patterns()))
def test_regex_is_portable(pat: Pat) -> None:
    import polars as pl

    rx = pat.data["regex"]
    assert isinstance(rx, str) and "\n" not in rx
    assert not NON_PORTABLE.search(rx), "look-around, atomic groups, backreferences or possessives"
    assert pat.rx.search("") is None, "the regex matches the empty string"
    pl.Series([""], dtype=pl.Utf8).str.contains(rx)  # raises when Rust `regex` rejects it
    command = pat.scope.get("command")
    if command:
        regex.compile(command)
        pl.Series([""], dtype=pl.Utf8).str.contains(command)


def test_polars_agrees_on_examples() -> None:
    """Rust semantics, not just syntax: polars matches exactly the match examples."""
    import polars as pl

    for pat in load_patterns():
        match, no_match = pat.examples("match"), pat.examples("no_match")
        no_match = [e for e in no_match if pat.applies(e)]  # others are excluded by scope, not regex
        texts = [e.text for e in match + no_match]
        got = pl.Series(texts, dtype=pl.Utf8).str.contains(pat.data["regex"]).to_list()
        assert got == [True] * len(match) + [False] * len(no_match), pat.id


# --- examples ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pat", "i", "ex"), list(all_examples("match")), ids=[f"{p.id}-{i}" for p, i, _ in all_examples("match")]
)
def test_match_example(pat: Pat, i: int, ex: Example) -> None:
    assert any(lit in ex.text for lit in pat.prefilter), "no prefilter literal in the example"
    assert pat.applies(ex), "the pattern's scope excludes its own example (kind / command)"
    m = pat.rx.search(ex.text)
    assert m is not None, "regex does not match"
    got = {k: v for k, v in m.groupdict().items() if k in ex.captures}
    assert got == dict(ex.captures)


@pytest.mark.parametrize(
    ("pat", "i", "ex"),
    list(all_examples("no_match")),
    ids=[f"{p.id}-{i}" for p, i, _ in all_examples("no_match")],
)
def test_no_match_example(pat: Pat, i: int, ex: Example) -> None:
    """Not matched: the regex misses it, or the scope (kind, paired command) excludes the event."""
    assert not pat.applies(ex) or pat.rx.search(ex.text) is None


def test_examples_not_outranked_by_other_categories() -> None:
    """A match example must not be won by another category's pattern of equal or higher priority."""
    problems = []
    pats = load_patterns()
    for pat, i, ex in all_examples("match"):
        for other in pats:
            if other.category == pat.category or other.priority < pat.priority:
                continue
            if not other.applies(ex) or other.search(ex.text) is None:
                continue
            problems.append(
                f"{pat.id} match[{i}] is also matched by {other.id} "
                f"({other.category}, priority {other.priority} >= {pat.priority})"
            )
    assert not problems, "\n".join(problems)


# --- explanations render ----------------------------------------------------------------------


def _filters() -> dict[str, Any]:
    ptx = load_meta("ptx_isa")["ptx_isa"]
    cc = load_meta("compute_capability")["compute_capability"]
    drv = load_meta("cuda_driver")["cuda_driver"]

    def num(v: Any) -> str:
        m = stdre.search(r"\d+(?:\.\d+)?", str(v or ""))
        return m.group(0) if m else ""

    def sm(v: Any) -> str:
        s = str(v or "")
        m = stdre.search(r"(\d+)\.(\d+)", s)
        return f"{m.group(1)}{m.group(2)}" if m else (stdre.search(r"\d+", s) or [""])[0]

    def row(v: Any) -> Mapping[str, Any]:
        return next((r for r in cc if r["sm"] == sm(v)), {})

    return {
        "cuda_for_ptx": lambda v: next((r["cuda"] for r in ptx if r["ptx"] == num(v)), "?"),
        "ptx_for_cuda": lambda v: next((r["ptx"] for r in ptx if r["cuda"] == num(v)), "?"),
        "driver_for_cuda": lambda v: next((r["min_driver_linux"] for r in drv if r["cuda"] == num(v)), "?"),
        "arch_for_sm": lambda v: row(v).get("arch", "?"),
        "gpus_for_sm": lambda v: ", ".join(row(v).get("gpus", [])) or "?",
    }


def test_templates_render_for_every_match_example() -> None:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(undefined=StrictUndefined)
    env.filters.update(_filters())
    for pat, i, ex in all_examples("match"):
        m = pat.rx.search(ex.text)
        caps = {k: v for k, v in m.groupdict().items()}  # unmatched groups are None, never undefined
        for source in [pat.data["explain"], *pat.data["fixes"]]:
            out = env.from_string(source).render(**caps)
            assert out.strip(), f"{pat.id} match[{i}]: template renders empty"
            assert "None" not in out, f"{pat.id} match[{i}]: an unguarded optional capture: {out!r}"


# --- the seed session and the corpus ----------------------------------------------------------

SEED_MESSAGES = [
    (
        "ImportError: libnvrtc.so.13: cannot open shared object file: No such file or directory",
        "missing_shared_library",
    ),
    ("[sgl_kernel] CRITICAL: Could not load any common_ops library!", "missing_shared_library"),
    ("RuntimeError: Could not find nvcc", "nvcc_not_found"),
    ("/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found", "nvcc_not_found"),
    (
        "FileNotFoundError: [Errno 2] No such file or directory: '/root/venv/lib/python3.12/site-packages/"
        "nvidia/cu13/bin/nvcc'",
        "nvcc_not_found",
    ),
    ("Exception: Capture cuda graph failed: Could not find nvcc", "nvcc_not_found"),
    (
        "Exception: Capture cuda graph failed: operation not permitted when stream is capturing",
        "cuda_graph_capture_failed",
    ),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'ninja'", "ninja_not_found"),
    ("RuntimeError: Ninja is required to load C++ extensions", "ninja_not_found"),
    (
        "/root/venv/lib/python3.12/site-packages/nvidia/cu13/include/cccl/cuda/std/__cccl/cuda_toolkit.h(41): "
        'error: "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths"',
        "cuda_toolkit_header_mismatch",
    ),
    (
        "ptxas /tmp/x.ptx, line 9; fatal   : Unsupported .version 9.2; current version is '9.0'",
        "ptxas_unsupported_ptx_version",
    ),
    (
        "  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of "
        "nvidia-cuda-nvcc==13.0.26 and you require nvidia-cuda-nvcc==13.0.26, we can conclude that your "
        "requirements are unsatisfiable.",
        "dependency_resolution_failed",
    ),
    (
        "ERROR: Could not find a version that satisfies the requirement nvidia-cuda-nvcc==13.0.26 "
        "(from versions: 13.0.48, 13.0.88, 13.2.78)",
        "dependency_resolution_failed",
    ),
    ("ERROR: No matching distribution found for nvidia-cuda-nvcc==13.0.26", "dependency_resolution_failed"),
    ("[2026-01-10 10:00:00] The server is fired up and ready to roll!", "server_ready"),
    ("INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)", "server_ready"),
    ("Successfully installed nvidia-cuda-nvcc-13.2.78", "package_installed"),
]


def classify(text: str, kind: str = "log") -> tuple[Pat, Any] | None:
    """The best finding on one text: highest (severity, priority), as the classifier ranks them."""
    ex = Example(text, kind=kind)
    best: tuple[tuple[int, int], Pat, Any] | None = None
    for p in load_patterns():
        if not p.applies(ex):
            continue
        m = p.search(text)
        if m is None:
            continue
        key = (SEVERITY_RANK[p.severity], p.priority)
        if best is None or key > best[0]:
            best = (key, p, m)
    return (best[1], best[2]) if best else None


def highest_priority(text: str) -> Pat | None:
    """The winner on one event by priority alone (how the classifier breaks ties on an event)."""
    hits = [p for p in load_patterns() if p.applies(Example(text, kind="log")) and p.search(text) is not None]
    return max(hits, key=lambda p: (p.priority, SEVERITY_RANK[p.severity]), default=None)


@pytest.mark.parametrize(("text", "category"), SEED_MESSAGES, ids=[c for _, c in SEED_MESSAGES])
def test_seed_messages(text: str, category: str) -> None:
    winner = highest_priority(text)
    assert winner is not None and winner.category == category, winner and winner.id


def corpus_predictions(path: Path) -> list[tuple[str, str, str, str]]:
    """(record id, label, predicted category or 'none', winning pattern id) per corpus record."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        hits = [
            (p, m)
            for p in load_patterns()
            if SEVERITY_RANK[p.severity] >= 3
            for m in [p.search(rec["log"])]
            if m is not None and p.applies(Example(rec["log"], kind="log"))
        ]
        if hits:
            p, _ = max(hits, key=lambda h: (SEVERITY_RANK[h[0].severity], h[0].priority))
            out.append((rec["id"], rec["category"], p.category, p.id))
        else:
            out.append((rec["id"], rec["category"], "none", ""))
    return out


def test_corpus_accuracy(shared: Path) -> None:
    corpus = shared / "corpus" / "cuda_errors_dev.jsonl"
    if not corpus.is_file():
        pytest.skip("labelled corpus absent")
    preds = corpus_predictions(corpus)
    false_alarms = [(rid, pid) for rid, label, got, pid in preds if label == "none" and got != "none"]
    assert not false_alarms, f"error findings on benign records: {false_alarms}"
    accuracy = sum(label == got for _, label, got, _ in preds) / len(preds)
    assert accuracy >= ACCURACY_FLOOR, f"corpus accuracy {accuracy:.3f}"


if __name__ == "__main__":  # a report for humans: accuracy and every miss
    preds = corpus_predictions(ROOT.parent / "shared" / "corpus" / "cuda_errors_dev.jsonl")
    misses = [p for p in preds if p[1] != p[2]]
    for rid, label, got, pid in misses:
        print(f"MISS {rid}: label={label} got={got} ({pid})")
    print(f"patterns={len(load_patterns())} records={len(preds)} accuracy={1 - len(misses) / len(preds):.3f}")
