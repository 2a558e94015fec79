"""The texts and facts of pinned sources, each read once: from the cache (or captures/ for
a capture), the facts extracted on first use and kept by the bytes' sha256.

Its own module, apart from [`check`][a2a_kb.knowledge.check], so that a reader of facts (the diff, the state
tables) imports neither the check's plan nor its pattern engine.
"""

from __future__ import annotations

from ..cache import Cache, CacheEntry
from ..errors import SourceUnavailable
from ..facts import Fact
from ..records.kb import KnowledgeBase
from ..records.model import Source


class FactBook:
    """The facts of every pinned source, extracted on first use and cached by sha256."""

    def __init__(self, kb: KnowledgeBase, cache: Cache) -> None:
        from ..extract.factstore import FactStore  # the extract stage is only needed when checking

        self.kb = kb
        self.cache = cache
        self.store = FactStore(cache.root / "facts")
        self._facts: dict[str, dict[str, list[Fact]]] = {}
        self._text: dict[str, str] = {}
        self._entries: dict[str, CacheEntry] | None = None  # the cache's index, read once
        # The ids of the sources asked about, so that a caller can tell what one claim's
        # check read (knowledge.verdicts keys a remembered verdict by those sources).
        self.read: set[str] = set()

    def text(self, source: Source) -> str:
        self.read.add(source.id)
        if source.id not in self._text:
            if source.local:
                path = self.kb.project.root / source.path
                try:
                    self._text[source.id] = path.read_text("utf-8")
                except OSError as e:
                    raise SourceUnavailable(
                        f"source '{source.id}': cannot read {source.path}: {e.strerror}",
                        source.id,
                    ) from e
                return self._text[source.id]
            data = self.cache.content(source.id, source.sha256)
            if data is None and self.cache.damaged(source.sha256):
                raise SourceUnavailable(
                    f"source '{source.id}': the cached copy is damaged (its bytes no longer hash "
                    "to the pinned sha256) (tip: run `a2a-kb fetch` to replace it)"
                )
            if data is None:
                raise SourceUnavailable(
                    f"source '{source.id}' is not in the cache (tip: run `a2a-kb fetch`)",
                    source.id,
                )
            self._text[source.id] = data.decode("utf-8", "replace")
        return self._text[source.id]

    def facts(self, source: Source) -> dict[str, list[Fact]]:
        self.read.add(source.id)
        if source.id not in self._facts:
            from ..extract.factstore import facts_for

            data = self.text(source).encode("utf-8")
            by_key: dict[str, list[Fact]] = {}
            for fact in facts_for(source, data, self.store):
                by_key.setdefault(fact.key, []).append(fact)
            self._facts[source.id] = by_key
        return self._facts[source.id]

    def drifted(self, source: Source) -> str:
        """Why `source` no longer matches its pin, or '' when it does."""
        self.read.add(source.id)
        if self._entries is None:
            self._entries = self.cache.entries()
        entry = self._entries.get(source.id)
        if source.pinned and entry is not None and entry.upstream_sha256 not in ("", source.sha256):
            return (
                f"source '{source.id}' changed upstream: pinned sha256 {source.sha256[:12]}…, "
                f"the last refresh got {entry.upstream_sha256[:12]}… (tip: review the claims on it, "
                "then pin the new copy)"
            )
        if source.pinned and entry is not None and entry.sha256 != source.sha256:
            return (
                f"source '{source.id}' changed: pinned sha256 {source.sha256[:12]}…, "
                f"last fetched {entry.sha256[:12]}… on {entry.fetched_at[:10]}"
            )
        return ""

    def has_pinned_copy(self, source: Source) -> bool:
        self.read.add(source.id)
        return source.local or self.cache.has_blob(source.sha256)
