"""How the site's search ranks the generated pages: a boost per kind of page, written into
the page's front matter (`search: boost:`), which the theme's search (lunr) multiplies
into every score of that page.

A version string or a state's spelling is answered best by the state table and the page
of that version, and worst by the capture transcripts, which hold every version and state
string many times over (a search for `0.3.0` used to list every capture first). A title
match counts a thousand times a match in the text, and a capture's title names its
scenario (`05-auth-required`), so a capture is boosted down by more than that factor:
it still comes up when nothing else matches, after every page that does. Everything else
keeps the theme's 1.

A search for a state's name is answered by the rows and claims that
`a2a_kb.site.search_entries` adds: first the row of the newest table that has the
state (the States page, for a state of the latest release), then the claims about the
state, then its rows in the other versions' tables. Each is a title match, so the boosts
alone order them, and all of them come before a heading that merely holds the word.
"""

from __future__ import annotations

from ..records.model import Version

BOOSTS = {
    "state-table": 2.0,
    "version": 2.0,
    "capture": 0.0005,
    # A title holds a state's name once or twice (its spellings, a claim's id), and a
    # wildcard query matches longer words too, so two title matches can differ by 2x on
    # their words alone: each step below is a factor of two or more.
    "state-row": 4.0,
    "state-claim": 2.0,
    "state-row-elsewhere": 1.0,
}
# A release candidate or an unreleased branch shares its number with the release
# (`1.0.0-rc`, `1.0.0`); a search for the number should list the release first.
_UNRELEASED = 0.9


def boost(kind: str, version: Version | None = None) -> float:
    """The search boost of a page of `kind` (a key of `BOOSTS`), about `version`."""
    value = BOOSTS[kind]
    if version is not None and not version.released:
        value *= _UNRELEASED
    return value


def recency(age: int) -> float:
    """A tie-break among pages that say the same of a state: `age` 0 is the newest
    table, 1 the next older one, …; each is ranked a hundredth below the one before, far
    less than any step of `BOOSTS`."""
    return 1.0 - min(age, 50) / 100
