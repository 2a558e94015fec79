"""The claims: an index of every claim (its statement, verdict and permanent anchor, with the
filters' data) and a page per claims file that shows each claim in full, with what its
checks compared at each version and the lines they read.

The index stays light enough for a phone: a claim's evidence is on its topic page, one link
away, so 700 claims do not make one page of several megabytes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...knowledge.plan import plan
from ...records.model import Claim
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .heights import claim_height


@dataclass
class Evidence:
    label: str
    href: str


@dataclass
class Copy:
    """A copy of a source a check ran on, and the claim's versions it stood for."""

    source: str
    href: str
    versions: str  # "1.0.0, 1.0.1", or "" when the copy stands for every version


@dataclass
class Comparison:
    """One check as the machine runs it: the fact read, the operation, the value compared."""

    fact: str  # a fact key, or "the quote"
    op: str
    value: str
    copies: list[Copy] = field(default_factory=list)


@dataclass
class VersionRow:
    version: str
    status: str  # holds, fails, quote-missing, no-counterpart, not-checked
    sources: str
    message: str


@dataclass
class ClaimView:
    claim: Claim
    details: str  # link to the claim on its topic page (from the index) or "" (on it)
    verdict: str
    recorded: str
    message: str
    authority: str
    source_title: str
    source_href: str
    versions: list[tuple[str, str]]  # (version title, link to its page)
    conflicts: list[tuple[str, str]]  # (conflict id, link to its anchor)
    related: list[tuple[str, str]]
    evidence: list[Evidence]
    comparisons: list[Comparison] = field(default_factory=list)
    by_version: list[VersionRow] = field(default_factory=list)


_VALUE_LIMIT = 300


def _shown(value: Any) -> str:
    """An expected value as the reader would write it in the claim: JSON, cut if long."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 1] + "…"


def comparisons(data: SiteData, link: Linker, claim: Claim) -> list[Comparison]:
    """Every check of the claim, each with the copies it is run on (the claim's source and
    its counterparts at the other versions, or the one copy an expect names)."""
    steps = plan(claim, data.kb)
    rows: dict[tuple[str, str, str], Comparison] = {}

    def add(fact: str, op: str, value: Any, source_id: str, versions: list[str]) -> None:
        key = (fact, op, _shown(value))
        row = rows.setdefault(key, Comparison(fact, op, key[2]))
        src = data.kb.sources.get(source_id)
        href = (common.capture_href(link, src) if src is not None and src.id in data.transcripts
                else common.source_href(data, source_id))
        row.copies.append(Copy(source_id, href, ", ".join(versions)))

    for run in steps.runs:
        if run.quote:
            add("the quote", "is in the source" if not claim.locator.startswith("§")
                else f"is in {claim.locator}", claim.quote, run.source.id, run.versions)
        for e in run.expects:
            add(e.fact, e.op, e.value, run.source.id, run.versions)
    return list(rows.values())


def _evidence(data: SiteData, link: Linker, claim_id: str) -> list[Evidence]:
    """The facts the claim's verdict rests on, each linked to its lines."""
    result = data.results.get(claim_id)
    evidence = []
    for fact in result.evidence if result else []:
        src = data.kb.sources.get(fact.source)
        if src is not None and src.id in data.transcripts:  # a capture: its page has the lines
            href = common.capture_href(link, src, fact.line_start)
        else:
            href = src.permalink(fact.line_start, fact.line_end) if src and fact.line_start else ""
        where = f"{fact.source} L{fact.line_start}" if fact.line_start else fact.source
        evidence.append(Evidence(f"{fact.key} in {where}", href))
    return evidence


