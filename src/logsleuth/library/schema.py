"""Validation of one parsed pattern file: raw YAML data -> Pattern, plus located problems.

Every problem carries the line of the offending key (from YAML marks). A pattern with an
error-level problem is left out of the library, with one exception: a regex only Python accepts
(not portable to polars/Rust) keeps the pattern, matched by the slower Python fallback, and lint
still fails on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from logsleuth.library import regexes
from logsleuth.library.knowledge import Renderer
from logsleuth.library.pattern import Example, Pattern, Problem, Scope
from logsleuth.model import KINDS, Severity

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
REQUIRED = ("id", "title", "category", "severity", "priority", "regex", "prefilter", "explain", "examples")
OPTIONAL = ("fingerprint", "fixes", "related", "references", "scope", "suppresses")
# Descriptive keys an author may add; accepted silently. Anything else is a (warning) typo check.
DESCRIPTIVE = ("description", "notes", "status", "tags", "aliases", "author", "falsepositives")
SEVERITIES = tuple(s.value for s in Severity)

Lines = Mapping[tuple[Any, ...], int]


class _Collector:
    def __init__(self, path: str, lines: Lines, pattern_id: str = ""):
        self.path = path
        self.lines = lines
        self.pattern_id = pattern_id
        self.problems: list[Problem] = []
        self.fatal = False

    def line(self, *key: Any) -> int:
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), 1)

    def error(self, key: tuple[Any, ...], message: str, fatal: bool = True) -> None:
        self.problems.append(Problem(self.path, self.line(*key), message, "error", self.pattern_id))
        self.fatal = self.fatal or fatal

    def warning(self, key: tuple[Any, ...], message: str) -> None:
        self.problems.append(Problem(self.path, self.line(*key), message, "warning", self.pattern_id))


def _str_list(c: _Collector, data: Mapping[str, Any], key: str, *, required: bool = False) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        if required:
            c.error((key,), f"{key}: required")
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        c.error((key,), f"{key}: must be a list of non-empty strings")
        return ()
    return tuple(value)


def _scalar_str(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _examples(c: _Collector, data: Any, groups: tuple[str, ...]) -> tuple[tuple[Example, ...], tuple[Example, ...]]:
    if not isinstance(data, Mapping):
        c.error(("examples",), "examples: must be a mapping with `match` (and `no_match`) lists")
        return (), ()
    for key in data:
        if key not in ("match", "no_match"):
            c.warning(("examples", key), f"examples: unknown key {key!r} (expected match, no_match)")
    out: dict[str, list[Example]] = {"match": [], "no_match": []}
    for which in ("match", "no_match"):
        items = data.get(which) or []
        if not isinstance(items, list):
            c.error(("examples", which), f"examples.{which}: must be a list")
            continue
        for i, item in enumerate(items):
            key = ("examples", which, i)
            if isinstance(item, str):
                item = {"text": item}
            if not isinstance(item, Mapping) or not isinstance(item.get("text"), str) or not item["text"]:
                c.error(key, f"examples.{which}[{i}]: needs a non-empty `text` string")
                continue
            caps_raw = item.get("captures") or {}
            caps: dict[str, str] = {}
            if not isinstance(caps_raw, Mapping):
                c.error((*key, "captures"), f"examples.{which}[{i}].captures: must be a mapping")
            else:
                for name, value in caps_raw.items():
                    sval = _scalar_str(value)
                    if sval is None:
                        c.error((*key, "captures", name), f"capture {name!r}: value must be a string")
                    elif name not in groups:
                        c.error((*key, "captures", name), f"examples.{which}[{i}] names capture {name!r}, "
                                f"which the regex lacks (groups: {', '.join(groups) or 'none'})")
                    else:
                        caps[str(name)] = sval
            kind = item.get("kind")
            if kind is not None and kind not in KINDS:
                c.error((*key, "kind"), f"example kind {kind!r} is not one of {', '.join(KINDS)}")
                kind = None
            is_error = item.get("is_error")
            command = item.get("command")
            out[which].append(Example(
                text=item["text"],
                line=c.line(*key, "text"),
                captures=caps,
                kind=kind,
                is_error=is_error if isinstance(is_error, bool) else None,
                command=command if isinstance(command, str) else None,
            ))
    if not out["match"]:
        c.error(("examples", "match"), "examples.match: at least one match example is required")
    return tuple(out["match"]), tuple(out["no_match"])


def _scope(c: _Collector, data: Any) -> Scope:
    if data is None:
        return Scope()
    if not isinstance(data, Mapping):
        c.error(("scope",), "scope: must be a mapping {kinds, is_error, command}")
        return Scope()
    for key in data:
        if key not in ("kinds", "is_error", "command"):
            c.error(("scope", key), f"scope: unknown key {key!r} (expected kinds, is_error, command)")
    kinds = data.get("kinds")
    kinds_t: tuple[str, ...] | None = None
    if kinds is not None:
        if isinstance(kinds, str):
            kinds = [kinds]
        bad = [k for k in kinds if k not in KINDS] if isinstance(kinds, list) else ["?"]
        if bad:
            c.error(("scope", "kinds"), f"scope.kinds: {bad} not in {', '.join(KINDS)}")
        else:
            kinds_t = tuple(kinds)
    is_error = data.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        c.error(("scope", "is_error"), "scope.is_error: must be true or false")
        is_error = None
    command = data.get("command")
    if command is not None:
        if not isinstance(command, str) or not command:
            c.error(("scope", "command"), "scope.command: must be a regex string")
            command = None
        else:
            err = regexes.python_error(command) or regexes.polars_error(command)
            if err:
                c.error(("scope", "command"), f"scope.command: invalid regex: {err}")
                command = None
    return Scope(kinds_t, is_error, command)


def validate(
    data: Any, lines: Lines, path: str, stem: str, renderer: Renderer, origin: str = "builtin"
) -> tuple[Pattern | None, list[Problem]]:
    """Check one pattern document; return the Pattern (None when unusable) and its problems."""
    pid = data.get("id") if isinstance(data, Mapping) else None
    c = _Collector(path, lines, pid if isinstance(pid, str) else stem)
    if not isinstance(data, Mapping):
        c.error((), "a pattern file must hold one YAML mapping")
        return None, c.problems
    for key in REQUIRED:
        if key not in data:
            c.error((), f"missing required field {key!r}")
    for key in data:
        if key not in REQUIRED + OPTIONAL + DESCRIPTIVE:
            c.warning((key,), f"unknown field {key!r}")
    for key in ("id", "title", "category", "regex", "explain"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            c.error((key,), f"{key}: must be a non-empty string")
    if c.fatal:
        return None, c.problems

    if not ID_RE.match(data["id"]):
        c.error(("id",), f"id {data['id']!r}: use lowercase letters, digits, '-', '_' or '.'")
    if data["id"] != stem:
        c.error(("id",), f"id {data['id']!r} must equal the file name stem {stem!r}")
    severity = data["severity"]
    if severity not in SEVERITIES:
        c.error(("severity",), f"severity {severity!r} is not one of {', '.join(SEVERITIES)}")
    priority = data["priority"]
    if not isinstance(priority, int) or isinstance(priority, bool):
        c.error(("priority",), f"priority must be an integer, got {priority!r}")

    rx = data["regex"]
    chk = regexes.check(rx)
    portable = chk.polars_error is None
    if chk.python_error:
        c.error(("regex",), f"invalid regex (Python `regex`): {chk.python_error}")
    elif chk.polars_error:
        c.error(("regex",), f"regex is not portable: polars (Rust regex) rejects it: {chk.polars_error}",
                fatal=False)
    if chk.matches_empty:
        c.error(("regex",), "regex matches the empty string (it would match every line)")
    groups = chk.groups if chk.python_error is None else tuple(regexes.named_groups(rx))

    prefilter = _str_list(c, data, "prefilter", required=True)
    fingerprint = _str_list(c, data, "fingerprint")
    for name in fingerprint:
        if name not in groups:
            c.error(("fingerprint",), f"fingerprint names capture {name!r}, which the regex lacks "
                    f"(groups: {', '.join(groups) or 'none'})")
    fixes = _str_list(c, data, "fixes")
    related = _str_list(c, data, "related")
    suppresses = _str_list(c, data, "suppresses")
    references = _str_list(c, data, "references")
    templates: list[tuple[tuple[Any, ...], str]] = [(("explain",), data["explain"])]
    templates += [(("fixes", i), f) for i, f in enumerate(fixes)]
    for tkey, source in templates:
        for msg in renderer.problems(source, groups):
            c.error(tkey, f"{tkey[0]}: {msg}")
    scope = _scope(c, data.get("scope"))
    match_ex, no_match_ex = _examples(c, data.get("examples"), groups)
    if c.fatal:
        return None, c.problems
    pattern = Pattern(
        id=data["id"],
        title=data["title"].strip(),
        category=data["category"],
        severity=Severity(severity),
        priority=priority,
        regex=rx,
        prefilter=prefilter,
        fingerprint=fingerprint,
        explain=data["explain"],
        fixes=fixes,
        related=related,
        suppresses=suppresses,
        references=references,
        scope=scope,
        match_examples=match_ex,
        no_match_examples=no_match_ex,
        groups=groups,
        path=path,
        line=c.line("id"),
        portable=portable,
        origin=origin,
        key_lines={k[0]: v for k, v in lines.items() if len(k) == 1 and isinstance(k[0], str)},
    )
    return pattern, c.problems
