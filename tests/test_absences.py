"""Absence claims over the inventories: verified on the pinned sources, and flipped the day
the thing they say is missing appears in the file (here, bytes written into a copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_kb.cache import Cache
from a2a_kb.knowledge.check import FactBook, evaluate
from a2a_kb.knowledge.flips import LiveBook
from a2a_kb.project import Project
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.validate import validate


@pytest.fixture
def kb(real_kb_env: Path) -> KnowledgeBase:
    return validate(Project.at(real_kb_env))


def _with_added(kb: KnowledgeBase, source_id: str, markdown: str) -> LiveBook:
    """A fact book in which ``source_id`` has ``markdown`` added at its end."""
    cache = Cache(kb.project.cache_dir)
    pinned = FactBook(kb, cache).text(kb.sources[source_id])
    return LiveBook(kb, cache, {source_id: (pinned + "\n" + markdown).encode()})


ABSENCES = ["no-transition-table", "spec-no-interrupted-timeout", "spec-no-cycle-detection"]


@pytest.mark.parametrize("claim_id", ABSENCES)
def test_absence_claims_hold_on_the_pinned_sources(kb: KnowledgeBase, claim_id: str) -> None:
    result = evaluate(kb.claims[claim_id], kb, FactBook(kb, Cache(kb.project.cache_dir)))
    assert (result.verdict, kb.claims[claim_id].verdict) == ("verified", "verified"), result.message


@pytest.mark.parametrize(("claim_id", "source_id", "added", "named"), [
    ("no-transition-table", "spec@v1.0.1",
     "## 12. Transitions\n\n| From state | To state |\n| --- | --- |\n| working | completed |\n",
     "From state | To state"),
    ("no-transition-table", "spec@v1.0.1",
     "## 12. Lifecycle\n\n```mermaid\nstateDiagram-v2\n  working --> completed\n```\n",
     "mermaid: stateDiagram-v2"),
    ("spec-no-interrupted-timeout", "spec@v1.0.1",
     "## 12. Idle tasks\n\nA task left in `input-required` for an hour MAY be canceled by the agent.\n",
     "for an hour"),
    ("spec-no-interrupted-timeout", "proto@v1.0.1",
     "// An AUTH_REQUIRED task expires after the deadline the agent sets.\nmessage Idle {}\n",
     "expires after the deadline"),
    ("spec-no-cycle-detection", "spec@v1.0.1",
     "## 12. Loops\n\nAgents SHOULD detect a task that cycles between working and input-required.\n",
     "cycles between working"),
])
def test_absence_claims_flip_when_the_thing_appears(kb: KnowledgeBase, claim_id: str, source_id: str,
                                                    added: str, named: str) -> None:
    result = evaluate(kb.claims[claim_id], kb, _with_added(kb, source_id, added))
    assert result.verdict == "contradicted"
    assert named in result.message and source_id in result.message
    assert "expected not-matches" in result.message


def test_a_section_without_a_keyword_has_no_normative_inventory(kb: KnowledgeBase) -> None:
    """`op: absent` on a section's inventory: v1.0.1's Cancel Task has no RFC 2119 keyword."""
    facts = FactBook(kb, Cache(kb.project.cache_dir)).facts(kb.sources["spec@v1.0.1"])
    assert "section:3.1.5" in facts and "normative:§3.1.5" not in facts
    assert facts["normative:document"][0].line_start == 1
