"""Every item of the research dossier has a claim whose `origin` names it.

Coverage is computed from the fetched dossier, never from a list kept here: every block
(each "— source:" trailer closes one) times every item it has, counted as
:mod:`a2a_kb.records.dossier` says — numbered items by number, table rows by position under
the header, otherwise bullets by position (a paragraph is item 1), a recurring section's
bullets carrying on across its blocks. The validator accepts an origin exactly when
``Block.has_item`` does, so an item counted here is one an origin can name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_kb.cache import Cache
from a2a_kb.project import Project
from a2a_kb.records import dossier
from a2a_kb.records.validate import validate


def _fetched_dossier(root: Path) -> tuple[str, list[str]]:
    project = Project.at(root)
    kb = validate(project)
    source = next(s for s in kb.sources.values() if s.kind == "dossier")
    data = Cache(project.cache_dir).content(source.id, source.sha256)
    assert data is not None, "the dossier is not in the cache (run `a2a-kb fetch`)"
    return data.decode("utf-8"), [c.origin for c in kb.claims.values() if c.origin]


def test_every_dossier_item_has_a_claim(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, origins = _fetched_dossier(real_kb_env)
    index = dossier.blocks(text)
    cov = dossier.coverage(index, origins)
    with capsys.disabled():
        print(f"\ndossier coverage: {cov.covered} of {cov.items} items "
              f"in {sum(map(len, index.values()))} blocks ({cov.percent:.1f}%)")
    # The dossier of 2026-11-29 has 53 blocks and 160 items; far fewer means the parse broke.
    assert sum(map(len, index.values())) >= 45 and cov.items >= 150
    missing = "\n".join(f"  {key}:{n}  {words[:100]}" for key, n, words in cov.missing)
    assert not cov.missing, (f"{cov.items - cov.covered} of {cov.items} dossier items have no "
                             f"claim whose origin names them:\n{missing}")


def test_every_origin_names_an_item_coverage_counts(real_kb_env: Path) -> None:
    """What the validator accepts and what coverage counts are the same set of items."""
    text, origins = _fetched_dossier(real_kb_env)
    index = dossier.blocks(text)
    counted = {(key, n) for key, found in dossier.items(index).items() for n in found}
    for origin in origins:
        assert dossier.check_origin(origin, index) is None, origin
        assert dossier.origin_key(origin) in counted, origin


# --- how items are counted, on a dossier written for the purpose ----------------------

TRAILER = "— source: `~/runs/x/7-state-task-lifecycle/{}`"
PACK = " ".join([
    "# Pack > header 53 facts ## Groups - 7. One state. 8. Two states. 9. Cut off at",
    TRAILER.format("synthesis.md#groups"),
    "- | # | Question | Side A | |---|---|---| | D1 | How many? | DEV says 6. | | D1a | Seven? | "
    "yes 7. | | D2 | Unknown? | cut",
    TRAILER.format("synthesis.md#table"),
    "- - **Count.** - v0.1.0 has seven. - v1.0 has nine. - **Which error",
    TRAILER.format("reports/m.md#open"),
    "## Facts - **Headline:** one paragraph, no list.",
    TRAILER.format("reports/m.md#scope"),
    "- - **In scope:** the states. - **Out of scope:** the rest.",
    TRAILER.format("reports/m.md#scope"),
    "- - Run: r1 - Written: today",
    TRAILER.format("reports/m.md"),
])


def test_items_are_counted_by_number_row_or_bullet() -> None:
    found = dossier.items(dossier.blocks(PACK))
    # Numbered: by number; the block's own "- " is no item 1.
    assert found["synthesis.md#groups"] == {7: "One state.", 8: "Two states.", 9: "Cut off at"}
    # A table: data rows by position, the header and rule left out, numbers in cells ignored.
    assert list(found["synthesis.md#table"]) == [1, 2, 3]
    assert found["synthesis.md#table"][3].startswith("D2 | Unknown?")
    # Bullets by position, nested ones included.
    assert found["reports/m.md#open"] == {1: "**Count.**", 2: "v0.1.0 has seven.",
                                          3: "v1.0 has nine.", 4: "**Which error"}
    # A recurring section is one list: a paragraph is item 1, the next block goes on at 2.
    assert found["reports/m.md#scope"] == {1: "**Headline:** one paragraph, no list.",
                                           2: "**In scope:** the states.",
                                           3: "**Out of scope:** the rest."}
    # A preamble's trailer has no anchor: its items are named by the report alone.
    assert found["reports/m.md"] == {1: "Run: r1", 2: "Written: today"}


@pytest.mark.parametrize(("origin", "problem"), [
    ("synthesis.md#groups:8", None),
    ("synthesis.md#groups:1", "has items 7–9"),
    ("synthesis.md#table:3", None),
    ("synthesis.md#table:4", "has items 1–3"),
    ("reports/m.md#scope:3", None),
    ("reports/m.md:2", None),
    ("reports/m.md:3", "has items 1–2"),
    ("reports/m.md#nowhere:1", "not a section"),
    ("groups:1", "not of the form"),
])
def test_an_origin_is_accepted_exactly_when_it_names_a_counted_item(origin: str,
                                                                     problem: str | None) -> None:
    got = dossier.check_origin(origin, dossier.blocks(PACK))
    assert (got is None) if problem is None else (got is not None and problem in got)


def test_coverage_names_the_items_no_origin_covers() -> None:
    cov = dossier.coverage(dossier.blocks(PACK), ["synthesis.md#groups:7", "reports/m.md:1",
                                                  "reports/m.md:1", "not an origin"])
    assert (cov.items, cov.covered) == (15, 2)
    assert ("synthesis.md#groups", 8, "Two states.") in cov.missing
    assert f"{cov.percent:.1f}" == "13.3"
