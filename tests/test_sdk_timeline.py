"""The SDKs read from source, as the site shows them: a page per SDK with its timeline, the
"since" ranges in the SDK matrix, the ``sdks`` API document, and the comparison of a
release read with the same release run."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from a2a_kb.site import paths
from a2a_kb.site.data import SiteData
from a2a_kb.site.links import Linker
from a2a_kb.site.render import api, sdk_matrix, sdk_timeline

SDKS = {"a2a-python", "a2a-js", "a2a-java", "a2a-go", "a2a-dotnet", "a2a-rs"}


def test_release_order_puts_pre_releases_before_their_release() -> None:
    tags = ["v2.3.1", "v1.0.0.Final", "1.0.0.Beta1", "v0.3.15", "0.2.5", "v0.3.3.Final",
            "v1.0.0-alpha", "v1.0.0-preview2", "v1.0.0-preview1", "v0.3.3", "agntcy-a2a-v0.2.0"]
    assert sorted(tags, key=sdk_timeline.release_key) == [
        "agntcy-a2a-v0.2.0", "0.2.5", "v0.3.3", "v0.3.3.Final", "v0.3.15", "v1.0.0-alpha",
        "1.0.0.Beta1", "v1.0.0-preview1", "v1.0.0-preview2", "v1.0.0.Final", "v2.3.1"]


def test_every_sdk_has_its_page_and_its_document(real_data: SiteData,
                                                  real_pages: dict[str, str]) -> None:
    document = json.loads(real_pages[paths.api_file("sdks")])
    jsonschema.validate(document, api.api_schema("sdks"))
    assert {s["sdk"] for s in document["sdks"]} == SDKS
    for entry in document["sdks"]:
        page = real_pages[paths.sdk_page(entry["sdk"])]
        assert f"# {entry['sdk']}, release by release" in page
        for behaviour in entry["behaviours"]:
            for step in behaviour["releases"]:
                assert step["verdict"] == "verified", step
                claim = real_data.kb.claims[step["claim"]]
                source = real_data.kb.sources[claim.source]
                assert source.kind == "sdk-code" and source.ref == step["release"]
                assert step["code"].startswith(f"https://github.com/{source.repository}/blob/{source.commit}/")
                assert "#L" in step["code"], "the link names the lines the check read"


def test_a_range_changes_where_the_code_changed(real_data: SiteData) -> None:
    """a2a-go's cancel check spares CANCELED from v0.3.15 on; the ranges say so, and the guard
    facts the claims rest on agree release by release."""
    rows = {r.key: r for r in sdk_timeline.timelines(real_data, Linker(paths.sdk_page("a2a-go")))["a2a-go"]}
    cancel = rows["cancel-of-terminal"]
    assert [(r.label, r.answer) for r in cancel.ranges] == [
        ("v0.3.0", "refused for every terminal state, CANCELED included"),
        ("since v0.3.15", "refused for a terminal state other than CANCELED")]
    for step in cancel.steps:
        claim = real_data.kb.claims[step.cite.id]
        (fact,) = real_data.facts(real_data.kb.sources[claim.source])[claim.expect[0].fact]
        assert ("canceled" in fact.value["unless"]) == ("other than CANCELED" in step.answer)


def test_the_matrix_column_names_its_releases_and_its_ranges(real_data: SiteData) -> None:
    found = sdk_matrix.matrix(real_data, Linker(paths.SDK_MATRIX))
    columns = {c.key: c for c in found.columns}
    assert set(columns) >= SDKS
    assert "read from source: 5 releases" in columns["a2a-go"].note
    assert columns["a2a-go"].href.endswith("a2a-go/")
    row = next(r for r in found.rows if r.behaviour == "cancel-of-terminal")
    cell = row.cells[[c.key for c in found.columns].index("a2a-go")]
    assert [r.label for r in cell.ranges] == ["v0.3.0", "since v0.3.15"]
    assert {e.since for e in cell.entries} == {"v0.3.0", "v0.3.15", "v2.3.1"}


def test_a_release_read_and_run_is_compared(real_data: SiteData,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """a2a-sdk 0.3.26 is both read (tag v0.3.26) and run (captures/a2a-sdk-0.3): the code's
    refusal of a second cancel and the captured refusal stand on one side of D16. Moved to
    the other side, the read claim differs from the run, and that is reported."""
    link = Linker(paths.sdk_page("a2a-python"))
    pairs = {(c.read.id, c.observed.id): c for c in sdk_timeline.comparisons(real_data, link)}
    pair = pairs[("a2a-python-v0326-cancel-of-terminal", "a2a-sdk-0326-cancel-twice-not-cancelable")]
    assert (pair.release, pair.conflict, pair.outcome) == ("v0.3.26", "D16", "agree")
    assert not [c for c in pairs.values() if c.agree is False], "read and run differ: record why"

    moved = copy.deepcopy(real_data.kb.conflicts["D16"])
    for side in moved.sides:
        side.claims = [c for c in side.claims if c != "a2a-python-v0326-cancel-of-terminal"]
    moved.sides[0].claims.append("a2a-python-v0326-cancel-of-terminal")
    monkeypatch.setitem(real_data.kb.conflicts, "D16", moved)
    pairs = {(c.read.id, c.observed.id): c for c in sdk_timeline.comparisons(real_data, link)}
    assert pairs[("a2a-python-v0326-cancel-of-terminal",
                  "a2a-sdk-0326-cancel-twice-not-cancelable")].outcome == "differ"
