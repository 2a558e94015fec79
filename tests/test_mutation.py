"""Claim mutation testing: the weak checks are found, and the allow-list cannot go stale."""

from __future__ import annotations

import dataclasses
import doctest
import json
import re
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.cache import Cache
from a2a_kb.knowledge import mutation
from a2a_kb.knowledge.check import FactBook, evaluate
from a2a_kb.project import Project
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.validate import validate
from conftest import copy_records


@pytest.fixture
def kb(real_kb_env: Path) -> KnowledgeBase:
    return validate(Project.at(real_kb_env))


def _survivors(kb: KnowledgeBase, claim_id: str) -> list[str]:
    book = FactBook(kb, Cache(kb.project.cache_dir))
    claim = kb.claims[claim_id]
    assert evaluate(claim, kb, book).verdict == "verified"
    survived = []
    for m in mutation.mutations(claim, kb, book):
        if evaluate(claim, kb, mutation._MutatedBook(book, m.edits)).verdict == "verified":
            survived.append(m.description)
    return survived


def test_the_examples_in_the_docstring_hold() -> None:
    assert doctest.testmod(mutation).failed == 0


def test_a_quote_that_names_the_states_kills_every_mutation(kb: KnowledgeBase) -> None:
    assert _survivors(kb, "terminal-task-cannot-restart") == []


def test_the_fragment_alone_is_weak(kb: KnowledgeBase) -> None:
    """The issue's example: "cannot restart" alone would pass if failed left the list. The
    real claim is checked on the states too; here it rests on the fragment only."""
    claim = kb.claims["terminal-task-cannot-restart"]
    kb.claims[claim.id] = dataclasses.replace(claim, quote="it cannot restart.", expect=[])
    survived = _survivors(kb, claim.id)
    for state in ("completed", "canceled", "rejected", "failed"):
        assert f"take {state} out of the sources the checks read at 1.0.1" in survived


def test_a_list_check_that_names_fewer_states_than_the_statement_is_weak(kb: KnowledgeBase) -> None:
    claim = kb.claims["v1-four-terminal-states"]
    weak = [dataclasses.replace(e, op="contains", value=["completed"])
            if e.fact.startswith("terminal-states:") else e for e in claim.expect]
    kb.claims[claim.id] = dataclasses.replace(claim, expect=weak, quote="")
    assert any(s.startswith("take failed out") for s in _survivors(kb, claim.id))


def test_an_absence_is_mutated_by_adding_what_its_pattern_finds(kb: KnowledgeBase) -> None:
    book = FactBook(kb, Cache(kb.project.cache_dir))
    described = [m.description for m in mutation.mutations(kb.claims["no-transition-table"], kb, book)]
    assert any(d.startswith("add 'transition' to tables:document in spec@v1.0.1") for d in described)
    assert _survivors(kb, "no-transition-table") == []


def test_sample_builds_a_string_each_pattern_matches() -> None:
    for pattern in [r"(?i)transition|\bfrom\b", r"(?i)statediagram|state machine",
                    r"\b(?:max(?:imum)?|limit)\b[^.]{0,40}\b(?:turns|transitions)\b", r"-3200[1-9]"]:
        found = mutation.sample(pattern)
        assert found is not None, pattern
    assert mutation.sample(r"(a)\1") is None  # a back-reference: RE2 refuses it


def test_the_real_kb_has_no_weak_claim_off_the_list(real_kb_env: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "mutate", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert summary["mutations"] == summary["killed"] + summary["survived"]
    assert summary["claims"] >= 300 and summary["mutations"] > 5 * summary["claims"]
    assert summary["weak"] == summary["allowed"] == len(data["weak"])
    assert all(w["allowed"] and w["reason"] for w in data["weak"])
    assert summary["seconds"] < 30  # CPU time: it runs in `make test`



def test_a_stale_or_missing_allowance_fails_naming_the_claim(
    real_kb_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_records(tmp_path)
    allow = root / mutation.ALLOW_FILE
    text = allow.read_text()
    entry = re.search(r"  - claim: v1-non-blocking-returns-after-creating-task\n(?:    .*\n|      .*\n)*",
                      text)
    assert entry is not None  # the entry taken out is there
    allow.write_text(text.replace(entry.group(0), "")
                     + "  - claim: terminal-task-cannot-restart\n    reason: no longer needed\n")
    assert cli.main(["--root", str(root), "mutate"]) == 1
    out = capsys.readouterr().out
    assert "weak: v1-non-blocking-returns-after-creating-task: 3 mutation(s) survive" in out
    assert ("claims/mutation/allow.yaml:" in out and "error[stale-allowance]: claim "
            "'terminal-task-cannot-restart' is on the mutation allow-list" in out)


def test_an_allowance_without_a_reason_is_refused(real_kb_env: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_records(tmp_path)
    (root / mutation.ALLOW_FILE).write_text(
        "allowed:\n  - claim: v1-non-blocking-returns-after-creating-task\n")
    assert cli.main(["--root", str(root), "mutate"]) == 1
    assert "claims/mutation/allow.yaml:2:5: error[allow-list]: an entry needs a 'claim' and a " \
           "'reason'" in capsys.readouterr().out
