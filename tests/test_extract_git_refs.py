"""The GitHub API extractor: tags → commits, tag and commit dates in UTC."""

from __future__ import annotations

import json

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from a2a_kb.extract.git_refs import utc
from a2a_kb.facts import Fact
from extract_mirror import at, every_source, mirror_dir


def facts_of(path: str) -> dict[str, Fact]:
    source, data = at("api", path)
    return {f.key: f for f in extract(source, data)}


def test_lightweight_tags_point_at_commits_and_annotated_ones_at_tag_objects() -> None:
    facts = facts_of("git/refs/tags")
    assert facts["tag-commit:v0.2.1"].value == "c778e66ead9be711f1b4f9370dd0e3d4c0794c3f"
    assert facts["tag-commit:v1.0.0"].value == "173695755607e884aa9acf8ce4feed90e32727a1"
    assert facts["tag-object:v0.1.0"].value == "dfc1be7630168d03c9d29d5ad0fe48a40cba6ca8"
    assert "tag-commit:v0.1.0" not in facts  # its commit is in the tag object's answer


def test_the_newest_release_is_the_highest_numbered_tag_and_skips_pre_releases() -> None:
    facts = facts_of("git/refs/tags")
    newest = facts["newest-release:tags"]
    assert newest.value == "v1.0.1"
    # v1.0.0-rc comes after v1.0.1 in the answer; the fact points at v1.0.1's own lines
    assert facts["tag-commit:v1.0.1"].line_start == newest.line_start
    source, _ = at("api", "git/refs/tags")
    refs = [{"ref": f"refs/tags/{name}", "object": {"type": "commit", "sha": "0" * 40}}
            for name in ("v0.10.0", "v0.9.9", "v1.0.0-rc", "v0.2.6")]
    found = {f.key: f.value for f in extract(source, json.dumps(refs, indent=2).encode())}
    assert found["newest-release:tags"] == "v0.10.0"  # by number, not as text


def test_an_annotated_tag_gives_its_commit_and_its_date_in_utc() -> None:
    facts = facts_of("git/tags/dfc1be7630168d03c9d29d5ad0fe48a40cba6ca8")
    assert facts["tag-commit:v0.1.0"].value == "ce95d60c49c44511b73a391c798e8e8c814bce66"
    assert facts["tag-date:v0.1.0"].value == "2025-05-20T04:51:00Z"


def test_commit_dates_agree_with_the_refs_file_converted_to_utc() -> None:
    refs = json.loads((mirror_dir() / "a2a-refs.json").read_text("utf-8"))
    facts = {f.key: f for source, data in every_source() if source.kind == "git-refs"
             for f in extract(source, data)}
    checked = 0
    for ref in refs:
        sha = ref["commit"]
        if f"commit-date:{sha}" not in facts:
            continue
        assert facts[f"commit-date:{sha}"].value == utc(ref["commit_date"])
        assert facts[f"commit-author-date:{sha}"].value == utc(ref["author_date"])
        assert facts[f"commit-date:{sha}"].value.endswith("Z")
        checked += 1
    assert checked == len(refs)  # every ref's commit has its answer in the mirror
    # v0.1.0: committed at 19:59 on 19 May in California, which was already 20 May in UTC
    v010 = "ce95d60c49c44511b73a391c798e8e8c814bce66"
    assert facts[f"commit-date:{v010}"].value == "2025-05-20T02:59:13Z"


@pytest.mark.parametrize(("repository", "count"), [
    ("A2A", 12),  # v0.1.0 … v1.0.1, and v1.0.0-rc
    ("a2a-python", 55), ("a2a-js", 26), ("a2a-java", 22), ("a2a-go", 27), ("a2a-dotnet", 7),
    ("a2a-rs", 72),
])
def test_every_tag_reaches_a_commit(repository: str, count: int) -> None:
    """The spec's tags, and each SDK's (each repository's list is read on its own: a tag name
    such as v0.2.6 is a2a-python's as well as A2A's)."""
    facts = {f.key: f for source, data in every_source() if source.kind == "git-refs"
             and f"/repos/a2aproject/{repository}/" in source.url for f in extract(source, data)}
    tags = [key.split(":", 1)[1] for key in facts
            if key.startswith(("tag-commit:", "tag-object:"))]
    assert len(set(tags)) == count
    if repository == "A2A":  # the mirror holds every annotated tag's object: each reaches a commit
        assert all(f"tag-commit:{tag}" in facts for tag in tags)
    else:  # an SDK's annotated tags point at a tag object the mirror does not hold
        assert all(f"tag-commit:{tag}" in facts or f"tag-object:{tag}" in facts for tag in tags)


@pytest.mark.parametrize(("stamp", "expected"), [
    ("2025-05-19T19:59:13-07:00", "2025-05-20T02:59:13Z"),
    ("2025-05-15T06:16:16+08:00", "2025-05-14T22:16:16Z"),
    ("2025-07-31T15:05:40Z", "2025-07-31T15:05:40Z"),
])
def test_utc(stamp: str, expected: str) -> None:
    assert utc(stamp) == expected


@pytest.mark.parametrize("data", [b"", b"{}", b'{"tag": "v1", "tagger": {}}', b"[]",
                                  b'{"sha": "x", "commit": {"author": {"date": "yesterday"}}}'])
def test_answers_of_another_shape_are_errors(data: bytes) -> None:
    source, _ = at("api", "git/refs/tags")
    with pytest.raises(ExtractError, match="git-refs@api"):
        extract(source, data)


def test_branch_heads_give_each_branch_its_commit() -> None:
    source, data = at("api", "git/refs/heads")
    facts = {f.key: f for f in extract(source, data)}
    assert {k for k in facts if k.startswith("branch-commit:")} == {
        "branch-commit:0.3.0-beta-x", "branch-commit:0.3.x", "branch-commit:1.0-dev",
        "branch-commit:formatting", "branch-commit:main", "branch-commit:refactoring"}
    assert facts["branch-commit:1.0-dev"].value == "357c4a87afa2818731590647cccbea31c31733a2"
    assert facts["branch-commit:0.3.x"].value == "eb1f804c27ea25db8805264d9ed2d7ca077a7776"
    head = facts["branch-commit:main"]
    assert head.value == "410ba92e1b264df895e1fe6eccfe22db7aeaab06"
    lines = data.decode().splitlines()
    assert '"ref": "refs/heads/main"' in "\n".join(lines[head.line_start - 1:head.line_end])


def test_one_branch_ref_gives_its_commit() -> None:
    source, data = at("api", "git/ref/heads/main")
    facts = extract(source, data)
    assert [(f.key, f.value) for f in facts] == [
        ("branch-commit:main", "16ba52690519bf55b9388e34d4db356efa88aa51")]
    assert (facts[0].line_start, facts[0].line_end) == (1, len(data.decode().splitlines()))


def test_the_head_of_main_is_the_commit_the_main_version_pins() -> None:
    refs = json.loads((mirror_dir() / "a2a-refs.json").read_text("utf-8"))
    main = next(r for r in refs if r["ref"] == "main")
    source, data = at("api", "git/ref/heads/main")
    assert extract(source, data)[0].value == main["commit"]


def test_a_ref_to_something_else_is_not_a_fact_and_nothing_at_all_is_an_error() -> None:
    source, _ = at("api", "git/ref/heads/main")
    note = b'[{"ref": "refs/notes/commits", "object": {"sha": "ab", "type": "commit"}}]'
    with pytest.raises(ExtractError, match="no tags or branches"):
        extract(source, note)
