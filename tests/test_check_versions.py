"""A claim is checked at every version it names, and check says at which ones it fails."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.cache import Cache
from a2a_kb.knowledge.check import FactBook, evaluate
from a2a_kb.knowledge.flips import LiveBook
from a2a_kb.knowledge.plan import counterpart, plan
from a2a_kb.project import Project
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.validate import validate


@pytest.fixture
def kb(real_kb_env: Path) -> KnowledgeBase:
    return validate(Project.at(real_kb_env))


def _book(kb: KnowledgeBase) -> FactBook:
    return FactBook(kb, Cache(kb.project.cache_dir))


def _edited(kb: KnowledgeBase, source_id: str, old: str, new: str) -> LiveBook:
    text = _book(kb).text(kb.sources[source_id])
    assert old in text
    return LiveBook(kb, Cache(kb.project.cache_dir), {source_id: text.replace(old, new).encode()})


RESUME = "resume-interrupted-same-task-and-context"  # spec@main; 1.0.1 named in an expect
SENTENCE = "The client continues the interaction by sending a new message with the same"


def test_the_claims_own_checks_run_on_the_counterpart_of_each_version(kb: KnowledgeBase) -> None:
    steps = plan(kb.claims[RESUME], kb)
    runs = {run.source.id: run.versions for run in steps.runs}
    # its own source stands for main, the copy of v1.0.0 for 1.0.0, and the expect that
    # names spec@v1.0.1 for 1.0.1 (so the claim's own checks are not carried there)
    assert runs == {"spec@main": ["main"], "spec@v1.0.0": ["1.0.0"], "spec@v1.0.1": ["1.0.1"]}
    result = evaluate(kb.claims[RESUME], kb, _book(kb))
    assert result.verdict == "verified"
    assert [(v.version, v.status, v.sources) for v in result.by_version] == [
        ("1.0.0", "holds", ["spec@v1.0.0"]),
        ("1.0.1", "holds", ["spec@v1.0.1"]),
        ("main", "holds", ["spec@main"]),
    ]


def test_a_version_whose_copy_says_otherwise_fails_and_is_named(kb: KnowledgeBase) -> None:
    book = _edited(kb, "spec@v1.0.0", SENTENCE, "The client gives up and opens another task with")
    result = evaluate(kb.claims[RESUME], kb, book)
    assert result.verdict == "contradicted"
    assert result.message.startswith("fails at 1.0.0: section:3.4.3 in spec@v1.0.0")
    assert result.failing_versions == ["1.0.0"]
    assert {v.version: v.status for v in result.by_version} == {
        "1.0.0": "fails", "1.0.1": "holds", "main": "holds"}


def test_counterparts_keep_the_file_and_prefer_the_versions_commit(kb: KnowledgeBase) -> None:
    spec = kb.sources["spec@v1.0.1"]
    assert counterpart(kb, spec, "0.2.0") is kb.sources["spec@v0.2.0"]
    assert counterpart(kb, kb.sources["life-of-a-task@v1.0.1"], "0.2.0") is None  # not yet written
    schema = kb.sources["json-schema@v0.3.0"]
    assert counterpart(kb, schema, "draft") is kb.sources["json-schema@47b436f"]  # the draft's commit


def test_explicit_sources_cover_their_versions(kb: KnowledgeBase) -> None:
    """v0x-unknown-set-by names a copy for each of draft … 0.2.4: nothing is carried."""
    steps = plan(kb.claims["v0x-unknown-set-by"], kb)
    assert all(not run.own or run.source.id == "spec@v0.2.5" for run in steps.runs)
    assert not steps.no_counterpart and not steps.unchecked


def test_a_version_without_a_counterpart_is_reported(kb: KnowledgeBase) -> None:
    result = evaluate(kb.claims["whats-new-lists-eight-v030-values"], kb, _book(kb))
    assert result.verdict == "verified"
    assert "not checked at 0.3.0: no copy of docs/whats-new-v1.md (docs) belongs to 0.3.0" in result.message
    assert {v.version: v.status for v in result.by_version}["0.3.0"] == "no-counterpart"


def test_a_document_about_other_versions_is_read_once(kb: KnowledgeBase) -> None:
    """The v1.0.1 CHANGELOG speaks about 0.1.0 and 0.2.0: it stands for both."""
    steps = plan(kb.claims["changelog-has-no-0-1-0-or-0-2-0"], kb)
    assert [(r.source.id, r.versions) for r in steps.runs] == [("changelog@v1.0.1", [])]
    assert not steps.no_counterpart and not steps.unchecked


def test_what_a_page_says_is_not_verified_against_the_proto(kb: KnowledgeBase) -> None:
    """A claim of what DeepWiki lists, checked on the proto's count: the check confirms the
    spec, not the page. (The real claims keep the two apart: the page's words are
    unverifiable, and deepwiki-eight-fits-latest holds the count to the latest proto.)"""
    on_the_page = dataclasses.replace(kb.claims["deepwiki-says-eight-states"],
                                      expect=kb.claims["deepwiki-eight-fits-latest"].expect)
    kb.claims[on_the_page.id] = on_the_page
    result = evaluate(on_the_page, kb, _book(kb))
    assert result.verdict == "unverifiable"
    assert "not one reads deepwiki-task-lifecycle" in result.message
    # the same checks still find such a statement out of date
    outdated = dataclasses.replace(on_the_page, tracks="latest", expect=[
        dataclasses.replace(e, value=7) for e in on_the_page.expect])
    assert evaluate(outdated, kb, _book(kb)).verdict == "stale"


def test_json_gives_a_breakdown_per_version(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "check", "--format", "json"]) == 0
    claims = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    for claim in claims.values():
        assert [v["version"] for v in claim["by_version"]] == claim["versions"]
        assert all(set(v) == {"version", "status", "sources", "message"} for v in claim["by_version"])
    breakdown = claims["grpc-v02x-auth-required-neither"]["by_version"]
    assert [v["sources"] for v in breakdown] == [[f"grpc-proto@v{v}"] for v in
                                                 ("0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.3.0")]
