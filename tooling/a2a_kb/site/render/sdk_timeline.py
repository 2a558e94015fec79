"""Each official SDK's lifecycle release by release, as read from its pinned source: a page
per SDK, the "since" ranges of the SDK matrix, and the `sdks` API document.

Only claims checked against an `sdk-code` source take part: the release is that source's
tag, the behaviour the claim's `sdk:<sdk>/<behaviour>` subject, and what the release does
the claim's `answer`. A range ("since v0.3.15", "v0.3.0 to v0.3.3") runs over the releases
read here in release order, from the first that gives an answer to the last before another
answer; "since" only when that last one is the SDK's newest release read. Nothing is
inferred about a release that was not read: the mirror holds each file at the releases
where it changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...records.model import Claim
from .. import paths
from ..data import SiteData
from ..links import Linker, page_url
from ..templating import render
from . import common
from .common import Cite, sdk_subject

KIND = "sdk-code"
# Row labels, in the order claims/sdk-behaviour.yaml documents the keys; the
# matrix (sdk_matrix) and the timelines share them. A key a claim uses
# and this table lacks still gets its row, labelled with the key itself.
BEHAVIOURS = {
    "terminal-set": "Terminal states",
    "interrupted-set": "Interrupted states",
    "active-set": "Active states",
    "blocking-return": "Where a blocking send returns",
    "non-blocking-return": "What a non-blocking send returns",
    "polling": "Polling with GetTask",
    "stream-first-event": "First event of a stream",
    "artifact-chunks": "An artifact sent in chunks",
    "stream-close-terminal": "Where streams close: terminal states",
    "stream-close-interrupted": "Where streams close: interrupted states",
    "resume-interrupted": "Resuming an interrupted task",
    "subscribe-interrupted": "Subscribing to a task that waits for input",
    "subscribe-to-terminal": "Subscribing to a terminal task",
    "message-to-terminal": "A message to a terminal task",
    "cancel-working": "Cancelling a working task",
    "cancel-of-terminal": "Cancelling a terminal task",
    "cancel-race": "Racing cancels",
    "reject": "Rejecting before any work",
    "failure-reported": "A failure the agent reports",
    "error-path": "An agent that raises",
    "error-details": "What an error carries",
    "follow-up": "Follow-up tasks",
    "terminal-overwrite": "Can a terminal task be overwritten?",
    "state-enum": "The state enum",
    "execution-end": "Where an execution's events end",
    "unknown-value": "A state value it does not know",
    "not-cancelable-mapping": "TaskNotCancelableError on each transport",
}

_PRERELEASE = re.compile(r"(?i)(alpha|beta|preview|rc)")


def release_key(tag: str) -> tuple[Any, ...]:
    """Release order of a tag: its numbers, a pre-release (alpha, Beta, preview, rc) before
    the release it leads to (`1.0.0.Beta1` < `v1.0.0.Final`)."""
    head = re.search(r"\d+(?:\.\d+)+", tag)  # agntcy-a2a-v0.2.0 → 0.2.0
    numbers = tuple(int(n) for n in head.group(0).split(".")) if head else ()
    rest = tag[head.end():] if head else tag
    pre = _PRERELEASE.search(rest)
    tail = tuple(int(n) for n in re.findall(r"\d+", rest[pre.end():])) if pre else ()
    return (numbers + (0,) * (4 - len(numbers)), 0 if pre else 1, pre.group(1).lower() if pre else "",
            tail, tag)


@dataclass
class Step:
    release: str
    answer: str
    statement: str
    cite: Cite
    code: str  # the permalink of the lines the check read
    where: str  # path:lines


@dataclass
class Range:
    answer: str
    first: str
    last: str
    latest: bool  # runs up to the latest release read

    @property
    def label(self) -> str:
        if self.latest:
            return f"since {self.first}"
        return self.first if self.first == self.last else f"{self.first} to {self.last}"


@dataclass
class Behaviour:
    key: str
    label: str
    anchor: str
    steps: list[Step] = field(default_factory=list)
    newest: str = ""  # the SDK's newest release read, for any behaviour

    @property
    def ranges(self) -> list[Range]:
        found: list[Range] = []
        for step in self.steps:
            if found and found[-1].answer == step.answer:
                found[-1].last = step.release
            else:
                found.append(Range(step.answer, step.release, step.release, False))
        if found:  # "since" only where the answer is read at the newest release read
            found[-1].latest = found[-1].last == self.newest
        return found


def read_from_source(data: SiteData, claim: Claim) -> str:
    """The release a claim was read at, when it is checked against an SDK's source and says
    what the release does in its `answer`; else "". (A claim about the code's comments,
    with no answer, is a note, not a step of the timeline.)"""
    source = data.kb.sources.get(claim.source)
    return source.ref if source is not None and source.kind == KIND and claim.answer else ""


def timelines(data: SiteData, link: Linker, only: str = "") -> dict[str, list[Behaviour]]:
    """Each SDK's behaviours read from source (`only` that SDK's, when given)."""
    by_sdk: dict[str, dict[str, Behaviour]] = {}
    for claim in data.kb.claims.values():
        found = sdk_subject(claim)
        release = read_from_source(data, claim)
        if found is None or not release or (only and found[0] != only):
            continue
        sdk, key = found
        found_rows = by_sdk.setdefault(sdk, {})
        label = BEHAVIOURS.get(key, key)
        row = found_rows.setdefault(key, Behaviour(key, label, paths.behaviour_anchor(key)))
        row.steps.append(_step(data, link, claim, release))
    order = list(BEHAVIOURS)
    result: dict[str, list[Behaviour]] = {}
    for sdk in sorted(by_sdk):
        rows = sorted(by_sdk[sdk].values(),
                      key=lambda b: (order.index(b.key) if b.key in order else len(order), b.key))
        newest = max((s.release for row in rows for s in row.steps), key=release_key)
        for row in rows:
            row.steps.sort(key=lambda s: (release_key(s.release), s.cite.id))
            row.newest = newest
        result[sdk] = rows
    return result


def _step(data: SiteData, link: Linker, claim: Claim, release: str) -> Step:
    source = data.kb.sources[claim.source]
    result = data.results.get(claim.id)
    lines = [(f.line_start, f.line_end) for f in (result.evidence if result else [])
             if f.source == source.id and f.line_start]
    if not lines and claim.quote:  # a claim about the code's own words: the line they are on
        wanted = " ".join(claim.quote.split())
        lines = [(n, n) for n, line in enumerate(data.book.text(source).splitlines(), 1)
                 if wanted in " ".join(line.split())][:1]
    start, end = (min(a for a, _ in lines), max(b for _, b in lines)) if lines else (0, 0)
    where = f"{source.path}:{start}" + (f"-{end}" if end and end != start else "") if start else source.path
    return Step(release, claim.answer, claim.statement,
                common.cite(data, link, claim), source.permalink(start, end), where)


def releases_read(data: SiteData) -> dict[str, str]:
    """claim id → the release it was read at, for the claims checked against SDK source."""
    return {c.id: r for c in data.kb.claims.values() if (r := read_from_source(data, c))}


def cell_ranges(data: SiteData, link: Linker) -> dict[tuple[str, str], list[Range]]:
    """(sdk, behaviour) → the ranges of its timeline, for the matrix's cells."""
    return {(sdk, row.key): row.ranges for sdk, rows in timelines(data, link).items() for row in rows}


