"""Search entries the theme cannot make by itself: one per row of each state table and one
per claim about a state, so that a search for a state's name lands on its row and its claims.

The theme's search indexes a page and its headings. A state is a table row, not a heading,
and a claim is a line of the claims index, so a search for `input-required` used to list
whichever heading happened to hold the word "required" (the Proposals page) before the
state tables, and the claims not at all. After the theme has written its index, the build
adds, under each page's own entry:

* a row of a state table, at its anchor: titled with the state's spellings in that version
  (`input-required (TASK_STATE_INPUT_REQUIRED)`) and described in one sentence, what the
  sources say its class is;
* a claim whose subject is a state, at its permanent anchor on the claims index: titled
  with the state and the claim's id, described by its statement, verdict and versions.

Every spelling of a state is the same words to the search (the separator in mkdocs.yml
splits underscores, hyphens and the `TASK_STATE_` prefix), so the title matches whichever
spelling is typed. How these rank against the pages is in `a2a_kb.site.ranking`.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import escape

from ..output import listed
from . import paths, ranking
from .data import SiteData
from .escape import prose
from .links import page_url
from .render.common import subject_spelling, subject_state

# A class as the sentence says it (the others read as they are: active, terminal …).
_CLASS_WORDS = {
    "not-interrupted-or-terminal": "neither interrupted nor terminal",
    "not-interrupted": "not interrupted",
    "not-terminal": "not terminal",
}


def entries(data: SiteData, use_directory_urls: bool = True) -> list[dict[str, Any]]:
    """Every entry this module adds, in the order the index should hold them."""
    return [*state_rows(data, use_directory_urls), *state_claims(data, use_directory_urls)]


def state_rows(data: SiteData, use_directory_urls: bool = True) -> list[dict[str, Any]]:
    """One entry per row of the latest release's table (the States page) and of each
    version's table. The newest table that has a state (the States page, else the newest
    release that has it, else the newest unreleased version) ranks first: see
    `a2a_kb.site.ranking.BOOSTS`."""
    newest_first = sorted(reversed(data.versions), key=lambda v: not v.released)  # stable
    latest = data.kb.latest
    pages = [(paths.STATES_INDEX, latest)] + [(paths.state_table(v.id), v) for v in newest_first]
    newest: dict[tuple[str, ...], str] = {}  # a state's words → the newest table that has them
    for src, version in pages:
        for row in data.tables[version.id]["states"]:
            for form in _forms(row):
                newest.setdefault(form, src)
    found = []
    for age, (src, version) in enumerate(pages):
        for row in data.tables[version.id]["states"]:
            first = any(newest[form] == src for form in _forms(row))
            kind = "state-row" if first else "state-row-elsewhere"
            found.append({
                "location": f"{page_url(src, use_directory_urls)}#{paths.state_anchor(row['name'])}",
                "title": str(escape(_row_title(row))),
                "text": f"<p>{escape(_row_sentence(data, version.title, row))}</p>",
                "boost": ranking.boost(kind, version) * ranking.recency(age),
            })
    return found


def _forms(row: dict[str, Any]) -> set[tuple[str, ...]]:
    """The words a search sees in each spelling of a row: `input-required` and
    `TASK_STATE_INPUT_REQUIRED` are both (input, required); `TASK_STATE_CANCELLED` is
    (cancelled), another word than canceled, whose newest table is v0.3.0's."""
    return {words(s) for s in (row["name"], *row.get("spellings", {}).values())}


def words(spelling: str) -> tuple[str, ...]:
    """A state's spelling as the search's separator splits it, lowercased."""
    plain = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", spelling).lower().removeprefix("task_state_")
    return tuple(w for w in re.split(r"[-_\s]+", plain) if w)


def _row_title(row: dict[str, Any]) -> str:
    others = [s for s in dict.fromkeys(row.get("spellings", {}).values()) if s != row["name"]]
    return f"{row['name']} ({', '.join(others)})" if others else row["name"]


def _row_sentence(data: SiteData, version: str, row: dict[str, Any]) -> str:
    by_class: dict[str, list[str]] = {}
    for sid, cls in row.get("class", {}).items():
        by_class.setdefault(cls, []).append(data.kb.sources[sid].title)
    name = row["name"]
    if not by_class:
        said = f"In {version}, {name} is a value no source gives a class."
    else:
        parts = [f"{_CLASS_WORDS.get(cls, cls)} according to {listed(titles)}"
                 for cls, titles in by_class.items()]
        said = f"In {version}, {name} is {'; '.join(parts)}."
    if row.get("number") is not None:
        said += f" Its number in the proto is {row['number']}."
    if row.get("disagreement"):
        said += " The sources disagree on its class."
    return said


def state_claims(data: SiteData, use_directory_urls: bool = True) -> list[dict[str, Any]]:
    """One entry per claim whose subject is a state, at its anchor on the claims index,
    verified and newest first. The title is the state (and the subject's own spelling of
    it, where that differs) and the claim's id; the statement is the text. A statement
    as the title would outrank the pages for any word it holds (a claim naming v0.3.0
    came before the v0.3.0 pages)."""
    index = page_url(paths.CLAIMS, use_directory_urls)
    order = {v.id: i for i, v in enumerate(reversed(data.versions))}

    def newest(versions: list[str]) -> int:
        return min((order[v] for v in versions if v in order), default=len(order))

    about = [(c, state) for c in data.kb.claims.values() if (state := subject_state(c)) is not None]
    about.sort(key=lambda pair: (data.verdict(pair[0].id) != "verified", newest(pair[0].versions)))
    found = []
    for claim, state in about:
        spelling = subject_spelling(claim)
        named = state if spelling in (None, "", state) else f"{state} ({spelling})"
        versions = ", ".join(data.kb.version(v).title for v in claim.versions if v in order)
        said = f"{prose(claim.statement)} Claim {escape(data.verdict(claim.id))}"
        said += f", about {escape(versions)}." if versions else "."
        found.append({
            "location": f"{index}#{paths.claim_anchor(claim.id)}",
            "title": f"{escape(named)} · <code>{escape(claim.id)}</code>",
            "text": f"<p>{said}</p>",
            "boost": ranking.boost("state-claim"),
        })
    return found


def placed(docs: list[dict[str, Any]], added: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """`docs` (the theme's index entries) with each of `added` right after the entry of
    its page (the theme groups a page's entries under the page's own, which must come
    first), and how many were put in. An entry whose page is not in the index is left out."""
    under: dict[str, list[dict[str, Any]]] = {}
    for entry in added:
        under.setdefault(entry["location"].split("#", 1)[0], []).append(entry)
    result: list[dict[str, Any]] = []
    put = 0
    for doc in docs:
        result.append(doc)
        if "#" not in doc["location"]:
            children = under.pop(doc["location"], [])
            result.extend(children)
            put += len(children)
    return result, put
