"""Everything the site shows, gathered once per build from the knowledge base.

This is the edge where the site meets the rest of the pipeline (validate, check, states,
diff, lifecycle, the fact cache); the renderers only ever see a `SiteData`.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache import Cache
from ..diagnostics import Diagnostic
from ..errors import SourceUnavailable
from ..facts import Fact
from ..knowledge import conflicts, diff, lifecycle, states
from ..knowledge.check import ClaimResult, FactBook, check
from ..knowledge.digest import SealedJson, code_version, digest
from ..knowledge.verdicts import Verdicts
from ..output import generated_at
from ..project import Project
from ..records.kb import KnowledgeBase
from ..records.model import Source, Version
from ..records.validate import validate
from .inputs import Digests
from .measurements import (
    Benchmark,
    Reliability,
    SiteQuality,
    read_benchmark,
    read_reliability,
    read_site_quality,
)


@dataclass(frozen=True)
class Dated:
    """When a version was made, and the fact that says so."""

    date: str  # YYYY-MM-DD
    what: str  # "tagged" or "committed"
    source: str
    permalink: str


@dataclass
class SiteData:
    """The knowledge base and what the pipeline computes from it, ready to render."""

    kb: KnowledgeBase
    book: FactBook
    results: dict[str, ClaimResult]
    register: dict[str, Any]
    tables: dict[str, dict[str, Any]]
    diffs: list[dict[str, Any]]
    lifecycle: dict[str, Any]
    dates: dict[str, Dated]
    generated_at: str
    problems: list[Diagnostic] = field(default_factory=list)
    transcripts: dict[str, str] = field(default_factory=dict)  # capture source id → its text
    reliability: Reliability = field(default_factory=Reliability)
    benchmark: Benchmark | None = None
    site_quality: SiteQuality | None = None

    @property
    def versions(self) -> list[Version]:
        return self.kb.ordered_versions

    def facts(self, source: Source) -> dict[str, list[Fact]]:
        return self.book.facts(source)

    def verdict(self, claim_id: str) -> str:
        result = self.results.get(claim_id)
        return result.verdict if result else "unverifiable"

    def authority(self, claim_id: str) -> str:
        claim = self.kb.claims[claim_id]
        source = self.kb.sources.get(claim.source)
        return source.authority if source else "secondary"

    def diff_between(self, old: str, new: str) -> dict[str, Any] | None:
        return next((d for d in self.diffs if d["old_version"] == old and d["new_version"] == new), None)


def _version_dates(kb: KnowledgeBase, book: FactBook) -> dict[str, Dated]:
    """Each version's date from the GitHub API answers: the tag's date, else the commit's."""
    tagged: dict[str, Dated] = {}
    committed: dict[str, Dated] = {}
    for source in kb.sources.values():
        if source.kind != "git-refs" or not source.pinned:
            continue
        for key, found in book.facts(source).items():
            fact = found[0]
            kind, _, subject = key.partition(":")
            link = source.permalink(fact.line_start, fact.line_end)
            if kind == "tag-date":
                tagged[subject] = Dated(str(fact.value)[:10], "tagged", source.id, link)
            elif kind == "commit-date":
                committed[subject] = Dated(str(fact.value)[:10], "committed", source.id, link)
    result: dict[str, Dated] = {}
    for v in kb.ordered_versions:
        dated = tagged.get(v.ref) or committed.get(v.commit)
        if dated is not None:
            result[v.id] = dated
    return result


def _change_order(change: dict[str, Any]) -> tuple[int, str, str, str]:
    severity = change.get("severity", "")
    rank = diff.SEVERITIES.index(severity) if severity in diff.SEVERITIES else len(diff.SEVERITIES)
    return (rank, str(change.get("subject", "")), str(change.get("kind", "")), repr(change.get("new")))


def _diffs(kb: KnowledgeBase, book: FactBook) -> list[dict[str, Any]]:
    """The diff of every consecutive pair of versions, oldest first, and across each
    prerelease the diff of the versions around it (0.3.0 → 1.0.0 beside 0.3.0 → 1.0.0-rc →
    1.0.0): readers migrate from release to release.

    Changes are put in a fixed order (severity, subject, kind) so that two builds of the
    same knowledge base are byte for byte the same.
    """
    ordered = kb.ordered_versions
    pairs = list(itertools.pairwise(ordered))
    for old, new in itertools.pairwise([v for v in ordered if not v.prerelease]):
        if (old, new) not in pairs:
            pairs.append((old, new))
    pairs.sort(key=lambda pair: (pair[0].order, pair[1].order))
    result = []
    reader = diff.Reader(book, kb.project.cache_dir)  # each .proto compiled once for all pairs
    for old, new in pairs:
        computed = diff.diff(kb, old.id, new.id, book=book, reader=reader).as_json()
        computed["changes"] = sorted(computed["changes"], key=_change_order)
        result.append({"old_version": old.id, "new_version": new.id, **computed})
    return result


