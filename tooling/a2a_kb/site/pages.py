"""The registry of generated pages and files: every renderer, called in one place.

`generate` is pure: the same `SiteData` always gives the same
`{src_uri: content}`; the plugin only hands the result to MkDocs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import escape, paths
from .data import SiteData
from .render import (
    api,
    captures,
    claims,
    common,
    conflicts,
    conformance,
    performance,
    reference,
    reliability,
    sdk_matrix,
    sdk_timeline,
    site_quality,
    sources,
    states,
    structure,
    transitions,
    versions,
)

Pages = list[tuple[str, str]]  # (src_uri, content), in the order the site lists them


@dataclass(frozen=True)
class Family:
    """The renderer of a family of pages, and what it reads of the site data.

    `reads` names aspects of `SiteData` (see `inputs`), `{part}`
    standing for the part rendered; an aspect ending in `@shown` (`claims.statement@shown`)
    is that field of the claims a page names by id, and only of those. The generation cache
    takes a family's pages from an earlier build while every aspect it names hashes the same;
    tests/test_site_inputs.py holds each declaration to what the renderer reads.
    `parts` splits a family whose pages each show a part of the knowledge base (a claims
    file): each part is rendered, and kept, on its own.
    """

    render: Callable[[SiteData, str, bool], Pages]
    reads: tuple[str, ...]
    parts: Callable[[SiteData], list[str]] | None = None
    # The pages write the build's time (generated_at) as it is and use it for nothing else:
    # the cache renders them at a stand-in time and writes the real one in, so that a new
    # build time alone renders nothing again (tests/test_site_inputs.py checks the claim).
    stamped: bool = False

    def part_names(self, data: SiteData) -> list[str]:
        return self.parts(data) if self.parts is not None else [""]

    def reads_of(self, part: str) -> tuple[str, ...]:
        return tuple(a.replace("{part}", part) for a in self.reads)


STAND_IN_TIME = "0000-00-00T00:00:00Z"  # no real time: never in a page but where it is put


def _one(render: Callable[[SiteData, bool], Pages]) -> Callable[[SiteData, str, bool], Pages]:
    return lambda data, part, use_directory_urls: render(data, use_directory_urls)


def _page(src_uri: str, render: Callable[[SiteData, bool], str]) -> Callable[[SiteData, str, bool], Pages]:
    return lambda data, part, use_directory_urls: [(src_uri, render(data, use_directory_urls))]


def _api(part: str) -> Callable[[SiteData, str, bool], Pages]:
    return lambda data, _, use_directory_urls: api.part(data, part, use_directory_urls)


# What the SDK timelines (a page per SDK, and api/v1/sdks.json) read.
_SDK_READS = ("claims", "claims.id", "claims.rank", "claims.source", "results.verdict", "sources",
              "claims.answer", "claims.conflicts", "claims.expect", "claims.quote")

# What most families read to link a claim, name its source and show its verdict.
_CITE = ("claims", "claims.id", "claims.rank", "claims.source", "results.verdict", "sources", "versions")

FAMILIES: dict[str, Family] = {
    "states": Family(states.part, parts=states.part_names, reads=(
        *_CITE, "claims.expect", "claims.locator", "claims.note", "claims.subject", "claims.versions",
        "claims.statement@shown", "dates", "lifecycle", "tables")),
    "transitions": Family(_page(paths.TRANSITIONS, transitions.page), (
        *_CITE, "claims.file", "claims.subject", "claims.versions", "claims.statement@shown", "lifecycle")),
    "conflicts": Family(_page(paths.CONFLICTS, conflicts.page), (
        "claims", "claims.source", "claims.statement@shown", "results.verdict", "register", "sources",
        "versions")),
    "versions": Family(versions.part, parts=versions.part_names, reads=(
        "claims", "claims.id", "claims.rank", "claims.versions", "claims.statement@shown",
        "results.verdict", "dates", "diffs", "sources", "tables", "versions")),
    "claims": Family(_one(claims.index_pages), ("claims.*", "results.*", "conflicts", "sources",
                                                "transcripts", "versions")),
    "claims-topics": Family(lambda data, part, u: claims.topic_pages(data, part, u), (
        "claims", "claims.file", "topic:{part}", "conflicts", "sources", "transcripts", "versions"),
        parts=claims.topic_names),
    "sources": Family(_page(paths.SOURCES, sources.registry_page), (
        "claims", "claims.expect", "claims.source", "sources", "transcripts", "versions")),
    "others": Family(_page(paths.OTHERS, sources.others_page), (
        "claims", "claims.id", "claims.source", "claims.versions", "claims.statement@shown",
        "results.message", "results.verdict", "project", "sources")),
    "proposals": Family(_page(paths.PROPOSALS, sources.proposals_page), (
        "claims", "claims.id", "claims.rank", "claims.source", "results.verdict", "sources",
        "claims.conflicts", "claims.file", "claims.mark", "claims.subject", "claims.versions",
        "claims.statement@shown", "conflicts")),
    # The JSON API: the index counts what every document holds; each document on its own.
    "api": Family(_api("index"), stamped=True, reads=(
        "claims.*", "results.evidence", "results.message", "results.verdict", "conflicts", "diffs",
        "facts", "lifecycle", "register", "sources", "tables", "transcripts", "versions")),
    "api-claims": Family(_api("claims"), stamped=True, reads=(
        "claims.*", "results.evidence", "results.message", "results.verdict", "sources")),
    "api-conflicts": Family(_api("conflicts"), ("register",), stamped=True),
    "api-states": Family(_api("states"), ("tables", "versions"), stamped=True),
    "api-sources": Family(_api("sources"), ("sources",), stamped=True),
    "api-diffs": Family(_api("diffs"), ("diffs",), stamped=True),
    "api-lifecycle": Family(_api("lifecycle"), ("lifecycle",), stamped=True),
    "api-conformance": Family(_api("conformance"), stamped=True, reads=(
        *_CITE, "claims.answer", "claims.conflicts", "claims.expect", "claims.file", "claims.locator",
        "claims.mark", "claims.related", "claims.subject", "claims.versions",
        "claims.statement@shown", "results.evidence", "conflicts", "facts", "transcripts")),
    "api-sdks": Family(_api("sdks"), stamped=True, reads=(
        *_SDK_READS, "claims.statement@shown", "claims.subject", "results.evidence", "conflicts",
        "facts", "transcripts")),
    "api-schemas": Family(_api("schemas"), ()),
    "reference": Family(lambda data, part, u: [(paths.PYTHON_API, reference.page())], ()),
    "sdk-matrix": Family(_page(paths.SDK_MATRIX, sdk_matrix.page), (
        *_CITE, "claims.answer", "claims.conflicts", "claims.quote", "claims.expect", "claims.file",
        "claims.mark", "claims.related", "claims.subject", "claims.versions", "claims.statement@shown",
        "results.evidence", "conflicts", "dates", "facts", "transcripts")),
    "sdk-timelines": Family(sdk_timeline.part, parts=sdk_timeline.part_names, reads=(
        *_SDK_READS, "claims.statement@shown", "claims.subject", "results.evidence", "conflicts",
        "facts", "transcripts")),
    "conformance": Family(_page(paths.CONFORMANCE, conformance.page), (
        *_CITE, "claims.answer", "claims.conflicts", "claims.expect", "claims.file", "claims.locator",
        "claims.mark", "claims.related", "claims.subject", "claims.versions",
        "claims.statement@shown", "results.evidence", "conflicts", "facts", "transcripts")),
    "captures": Family(captures.part, parts=captures.part_names, reads=(
        *_CITE, "claims.expect", "claims.file", "claims.mark", "claims.subject",
        "claims.statement@shown", "facts", "transcripts")),
    "reliability": Family(_page(paths.RELIABILITY, reliability.page), (
        "reliability", "claims", "claims.statement", "claims.expect", "claims.quote",
        "results.verdict", "results.evidence")),
    "performance": Family(_page(paths.PERFORMANCE, performance.page), ("benchmark",)),
    "structure": Family(lambda data, part, u: [(paths.STRUCTURE, structure.page())], ()),
    "site-quality": Family(_page(paths.SITE_QUALITY, site_quality.page), ("site_quality", "benchmark")),
}


def generate(data: SiteData, use_directory_urls: bool = True) -> dict[str, str]:
    """Every generated page (Markdown) and file (JSON) by its path in the site."""
    result: dict[str, str] = {}
    for family in FAMILIES.values():
        for part in family.part_names(data):
            for src_uri, content in family.render(data, part, use_directory_urls):
                result[src_uri] = content
    return result


def nav_children(data: SiteData) -> dict[str, list[dict[str, str]]]:
    """The pages that go under the nav entries of the states and versions indexes (newest
    version first) and of the SDK behaviour matrix (a page per capture). The claims' topic
    pages stay out of the nav, which every page carries: the claims index links each one.

    The theme writes nav titles into the page without escaping them, so the version
    titles (record text) are HTML-escaped here.
    """
    newest_first = list(reversed(data.versions))
    scenarios = [common.scenario_of(s) for s in common.capture_sources(data)]
    return {
        paths.STATES_INDEX: [{str(escape.html(v.title)): paths.state_table(v.id)} for v in newest_first],
        paths.VERSIONS_INDEX: [{str(escape.html(v.title)): paths.version_page(v.id)} for v in newest_first],
        paths.SDK_MATRIX: [*({f"{escape.html(sdk)}, release by release": paths.sdk_page(sdk)}
                             for sdk in sdk_timeline.part_names(data)),
                           *({str(escape.html(s)): paths.capture_page(s)} for s in scenarios)],
    }
