"""Facts of the GitHub API's answers about a repository's tags, branches and commits.

Four answers, told apart by their shape (so the facts depend on the bytes alone):

- `git/refs/tags` and `git/refs/heads`: a list of refs. A lightweight tag points at its
  commit (tag-commit); an annotated tag points at a tag object (tag-object), whose answer
  is the next one. A branch points at the commit of its head (branch-commit). The list of
  tags also gives the newest release (newest-release:tags): the highest
  v<major>.<minor>.<patch> tag, pre-releases left out.
- `git/ref/heads/<branch>`: one ref, the same as one item of that list.
- `git/tags/<sha>`: an annotated tag: its commit (tag-commit) and its tagger's date
  (tag-date).
- `commits/<sha>`: the committer's date (commit-date) and the author's date
  (commit-author-date). The two differ when a commit was rebased or cherry-picked.

Dates are given in UTC (`2025-05-20T04:51:00Z`) whatever offset the answer uses.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from ..facts import Fact
from .artifact import Artifact, Draft
from .json_positions import Pointer, Span, locate

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.


def utc(stamp: str) -> str:
    """An ISO 8601 timestamp with any offset, written in UTC with a `Z`.

    Examples:
        >>> utc("2025-05-19T19:59:13-07:00")
        '2025-05-20T02:59:13Z'
    """
    moment = datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {stamp!r} has no offset")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def extract(artifact: Artifact) -> list[Fact]:
    text = artifact.text
    try:
        answer = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not valid JSON: {e}") from e
    spans = locate(text)
    try:
        if isinstance(answer, list):
            drafts = _refs(answer, spans, ())
        elif isinstance(answer, dict) and "ref" in answer and "object" in answer:
            drafts = _refs([answer], spans, None)
        elif isinstance(answer, dict) and "tagger" in answer:
            drafts = _annotated_tag(answer, spans)
        elif isinstance(answer, dict) and isinstance(answer.get("commit"), dict):
            drafts = _commit(answer, spans)
        else:
            raise artifact.fail("not a GitHub answer for git/refs/tags, git/refs/heads, "
                                "git/ref/heads/<branch>, git/tags/<sha> or commits/<sha>")
    except (KeyError, TypeError, ValueError) as e:
        raise artifact.fail(
            f"unexpected shape of the GitHub answer ({type(e).__name__}: {e})") from e
    if not drafts:
        raise artifact.fail("no tags or branches in the answer")
    return artifact.facts(drafts)


def _refs(refs: list[Any], spans: dict[Pointer, Span], at: Pointer | None) -> list[Draft]:
    """Facts of a list of refs (`at` is the list's pointer), or of one ref (`at` None:
    the whole answer is the ref)."""
    drafts = []
    for index, ref in enumerate(refs):
        name = str(ref["ref"])
        target = ref["object"]
        if name.startswith("refs/tags/"):
            subject = name.removeprefix("refs/tags/")
            kind = {"commit": "tag-commit", "tag": "tag-object"}.get(target["type"])
        elif name.startswith("refs/heads/"):
            subject = name.removeprefix("refs/heads/")
            kind = "branch-commit" if target["type"] == "commit" else None
        else:
            continue
        if kind:
            span = spans[(*at, index)] if at is not None else spans[()]
            drafts.append(Draft(kind, subject, str(target["sha"]), *span))
    newest = max((d for d in drafts if d.kind in ("tag-commit", "tag-object") and _RELEASE.match(d.subject)),
                 key=lambda d: tuple(int(n) for n in _RELEASE.findall(d.subject)[0]), default=None)
    if at == () and newest is not None:
        drafts.append(Draft("newest-release", "tags", newest.subject, newest.line_start, newest.line_end))
    return drafts


# a release's tag: three numbers, nothing after them (v1.0.0-rc is a pre-release)
_RELEASE = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")


def _annotated_tag(tag: dict[str, Any], spans: dict[Pointer, Span]) -> list[Draft]:
    name = str(tag["tag"])
    drafts = [Draft("tag-date", name, utc(tag["tagger"]["date"]), *spans[("tagger", "date")])]
    if tag["object"]["type"] == "commit":
        commit = str(tag["object"]["sha"])
        drafts.append(Draft("tag-commit", name, commit, *spans[("object", "sha")]))
    return drafts


def _commit(answer: dict[str, Any], spans: dict[Pointer, Span]) -> list[Draft]:
    sha = str(answer["sha"])
    commit = answer["commit"]
    return [
        Draft("commit-date", sha, utc(commit["committer"]["date"]),
              *spans[("commit", "committer", "date")]),
        Draft("commit-author-date", sha, utc(commit["author"]["date"]),
              *spans[("commit", "author", "date")]),
    ]
