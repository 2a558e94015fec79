"""The CHANGELOG extractor: release → date, at the line of the release heading."""

from __future__ import annotations

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from extract_mirror import at


def test_release_dates_of_v1_0_1_changelog() -> None:
    source, data = at("v1.0.1", "CHANGELOG.md")
    lines = data.decode().splitlines()
    facts = {f.subject: f for f in extract(source, data)}
    assert facts["1.0.0"].value == "2026-03-12"
    assert lines[facts["1.0.0"].line_start - 1].startswith("## [1.0.0](")
    assert facts["0.3.0"].value == "2025-07-30"
    assert facts["0.2.1"].value == "2025-05-27"
    assert list(facts)[:3] == ["1.0.1", "1.0.0", "0.3.0"]  # newest first, as written


def test_the_first_changelog_has_one_release() -> None:
    source, data = at("v0.2.1", "CHANGELOG.md")
    facts = extract(source, data)
    assert [(f.kind, f.subject, f.value) for f in facts] == [
        ("release-date", "0.2.1", "2025-05-27")]


def test_a_release_heading_inside_a_code_block_is_not_a_release() -> None:
    source, _ = at("v1.0.1", "CHANGELOG.md")
    text = "# Changelog\n\n```\n## [9.9.9](x) (2030-01-01)\n```\n\n## 1.2.3 (2026-01-02)\n"
    facts = extract(source, text.encode())
    assert [(f.subject, f.value, f.line_start) for f in facts] == [("1.2.3", "2026-01-02", 7)]


@pytest.mark.parametrize("text", ["", "# Changelog\n\nNothing released yet.\n"])
def test_a_changelog_without_releases_is_an_error(text: str) -> None:
    source, _ = at("v1.0.1", "CHANGELOG.md")
    with pytest.raises(ExtractError, match="no release headings"):
        extract(source, text.encode())
