"""The source registry, and what secondary sources say about the lifecycle."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ...records.model import Claim, Source
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common

# What a computed verdict means for a secondary source's statement.
STANDING = {"verified": "current", "stale": "stale", "contradicted": "stale"}


@dataclass
class SourceView:
    source: Source
    anchor: str
    href: str
    claims: int


def _citing(data: SiteData) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in data.kb.claims.values():
        for sid in common.claim_sources(data, c):
            counts[sid] = counts.get(sid, 0) + 1
    return counts


def registry_page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.SOURCES, use_directory_urls)
    citing = _citing(data)
    groups: dict[str, list[SourceView]] = {}
    # A capture is a transcript in this repository: its page shows it, where the URL only
    # names the SDK release that was run.
    pages = {c.id: common.capture_href(link, c) for c in common.capture_sources(data)}
    for s in sorted(data.kb.sources.values(), key=lambda s: (s.authority != "primary", s.kind, s.id)):
        groups.setdefault(s.authority, []).append(
            SourceView(s, paths.source_anchor(s.id), pages.get(s.id) or s.permalink(), citing.get(s.id, 0)))
    pinned = sum(1 for s in data.kb.sources.values() if s.pinned)
    return render("site/sources.md.j2", groups=groups, total=len(data.kb.sources), pinned=pinned,
                  link=link, paths=paths)


@dataclass
class SaidView:
    claim: Claim
    href: str
    verdict: str
    standing: str
    message: str
    versions: list[str]


@dataclass
class SpeakerView:
    key: str
    anchor: str
    title: str
    url: str
    kind: str
    retrieved: str
    age_days: int | None
    said: list[SaidView]


def _age(retrieved: str, today: dt.date) -> int | None:
    try:
        return (today - dt.date.fromisoformat(retrieved)).days
    except ValueError:
        return None


def speakers(data: SiteData, link: Linker, today: dt.date) -> list[SpeakerView]:
    """Secondary sources with the claims that cite them, one group per source (or URL)."""
    groups: dict[str, list[Claim]] = {}
    for c in data.kb.claims.values():
        if data.authority(c.id) == "secondary":
            groups.setdefault(c.source, []).append(c)
    result = []
    for key, claims in groups.items():
        source: Source | None = data.kb.sources.get(key)
        said = []
        for c in sorted(claims, key=lambda c: c.id):
            verdict = data.verdict(c.id)
            result_ = data.results.get(c.id)
            said.append(SaidView(c, link.page(paths.CLAIMS, paths.claim_anchor(c.id)), verdict,
                                 STANDING.get(verdict, verdict), result_.message if result_ else "",
                                 c.versions))
        result.append(SpeakerView(
            key=key,
            anchor=paths.source_anchor(key),
            title=source.title if source else key,
            url=source.url if source else key,
            kind=source.kind if source else "web",
            retrieved=source.retrieved if source else "",
            age_days=_age(source.retrieved, today) if source and source.retrieved else None,
            said=said,
        ))
    return sorted(result, key=lambda s: s.title.lower())


def others_page(data: SiteData, use_directory_urls: bool = True, today: dt.date | None = None) -> str:
    link = Linker(paths.OTHERS, use_directory_urls)
    if today is None:
        pinned = data.kb.project.today
        today = dt.date.fromisoformat(pinned) if pinned else dt.date.today()
    found = speakers(data, link, today)
    standing: dict[str, int] = {}
    for s in found:
        for said in s.said:
            standing[said.standing] = standing.get(said.standing, 0) + 1
    return render("site/others.md.j2", speakers=found, standing=dict(sorted(standing.items())),
                  max_age=data.kb.project.max_age_days, link=link, paths=paths)


def proposal_claims(data: SiteData) -> list[Claim]:
    """Claims about changes proposed and not adopted: those filed in `proposals.yaml` or
    whose subject names a proposal."""
    return [c for c in data.kb.claims.values()
            if c.file.rsplit("/", 1)[-1].startswith("proposals.") or c.subject.lower().startswith("proposal")]


def proposals_page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.PROPOSALS, use_directory_urls)
    groups: dict[str, list[Any]] = {}
    for c in proposal_claims(data):
        groups.setdefault(c.source, []).append(c)
    items = []
    for key, claims in groups.items():
        source = data.kb.sources.get(key)
        items.append({
            "key": key,
            "anchor": paths.source_anchor(key),
            "title": source.title if source else key,
            "url": source.url if source else key,
            "retrieved": source.retrieved if source else "",
            "claims": [{"cite": common.cite(data, link, c), "statement": c.statement,
                        "conflicts": [(cid, link.page(paths.CONFLICTS, paths.conflict_anchor(cid)))
                                      for cid in c.conflicts if cid in data.kb.conflicts],
                        "versions": c.versions}
                       for c in sorted(claims, key=lambda c: (c.mark.line, c.id))],
        })
    items.sort(key=lambda i: str(i["title"]).lower())
    return render("site/proposals.md.j2", proposals=items, link=link, paths=paths)
