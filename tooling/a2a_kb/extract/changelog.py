"""Facts of CHANGELOG.md: each release's date, from release-please's version headings.

A release heading reads `## [1.0.0](https://…/compare/v0.3.0...v1.0.0) (2026-03-12)`
(older ones may lack the link). Headings are found with markdown-it-py, so a line in a
code block that looks like one is not taken for a release.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from ..facts import Fact
from .artifact import Artifact, Draft

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.

_MARKDOWN = MarkdownIt("commonmark")
_RELEASE = re.compile(
    r"^\[?v?(?P<version>\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)\]?"  # [1.0.0] or 1.0.0
    r"(?:\([^)]*\))?\s*"  # the compare link
    r"\((?P<date>\d{4}-\d{2}-\d{2})\)"
)


def extract(artifact: Artifact) -> list[Fact]:
    tokens = _MARKDOWN.parse(artifact.text)
    drafts: list[Draft] = []
    seen: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        release = _RELEASE.match(tokens[index + 1].content.strip())
        if not release:
            continue
        version = release.group("version")
        seen[version] = seen.get(version, 0) + 1
        subject = version if seen[version] == 1 else f"{version}~{seen[version]}"
        line = token.map[0] + 1
        drafts.append(Draft("release-date", subject, release.group("date"), line, line))
    if not drafts:
        raise artifact.fail("no release headings like `## [1.0.0](…) (2026-03-12)`")
    return artifact.facts(drafts)
