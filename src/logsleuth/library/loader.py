"""Find, parse and validate pattern files into a PatternLibrary; never crash on a bad file.

Roots, in order of precedence (a later root overrides an earlier one by pattern id):
the built-in `patterns/` (repo checkout, or `logsleuth/_patterns` in a wheel), then each
directory in LOGSLEUTH_PATTERNS (os.pathsep-separated), then each `--patterns DIR`.

A validated library is cached (pickled, see `cache_dir`): parsing and validating a few hundred
YAML files costs 0.2-0.4 s, more than a search. The cache key hashes the content of every file
the load reads, the roots, LOGSLEUTH_PATTERNS and the loader's own code, so any change reloads.
The problems found are cached with the library and reported the same. A cache that cannot be
read or written is ignored: the library is then loaded as if there were none.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import pickle
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logsleuth.cachedir import CACHE_ENV as CACHE_ENV  # the setting tests and docs name here
from logsleuth.cachedir import cache_dir
from logsleuth.errors import Location, UsageError
from logsleuth.library import regexes
from logsleuth.library.knowledge import Renderer
from logsleuth.library.pattern import ROLES, Category, Knowledge, Pattern, PatternLibrary, Problem
from logsleuth.library.schema import validate
from logsleuth.library.status_table import TABLE as STATUS_TABLE
from logsleuth.library.status_table import status_patterns

if TYPE_CHECKING:
    import yaml

ENV_VAR = "LOGSLEUTH_PATTERNS"
CACHE_FORMAT = 1  # bump when what is pickled changes shape in a way file stats would not show
CACHE_KEEP = 8  # cached libraries kept (one per pattern-dir combination and edit)
META_DIR = "_meta"
_PKG = Path(__file__).resolve().parent.parent  # src/logsleuth (or site-packages/logsleuth)
KNOWLEDGE_TABLES = ("ptx_isa", "compute_capability", "cuda_driver")


def builtin_dir() -> Path | None:
    """The built-in pattern directory: the wheel's copy, else the repository's top-level patterns/."""
    for candidate in (_PKG / "_patterns", _PKG.parent.parent / "patterns"):
        if candidate.is_dir():
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class Root:
    path: Path
    display: str  # how paths under this root are shown ("patterns" for built-ins)
    origin: str  # "builtin", or the directory as given


def parse_yaml(text: str) -> tuple[Any, dict[tuple[Any, ...], int]]:
    """Parse one YAML document; also return 1-based lines of every key and list item by path."""
    import yaml  # here, not at the top: a cached library is loaded without parsing YAML (-10 ms a command)

    # libyaml when present (5x faster on a library of a few hundred files); marks work in both
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        _check_expanded_size(node)
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    lines: dict[tuple[Any, ...], int] = {(): node.start_mark.line + 1}

    def walk(n: yaml.Node, key: tuple[Any, ...]) -> None:
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                sub = (*key, k.value if isinstance(k, yaml.ScalarNode) else str(k.start_mark))
                lines[sub] = k.start_mark.line + 1
                walk(v, sub)
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[(*key, i)] = item.start_mark.line + 1
                walk(item, (*key, i))

    walk(node, ())
    return data, lines


# nodes a document may expand to once its aliases are followed: the built-in library's largest
# file has a few hundred; a "billion laughs" of nine aliases to nine aliases has 10^9
MAX_YAML_NODES = 100_000


def _check_expanded_size(root: Any) -> None:
    """Refuse a document whose aliases expand past MAX_YAML_NODES (or into themselves), located
    at the alias: every later walk of it, ours and the validator's, would be exponential."""
    import yaml

    size: dict[int, int] = {}  # id(node) -> nodes it expands to, once known
    open_: set[int] = set()  # nodes whose children are being counted
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        n, done = stack.pop()
        kids = [x for kv in n.value for x in kv] if isinstance(n, yaml.MappingNode) else (
            list(n.value) if isinstance(n, yaml.SequenceNode) else [])
        if done:
            open_.discard(id(n))
            total = 1 + sum(size[id(k)] for k in kids)
            size[id(n)] = total
            if total > MAX_YAML_NODES:
                raise yaml.constructor.ConstructorError(
                    None, None, f"aliases expand this document past {MAX_YAML_NODES} nodes", n.start_mark)
            continue
        if id(n) in size:
            continue
        if id(n) in open_:
            raise yaml.constructor.ConstructorError(None, None, "an alias refers to itself", n.start_mark)
        open_.add(id(n))
        stack.append((n, True))
        stack.extend((k, False) for k in kids if id(k) not in size)


