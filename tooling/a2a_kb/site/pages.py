"""The registry of generated pages and files: every renderer, called in one place.

``generate`` is pure: the same :class:`~a2a_kb.site.data.SiteData` always gives the same
``{src_uri: content}``; the plugin only hands the result to MkDocs.
"""

from __future__ import annotations

from collections.abc import Callable

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
    site_quality,
    sources,
    states,
    transitions,
    versions,
)

PageFamily = Callable[[SiteData, bool], list[tuple[str, str]]]

FAMILIES: dict[str, PageFamily] = {
    "states": states.pages,
    "transitions": lambda d, u: [(paths.TRANSITIONS, transitions.page(d, u))],
    "conflicts": lambda d, u: [(paths.CONFLICTS, conflicts.page(d, u))],
    "versions": versions.pages,
    "claims": claims.pages,
    "sources": lambda d, u: [(paths.SOURCES, sources.registry_page(d, u))],
    "others": lambda d, u: [(paths.OTHERS, sources.others_page(d, u))],
    "proposals": lambda d, u: [(paths.PROPOSALS, sources.proposals_page(d, u))],
    "api": lambda d, u: [(paths.API_INDEX, api.page(d, u)), *api.files(d, u)],
    "reference": lambda d, u: [(paths.PYTHON_API, reference.page())],
    "sdk-matrix": lambda d, u: [(paths.SDK_MATRIX, sdk_matrix.page(d, u))],
    "conformance": lambda d, u: [(paths.CONFORMANCE, conformance.page(d, u))],
    "captures": captures.pages,
    "reliability": lambda d, u: [(paths.RELIABILITY, reliability.page(d, u))],
    "performance": lambda d, u: [(paths.PERFORMANCE, performance.page(d, u))],
    "site-quality": lambda d, u: [(paths.SITE_QUALITY, site_quality.page(d, u))],
}


def generate(data: SiteData, use_directory_urls: bool = True) -> dict[str, str]:
    """Every generated page (Markdown) and file (JSON) by its path in the site."""
    result: dict[str, str] = {}
    for family in FAMILIES.values():
        for src_uri, content in family(data, use_directory_urls):
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
        paths.SDK_MATRIX: [{str(escape.html(s)): paths.capture_page(s)} for s in scenarios],
    }
