"""The inputs of the generated pages: named parts of `SiteData` and their
digests.

Each page family in `FAMILIES` declares the parts of the site data it reads,
by these names (*aspects*):

`claims`                which claims exist, in order (and so which results: one per claim)
`claims.<field>`        one field of every claim (`claims.statement`); `claims.*`: all
`results.<field>`       one field of every claim's check result; `results.*`: all
`topic:<topic>`         every field of the claims of one claims file, and their results
`<aspect>@shown`        a claim or result field, of only the claims a page names by id
`sources`, `versions`, `conflicts`, `upstream`, `sweep`, `kb.problems`
                          every field of every record of that kind (of the KB's problems)
`facts`                 what the fact book reads: each source's copy in the cache (or the
                          local file of a transcript) and the cache index's word on drift
`project`               the project's settings, and today's date when none is pinned
`register`, `tables`, `diffs`, `lifecycle`, `dates`, `generated_at`,
`problems`, `transcripts`, `reliability`, `benchmark`, `site_quality`
                          that attribute of the site data, whole

`Digests` hashes an aspect of one build's site data (each once); the generation
cache keys a family's pages by the digests of what it declares. A declaration that misses
something the renderer reads would let a changed page be taken from an earlier build, so
`reads.watching` records every read, and tests/test_site_inputs.py holds each
family's declaration to the reads of a real render (and fails on a declared aspect that is
never read).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..cache import Cache, sha256_of
from ..knowledge.check import ClaimResult
from ..knowledge.digest import canonical, digest
from ..records.kb import KnowledgeBase
from ..records.model import Claim
from . import paths

if TYPE_CHECKING:
    from .data import SiteData

# SiteData attributes that are aspects of their own, whole.
WHOLE = ("register", "tables", "diffs", "lifecycle", "dates", "generated_at", "problems",
         "transcripts", "reliability", "benchmark", "site_quality")
# Records read as a kind: KnowledgeBase attribute → aspect.
KINDS = {"sources": "sources", "versions": "versions", "conflicts": "conflicts",
         "upstream": "upstream", "sweep": "sweep", "problems": "kb.problems"}
_CLAIM_FIELDS = tuple(f.name for f in dataclasses.fields(Claim))
_RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(ClaimResult) if f.name != "claim")


_CLAIM_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # the schema's pattern of a claim id
SHOWN = "@shown"


def topic_of(claim: Claim) -> str:
    return paths.claim_topic(claim.file)


def named_claims(contents: Iterable[str], kb: KnowledgeBase) -> list[str] | None:
    """The ids of the claims that `contents` name (as a link's anchor, in `<code>`, in a
    data attribute or a JSON string: wherever a claim is shown, its id is written, and
    tests/test_site_inputs.py holds the renderers to it). None when some claim id is not of
    the schema's form, so that it could hide in a longer word: then no page is credited
    with naming only some claims."""
    ids = set(kb.claims)
    if any(_CLAIM_ID.fullmatch(i) is None for i in ids):
        return None
    found: set[str] = set()
    for text in contents:
        found.update(_CLAIM_ID.findall(text))
    return sorted(found & ids)


class Digests:
    """The digest of each aspect of one build's site data, computed when first asked."""

    def __init__(self, data: SiteData | None = None, *, kb: KnowledgeBase | None = None) -> None:
        """Of the site data, or (`kb`) of the knowledge base alone: then only the aspects
        of its records and of the facts can be asked for."""
        if data is None and kb is None:
            raise TypeError("Digests needs the site data or a knowledge base")
        self.data = data
        self.kb: KnowledgeBase = data.kb if data is not None else kb  # type: ignore[assignment]
        self.results: dict[str, ClaimResult] = data.results if data is not None else {}
        self._known: dict[str, str] = {}
        self._topics: dict[str, list[Claim]] | None = None
        self._claims: dict[str, str] = {}
        self._results: dict[tuple[str, str], str] = {}

    def of(self, aspect: str) -> str:
        found = self._known.get(aspect)
        if found is None:
            found = self._known[aspect] = digest(aspect, self._text(aspect))
        return found

    def shown(self, aspect: str, ids: list[str] | None) -> str:
        """The digest of one field (`claims.statement`) of the claims `ids` only; of every
        claim when `ids` is None."""
        if ids is None:
            return self.of(aspect)
        kind, _, name = aspect.partition(".")
        if kind == "claims" and name in _CLAIM_FIELDS:
            claims = self.kb.claims
            return digest(aspect, SHOWN, canonical([[i, getattr(claims[i], name) if i in claims else None]
                                                    for i in ids]))
        if kind == "results" and name in _RESULT_FIELDS:
            results = self.results
            return digest(aspect, SHOWN, canonical([[i, getattr(results[i], name) if i in results else None]
                                                    for i in ids]))
        raise KeyError(f"no aspect {aspect}{SHOWN}")

    def _claim(self, claim: Claim) -> str:
        """The digest of one claim, every field (the claims.* and topic aspects list these)."""
        found = self._claims.get(claim.id)
        if found is None:
            found = self._claims[claim.id] = digest(canonical(claim))
        return found

    def _result(self, claim_id: str, name: str) -> str:
        """The digest of one field of one claim's result (`*`: all fields), each made once
        however many aspects list it: a result's evidence is most of what is hashed."""
        key = (claim_id, name)
        found = self._results.get(key)
        if found is None:
            result = self.results.get(claim_id)
            if result is None:
                found = "none"
            elif name == "*":
                found = digest(*(self._result(claim_id, f) for f in _RESULT_FIELDS))
            else:
                found = digest(canonical(getattr(result, name)))
            self._results[key] = found
        return found

    def _text(self, aspect: str) -> str:
        data, kb = self.data, self.kb
        if aspect == "claims":
            return canonical(list(kb.claims))
        if aspect.startswith("claims."):
            name = aspect.removeprefix("claims.")
            if name == "*":
                return canonical([[c.id, self._claim(c)] for c in kb.claims.values()])
            if name not in _CLAIM_FIELDS:
                raise KeyError(f"no claim field {name!r} (aspect {aspect!r})")
            return canonical([[c.id, getattr(c, name)] for c in kb.claims.values()])
        if aspect.startswith("results."):
            name = aspect.removeprefix("results.")
            if name != "*" and name not in _RESULT_FIELDS:
                raise KeyError(f"no result field {name!r} (aspect {aspect!r})")
            if name in ("verdict", "blocked_by"):  # short: as they are
                return canonical([[cid, getattr(r, name)] for cid, r in self.results.items()])
            return canonical([[cid, self._result(cid, name)] for cid in self.results])
        if aspect.startswith("topic:"):
            if self._topics is None:
                self._topics = {}
                for c in kb.claims.values():
                    self._topics.setdefault(topic_of(c), []).append(c)
            claims = self._topics.get(aspect.removeprefix("topic:"), [])
            return canonical([[c.id, self._claim(c), self._result(c.id, "*")] for c in claims])
        if aspect in ("sources", "versions", "conflicts", "upstream"):
            return canonical(list(getattr(kb, aspect).values()))
        if aspect == "sweep":
            return canonical(kb.sweep)
        if aspect == "kb.problems":
            return canonical(kb.problems)
        if aspect == "facts":
            return self._facts()
        if aspect == "project":
            today = kb.project.today or dt.date.today().isoformat()
            return canonical([kb.project.max_age_days, kb.project.today, today])
        if aspect in WHOLE and data is not None:
            return canonical(getattr(data, aspect))
        raise KeyError(f"no aspect {aspect!r}")

    def _facts(self) -> str:
        """What every source's facts and text are read from, as the fact book finds it."""
        kb = self.kb
        cache = Cache(kb.project.cache_dir)
        entries = cache.entries()
        rows: list[Any] = []
        for source in kb.sources.values():
            if source.local:
                try:
                    state = sha256_of((kb.project.root / source.path).read_bytes())
                except OSError as e:
                    state = f"unreadable {e.errno}"
            else:
                found = cache.content(source.id, source.sha256)
                state = sha256_of(found) if found is not None else (
                    "damaged" if source.sha256 and cache.damaged(source.sha256) else "missing")
            rows.append([source.id, state, entries.get(source.id)])
        return canonical(rows)
