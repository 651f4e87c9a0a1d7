"""Patterns made from a table of status names (`_meta/status_names.yaml`).

CUDA, cuDNN and NCCL report a failure by a status: an enum name (`cudaErrorLaunchFailure`,
`CUDA_ERROR_LAUNCH_FAILED`), its message (`unspecified launch failure`) and a number. Every
framework wraps them its own way (`CUDA error: X`, `CUDA error 2 at f.cu:9: X`, `THCudaCheck FAIL
… error=4 : X`, `Cuda failure 2 'X'`, `Test CUDA failure common.cu:730 'X'`, `failed to initialize
CUDA: X`, `init failure: 802`). One regex per wording never catches up; a table of names mapped to
categories does: any wrapper that prints a known name, or a known message after a known kind of
prefix, is recognised.

For each family of the table the loader makes one pattern per category, id `status-<family>-<category>`:
its regex is the family's name, message and code forms around the names, messages and codes of
that category's rows, and its examples are the family's examples labelled with that category.
The patterns then go through the same validation as a pattern file (examples are tests).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

TABLE = "status_names"
FAMILY_KEYS = ("family", "title", "priority", "severity", "name_form", "message_prefixes", "code_prefixes",
               "explain", "fixes", "references", "statuses", "examples")


def _alt(values: list[str]) -> str:
    # longest first: a name that prefixes another must not win the alternation
    return "|".join(_literal(v) for v in sorted(set(values), key=lambda v: (-len(v), v)))


def _literal(text: str) -> str:
    """`re.escape` without its escaped spaces and `#`: Python reads `\\ ` as a space, ripgrep
    (`patterns export --rg`) rejects it."""
    return re.escape(text).replace("\\ ", " ").replace("\\#", "#")


def _strs(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def family_patterns(family: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(raw pattern data, problem) per category of one family; problem "" when the data is fine."""
    name = str(family.get("family") or "")
    rows = family.get("statuses")
    if not name or not isinstance(rows, list):
        return [({}, "a family needs `family` and a list of `statuses`")]
    by_cat: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        if isinstance(row, Mapping) and isinstance(row.get("category"), str):
            by_cat.setdefault(row["category"], []).append(row)
    examples = [e for e in family.get("examples") or [] if isinstance(e, Mapping)]
    out: list[tuple[dict[str, Any], str]] = []
    for category, cat_rows in sorted(by_cat.items()):
        names = [n for r in cat_rows for n in _strs(r.get("names"))]
        messages = [m for r in cat_rows for m in _strs(r.get("message"))]
        codes = [str(r["code"]) for r in cat_rows if isinstance(r.get("code"), int)]
        parts, prefilter = [], list(names) + list(messages)
        if names:
            parts.append(str(family.get("name_form", r"\b(?P<status>{names})\b")).replace("{names}", _alt(names)))
        msg_prefixes = _strs(family.get("message_prefixes"))
        if messages and msg_prefixes:
            parts.append(f"(?:{'|'.join(msg_prefixes)})(?P<message>{_alt(messages)})")
        code_prefixes = _strs(family.get("code_prefixes"))
        if codes and code_prefixes:
            # a code prefix is a literal: it is also the prefilter of the code form
            parts.append(f"(?:{_alt(code_prefixes)})(?P<code>{'|'.join(sorted(set(codes)))})(?:[^\\w.%]|$)")
            prefilter += code_prefixes
        data: dict[str, Any] = {
            "id": f"status-{name}-{category.replace('_', '-')}",
            "title": f"{family.get('title') or name}: {category.replace('_', ' ')}",
            "category": category,
            "severity": family.get("severity", "error"),
            "priority": family.get("priority", 70),
            "regex": "|".join(parts),
            "prefilter": sorted(set(prefilter)),
            "fingerprint": [],
            # a family without its own explanation still yields a valid pattern (no variables: forms vary)
            "explain": family.get("explain") or f"{family.get('title') or name} reported a status this table maps to "
                       f"{category}.",
            "fixes": family.get("fixes") or [],
            "references": sorted({*_strs(family.get("references")), *(str(e["source"]) for e in examples
                                  if e.get("category") == category and e.get("source"))}),
            "examples": {
                "match": [{"text": e.get("text"), **({"captures": e["captures"]} if e.get("captures") else {})}
                          for e in examples if e.get("category") == category],
                "no_match": [{"text": e.get("text")} for e in examples
                             if e.get("category") in (None, "none") and _near(e, category)],
            },
        }
        out.append((data, ""))
    return out


def _near(example: Mapping[str, Any], category: str) -> bool:
    """A no-match example applies to every category of its family unless it names one (`near`)."""
    near = example.get("near")
    return near is None or near == category


def status_patterns(data: Any) -> list[tuple[dict[str, Any], int, str]]:
    """(raw pattern data, index of its family, problem) for every family of the table."""
    families = data.get(TABLE) if isinstance(data, Mapping) else None
    if not isinstance(families, list):
        return [({}, -1, f"expected `{TABLE}: [{{family, statuses, …}}, …]`")]
    out: list[tuple[dict[str, Any], int, str]] = []
    for i, fam in enumerate(families):
        if not isinstance(fam, Mapping):
            out.append(({}, i, "a family must be a mapping"))
            continue
        unknown = sorted(set(fam) - set(FAMILY_KEYS))
        if unknown:
            out.append(({}, i, f"unknown key(s) {', '.join(map(str, unknown))}"))
        out.extend((d, i, p) for d, p in family_patterns(fam))
    return out