def view(data: SiteData, link: Linker, claim: Claim, full: bool = True) -> ClaimView:
    """A claim as a page shows it; `full=False` leaves out what only its topic page shows
    (evidence, comparisons, the by-version table) and links there instead."""
    result = data.results.get(claim.id)
    source = data.kb.sources.get(claim.source)
    known_versions = {v.id: v for v in data.versions}
    topic_page = paths.claims_topic_page(paths.claim_topic(claim.file))
    return ClaimView(
        claim=claim,
        details="" if full else link.page(topic_page, paths.claim_anchor(claim.id)),
        verdict=data.verdict(claim.id),
        recorded=claim.verdict,
        message=result.message if result else "",
        authority=data.authority(claim.id),
        source_title=source.title if source else claim.source,
        source_href=(common.capture_href(link, source) if source is not None and source.id in data.transcripts
                     else common.source_href(data, claim.source)),
        versions=[(known_versions[v].title if v in known_versions else v,
                   link.page(paths.version_page(v)) if v in known_versions else "") for v in claim.versions],
        conflicts=[(cid, link.page(paths.CONFLICTS, paths.conflict_anchor(cid)))
                   for cid in claim.conflicts if cid in data.kb.conflicts],
        related=[(rid, link.page(paths.CLAIMS, paths.claim_anchor(rid)))
                 for rid in claim.related if rid in data.kb.claims],
        evidence=_evidence(data, link, claim.id) if full else [],
        comparisons=comparisons(data, link, claim) if full else [],
        by_version=[VersionRow(r.version, r.status, ", ".join(r.sources), r.message)
                    for r in (result.by_version if result else [])] if full else [],
    )


def filter_index(data: SiteData) -> dict[str, Any]:
    """What the filters read: per claim its subject, versions, verdict and authority."""
    return {
        c.id: {"subject": c.subject, "versions": c.versions, "verdict": data.verdict(c.id),
               "authority": data.authority(c.id)}
        for c in data.kb.claims.values()
    }


def _facets(data: SiteData, index: dict[str, Any]) -> dict[str, list[str]]:
    known_order = [v.id for v in data.versions]
    versions = {v for row in index.values() for v in row["versions"]}
    return {
        "subject": sorted({row["subject"] for row in index.values() if row["subject"]}),
        "version": [v for v in known_order if v in versions],
        "verdict": sorted({row["verdict"] for row in index.values()}),
        "authority": sorted({row["authority"] for row in index.values()}),
    }


def packed_index(index: dict[str, Any], facets: dict[str, list[str]]) -> dict[str, list[int]]:
    """The filter index as the page carries it: per claim `[subject, verdict, authority,
    versions]`, the first three the position of the value among the options of its filter
    (1 for the first facet, as option 0 is "any"; 0 for no value) and the last a bit mask,
    bit *i* for the *i*-th version facet. claims-filter.js reads it against the options."""
    at = {name: {v: i + 1 for i, v in enumerate(values)} for name, values in facets.items()}
    return {
        cid: [at["subject"].get(row["subject"], 0), at["verdict"].get(row["verdict"], 0),
              at["authority"].get(row["authority"], 0),
              sum(1 << (at["version"][v] - 1) for v in set(row["versions"]) if v in at["version"])]
        for cid, row in index.items()
    }


TOPIC_TITLES = {
    "cancellation": "Cancellation",
    "classes": "Terminal and interrupted classes",
    "conformance": "Conformance suite",
    "docs-pages": "Documentation pages",
    "dossier": "The research dossier",
    "error-catalogue": "Error catalogue",
    "errors": "Errors",
    "formal-analyses": "Formal analyses",
    "history": "History",
    "implementations": "Implementations",
    "in-task-auth": "In-task authorization",
    "multi-turn": "Multi-turn tasks",
    "observing": "Observing a task",
    "operations": "Operations",
    "proposals": "Proposals",
    "proto-comments": "Proto comments",
    "release-candidate": "The v1.0.0 release candidate",
    "schema-descriptions": "Schema descriptions",
    "sdk-behaviour": "SDK behaviour",
    "secondary": "Secondary sources",
    "state-roles": "State roles",
    "state-set": "The state set",
    "streaming": "Streaming",
    "task-continuation": "Continuing a task",
    "task-ids": "Task and context ids",
    "transitions": "Transitions",
}