def part_names(data: SiteData) -> list[str]:
    return sorted({sdk for c in data.kb.claims.values() if (f := sdk_subject(c)) and read_from_source(data, c)
                   for sdk in [f[0]]})


def part(data: SiteData, sdk: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    link = Linker(paths.sdk_page(sdk), use_directory_urls)
    rows = timelines(data, link, sdk).get(sdk, [])
    releases = sorted({s.release for r in rows for s in r.steps}, key=release_key)
    repository = next((data.kb.sources[c.source].repository for c in data.kb.claims.values()
                       if (f := sdk_subject(c)) and f[0] == sdk and read_from_source(data, c)), "")
    compared = comparisons(data, link, sdk)
    return [(paths.sdk_page(sdk), render("site/sdk-timeline.md.j2", sdk=sdk, rows=rows,
                                         releases=releases, repository=repository, link=link,
                                         paths=paths, compared=compared))]


def document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    """The `sdks` API document: per SDK and behaviour, each release read and its answer,
    with the ranges."""
    link = Linker(paths.api_file("sdks"), use_directory_urls)
    compared = comparisons(data, link)
    sdks = []
    for sdk, rows in timelines(data, link).items():
        sdks.append({
            "sdk": sdk,
            "page": page_url(paths.sdk_page(sdk), use_directory_urls),
            "behaviours": [{
                "behaviour": row.key, "label": row.label,
                "releases": [{"release": s.release, "answer": s.answer, "claim": s.cite.id,
                              "verdict": s.cite.verdict, "code": s.code, "where": s.where}
                             for s in row.steps],
                "ranges": [{"answer": r.answer, "first": r.first, "last": r.last,
                            "latest": r.latest, "label": r.label} for r in row.ranges],
            } for row in rows],
            "compared": [{"release": c.release, "read": c.read.id, "observed": c.observed.id,
                          "conflict": c.conflict or None, "outcome": c.outcome}
                         for c in compared if c.sdk == sdk],
        })
    return {"sdks": sdks}


@dataclass
class Comparison:
    """A release that is both read from source and run here: a read claim and an observed
    claim about it, and whether the conflict register puts them on the same side."""

    sdk: str
    release: str
    read: Cite
    observed: Cite
    conflict: str  # the conflict both stand in, or "" when they share none
    agree: bool | None  # None: no shared conflict to judge by

    @property
    def outcome(self) -> str:
        if self.agree is None:
            return "same behaviour, no shared conflict to compare by"
        return "agree" if self.agree else "differ"


def _observed_releases(data: SiteData, claims: list[Claim]) -> dict[str, str]:
    """claim id → the release a capture claim observed (its transcript's header)."""
    return {claim.id: build["version"] for claim in claims
            for build in common.observed_builds(data, claim) if build["version"]}


def comparisons(data: SiteData, link: Linker, only: str = "") -> list[Comparison]:
    """Every pair of a claim read from an SDK's source at a release and a claim observed by
    running that same release, about the same behaviour or standing in the same conflict.
    Two claims on different sides of a conflict are a finding: the code read and the
    build run disagree."""
    read: dict[tuple[str, str], list[Claim]] = {}
    observed: list[tuple[str, Claim]] = []
    for claim in data.kb.claims.values():
        found = sdk_subject(claim)
        if found is None or (only and found[0].split("@", 1)[0] != only):
            continue
        release = read_from_source(data, claim)
        if release:
            read.setdefault((found[0], release.removeprefix("v")), []).append(claim)
        else:
            observed.append((found[0].split("@", 1)[0], claim))
    versions = _observed_releases(data, [c for _, c in observed])
    sides = {c.id: {cid: i for i, side in enumerate(c.sides) for cid in side.claims}
             for c in data.kb.conflicts.values()}
    result = []
    for sdk, seen in observed:
        version = versions.get(seen.id)
        for mine in read.get((sdk, version or ""), []):
            shared = [cid for cid in mine.conflicts if cid in seen.conflicts and cid in sides
                      and mine.id in sides[cid] and seen.id in sides[cid]]
            same_behaviour = sdk_subject(mine)[1] == sdk_subject(seen)[1]  # type: ignore[index]
            if not shared and not same_behaviour:
                continue
            conflict = shared[0] if shared else ""
            agree = sides[conflict][mine.id] == sides[conflict][seen.id] if conflict else None
            result.append(Comparison(sdk, read_from_source(data, mine), common.cite(data, link, mine),
                                     common.cite(data, link, seen), conflict, agree))
    return sorted(result, key=lambda c: (c.sdk, release_key(c.release), c.read.id, c.observed.id))
