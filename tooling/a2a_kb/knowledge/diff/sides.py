"""Which description each version has for each binding, read once per source.

- `grpc`: the version's .proto (`specification/grpc/a2a.proto` in v0.2–v0.3,
  `specification/a2a.proto` from v1.0), compared as compiled descriptors;
- `json`: the JSON-RPC binding: the JSON schema up to v0.3.0, and from v1.0 (which has no
  schema of its own) the .proto read as ProtoJSON.

A binding is *replaced* between two versions when its description changed nature (v0.3.0's
schema → v1.0's ProtoJSON); the diff then reports the migration path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigurationError
from ...extract import EXTRACTOR_VERSIONS
from ...facts import Fact
from ...records.kb import KnowledgeBase
from ...records.model import Source
from ..factbook import FactBook
from . import descriptors, prose, schema
from .descriptors import ProtoFile
from .kept import kept

BINDINGS = ("grpc", "json")
_NORMATIVE_PROTO = ("specification/a2a.proto", "specification/grpc/a2a.proto")


@dataclass(frozen=True)
class Side:
    """One version read through one binding."""

    version: str
    binding: str
    source: Source

    @property
    def label(self) -> str:
        return f"{self.version}:{self.binding}"

    @property
    def is_proto(self) -> bool:
        return self.source.kind == "proto"


def _primary(sources: list[Source], kind: str) -> Source | None:
    """The version's own description of this kind: from the A2A repository, at the path the
    specification keeps it (a copy in another repository, such as a test suite's, is not it)."""
    found = [s for s in sources if s.kind == kind and s.authority == "primary" and s.pinned]
    found.sort(key=lambda s: (s.path not in _NORMATIVE_PROTO and kind == "proto",
                              "a2aproject/A2A/" not in s.url,
                              _NORMATIVE_PROTO.index(s.path) if s.path in _NORMATIVE_PROTO else 9, s.id))
    return found[0] if found else None


def bindings(kb: KnowledgeBase, version: str) -> dict[str, Source]:
    """binding → the source that describes it, for every binding the version has."""
    sources = kb.sources_of(kb.version(version).id)
    proto = _primary(sources, "proto")
    json_schema = _primary(sources, "json-schema")
    found: dict[str, Source] = {}
    if proto is not None:
        found["grpc"] = proto
    if json_schema is not None or proto is not None:
        found["json"] = json_schema or proto  # type: ignore[assignment]
    return found


def side(kb: KnowledgeBase, version: str, binding: str) -> Side:
    if binding and binding not in BINDINGS:
        raise ConfigurationError(f"unknown binding '{binding}' (known: {', '.join(BINDINGS)})")
    v = kb.version(version)
    have = bindings(kb, v.id)
    if not have:
        raise ConfigurationError(f"version {v.id} has no JSON schema or .proto to compare")
    if binding not in have:
        raise ConfigurationError(
            f"version {v.id} has no {binding} binding (it has: {', '.join(have)})")
    return Side(v.id, binding, have[binding])


class Reader:
    """Compiled .protos, read JSON descriptions and the facts the prose comparison reads,
    once per source."""

    def __init__(self, book: FactBook, cache_root: Path) -> None:
        self.book = book
        self.cache_root = cache_root
        self._protos: dict[str, ProtoFile] = {}
        self._json: dict[str, schema.JsonDescription] = {}

    def proto(self, source: Source) -> ProtoFile:
        if source.id not in self._protos:
            self._protos[source.id] = descriptors.load(source, self.book.text(source), self.cache_root)
        return self._protos[source.id]

    def json(self, source: Source) -> schema.JsonDescription:
        if source.id not in self._json:
            self._json[source.id] = (schema.from_proto(self.proto(source)) if source.kind == "proto"
                                     else schema.load_schema(source, self.book.text(source), self.cache_root))
        return self._json[source.id]

    def prose_facts(self, source: Source) -> dict[str, list[Fact]]:
        """The facts of `source` that `prose` reads, by key, kept (see `kept`)
        by the text, the extractor's version and the list of keys read."""
        extractor = f"{source.kind}-{EXTRACTOR_VERSIONS.get(source.kind, '')}"
        return kept(self.cache_root, self.book.text(source), f"prose-{prose.VIEW}.{extractor}",
                    lambda: {k: v for k, v in self.book.facts(source).items() if prose.reads(k)},
                    _dump_facts, lambda rows: _undump_facts(source, rows))


def _dump_facts(facts: dict[str, list[Fact]]) -> list[list[Any]]:
    return [[f.kind, f.subject, f.value, f.line_start, f.line_end] for found in facts.values() for f in found]


def _undump_facts(source: Source, rows: list[list[Any]]) -> dict[str, list[Fact]]:
    """The kept facts, stamped with the source that asks (two sources can share a text)."""
    by_key: dict[str, list[Fact]] = {}
    for kind, subject, value, start, end in rows:
        fact = Fact(str(kind), str(subject), value, source.id, source.path, source.commit,
                    int(start), int(end))
        by_key.setdefault(fact.key, []).append(fact)
    return by_key
