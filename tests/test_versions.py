"""Version names: a prerelease such as 1.0.0-rc is written with or without its v, sorts
between the release before it and its own release, and never becomes `latest`."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_kb.project import Project
from a2a_kb.records.kb import is_prerelease, normalize_version, version_key
from a2a_kb.records.validate import validate


@pytest.mark.parametrize(("name", "expected"), [
    ("v1.0.0-rc", "1.0.0-rc"), ("1.0.0-rc", "1.0.0-rc"), (" v0.3.0 ", "0.3.0"),
    ("v1.0.0-rc.2", "1.0.0-rc.2"), ("latest", "latest"), ("main", "main"), ("v1.0", "v1.0"),
])
def test_normalize_version(name: str, expected: str) -> None:
    assert normalize_version(name) == expected


def test_versions_sort_draft_first_prerelease_before_release_main_last() -> None:
    names = ["main", "1.0.1", "1.0.0", "1.0.0-rc.10", "1.0.0-rc.2", "1.0.0-rc", "0.10.0",
             "0.3.0", "0.2.6", "draft", "v1.0.0-beta"]
    assert sorted(names, key=version_key) == [
        "draft", "0.2.6", "0.3.0", "0.10.0", "v1.0.0-beta", "1.0.0-rc", "1.0.0-rc.2",
        "1.0.0-rc.10", "1.0.0", "1.0.1", "main"]


def test_prereleases_are_told_apart() -> None:
    assert is_prerelease("v1.0.0-rc") and is_prerelease("1.0.0-rc.1")
    assert not any(is_prerelease(v) for v in ("1.0.0", "main", "draft", "latest"))


def _insert_version(root: Path, block: str, after: str) -> None:
    path = root / "sources" / "versions.yaml"
    text = path.read_text("utf-8")
    anchor = f"  - id: {after}\n"
    start = text.index(anchor)
    end = text.find("\n  - id:", start + 1)
    end = len(text) if end < 0 else end + 1
    path.write_text(text[:end] + block + text[end:], "utf-8")


RC = """  - id: 1.0.0-rc
    title: v1.0.0-rc
    ref: v1.0.0-rc
    commit: 6292104e359efca05bd8703174517b6f961ae4e1
    released: false
"""


def test_a_prerelease_in_place_is_valid_and_latest_stays_the_release(fixture_kb: Path) -> None:
    _insert_version(fixture_kb, RC, "0.3.0")
    kb = validate(Project.at(fixture_kb))
    assert not [d for d in kb.problems if d.rule == "version-order"]
    assert [v.id for v in kb.ordered_versions] == ["draft", "0.3.0", "1.0.0-rc", "1.0.0"]
    assert kb.version("v1.0.0-rc").id == kb.version("1.0.0-rc").id == "1.0.0-rc"
    assert kb.version("1.0.0-rc").prerelease and not kb.version("1.0.0").prerelease
    assert kb.latest.id == "1.0.0"


def test_a_version_out_of_order_is_an_error_that_says_where_it_goes(fixture_kb: Path) -> None:
    _insert_version(fixture_kb, RC, "1.0.0")
    kb = validate(Project.at(fixture_kb))
    found = [d for d in kb.problems if d.rule == "version-order"]
    assert len(found) == 1
    line = found[0].format()
    assert line.startswith("sources/versions.yaml:")
    assert "version '1.0.0-rc' comes after '1.0.0'" in line
    assert "a prerelease before its release" in line