def topic_title(topic: str) -> str:
    return TOPIC_TITLES.get(topic) or topic.replace("-", " ").capitalize()


def _ordered(data: SiteData) -> list[Claim]:
    return sorted(data.kb.claims.values(), key=lambda c: (c.file, c.mark.line, c.id))


def _summary(data: SiteData, claims: list[Claim]) -> dict[str, int]:
    summary: dict[str, int] = {}
    for c in claims:
        v = data.verdict(c.id)
        summary[v] = summary.get(v, 0) + 1
    return dict(sorted(summary.items()))


def topics(data: SiteData) -> dict[str, list[Claim]]:
    """The claims of each topic page, in the order of their files."""
    result: dict[str, list[Claim]] = {}
    for c in _ordered(data):
        result.setdefault(paths.claim_topic(c.file), []).append(c)
    return result


@dataclass
class TopicGroup:
    """A claims file as the index shows it: a collapsed group of its claims."""

    topic: str
    title: str
    href: str  # its page, where each claim is shown in full
    summary: dict[str, int]
    claims: list[ClaimView]


def page(data: SiteData, by_topic: dict[str, list[Claim]], use_directory_urls: bool = True) -> str:
    """The claims index: every claim's statement, verdict and anchor, grouped by file, and the
    filters. The groups start collapsed, so a phone lays out only the one a reader opens."""
    link = Linker(paths.CLAIMS, use_directory_urls)
    groups = [TopicGroup(t, topic_title(t), link.page(paths.claims_topic_page(t)), _summary(data, cs),
                         [view(data, link, c, full=False) for c in cs])
              for t, cs in by_topic.items()]
    index = filter_index(data)
    facets = _facets(data, index)
    return render(
        "site/claims.md.j2",
        groups=groups,
        total=sum(len(g.claims) for g in groups),
        facets=facets,
        index=packed_index(index, facets),
        summary=_summary(data, _ordered(data)),
        link=link,
        paths=paths,
        versions={v.id: v for v in data.versions},
    )


# A claim's article as claims-topic.md.j2 writes it: KB text inside is escaped, so no
# "</article>" but the template's own ends one.
_ARTICLE = re.compile(r'<article class="kb-claim[^"]*"(?P<rest>[^>]*)>.*?</article>', re.S)


def _with_heights(page: str) -> str:
    """Each claim's article carries its height on a phone (see heights.py), the placeholder
    kb.css gives it until it is laid out."""
    def add(found: re.Match[str]) -> str:
        article = found.group(0)
        at = found.start("rest") - found.start()
        return f'{article[:at]} style="--kb-claim-height: {claim_height(article)}em"{article[at:]}'

    return _ARTICLE.sub(add, page)


def topic_page(data: SiteData, topic: str, claims: list[Claim], use_directory_urls: bool = True) -> str:
    """One claims file in full."""
    where = paths.claims_topic_page(topic)
    link = Linker(where, use_directory_urls)
    return _with_heights(render(
        "site/claims-topic.md.j2",
        title=topic_title(topic),
        file=claims[0].file if claims else "",
        claims=[view(data, link, c) for c in claims],
        summary=_summary(data, claims),
        index_href=link.page(paths.CLAIMS),
        link=link,
        paths=paths,
    ))


def index_pages(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    """The claims index."""
    return [(paths.CLAIMS, page(data, topics(data), use_directory_urls))]


def topic_names(data: SiteData) -> list[str]:
    """The topics that have a page, in the order of their files."""
    return list(topics(data))


def topic_pages(data: SiteData, topic: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    """The page of one topic. Its claims are picked by their file alone and put in order
    among themselves, so the page reads nothing of the claims of other files but which
    file they are in (see site.inputs: an edit elsewhere leaves this page as it was)."""
    mine = sorted((c for c in data.kb.claims.values() if paths.claim_topic(c.file) == topic),
                  key=lambda c: (c.file, c.mark.line, c.id))
    return [(paths.claims_topic_page(topic), topic_page(data, topic, mine, use_directory_urls))]
