"""``check --strict``: a verified claim whose statement names a state, a code or a quoted
phrase that its check does not read is reported, with the unread part named (issue 30,
check strength). The counterpart of ``a2a-kb mutate``."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from a2a_kb.knowledge.check import ClaimResult, check
from a2a_kb.knowledge.strength import outrunning
from a2a_kb.project import Project
from a2a_kb.records.validate import validate
from a2a_kb.site.data import SiteData

REPO = Path(__file__).resolve().parents[1]


def _result(data: SiteData, claim_id: str, statement: str) -> ClaimResult:
    result = data.results[claim_id]
    assert result.verdict == "verified"
    return dataclasses.replace(result, claim=dataclasses.replace(result.claim, statement=statement))


def test_the_real_kb_has_no_statement_that_outruns_its_check(real_data: SiteData) -> None:
    found = outrunning(real_data.results.values())
    assert not found, "\n".join(f"{o.claim}: {', '.join(o.unread)}" for o in found)


@pytest.mark.parametrize(("claim_id", "added", "unread"), [
    # a cancel claim that also names a state the capture never had
    ("a2a-js-130-cancel-of-completed", " The task was INPUT_REQUIRED first.", "state input-required"),
    # an error claim that names an HTTP status its check does not read
    ("a2a-js-130-cancel-of-completed", " Over HTTP it is 409.", "number 409"),
    # a quoted phrase the source does not hold in the facts read
    ("grpc-v02x-classes", ' The proto calls them "paused forever".', "quote 'paused forever'"),
])
def test_a_statement_that_says_more_is_reported_with_the_unread_part(
        real_data: SiteData, claim_id: str, added: str, unread: str) -> None:
    original = real_data.results[claim_id].claim.statement
    assert not outrunning([_result(real_data, claim_id, original)])
    found = outrunning([_result(real_data, claim_id, original.rstrip() + added)])
    assert [o.claim for o in found] == [claim_id]
    assert unread in found[0].unread


@pytest.mark.parametrize(("claim_id", "statement", "unread"), [
    # a git date with no time zone: the same instant can fall on another day elsewhere
    ("commit-8a44cff-date-and-pr", "Commit 8a44cff, the merge of pull request #534, was "
     "committed on 2025-05-14.", "time zone of 2025-05-14"),
    # a date the check does not read at all
    ("commit-8a44cff-date-and-pr", "Commit 8a44cff, the merge of pull request #534, was "
     "committed on 2025-05-14 (UTC) and reverted on 2025-05-16.", "date 2025-05-16"),
    # a tag's creation read from the commit it points at, not from the tag object
    ("v020-commit-date-utc", "Tag v0.2.0 was created on 2025-05-20 (UTC).",
     "tag-date (the statement says created)"),
])
def test_a_git_date_names_its_zone_and_is_read_from_the_object_it_dates(
        real_data: SiteData, claim_id: str, statement: str, unread: str) -> None:
    assert not outrunning([real_data.results[claim_id]])
    found = outrunning([_result(real_data, claim_id, statement)])
    assert found and unread in found[0].unread, found


def test_the_weak_checks_of_the_third_audit_fail_on_their_old_expectations(real_data: SiteData) -> None:
    """The cancel-of-terminal claims said "CANCELED included" while their check read only the
    guard's call of isFinal()/Terminal(); the tck verdict claims quoted the suite's title and
    read only the verdict. With the old expectations, each is reported."""
    for claim_id, unread in (("a2a-go-v030-cancel-of-terminal", "state canceled"),
                             ("tck-a2a-sdk-130-core-cancel-002",
                              "quote 'CancelTask returns TaskNotCancelableError for terminal tasks'")):
        result = real_data.results[claim_id]
        claim = dataclasses.replace(result.claim, expect=result.claim.expect[:1])
        first = [f for f in result.evidence if f.source == (claim.expect[0].source or claim.source)]
        weak = dataclasses.replace(result, claim=claim, evidence=first)
        assert [o.unread for o in outrunning([weak])] == [(unread,)]


def test_check_strict_names_the_claim_its_place_and_the_fix(real_cache: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import copy_records

    root = copy_records(tmp_path / "kb")
    claims = root / "claims" / "sdk-behaviour.yaml"
    text = claims.read_text("utf-8")
    text = text.replace("CancelTask on a COMPLETED task fails with JSON-RPC -32002.",
                        "CancelTask on a COMPLETED task fails with JSON-RPC -32002, HTTP 409.")
    claims.write_text(text, "utf-8")
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))
    kb = validate(Project.at(root))
    loose = check(kb)
    assert not [d for d in loose.problems if d.rule == "statement-outruns-check"]
    strict = check(kb, strict=True)
    found = [d for d in strict.problems if d.rule == "statement-outruns-check"]
    assert len(found) == 1 and not strict.ok
    shown = found[0].format()
    assert "a2a-js-130-cancel-of-completed" in shown and "number 409" in shown
    line = text[:text.index("HTTP 409")].count("\n") + 1
    where = re.search(r"sdk-behaviour\.yaml:(\d+)", shown)
    assert where is not None and int(where.group(1)) <= line  # the claim's own place
