"""The search entries the build adds for state rows and claims about states
(a2a_kb.site.search_entries), read from the built site: each lands on an element that is
there, says what the page says, and is found by every spelling of its state. Which results
come first is a browser test (test_browser_site.py), asked of the theme's own search."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from a2a_kb.facts import canonical_state
from a2a_kb.site import paths
from a2a_kb.site.data import SiteData
from a2a_kb.site.search_entries import words


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "id" and v)


def _ids(site: Path, location: str) -> set[str]:
    parser = _Ids()
    parser.feed((site / location / "index.html").read_text("utf-8"))
    return parser.ids


def _added(site: Path) -> list[dict[str, str]]:
    docs = json.loads((site / paths.SEARCH_DOCUMENTS).read_text("utf-8"))["docs"]
    return [d for d in docs if re.match(r"states/([^/#]+/)?#state-", d["location"])
            or d["location"].startswith("claims/#")]


def test_each_added_entry_lands_on_an_element_of_its_page(built_site: Path) -> None:
    added = _added(built_site)
    pages: dict[str, set[str]] = {}
    for entry in added:
        page, anchor = entry["location"].split("#", 1)
        ids = pages.setdefault(page, _ids(built_site, page))
        assert anchor in ids, f"{entry['location']}: no element with that id on the page"


def test_a_row_for_each_state_of_each_table_and_a_claim_for_each_about_a_state(
        built_site: Path, real_data: SiteData) -> None:
    added = _added(built_site)
    rows = [e for e in added if e["location"].startswith("states/")]
    expected = len(real_data.tables[real_data.kb.latest.id]["states"]) + sum(
        len(t["states"]) for t in real_data.tables.values())
    assert len(rows) == expected
    claims = {e["location"].removeprefix("claims/#") for e in added if e["location"].startswith("claims/#")}
    about = {c.id for c in real_data.kb.claims.values()
             if c.subject.startswith("TaskState.")
             and canonical_state(c.subject.removeprefix("TaskState.").split("/", 1)[0].split("#", 1)[0])}
    assert claims == about and len(claims) > 100


def test_a_row_is_titled_with_every_spelling_its_table_shows(built_site: Path, real_data: SiteData) -> None:
    docs = {d["location"]: d for d in _added(built_site)}
    for version, table in real_data.tables.items():
        for row in table["states"]:
            entry = docs[f"states/{version}/#state-{row['name']}"]
            for spelling in {row["name"], *row["spellings"].values()}:
                assert spelling in entry["title"], (version, spelling, entry["title"])
            said = f"In {real_data.kb.version(version).title}, {row['name']} is"
            assert said in html.unescape(entry["text"]), (said, entry["text"])


def test_every_spelling_of_a_state_is_the_same_words() -> None:
    assert words("input-required") == words("INPUT_REQUIRED") == words("TASK_STATE_INPUT_REQUIRED") \
        == words("InputRequired") == words("input required") == ("input", "required")
    assert words("TASK_STATE_CANCELLED") == ("cancelled",) != words("canceled")


def test_the_search_separator_splits_spellings_as_the_entries_assume() -> None:
    """The separator in mkdocs.yml, run as the theme runs it (a JavaScript split, here the
    same pattern in Python's re, which reads it alike), makes of each spelling the words
    :func:`words` gives."""
    config = (Path(__file__).resolve().parent.parent / "mkdocs.yml").read_text("utf-8")
    separator = re.search(r"^\s*separator: '(.*)'$", config, re.M)
    assert separator
    split = re.compile(separator.group(1))
    for spelling in ("input-required", "INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED", "input required",
                     "TASK_STATE_CANCELLED", "auth-required", "TASK_STATE_UNSPECIFIED"):
        found = tuple(w.lower() for w in split.split(spelling) if w)
        assert found == words(spelling), (spelling, found)
