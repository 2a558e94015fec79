"""A watch on what a renderer really reads of the site data (for tests, never for a build).

`watching` patches the record classes' attribute lookup for its duration and records
each read as an aspect of `inputs` (`claims.statement`, `sources`, …);
tests/test_site_inputs.py holds each page family's declared inputs to the reads of a real
render. Its own module, above `data` and `inputs`: the site data keeps its
caches by the digests of `inputs`, and this watch patches the site data's class.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from ..knowledge.check import ClaimResult, FactBook
from ..project import Project
from ..records.kb import KnowledgeBase
from ..records.model import Claim, Conflict, Side, Source, Version
from .data import SiteData
from .inputs import _CLAIM_FIELDS, _RESULT_FIELDS, KINDS, SHOWN, WHOLE, topic_of


@dataclasses.dataclass
class Reads:
    """What a renderer read: aspects read whole, and the claim and result fields it read."""

    aspects: set[str] = dataclasses.field(default_factory=set)
    claim_fields: set[tuple[str, str]] = dataclasses.field(default_factory=set)  # (claim id, field)
    result_fields: set[tuple[str, str]] = dataclasses.field(default_factory=set)

    def clear(self) -> None:
        self.aspects.clear()
        self.claim_fields.clear()
        self.result_fields.clear()

    def uncovered(self, declared: set[str], kb: KnowledgeBase, named: set[str]) -> list[str]:
        """The reads that `declared` does not cover, each named; `named` are the claims
        the rendered pages name (what an `@shown` aspect covers)."""
        # Which claims exist is in the digest of each of their fields.
        listed = declared | ({"claims"} if any(a.startswith(("claims.", "results.")) and not a.endswith(SHOWN)
                                               for a in declared) else set())
        missing = sorted(a for a in self.aspects if a not in listed)
        topics = {c.id: topic_of(c) for c in kb.claims.values()}
        for kind, seen in (("claims", self.claim_fields), ("results", self.result_fields)):
            for claim_id, name in sorted(seen):
                covering = {f"{kind}.{name}", f"{kind}.*", f"topic:{topics.get(claim_id)}"}
                if claim_id in named:
                    covering.add(f"{kind}.{name}{SHOWN}")
                if not covering & declared:
                    missing.append(f"{kind}.{name} (of {claim_id})")
        return sorted(set(missing))

    def covered(self, aspect: str, kb: KnowledgeBase) -> bool:
        """Whether this watch saw a read of `aspect` (a declaration never used is stale)."""
        if aspect in self.aspects:
            return True
        if aspect.startswith("topic:"):
            wanted = aspect.removeprefix("topic:")
            ids = {c.id for c in kb.claims.values() if topic_of(c) == wanted}
            return any(cid in ids for cid, _ in self.claim_fields | self.result_fields)
        for prefix, seen in (("claims.", self.claim_fields), ("results.", self.result_fields)):
            if aspect.startswith(prefix):
                name = aspect.removeprefix(prefix).removesuffix(SHOWN)
                return any(name in ("*", f) for _, f in seen)
        return False


@contextlib.contextmanager
def watching() -> Iterator[Reads]:
    """Record every read of the site data and its records while the block runs."""
    reads = Reads()
    plain = object.__getattribute__

    def site(self: Any, name: str) -> Any:
        if name in WHOLE:
            reads.aspects.add(name)
        elif name == "results":
            reads.aspects.add("claims")
        return plain(self, name)

    def knowledge(self: Any, name: str) -> Any:
        if name == "claims":
            reads.aspects.add("claims")
        elif name in KINDS:
            reads.aspects.add(KINDS[name])
        return plain(self, name)

    def claim(self: Any, name: str) -> Any:
        if name in _CLAIM_FIELDS:
            reads.claim_fields.add((plain(self, "id"), name))
        return plain(self, name)

    def result(self: Any, name: str) -> Any:
        if name in _RESULT_FIELDS:
            reads.result_fields.add((plain(plain(self, "claim"), "id"), name))
        return plain(self, name)

    def kind(aspect: str) -> Any:
        def read(self: Any, name: str) -> Any:
            if not name.startswith("__"):
                reads.aspects.add(aspect)
            return plain(self, name)
        return read

    def settings(self: Any, name: str) -> Any:
        if name in ("today", "max_age_days"):  # not its paths: where it is is not what it says
            reads.aspects.add("project")
        return plain(self, name)

    patched: dict[type, Any] = {
        SiteData: site, KnowledgeBase: knowledge, Claim: claim, ClaimResult: result,
        Source: kind("sources"), Version: kind("versions"), Conflict: kind("conflicts"),
        Side: kind("conflicts"), FactBook: kind("facts"), Project: settings,
    }
    saved = {cls: cls.__dict__.get("__getattribute__") for cls in patched}
    try:
        for cls, hook in patched.items():
            cls.__getattribute__ = hook  # type: ignore[method-assign]
        yield reads
    finally:
        for cls, before in saved.items():
            if before is None:
                del cls.__getattribute__
            else:
                cls.__getattribute__ = before  # type: ignore[method-assign]