def _read_yaml(path: Path, display: str, problems: list[Problem]) -> tuple[Any, dict[tuple[Any, ...], int]] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(display, 1, f"cannot read: {exc}"))
        return None
    import yaml

    try:
        return parse_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        what = " ".join(x for x in (exc.context, exc.problem) if x)
        problems.append(Problem(display, line, f"YAML syntax error: {what}"))
    except yaml.YAMLError as exc:
        problems.append(Problem(display, 1, f"YAML error: {exc}"))
    except RecursionError:
        problems.append(Problem(display, 1, "YAML error: nested too deeply"))
    return None


def _pattern_files(root: Path) -> list[Path]:
    files = [p for ext in ("*.yaml", "*.yml") for p in root.rglob(ext)]
    keep = []
    for p in files:
        parts = p.relative_to(root).parts
        if any(part.startswith((".", "_")) for part in parts):
            continue  # _meta/, hidden folders, _drafts …
        keep.append(p)
    return sorted(keep, key=lambda p: p.relative_to(root).as_posix())


@dataclass
class _Meta:
    categories: dict[str, Category] = field(default_factory=dict)
    tables: dict[str, list[Mapping[str, Any]]] = field(default_factory=lambda: {t: [] for t in KNOWLEDGE_TABLES})
    have_categories: bool = False


def _load_causes(root: Root, folder: Path, meta: _Meta, problems: list[Problem]) -> None:
    """causes.yaml: each category's kind of underlying condition, merged into its Category."""
    path = folder / "causes.yaml"
    if not path.is_file():
        return
    display = f"{root.display}/{META_DIR}/causes.yaml"
    parsed = _read_yaml(path, display, problems)
    rows = parsed[0].get("causes") if parsed is not None and isinstance(parsed[0], Mapping) else None
    if not isinstance(rows, Mapping):
        if parsed is not None:
            problems.append(Problem(display, 1, "expected `causes: {category: {kind, condition}}`"))
        return
    for name, row in rows.items():
        cat = meta.categories.get(name)
        if cat is not None and isinstance(row, Mapping):
            meta.categories[name] = replace(
                cat, cause=str(row.get("kind") or ""), condition=str(row.get("condition") or ""),
                when=tuple(_cause_when(row.get("when"))))


def _cause_when(rows: object) -> list[tuple[str, str, str, str]]:
    """causes.yaml `when: [{package, version_has, kind, condition}]`, the well-formed rows."""
    keys = ("package", "version_has", "kind", "condition")
    ok = [r for r in rows if isinstance(r, Mapping) and all(r.get(k) for k in keys)] if isinstance(rows, list) else []
    return [(str(r["package"]).lower(), str(r["version_has"]), str(r["kind"]), str(r["condition"])) for r in ok]


def _load_meta(root: Root, meta: _Meta, problems: list[Problem]) -> None:
    folder = root.path / META_DIR
    if not folder.is_dir():
        return
    cat_path = folder / "categories.yaml"
    if cat_path.is_file():
        display = f"{root.display}/{META_DIR}/categories.yaml"
        parsed = _read_yaml(cat_path, display, problems)
        if parsed is not None:
            data, lines = parsed
            rows = data.get("categories") if isinstance(data, Mapping) else None
            if not isinstance(rows, list):
                problems.append(Problem(display, 1, "expected `categories: [{name, title, group, description}]`"))
            else:
                meta.have_categories = True
                for i, row in enumerate(rows):
                    if not isinstance(row, Mapping) or not isinstance(row.get("name"), str):
                        problems.append(Problem(display, lines.get(("categories", i), 1), "category needs a `name`"))
                        continue
                    role = row.get("role")
                    if role not in ROLES:
                        # missing: a warning (older user libraries); wrong: an error
                        problems.append(Problem(
                            display, lines.get(("categories", i, "role"), lines.get(("categories", i), 1)),
                            f"category {row['name']!r}: " + (f"role {role!r} is not one of {', '.join(ROLES)}"
                                                             if role is not None else
                                                             f"no `role` (one of {', '.join(ROLES)})"),
                            "error" if role is not None else "warning"))
                        role = ""
                    meta.categories[row["name"]] = Category(
                        row["name"], str(row.get("title") or ""), str(row.get("group") or ""),
                        str(row.get("description") or "").strip(), role,
                    )
    _load_causes(root, folder, meta, problems)
    for table in KNOWLEDGE_TABLES:
        path = folder / f"{table}.yaml"
        if not path.is_file():
            continue
        display = f"{root.display}/{META_DIR}/{table}.yaml"
        parsed = _read_yaml(path, display, problems)
        if parsed is None:
            continue
        data, _ = parsed
        rows = data.get(table) if isinstance(data, Mapping) else None
        if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
            problems.append(Problem(display, 1, f"expected `{table}: [{{…}}, …]` (a list of mappings)"))
            continue
        # a later root's rows come first, so they win lookups
        meta.tables[table] = [dict(r) for r in rows] + meta.tables[table]


