"""How the site's search ranks the generated pages: a boost per kind of page, written into
the page's front matter (``search: boost:``), which the theme's search (lunr) multiplies
into every score of that page.

A version string or a state's spelling is answered best by the state table and the page
of that version, and worst by the capture transcripts, which hold every version and state
string many times over (a search for ``0.3.0`` used to list every capture first). A title
match counts a thousand times a match in the text, and a capture's title names its
scenario (``05-auth-required``), so a capture is boosted down by more than that factor:
it still comes up when nothing else matches, after every page that does. Everything else
keeps the theme's 1.
"""

from __future__ import annotations

from ..records.model import Version

BOOSTS = {
    "state-table": 2.0,
    "version": 2.0,
    "capture": 0.0005,
}
# A release candidate or an unreleased branch shares its number with the release
# (``1.0.0-rc``, ``1.0.0``); a search for the number should list the release first.
_UNRELEASED = 0.9


def boost(kind: str, version: Version | None = None) -> float:
    """The search boost of a page of ``kind`` (a key of :data:`BOOSTS`), about ``version``."""
    value = BOOSTS[kind]
    if version is not None and not version.released:
        value *= _UNRELEASED
    return value
