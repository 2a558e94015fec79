"""The conflict register: each question, its sides with their claims and sources, the advice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common


@dataclass
class SideClaim:
    id: str
    href: str
    verdict: str
    statement: str
    source: str
    source_href: str


@dataclass
class Standing:
    source: str
    binding: str
    versions: str  # "v0.2.2 to v0.3.0", "v1.0.0, v1.0.1"
    claims: list[str]


@dataclass
class SideView:
    position: str
    claims: list[SideClaim]
    standing: list[Standing]


@dataclass
class ConflictView:
    id: str
    anchor: str
    title: str
    question: str
    status: str
    resolved_in: str
    resolved_href: str
    advice: str
    origin: str
    sides: list[SideView]


def _side(data: SiteData, link: Linker, side: dict[str, Any]) -> SideView:
    claims = []
    for cid in side["claims"]:
        claim = data.kb.claims.get(cid)
        if claim is None:
            continue  # validate reports the dangling reference
        claims.append(SideClaim(
            cid, link.page(paths.CLAIMS, paths.claim_anchor(cid)), data.verdict(cid), claim.statement,
            claim.source, common.source_href(data, claim.source)))
    standing = [Standing(str(e["source"]), str(e["binding"]), _versions(data, e["versions"]), e["claims"])
                for e in side.get("standing", [])]
    return SideView(str(side["position"]), claims, standing)


def _versions(data: SiteData, ids: list[str]) -> str:
    """Versions as a reader says them: a run of consecutive releases as "v0.2.2 to v0.3.0"."""
    order = [v.id for v in data.versions]
    runs: list[list[str]] = []
    for vid in ids:
        follows = bool(runs) and vid in order and runs[-1][-1] in order \
            and order.index(vid) == order.index(runs[-1][-1]) + 1
        if follows:
            runs[-1].append(vid)
        else:
            runs.append([vid])
    def label(vid: str) -> str:
        return vid if not vid[:1].isdigit() else f"v{vid}"

    return ", ".join(label(r[0]) if len(r) == 1 else f"{label(r[0])} to {label(r[-1])}" for r in runs)


def views(data: SiteData, link: Linker) -> list[ConflictView]:
    known = {v.id for v in data.versions}
    result = []
    for c in data.register["conflicts"]:
        resolved = c.get("resolved_in") or ""
        result.append(ConflictView(
            id=c["id"],
            anchor=paths.conflict_anchor(c["id"]),
            title=c.get("title") or "",
            question=c["question"],
            status=c["status"],
            resolved_in=resolved,
            resolved_href=link.page(paths.version_page(resolved)) if resolved in known else "",
            advice=c["advice"],
            origin=c.get("origin") or "",
            sides=[_side(data, link, s) for s in c["sides"]],
        ))
    return result


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.CONFLICTS, use_directory_urls)
    items = views(data, link)
    counts: dict[str, int] = {}
    for c in items:
        counts[c.status] = counts.get(c.status, 0) + 1
    return render("site/conflicts.md.j2", conflicts=items, counts=counts, link=link, paths=paths)
