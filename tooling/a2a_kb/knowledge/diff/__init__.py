"""diff: every lifecycle change between two versions, per binding, from compiled descriptors.

`diff(kb, "0.3.0", "1.0.0")` compares every binding the two versions share (see
`sides`): the .protos compiled by protoc (`descriptors`, `proto`), and
the JSON-RPC binding as JSON (`schema`), which between v0.3.0 and v1.0 is the
migration from a JSON schema to ProtoJSON. `0.3.0:json 1.0.0:json` narrows to one
binding; `diff 0.3.0 0.3.0` compares one version's bindings with each other. Only what
the task operations reach is compared (`scope`). Each change says which encodings it
breaks and how severe it is for a client of its binding (`encodings`); the prose's
state classes and error mappings come from facts (`prose`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from ...cache import Cache
from ...extract.lifecycle import state_name  # a state added upstream is a change, not skipped
from ...records.kb import KnowledgeBase
from ...records.model import Source
from ..factbook import FactBook
from . import prose, proto, rest, schema
from .encodings import BINDINGS, ENCODINGS, SEVERITIES
from .formats import format_markdown, format_text
from .model import KINDS, Change, Comparison, DiffResult, Location, register_kind
from .sides import Reader, Side, bindings, side

__all__ = [
    "BINDINGS", "ENCODINGS", "KINDS", "READS", "SEVERITIES", "Change", "Comparison", "DiffResult",
    "Location", "Reader", "diff", "diff_all", "format_markdown", "format_text", "register_kind",
]

# The record kinds a diff reads (versions, and the sources that describe them), and so the
# ones `a2a-kb diff` validates: a broken claim or conflict does not stop it.
READS = ("version", "source")


def _split(spec: str) -> tuple[str, str]:
    name, _, binding = spec.partition(":")
    return name, binding


def _pairs(kb: KnowledgeBase, old: str, new: str) -> list[tuple[Side, Side, bool]]:
    """The sides to compare: (old, new, whether the binding was replaced)."""
    old_name, old_binding = _split(old)
    new_name, new_binding = _split(new)
    if old_binding or new_binding:
        binding = old_binding or new_binding
        return [(side(kb, old_name, old_binding or binding), side(kb, new_name, new_binding or binding),
                 False)]
    if kb.version(old_name).id == kb.version(new_name).id:
        return [(side(kb, old_name, "json"), side(kb, new_name, "grpc"), False)]
    old_has, new_has = bindings(kb, old_name), bindings(kb, new_name)
    shared = [b for b in ("grpc", "json") if b in old_has and b in new_has]
    if not shared:
        # No binding in common (a JSON-only version against a .proto-only one): compare
        # what each version defines, through JSON.
        return [(side(kb, old_name, "json"), side(kb, new_name, "json"), True)]
    return [(side(kb, old_name, b), side(kb, new_name, b),
             old_has[b].kind != new_has[b].kind) for b in shared]


_TITLES = {"grpc": "gRPC and ProtoJSON: the .proto's messages, enums and RPCs",
           "json": "JSON-RPC: the JSON shape of every message"}


def diff(kb: KnowledgeBase, old: str, new: str, *, book: FactBook | None = None,
         reader: Reader | None = None) -> DiffResult:
    """Every change between `old` and `new` (each 'VERSION' or 'VERSION:BINDING')."""
    book = book or FactBook(kb, Cache(kb.project.cache_dir))
    reader = reader or Reader(book, kb.project.cache_dir)
    changes: list[Change] = []
    comparisons: list[Comparison] = []
    pairs = _pairs(kb, old, new)
    for a, b, replaced in pairs:
        if a.is_proto and b.is_proto and a.binding == b.binding == "grpc":
            old_proto, new_proto = reader.proto(a.source), reader.proto(b.source)
            found = proto.compare(old_proto, new_proto) + rest.compare(old_proto, new_proto)
            owns: tuple[str, ...] = ("grpc", "rest")
        else:
            found = schema.compare(reader.json(a.source), reader.json(b.source))
            owns = ("json",)
        label = a.binding if a.binding == b.binding else f"{a.binding}→{b.binding}"
        title = _TITLES.get(label, f"{a.label} against {b.label}, through JSON")
        if replaced:
            title = (f"JSON-RPC, migration: {a.version}'s {_nature(a)} → {b.version}'s {_nature(b)}")
        comparisons.append(Comparison(label, a.label, b.label, a.source.id, b.source.id, replaced, title,
                                      owns))
        changes += found
    first, last = pairs[0][0], pairs[-1][1]
    changes += _prose(kb, reader, first, last)
    if len(pairs) == 1:
        return DiffResult(first.label, last.label, changes, comparisons)
    return DiffResult(first.version, last.version, changes, comparisons)


def diff_all(kb: KnowledgeBase, *, progress: Callable[[int, int, str], None] | None = None
             ) -> Iterator[DiffResult]:
    """Every ordered pair of versions (old before new), in one process: each description is
    read, and each .proto compiled, once for all the pairs it is in."""
    book = FactBook(kb, Cache(kb.project.cache_dir))
    reader = Reader(book, kb.project.cache_dir)
    versions = [v.id for v in kb.ordered_versions]
    pairs = list(itertools.combinations(versions, 2))
    for done, (old, new) in enumerate(pairs, 1):
        result = diff(kb, old, new, book=book, reader=reader)
        result.old, result.new = old, new  # a pair is named by its versions, whatever it compared
        yield result
        if progress is not None:
            progress(done, len(pairs), f"{old} → {new}")


def _nature(s: Side) -> str:
    return "ProtoJSON of the .proto" if s.is_proto else "JSON schema"


def _prose(kb: KnowledgeBase, reader: Reader, a: Side, b: Side) -> list[Change]:
    """State classes and error mappings from the versions' prose (beside each version's
    normative description: its JSON schema up to v0.3.0, its .proto from v1.0), and the
    JSON-RPC error definitions when both versions have a JSON schema."""
    normative = [bindings(kb, s.version)["json"] for s in (a, b)]
    sides = [_prose_side(kb, reader, s.version, source) for s, source in zip((a, b), normative, strict=True)]
    found = prose.classes(*sides)
    old_proto, new_proto = (bindings(kb, s.version).get("grpc") for s in (a, b))
    if old_proto is not None and new_proto is not None:
        found += prose.proto_classes((old_proto, reader.prose_facts(old_proto)),
                                     (new_proto, reader.prose_facts(new_proto)),
                                     sides[0].states & sides[1].states, found)
    found += prose.error_mappings(*sides)
    if all(source.kind == "json-schema" for source in normative):
        found = prose.error_definitions(*sides) + found
    return found


def _prose_side(kb: KnowledgeBase, reader: Reader, version: str, normative: Source) -> prose.ProseSide:
    facts = reader.prose_facts(normative)
    spellings = [v for fact in facts.get("enum-values:TaskState", []) for v in fact.value]
    states = {c for c in map(state_name, spellings) if c}
    texts = [src for src in kb.sources_of(version) if src.kind in ("spec", "docs") and src.pinned]
    return prose.ProseSide(normative, facts, [(src, reader.prose_facts(src)) for src in texts], states)
