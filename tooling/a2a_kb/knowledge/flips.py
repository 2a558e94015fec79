"""Which claims would change verdict if upstream's live bytes were pinned.

Every claim is evaluated twice with the same rules as `check`
([`a2a_kb.knowledge.check.evaluate`][a2a_kb.knowledge.check.evaluate]): once against the pinned copies, once
against a copy of the knowledge base where each source upstream changed reads its live bytes, and
each new tag is a version with its live files (a new release becomes `latest`, so claims
that track the latest spec are held to it). Where the two verdicts differ, the claim flips:
its id, both verdicts, why, and the live lines of the evidence.

Nothing is written: facts of live bytes are kept in memory, never in the facts cache.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..cache import Cache
from ..facts import Fact
from ..records.kb import KnowledgeBase, version_key
from ..records.model import Source, Version
from ..sources.watch import Flip, WatchReport
from .check import ClaimResult, FactBook, evaluate


class _MemoryStore:
    """Reads facts the cache already has; keeps the facts of live bytes in memory only."""

    def __init__(self, pinned: Any) -> None:
        self.pinned = pinned
        self.kept: dict[tuple[str, str], list[Fact]] = {}

    def load(self, sha256: str, kind: str) -> list[Fact] | None:
        found = self.kept.get((sha256, kind))
        return list(found) if found is not None else self.pinned.load(sha256, kind)

    def rows(self, sha256: str, kind: str) -> list[tuple[str, str, Any, int, int]] | None:
        found = self.kept.get((sha256, kind))
        if found is None:
            rows: list[tuple[str, str, Any, int, int]] | None = self.pinned.rows(sha256, kind)
            return rows
        return [(f.kind, f.subject, f.value, f.line_start, f.line_end) for f in found]

    def save(self, sha256: str, kind: str, facts: list[Fact]) -> None:
        self.kept[(sha256, kind)] = list(facts)

    @property
    def unwritable(self) -> str:
        return ""  # nothing is written: the live bytes' facts stay in memory


class LiveBook(FactBook):
    """A FactBook where the sources upstream changed read their live bytes."""

    def __init__(self, kb: KnowledgeBase, cache: Cache, live: dict[str, bytes]) -> None:
        super().__init__(kb, cache)
        self.store = _MemoryStore(self.store)  # type: ignore[assignment]
        self.live = live

    def text(self, source: Source) -> str:
        if source.id in self.live:
            return self.live[source.id].decode("utf-8", "replace")
        return super().text(source)

    def drifted(self, source: Source) -> str:
        return "" if source.id in self.live else super().drifted(source)

    def has_pinned_copy(self, source: Source) -> bool:
        return source.id in self.live or super().has_pinned_copy(source)


def live_kb(kb: KnowledgeBase, report: WatchReport) -> KnowledgeBase:
    """The knowledge base as it would be with the new tags added as versions."""
    if not report.new_versions:
        return kb
    versions = list(kb.versions.values())
    sources = dict(kb.sources)
    for new in report.new_versions:
        mark = new.sources[0].mark if new.sources else next(iter(kb.versions.values())).mark
        versions.append(Version(new.id, new.ref, new.ref, new.commit, new.released, mark))
        sources.update({s.id: s for s in new.sources})
    ordered = sorted(versions, key=lambda v: version_key(v.id))
    return dataclasses.replace(
        kb, versions={v.id: dataclasses.replace(v, order=i) for i, v in enumerate(ordered)},
        sources=sources)


def predict(kb: KnowledgeBase, report: WatchReport) -> list[Flip]:
    """Every claim whose verdict against the live bytes differs from its pinned verdict."""
    cache = Cache(kb.project.cache_dir)
    pinned_book = FactBook(kb, cache)
    future = live_kb(kb, report)
    book = LiveBook(future, cache, report.live)
    flips = []
    blocked = 0
    for claim in kb.claims.values():
        before = evaluate(claim, kb, pinned_book)
        if before.blocked_by:
            blocked += 1
            continue
        after = evaluate(claim, future, book)
        if after.verdict != before.verdict:
            flips.append(Flip(claim.id, before.verdict, after.verdict, after.message,
                              _evidence(after, future, book), claim.mark))
    if blocked:
        report.notes.append(f"{blocked} claim(s) not compared: their pinned sources are not in "
                            "the cache (run `a2a-kb fetch`)")
    return flips


def _evidence(result: ClaimResult, kb: KnowledgeBase, book: LiveBook) -> list[dict[str, Any]]:
    shown = []
    for fact in result.evidence:
        source = kb.sources.get(fact.source)
        line = ""
        if source is not None and fact.line_start:
            lines = book.text(source).splitlines()
            if 0 < fact.line_start <= len(lines):
                line = " ".join(lines[fact.line_start - 1].split())[:240]
        shown.append({"source": fact.source, "fact": fact.key,
                      "lines": [fact.line_start, fact.line_end], "line": line,
                      "live": fact.source in book.live})
    return shown
