"""What the versions' prose and JSON-RPC error definitions say, compared from facts: the
class of each state (terminal, interrupted), the error mappings to HTTP and gRPC status,
and the codes and messages of the JSON-RPC errors."""

from __future__ import annotations

from dataclasses import dataclass

from ...facts import Fact
from ...records.model import Source
from ..states import classes_of  # the state table's reading of a source's classes
from .model import Change, Location

PROSE = "prose"

# Every fact this comparison reads, by key. A diff keeps only these facts of each source
# (sides.Reader.prose_facts): a spec's facts are mostly the text of its sections, which no
# comparison here reads. Read a new key here, and name it here and bump VIEW.
VIEW = 2
_KEYS = ("enum-values:TaskState", "terminal-states:TaskState", "interrupted-states:TaskState")
_PREFIXES = ("error:", "error-mapping:", "state-class:TaskState.")


def reads(key: str) -> bool:
    """Whether the comparison reads the facts of `key`."""
    return key in _KEYS or key.startswith(_PREFIXES)


@dataclass
class ProseSide:
    """A version's normative description and its prose, with their facts."""

    schema: Source
    schema_facts: dict[str, list[Fact]]
    prose: list[tuple[Source, dict[str, list[Fact]]]]
    states: set[str]  # the canonical states the version's enum has


def _at(side: str, source: Source, fact: Fact | None) -> Location:
    return Location(side, source, (fact.line_start, fact.line_end) if fact else (0, 0))


def _first(facts: dict[str, list[Fact]], key: str) -> Fact | None:
    found = facts.get(key)
    return found[0] if found else None


def _classes(side: ProseSide) -> dict[str, tuple[str, Source, Fact]]:
    """The class each state has according to the version's sources (the first that says)."""
    result: dict[str, tuple[str, Source, Fact]] = {}
    for source, facts in [(side.schema, side.schema_facts), *side.prose]:
        for key, label in (("terminal-states:TaskState", "terminal"),
                           ("interrupted-states:TaskState", "interrupted")):
            fact = _first(facts, key)
            for state in fact.value if fact else []:
                result.setdefault(state, (label, source, fact))  # type: ignore[arg-type]
    return result


def classes(a: ProseSide, b: ProseSide) -> list[Change]:
    ca, cb = _classes(a), _classes(b)
    changes = []
    for state in sorted(ca.keys() | cb.keys()):
        old, new = ca.get(state), cb.get(state)
        if old and new and old[0] != new[0]:
            where = [_at("old", old[1], old[2]), _at("new", new[1], new[2])]
            before, after = old[0], new[0]
        elif old and not new and state in b.states:
            where = [_at("old", old[1], old[2]), _at("new", b.schema, None)]
            before, after = old[0], "unclassified"
        elif new and not old and state in a.states:
            where = [_at("old", a.schema, None), _at("new", new[1], new[2])]
            before, after = "unclassified", new[0]
        else:
            continue
        changes.append(Change("class-changed", f"TaskState.{state}", before, after, PROSE, ("behaviour",),
                              where, elements=(f"value:TaskState.{state}",)))
    return changes


def proto_classes(a: tuple[Source, dict[str, list[Fact]]], b: tuple[Source, dict[str, list[Fact]]],
                  states: set[str], already: list[Change]) -> list[Change]:
    """The class each state has in the gRPC binding's own comments, version against version:
    v0.3.0's .proto says AUTH_REQUIRED is neither interrupted nor terminal, v1.0's calls it
    interrupted, though the prose of both versions already calls it interrupted."""
    ca, cb = classes_of(a[1], sorted(states)), classes_of(b[1], sorted(states))
    seen = {(c.subject, c.old, c.new) for c in already}
    changes = []
    for state in sorted(ca.keys() & cb.keys()):
        (before, fa), (after, fb) = ca[state], cb[state]
        if before == after or (f"TaskState.{state}", before, after) in seen:
            continue
        changes.append(Change("class-changed", f"TaskState.{state}", before, after, PROSE, ("behaviour",),
                              [_at("old", a[0], fa), _at("new", b[0], fb)],
                              note="as the gRPC binding's .proto comments classify it",
                              elements=(f"value:TaskState.{state}",)))
    return changes


def error_definitions(a: ProseSide, b: ProseSide) -> list[Change]:
    """JSON-RPC errors defined in both JSON schemas whose code or default message changed."""
    changes: list[Change] = []
    for key in sorted(k for k in a.schema_facts if k.startswith("error:")):
        fa, fb = _first(a.schema_facts, key), _first(b.schema_facts, key)
        if fa is None or fb is None or not isinstance(fa.value, dict) or not isinstance(fb.value, dict):
            continue
        name = key.split(":", 1)[1]
        where = [_at("old", a.schema, fa), _at("new", b.schema, fb)]
        if fa.value.get("code") != fb.value.get("code") and fb.value.get("code") is not None:
            changes.append(Change("error-code-changed", name, fa.value.get("code"), fb.value.get("code"),
                                  "json", ("json",), where, elements=(f"definition:{name}",)))
        if fa.value.get("message") != fb.value.get("message") and fb.value.get("message"):
            changes.append(Change("error-message-changed", name, fa.value.get("message"),
                                  fb.value.get("message"), "json", (), where, severity="editorial",
                                  elements=(f"definition:{name}",)))
    return changes


def _mappings(side: ProseSide) -> dict[str, tuple[Fact, Source]]:
    """The error mappings of a side's prose, by their leading passage only: the copies
    keyed `…@<section>` repeat them and would report every change twice."""
    found: dict[str, tuple[Fact, Source]] = {}
    for source, facts in side.prose:
        for key, facts_of_key in facts.items():
            if key.startswith("error-mapping:") and "@" not in key and key not in found:
                found[key] = (facts_of_key[0], source)
    return found


def error_mappings(a: ProseSide, b: ProseSide) -> list[Change]:
    ma, mb = _mappings(a), _mappings(b)
    changes = []
    for key in sorted(ma.keys() & mb.keys()):
        (fa, sa), (fb, sb) = ma[key], mb[key]
        if fa.value != fb.value:
            name = key.split(":", 1)[1]
            changes.append(Change("error-mapping-changed", name, fa.value, fb.value, PROSE, ("behaviour",),
                                  [_at("old", sa, fa), _at("new", sb, fb)], elements=(f"error:{name}",)))
    return changes