def _roots(user_dirs: Sequence[str], builtins: bool, env: bool, problems: list[Problem]) -> list[Root]:
    roots: list[Root] = []
    if builtins:
        b = builtin_dir()
        if b is not None:
            roots.append(Root(b, "patterns", "builtin"))
    if env:
        for d in (os.environ.get(ENV_VAR) or "").split(os.pathsep):
            if not d:
                continue
            if Path(d).is_dir():
                roots.append(Root(Path(d), d.rstrip("/") or "/", d))
            else:
                problems.append(Problem(d, 1, f"{ENV_VAR} names a directory that does not exist", "warning"))
    for d in user_dirs:
        if not Path(d).is_dir():
            raise UsageError("pattern directory not found", Location(d), "pass an existing folder to --patterns")
        roots.append(Root(Path(d), d.rstrip("/") or "/", d))
    return roots


def load_library(
    user_dirs: Sequence[str] = (), *, builtins: bool = True, env: bool = True, cache: bool = True
) -> PatternLibrary:
    """Load the built-in patterns plus user directories (which extend or override by id).

    `cache`: reuse (and store) the validated library in `cache_dir()` when nothing changed.
    """
    problems: list[Problem] = []
    roots = _roots(user_dirs, builtins, env, problems)
    key = _cache_key(roots, problems) if cache else None
    if key is not None:
        cached = _cache_read(key)
        if cached is not None:
            return cached
    lib = _load(roots, problems)
    if key is not None:
        _cache_write(key, lib)
    return lib


def _load(roots: Sequence[Root], problems: list[Problem]) -> PatternLibrary:
    meta = _Meta()
    for root in roots:
        _load_meta(root, meta, problems)
    knowledge = Knowledge(**{t: tuple(meta.tables[t]) for t in KNOWLEDGE_TABLES})
    renderer = Renderer(knowledge)
    by_id: dict[str, Pattern] = {}
    files = [(root, file, f"{root.display}/{file.relative_to(root.path).as_posix()}")
             for root in roots for file in _pattern_files(root.path)]
    docs = [(root, file, display, _read_yaml(file, display, problems)) for root, file, display in files]
    docs += _status_docs(roots, problems)
    # all regexes checked by polars in one call, not one call per pattern file
    regexes.prime_polars(d[0].get("regex") for *_, d in docs if d is not None and isinstance(d[0], Mapping))
    seen_by_root: dict[int, dict[str, str]] = {}
    for root, file, display, parsed in docs:
        seen = seen_by_root.setdefault(id(root), {})
        if parsed is None:
            continue
        data, lines = parsed
        stem = file.stem if file.name != f"{STATUS_TABLE}.yaml" else str(data.get("id"))
        pattern, found = validate(data, lines, display, stem, renderer, root.origin)
        problems.extend(found)
        if pattern is None:
            continue
        if pattern.id in seen:
            problems.append(Problem(display, pattern.line, f"duplicate id {pattern.id!r} (also in {seen[pattern.id]})"))
            continue
        seen[pattern.id] = display
        by_id[pattern.id] = pattern  # a later root overrides an earlier one
    patterns = _cross_check(by_id, meta, problems)
    return PatternLibrary(
        patterns=tuple(sorted(patterns, key=lambda p: p.id)),
        categories=dict(sorted(meta.categories.items())),
        knowledge=knowledge,
        problems=tuple(sorted(set(problems))),
        roots=tuple(r.display for r in roots),
        renderer=renderer,
    )


def _status_docs(
    roots: Sequence[Root], problems: list[Problem]
) -> list[tuple[Root, Path, str, tuple[Any, dict[tuple[Any, ...], int]] | None]]:
    """The patterns `_meta/status_names.yaml` makes (see status_table.py), shaped like parsed pattern files:
    every key of a made pattern is located at its family's line."""
    out: list[tuple[Root, Path, str, tuple[Any, dict[tuple[Any, ...], int]] | None]] = []
    for root in roots:
        path = root.path / META_DIR / f"{STATUS_TABLE}.yaml"
        if not path.is_file():
            continue
        display = f"{root.display}/{META_DIR}/{STATUS_TABLE}.yaml"
        parsed = _read_yaml(path, display, problems)
        if parsed is None:
            continue
        table, lines = parsed
        for data, i, problem in status_patterns(table):
            line = lines.get((STATUS_TABLE, i), 1)
            if problem:
                problems.append(Problem(display, line, problem))
            if data:
                out.append((root, path, display, (data, {(): line})))
    return out


