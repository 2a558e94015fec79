"""Page reuse between builds (a2a_kb.site.reuse): a rebuild after an edit must give, file
for file, the site a cold build of the edited project gives; any change to what every page
shows (the nav) must render every page again."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

from a2a_kb.project import Project
from a2a_kb.site.build import build
from test_site import VENDOR, copy_project

# The sitemap carries build dates; SOURCE_DATE_EPOCH pins them, and they are left out anyway.
_DATED = {"sitemap.xml", "sitemap.xml.gz"}
_SUMMARY = re.compile(r"(\d+) pages converted from Markdown, (\d+) replayed; (\d+) of (\d+) taken")


@pytest.fixture
def site_env(real_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fetched cache, the vendored Mermaid and pinned build dates."""
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))
    monkeypatch.setenv("A2A_KB_VENDOR", str(VENDOR))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file() and p.name not in _DATED}


def _build(root: Path, caplog: pytest.LogCaptureFixture) -> tuple[dict[str, bytes], tuple[int, ...]]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        site = build(Project.at(root), strict=True, quiet=True)
    found = [m for r in caplog.records if (m := _SUMMARY.search(r.getMessage()))]
    assert len(found) == 1, "the build did not report what it reused"
    return _files(site), tuple(int(n) for n in found[0].groups())


def _edit_statement(root: Path) -> str:
    path = sorted((root / "claims").glob("*.yaml"))[0]
    text = path.read_text("utf-8")
    edited, n = re.subn(r"^(\s*statement:[ \t]*)(?![>|])(\S.*)$", r"\1\2 (edited)", text, count=1, flags=re.M)
    if n == 0:  # a folded or literal block: extend its first line
        edited, n = re.subn(r"^(\s*statement:[ \t]*[>|]-?\n.*\S)$", r"\1 (edited)", text, count=1, flags=re.M)
    assert n == 1, f"no statement to edit in {path.name}"
    path.write_text(edited, "utf-8")
    return path.name


def _cold_copy(root: Path, dest: Path) -> Path:
    """``root`` without its published site and without anything kept for reuse."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("site", ".site-*"))
    shutil.rmtree(dest / ".cache" / "site-pages", ignore_errors=True)
    return dest


@pytest.mark.slow
def test_a_rebuild_after_an_edit_equals_a_cold_build(
    tmp_path: Path, site_env: None, caplog: pytest.LogCaptureFixture
) -> None:
    root = copy_project(tmp_path / "kb")
    first, (_, replayed, taken, pages) = _build(root, caplog)
    assert replayed == 0 and taken == 0 and pages > 50

    edited = _edit_statement(root)
    rebuilt, (converted, replayed, taken, pages) = _build(root, caplog)
    assert rebuilt != first, f"editing {edited} changed nothing in the site"
    assert replayed > pages // 2 and taken > pages // 2, "the rebuild reused almost nothing"
    assert converted < pages // 4

    cold, (_, replayed, taken, _) = _build(_cold_copy(root, tmp_path / "cold"), caplog)
    assert replayed == 0 and taken == 0
    assert sorted(rebuilt) == sorted(cold), "the rebuild and the cold build hold different files"
    differing = [name for name in cold if rebuilt[name] != cold[name]]
    assert differing == [], f"the rebuild differs from a cold build in {differing[:10]}"


@pytest.mark.slow
def test_a_nav_title_change_renders_every_page(
    tmp_path: Path, site_env: None, caplog: pytest.LogCaptureFixture
) -> None:
    root = copy_project(tmp_path / "kb")
    _build(root, caplog)
    config = root / "mkdocs.yml"
    text = config.read_text("utf-8")
    assert "  - Transitions: transitions.md" in text
    renamed = text.replace("  - Transitions: transitions.md", "  - Moves between states: transitions.md")
    config.write_text(renamed, "utf-8")
    rebuilt, (converted, replayed, taken, pages) = _build(root, caplog)
    assert (converted, replayed, taken) == (pages, 0, 0)
    assert b"Moves between states" in rebuilt["index.html"]
    cold, _ = _build(_cold_copy(root, tmp_path / "cold"), caplog)
    assert rebuilt == cold
