"""Verdicts remembered between runs: a claim is checked again only when something its check
reads has changed.

A claim's verdict (with its message, evidence and by-version results) is a function of:

* the claim record, every field but its place in the file;
* the source and version records, all of them: `plan` picks a source's
  counterpart at each version among every source, and `<kind>@latest` resolves through
  the versions;
* the copies of the sources its check asked the `FactBook` about (the bytes
  the cache holds for each, whether the pinned copy is there or damaged, and the cache
  index's entry, which says whether the source drifted), or a local transcript's bytes;
* the code (`code_version`).

The record kept for a claim holds a key over the first, second and fourth, and a digest of
each source copy its check read; it is believed only while the key and every one of those
digests still match what is on disk now. Anything else — another claim's record, a
conflict, the date — is not read by [`evaluate`][a2a_kb.knowledge.check.evaluate], which
tests/test_verdicts.py holds it to. The records are one sealed file, replaced atomically
after each run: a killed run leaves the previous file, a damaged one is ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..cache import CacheEntry, sha256_of
from ..facts import Fact
from ..records.kb import KnowledgeBase
from ..records.model import Claim
from .check import ClaimResult, FactBook, VersionResult, evaluate
from .digest import SealedJson, canonical, code_version, digest

FORMAT = 1
_NAME = "verdicts"


def _fact_row(fact: Fact) -> list[Any]:
    return [fact.kind, fact.subject, fact.value, fact.source, fact.path, fact.commit,
            fact.line_start, fact.line_end]


def _as_record(result: ClaimResult) -> dict[str, Any]:
    return {
        "verdict": result.verdict, "message": result.message, "blocked_by": result.blocked_by,
        "evidence": [_fact_row(f) for f in result.evidence],
        "by_version": [[v.version, v.status, v.sources, v.message] for v in result.by_version],
    }


def _from_record(claim: Claim, record: dict[str, Any]) -> ClaimResult:
    return ClaimResult(
        claim, str(record["verdict"]), str(record["message"]),
        evidence=[Fact(k, s, v, src, path, commit, int(a), int(b))
                  for k, s, v, src, path, commit, a, b in record["evidence"]],
        blocked_by=str(record["blocked_by"]),
        by_version=[VersionResult(str(v), str(st), list(srcs), str(m))
                    for v, st, srcs, m in record["by_version"]],
    )


class Verdicts:
    """The verdicts of the last run and an evaluator that reuses them (see the module).

    `check(kb, evaluator=verdicts.evaluate)`, then `commit` to keep this run's."""

    def __init__(self, folder: Path, code: str | None = None) -> None:
        self.store = SealedJson(folder)
        self.code = code if code is not None else code_version()
        found = self.store.read(_NAME)
        valid = isinstance(found, dict) and found.get("format") == FORMAT and found.get("code") == self.code
        claims = found.get("claims") if valid and isinstance(found, dict) else None
        self.previous: dict[str, Any] = claims if isinstance(claims, dict) else {}
        self.current: dict[str, Any] = {}
        self.reused = 0
        self.checked = 0
        self._world: tuple[KnowledgeBase, str] | None = None
        self._states: dict[str, str] = {}
        self._entries: dict[str, CacheEntry] | None = None

    def _world_digest(self, kb: KnowledgeBase) -> str:
        """The digest of every source and version record, places left out."""
        if self._world is None or self._world[0] is not kb:
            self._world = (kb, digest(canonical(list(kb.sources.values()), places=False),
                                      canonical(list(kb.versions.values()), places=False)))
            self._states = {}
            self._entries = None
        return self._world[1]

    def _state(self, kb: KnowledgeBase, book: FactBook, source_id: str) -> str:
        """What the fact book would find for this source now: the digest of its copy."""
        known = self._states.get(source_id)
        if known is not None:
            return known
        source = kb.sources.get(source_id)
        if source is None:
            state = "unknown"
        elif source.local:
            try:
                state = "local " + sha256_of((kb.project.root / source.path).read_bytes())
            except OSError as e:
                state = f"local unreadable {e.errno}"
        else:
            if self._entries is None:
                self._entries = book.cache.entries()
            data = book.cache.content(source.id, source.sha256)
            damaged = data is None and bool(source.sha256) and book.cache.damaged(source.sha256)
            entry = self._entries.get(source.id)
            state = digest("copy", sha256_of(data) if data is not None else "none", str(damaged),
                           canonical(entry) if entry is not None else "no entry")
        self._states[source_id] = state
        return state

    def evaluate(self, claim: Claim, kb: KnowledgeBase, book: FactBook) -> ClaimResult:
        """[`evaluate`][a2a_kb.knowledge.check.evaluate], or the remembered result while nothing it read
        changed."""
        key = digest(self.code, self._world_digest(kb), canonical(claim, places=False))
        found = self.previous.get(claim.id)
        if (isinstance(found, dict) and found.get("key") == key and isinstance(found.get("reads"), dict)
                and all(self._state(kb, book, sid) == state for sid, state in found["reads"].items())):
            try:
                result = _from_record(claim, found["result"])
            except (KeyError, TypeError, ValueError):
                result = None  # a record of another shape: check again
            if result is not None:
                self.current[claim.id] = found
                self.reused += 1
                return result
        book.read = set()
        result = evaluate(claim, kb, book)
        reads = {sid: self._state(kb, book, sid) for sid in sorted(book.read)}
        self.current[claim.id] = {"key": key, "reads": reads, "result": _as_record(result)}
        self.checked += 1
        return result

    def commit(self) -> None:
        """Keep this run's verdicts (only the claims that still exist) for the next run."""
        if self.current == self.previous:
            return
        self.store.write(_NAME, {"format": FORMAT, "code": self.code, "claims": self.current})
