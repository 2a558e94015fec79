"""Remembered verdicts (a2a_kb.knowledge.verdicts): a check that reuses them gives, claim for
claim, the result of a fresh check, after any kind of edit; a claim is checked again only
when what its key covers changed; and the key covers everything a verdict reads."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from a2a_kb.cache import Cache
from a2a_kb.diagnostics import Mark
from a2a_kb.knowledge.check import CheckResult, FactBook, check, evaluate
from a2a_kb.knowledge.verdicts import Verdicts, _as_record
from a2a_kb.project import Project
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.model import Claim
from a2a_kb.records.validate import validate
from conftest import copy_records
from test_site_reuse import _edit_statement


@pytest.fixture
def private(real_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the records and of the fetched cache, both free to edit; returns the root."""
    cache = tmp_path / "cache"
    shutil.copytree(real_cache, cache)
    monkeypatch.setenv("A2A_KB_CACHE", str(cache))
    return copy_records(tmp_path / "kb")


def _shown(result: CheckResult) -> tuple[list[dict[str, Any]], list[str]]:
    return [r.as_json() for r in result.results], [p.format() for p in result.problems]


def _remembered(root: Path) -> tuple[CheckResult, Verdicts]:
    verdicts = Verdicts(root / ".cache" / "site-pages" / "verdicts")
    result = check(validate(Project.at(root)), evaluator=verdicts.evaluate)
    verdicts.commit()
    return result, verdicts


def _same_as_fresh(root: Path) -> Verdicts:
    remembered, verdicts = _remembered(root)
    assert _shown(remembered) == _shown(check(validate(Project.at(root)))), "a remembered verdict is wrong"
    return verdicts


@pytest.mark.slow
def test_remembered_verdicts_equal_a_fresh_check_after_each_kind_of_edit(private: Path) -> None:
    first = _same_as_fresh(private)
    total = first.checked
    assert total > 500 and first.reused == 0
    again = _same_as_fresh(private)
    assert (again.checked, again.reused) == (0, total)

    # One claim's statement: that claim only.
    path = private / "claims" / _edit_statement(private)
    edited = path.read_text("utf-8")
    assert _same_as_fresh(private).checked == 1

    # Lines inserted above every claim of a file move them all, and change no verdict.
    path.write_text("# a comment that moves every claim below it\n" * 3 + edited, "utf-8")
    assert _same_as_fresh(private).checked == 0

    # A capture transcript (a local source): the claims whose checks read it.
    transcript = private / "captures" / "a2a-sdk-1.3.0" / "04-input-required.http"
    text = transcript.read_text("utf-8")
    assert "input-required" in text
    transcript.write_text(text.replace("input-required", "input-requested"), "utf-8")
    after = _same_as_fresh(private)
    assert 0 < after.checked < total

    # A source record: every claim (the plan of any claim may pick any source).
    sources = private / "sources" / "secondary.yaml"
    text = sources.read_text("utf-8")
    retitled = text.replace("7-State Task Lifecycle", "Seven-State Task Lifecycle", 1)
    assert retitled != text
    sources.write_text(retitled, "utf-8")
    assert not [p for p in validate(Project.at(private)).problems if p.severity == "error"]
    assert _same_as_fresh(private).checked == total


@pytest.mark.slow
def test_a_damaged_copy_or_record_is_never_believed(private: Path) -> None:
    _same_as_fresh(private)
    # A pinned copy whose bytes no longer match: the claims reading it say so, as a fresh check does.
    kb = validate(Project.at(private))
    cache = Cache(kb.project.cache_dir)
    cited = {c.source for c in kb.claims.values()}  # a copy some claim reads
    used = sorted({s.sha256 for s in kb.sources.values()
                   if s.pinned and s.id in cited and cache.has_blob(s.sha256)})
    blob = cache.blob_path(used[len(used) // 2])
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0x01
    blob.write_bytes(bytes(data))
    damaged = _same_as_fresh(private)
    assert damaged.checked > 0

    # A flipped byte in the remembered verdicts: the file is ignored, every claim checked.
    store = private / ".cache" / "site-pages" / "verdicts" / "verdicts.json"
    raw = store.read_bytes()
    assert b'"verified"' in raw
    store.write_bytes(raw.replace(b'"verified"', b'"verifiex"', 1))
    assert _same_as_fresh(private).reused == 0


def _placeless(claim: Claim) -> Claim:
    """The claim with every mark moved elsewhere: a verdict must not depend on places."""
    nowhere = Mark("elsewhere.yaml", 999, 9)
    return dataclasses.replace(claim, mark=nowhere,
                               expect=[dataclasses.replace(e, mark=nowhere) for e in claim.expect])


def test_a_verdict_reads_only_what_its_key_covers(real_kb_env: Path) -> None:
    """The key holds the claim (places aside), the source and version records, and the
    copies the fact book was asked about. Evaluated against a knowledge base that holds
    nothing else — no other claim, no conflict, no upstream or sweep record — with the
    claim's marks moved, every claim gets the verdict it gets in the whole knowledge base;
    and the fact book is asked about some source for every claim that reads one."""
    kb = validate(Project.at(real_kb_env))
    bare = KnowledgeBase(kb.project, versions=kb.versions, sources=kb.sources)
    book = FactBook(kb, Cache(kb.project.cache_dir))
    for claim in kb.claims.values():
        book.read = set()
        whole = evaluate(claim, kb, book)
        read = book.read
        alone = evaluate(_placeless(claim), bare, FactBook(bare, Cache(kb.project.cache_dir)))
        assert _as_record(alone) == _as_record(whole), claim.id
        if whole.evidence or whole.verdict in ("verified", "contradicted", "stale", "quote-missing"):
            assert read, f"{claim.id}: checked against sources the fact book was not asked about"
            assert {f.source for f in whole.evidence} <= read, claim.id