def _cross_check(by_id: dict[str, Pattern], meta: _Meta, problems: list[Problem]) -> Iterable[Pattern]:
    """Checks across files: known category (else the pattern is left out), known related ids."""
    keep = []
    if by_id and not meta.have_categories:
        problems.append(Problem(f"{META_DIR}/categories.yaml", 1, "no categories.yaml found: categories unchecked",
                                "warning"))
    for p in by_id.values():
        if meta.have_categories and p.category not in meta.categories:
            problems.append(Problem(p.path, _key_line(p, "category"), f"unknown category {p.category!r} "
                                    f"(add it to {META_DIR}/categories.yaml)", pattern=p.id))
            continue
        for rel in p.related:
            if rel not in by_id:
                problems.append(Problem(p.path, _key_line(p, "related"), f"related id {rel!r} is not a pattern",
                                        "warning", p.id))
        keep.append(p)
    return keep


def _key_line(p: Pattern, key: str) -> int:
    return p.key_lines.get(key, p.line)


# ---------------------------------------------------------------- the cache


def _cache_key(roots: Sequence[Root], problems: Sequence[Problem]) -> str | None:
    """Hash of everything a load depends on, or None when it cannot be computed (no caching)."""
    import polars
    import regex

    h = hashlib.sha256(repr((CACHE_FORMAT, sys.version, polars.__version__, regex.__version__,
                             os.environ.get(ENV_VAR), sorted(problems))).encode())
    try:
        # the loader's own code (and the types it pickles), and PyYAML's (found, not imported):
        # an edit or an upgrade changes stats
        yaml_spec = importlib.util.find_spec("yaml")
        code = [*sorted(Path(__file__).parent.glob("*.py")), _PKG / "model.py",
                *([Path(yaml_spec.origin)] if yaml_spec and yaml_spec.origin else [])]
        for f in code:
            st = f.stat()
            h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        for root in roots:
            h.update(f"root\0{root.path.resolve()}\0{root.display}\0{root.origin}\0".encode())
            meta = sorted((root.path / META_DIR).glob("*.yaml")) if (root.path / META_DIR).is_dir() else []
            for f in [*meta, *_pattern_files(root.path)]:
                # content, not mtime: a file rewritten within the mtime granularity still counts
                h.update(f"{f.relative_to(root.path).as_posix()}\0".encode() + f.read_bytes() + b"\0")
    except (OSError, ValueError):
        return None
    return h.hexdigest()[:32]


def _cache_read(key: str) -> PatternLibrary | None:
    try:
        with open(cache_dir() / f"library-{key}.pickle", "rb") as f:
            return loads_library(f.read())
    except Exception:  # missing, truncated, from another version, not a library: load normally
        return None


def _cache_write(key: str, lib: PatternLibrary) -> None:
    folder = cache_dir()
    dest = folder / f"library-{key}.pickle"
    tmp = folder / f".library-{key}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(dumps_library(lib))
        os.replace(tmp, dest)
        old = sorted(folder.glob("library-*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for p in old[CACHE_KEEP:]:
            p.unlink()
    except Exception:  # read-only home, full disk, unpicklable field: the cache is only an optimisation
        with contextlib.suppress(OSError):
            tmp.unlink()


def dumps_library(lib: PatternLibrary) -> bytes:
    """A validated library as bytes (for the cache, and for the worker processes of `index`)."""
    return pickle.dumps(replace(lib, renderer=None), protocol=pickle.HIGHEST_PROTOCOL)


def loads_library(data: bytes) -> PatternLibrary:
    """The library `dumps_library` wrote, with a renderer that is built on first use."""
    lib = pickle.loads(data)
    if not isinstance(lib, PatternLibrary):
        raise TypeError(f"not a pattern library: {type(lib).__name__}")
    return replace(lib, renderer=_LazyRenderer(lib.knowledge))


class _LazyRenderer(Renderer):
    """A Renderer that builds its jinja2 environment on first use: a search that renders no
    explanation never imports jinja2."""

    def __init__(self, knowledge: Knowledge):  # no super().__init__: that is the expensive part
        self._knowledge = knowledge

    def __getattr__(self, name: str) -> Any:  # only called for attributes not yet set
        if name in ("env", "_compiled"):
            Renderer.__init__(self, self._knowledge)
            return getattr(self, name)
        raise AttributeError(name)
