"""Transitions: what the sources say about moves between states, and the moves the
lifecycle model derives from the states' classes, version by version."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ...records.model import Claim, Version
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .states import mermaid


@dataclass
class Matrix:
    version: Version
    states: list[dict[str, Any]]
    allowed: set[tuple[str, str]]
    table_href: str
    mermaid: Markup
    left_out: list[str]
    grouped: bool

    def allows(self, a: str, b: str) -> bool:
        return (a, b) in self.allowed


def transition_claims(data: SiteData) -> list[Claim]:
    """Claims filed in `transitions.yaml`, or whose subject names a transition."""
    return [c for c in data.kb.claims.values()
            if c.file.rsplit("/", 1)[-1].startswith("transitions.")
            or c.subject.lower().startswith("transition")]


def matrix(data: SiteData, link: Linker, version: Version) -> Matrix:
    model = data.lifecycle.get("versions", {}).get(version.id, {})
    diagram, left_out, grouped = mermaid(model)
    return Matrix(
        version=version,
        states=[s for s in model.get("states", []) if s.get("class") != "unclassified"],
        allowed={(m["from"], m["to"]) for m in model.get("transitions", [])},
        table_href=link.page(paths.state_table(version.id)),
        mermaid=diagram,
        left_out=left_out,
        grouped=grouped,
    )


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.TRANSITIONS, use_directory_urls)
    claims = sorted(transition_claims(data), key=lambda c: (c.subject, c.id))
    by_subject: dict[str, list[Any]] = {}
    for c in claims:
        by_subject.setdefault(c.subject or "(no subject)", []).append(
            {"cite": common.cite(data, link, c), "statement": c.statement, "versions": c.versions,
             "source": c.source, "source_href": common.source_href(data, c.source)})
    latest = data.kb.latest
    return render(
        "site/transitions.md.j2",
        by_subject=by_subject,
        latest=matrix(data, link, latest),
        others=[matrix(data, link, v) for v in data.versions if v.id != latest.id],
        link=link,
        paths=paths,
    )
