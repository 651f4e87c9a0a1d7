"""The sections of the postmortem, in order: the one list the markdown and the HTML report both
render from, so that neither can gain or lose a section the other lacks.

Each section is a heading, a condition and a template per medium
(`templates/sections/<id>.md.j2`, `templates/sections/<id>.html.j2`). A section that only one
medium can show says so in `only`, with the reason; everything else is in both (tested).
A new section is one entry here and its two templates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from logsleuth.render.report import Report

MEDIA = ("md", "html")


def _always(r: Report) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Section:
    id: str  # the HTML anchor and the templates' name
    heading: Callable[[Report], str]
    when: Callable[[Report], bool] = _always
    nav: Callable[[Report], str] | None = None  # its label in the HTML table of contents
    only: str = ""  # "md" or "html": a section one medium cannot show
    why_only: str = ""

    def template(self, medium: str) -> str:
        return f"sections/{self.id}.{medium}.j2"

    def shown_in(self, medium: str) -> bool:
        return not self.only or self.only == medium


def _text(s: str) -> Callable[[Report], str]:
    return lambda r: s


SECTIONS: tuple[Section, ...] = (
    Section("introduction", _text("Introduction"), nav=_text("Introduction")),
    Section("chain", _text("The chain"), nav=_text("Chain"), only="html",
            why_only="the drawn chain (SVG); markdown carries it as mermaid source in `diagram`"),
    Section("road", _text("The road"), lambda r: bool(r.road), nav=_text("Road")),
    Section("catch22", _text("The catch-22"), lambda r: bool(r.catch22), nav=_text("Catch-22")),
    Section("diagnosis", lambda r: "The diagnostic process" + (" and the pivot" if r.diagnosis.pivots else ""),
            lambda r: bool(r.diagnosis.key or r.diagnosis.checks or r.diagnosis.pivots)),
    Section("assumptions", _text("Assumptions and their validity"), lambda r: bool(r.assumptions)),
    Section("knowledge", _text("Knowledge required and created")),
    Section("resolution", _text("Root cause, resolution and the working recipe"), nav=_text("Root cause")),
    Section("diagram", _text("The chain as a diagram"), lambda r: bool(r.road), only="md",
            why_only="mermaid source for markdown viewers; the HTML page draws the chain itself (`chain`)"),
    Section("timeline", _text("Timeline"), lambda r: bool(r.timeline), nav=_text("Timeline")),
    Section("findings", _text("Appendix: findings"), nav=_text("Findings")),
    Section("transcript", lambda r: f"The {r.record}", nav=lambda r: r.record.capitalize(), only="html",
            why_only="the events themselves, each the target of its references; markdown cites them as [msg N]"),
)


@dataclass(frozen=True, slots=True)
class Shown:
    """A section as one page shows it."""

    id: str
    heading: str
    template: str
    nav: str


def sections_for(report: Report, medium: str) -> list[Shown]:
    """The sections of `report` a medium shows, in order."""
    return [
        Shown(s.id, s.heading(report), s.template(medium), s.nav(report) if s.nav else "")
        for s in SECTIONS if s.shown_in(medium) and s.when(report)
    ]
