"""What the pattern library says about an error nobody on the team has hit: the pattern's title,
explanation and usual fixes, rendered with the query's captures (what `classify` prints)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def advice(pattern_id: str | None, captures: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """{"pattern", "title", "category", "explanation", "fixes"} of a pattern, None when unknown."""
    if not pattern_id:
        return None
    from logsleuth.classify import _render
    from logsleuth.index.patterns import library

    lib = library()
    p = lib.get(pattern_id)
    if p is None:
        return None
    warnings: list[str] = []
    explanation, fixes = (_render(lib.renderer, p, dict(captures or {}), warnings) if lib.renderer is not None
                          else (p.explain, p.fixes))
    return {"pattern": p.id, "title": p.title, "category": p.category,
            "explanation": " ".join(explanation.split()), "fixes": [" ".join(f.split()) for f in fixes]}


def text(a: Mapping[str, Any]) -> str:
    """The advice as lines for a terminal."""
    lines = [f"{a['title']} ({a['pattern']}): {a['explanation']}".rstrip(": ")]
    lines += [f"  usual fix: {f}" for f in a["fixes"]]
    return "\n".join(lines)