def _transcripts(kb: KnowledgeBase, book: FactBook) -> tuple[dict[str, str], list[Diagnostic]]:
    """The text of every capture transcript; one that cannot be read gets no page."""
    texts: dict[str, str] = {}
    problems = []
    for source in kb.sources.values():
        if source.kind != "capture":
            continue
        try:
            texts[source.id] = book.text(source)
        except SourceUnavailable as e:
            problems.append(Diagnostic(source.mark, "capture-unreadable", str(e),
                                       tip="run `a2a-kb capture` to write the transcript again"))
    return texts, problems


def _tables(kb: KnowledgeBase, book: FactBook) -> dict[str, dict[str, Any]]:
    return {v.id: states.state_table(kb, v.id, book) for v in kb.ordered_versions}


def _lifecycle(kb: KnowledgeBase, book: FactBook) -> dict[str, Any]:
    # Without its own timestamp (the build's is generated_at): a page that shows the model
    # is then the same from build to build while the model is.
    return {k: v for k, v in lifecycle.model(kb).items() if k != "generated_at"}


@dataclass(frozen=True)
class Derived:
    """A value the site computes from the records and the facts, and the aspects of them
    it reads (see site.inputs; tests/test_site_inputs.py holds it to them)."""

    compute: Callable[[KnowledgeBase, FactBook], Any]
    reads: tuple[str, ...]


_TABLE_READS = ("claims.conflicts", "claims.locator", "claims.subject", "claims.versions", "conflicts",
                "facts", "sources", "versions")
# The slow ones, kept between builds (in `store`/derived) while what they read is the same.
DERIVED: dict[str, Derived] = {
    "tables": Derived(_tables, _TABLE_READS),
    "diffs": Derived(_diffs, ("facts", "sources", "versions")),
    "lifecycle": Derived(_lifecycle, _TABLE_READS),
}


def _derive(name: str, kb: KnowledgeBase, book: FactBook, remembered: _Remembered | None) -> Any:
    derived = DERIVED[name]
    if remembered is None:
        return derived.compute(kb, book)
    key = digest(remembered.code, name, *(f"{a}={remembered.digests.of(a)}" for a in derived.reads))
    found = remembered.store.read(name)
    if isinstance(found, dict) and found.get("key") == key and "value" in found:
        return found["value"]
    value = derived.compute(kb, book)
    try:  # kept only if it reads back as it is (no tuples, no objects)
        faithful = json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        faithful = False
    if faithful:
        remembered.store.write(name, {"key": key, "value": value})
    return value


@dataclass
class _Remembered:
    store: SealedJson
    code: str
    digests: Digests


def collect(project: Project, kb: KnowledgeBase | None = None, *, store: Path | None = None) -> SiteData:
    """Validate, check and compute every table, diff and model the site renders, and read
    what the site reports about the project itself (capture transcripts, the figures of the
    last test run, the site audit's scores, the benchmark's results).

    Errors in the records do not stop the collection (pages show what is valid); they are
    returned as `problems` for the plugin to report. Broken set-up (a source missing from
    the cache) raises the pipeline's own `KBError`.

    `store` is the folder where the site keeps what it derived in earlier builds; with
    it, a claim is checked again only when its inputs changed (see knowledge.verdicts), and
    the values of `DERIVED` are computed again only when what they read changed.
    """
    kb = kb if kb is not None else validate(project)
    book = FactBook(kb, Cache(project.cache_dir))
    remembered = None
    if store is not None:
        code = code_version()
        verdicts = Verdicts(store / "verdicts", code)
        checked = check(kb, evaluator=verdicts.evaluate)
        verdicts.commit()
        remembered = _Remembered(SealedJson(store / "derived"), code, Digests(kb=kb))
    else:
        checked = check(kb)
    transcripts, unreadable = _transcripts(kb, book)
    return SiteData(
        kb=kb,
        book=book,
        results={r.claim.id: r for r in checked.results},
        register=conflicts.register(kb),
        tables=_derive("tables", kb, book, remembered),
        diffs=_derive("diffs", kb, book, remembered),
        lifecycle=_derive("lifecycle", kb, book, remembered),
        dates=_version_dates(kb, book),
        generated_at=generated_at(),
        problems=[*kb.problems, *checked.problems, *unreadable],
        transcripts=transcripts,
        reliability=read_reliability(project.root),
        benchmark=read_benchmark(project.root),
        site_quality=read_site_quality(project.root),
    )
