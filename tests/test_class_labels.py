"""What a state table shows about a class is derived from the source's own words and held
to them (issue 30, derived statements):

- each class a source gives a state is shown with that source's words for it, and the words
  stand in the lines the class was read from ("No (Pause)", not "interrupted", for the
  v0.2.x specification's table);
- a state whose classes cannot all hold, whether by two sources or by two passages of one
  source, is flagged and links the conflict about it (v0.2.4 and v0.2.5 ``unknown``: the
  table says terminal, the no-restart rule lists four terminal states without it);
- a source is never given a class, not even "unclassified", for a value its binding lacks
  (the gRPC proto has no ``unknown``; the v0.x specification has no zero value).
"""

from __future__ import annotations

import re
from html import unescape

from a2a_kb.extract.lifecycle import NOT_NAMED, classes_disagree
from a2a_kb.facts import Fact
from a2a_kb.knowledge.class_words import quoted_in
from a2a_kb.site.data import SiteData


def _rows(data: SiteData):  # type: ignore[no-untyped-def]
    for version, table in data.tables.items():
        for row in table["states"]:
            yield version, row


def test_every_class_shown_carries_the_sources_own_words_from_its_lines(real_data: SiteData) -> None:
    checked, unquoted = 0, []
    for version, row in _rows(real_data):
        for sid, readings in row.get("readings", {}).items():
            lines = real_data.book.text(real_data.kb.sources[sid]).splitlines()
            for r in readings:
                fact = Fact("state-class", row["name"], r["class"], line_start=r["lines"][0],
                            line_end=r["lines"][1])
                checked += 1
                if not quoted_in(r["words"], lines, fact):
                    unquoted.append(f"{version} {row['name']} {sid} lines {r['lines']}: {r['words']!r}")
        for sid, cls in row["stated"].items():
            if cls != "unclassified":
                assert row.get("readings", {}).get(sid), \
                    f"{version} {row['name']}: {sid} says {cls} with no words"
    assert checked > 300
    assert not unquoted, "words not found in their lines:\n" + "\n".join(unquoted[:20])


def test_the_v02x_table_says_no_pause_and_the_page_quotes_it(real_data: SiteData,
                                                              real_pages: dict[str, str]) -> None:
    row = next(r for r in real_data.tables["0.2.5"]["states"] if r["name"] == "auth-required")
    assert row["stated"]["spec@v0.2.5"] == "interrupted"
    assert row["readings"]["spec@v0.2.5"][0]["words"] == "No (Pause)"
    page = real_pages["states/0.2.5.md"]
    cell = re.search(r'<tr id="[^"]*" class="[^"]*" data-state="auth-required">.*?</tr>', page, re.S)
    assert cell is not None
    quoted = r'spec@v0\.2\.5</a>\s*<q class="kb-words"[^>]*>No \(Pause\)</q>'
    assert re.search(quoted, unescape(cell.group(0)))


def test_a_row_whose_classes_cannot_all_hold_is_flagged_and_links_its_conflict(
        real_data: SiteData, real_pages: dict[str, str]) -> None:
    flagged = set()
    for version, row in _rows(real_data):
        every = [r["class"] for found in row.get("readings", {}).values() for r in found]
        every += list(row["stated"].values())
        clash = any(classes_disagree(a, b) for a in every for b in every)
        assert row["disagreement"] == clash, \
            f"{version} {row['name']}: flag {row['disagreement']}, classes {every}"
        if clash:
            flagged.add((version, row["name"]))
            assert row["conflicts"], \
                f"{version} {row['name']}: the sources disagree and no conflict is linked"
    assert {("0.2.4", "unknown"), ("0.2.5", "unknown")} <= flagged
    for version in ("0.2.4", "0.2.5"):
        page = real_pages[f"states/{version}.md"]
        cell = re.search(r'<tr id="[^"]*" class="([^"]*)" data-state="unknown">(.*?)</tr>', page, re.S)
        assert cell is not None and "kb-state--disagreement" in cell.group(1)
        assert "sources disagree" in cell.group(2)
        assert re.search(r'<a href="[^"]*#d9"?[^>]*>D9</a>', cell.group(2))
        assert "not-terminal" in cell.group(2)


def test_no_source_is_classed_for_a_value_its_binding_lacks(real_data: SiteData) -> None:
    for version, row in _rows(real_data):
        for sid in row["stated"]:
            own = real_data.book.facts(real_data.kb.sources[sid]).get("states:TaskState")
            if own:
                assert row["name"] in own[0].value, f"{version}: {sid} has no {row['name']} and is classed"
            else:
                assert row["name"] not in NOT_NAMED, \
                    f"{version}: {sid} lists no values and is classed on {row['name']}"
    unknown = next(r for r in real_data.tables["0.2.5"]["states"] if r["name"] == "unknown")
    assert "grpc-proto@v0.2.5" not in unknown["stated"]
