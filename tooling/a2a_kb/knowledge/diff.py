"""diff: every lifecycle change between two versions (or two bindings of one), from facts.

A side of a comparison is a version and a binding. By default each version is read
through its normative binding: the JSON schema up to v0.3.0, the .proto from v1.0 on.
``0.3.0:grpc`` names a binding explicitly; ``diff 0.3.0 0.3.0`` compares the bindings
of one version with each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigurationError
from ..extract.lifecycle import state_name
from ..facts import Fact
from ..records.kb import KnowledgeBase
from ..records.model import Source
from ..sources.cache import Cache
from .check import FactBook

SEVERITIES = ("wire-breaking", "source-breaking", "behavioural", "editorial")
_KIND_ORDER = (
    "naming-convention", "state-added", "state-removed", "state-renamed", "state-renumbered",
    "class-changed", "field-added", "field-removed", "field-required-changed", "field-renumbered",
    "field-number-reused", "error-code-changed", "error-message-changed", "error-mapping-changed",
    "method-added", "method-removed",
)
LIFECYCLE_MESSAGES = ("Task", "TaskStatus", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent")
_BINDING_KINDS = {"json": ("json-schema",), "grpc": ("proto",)}


@dataclass
class Side:
    """One side of a comparison: a version read through one binding."""

    version: str
    binding: str
    schema: Source  # the source that defines the types (json-schema or proto)
    prose: list[Source]  # spec and docs of the version, for classes
    facts: dict[str, list[Fact]]
    prose_facts: dict[str, dict[str, list[Fact]]]

    @property
    def label(self) -> str:
        return f"{self.version}:{self.binding}"


@dataclass
class Change:
    kind: str
    subject: str
    old: Any
    new: Any
    severity: str
    binding: str
    locations: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "old": self.old,
            "new": self.new,
            "severity": self.severity,
            "binding": self.binding,
            "locations": self.locations,
        }


@dataclass
class DiffResult:
    old: str
    new: str
    changes: list[Change]

    def at_least(self, severity: str) -> bool:
        limit = SEVERITIES.index(severity)
        return any(SEVERITIES.index(c.severity) <= limit for c in self.changes)

    def as_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "changes": [c.as_json() for c in self.changes],
            "counts": {s: sum(c.severity == s for c in self.changes) for s in SEVERITIES},
        }


def _location(source: Source, fact: Fact | None, side: str) -> dict[str, Any]:
    lines = [fact.line_start, fact.line_end] if fact else [0, 0]
    return {
        "side": side,
        "source": source.id,
        "path": source.path,
        "commit": source.commit,
        "lines": lines,
        "permalink": source.permalink(*lines) if fact else source.permalink(),
    }


def _split_spec(spec: str) -> tuple[str, str]:
    name, _, binding = spec.partition(":")
    return name, binding


def _side(kb: KnowledgeBase, book: FactBook, version: str, binding: str) -> Side:
    v = kb.version(version)
    sources = kb.sources_of(v.id)
    schemas = [s for s in sources if s.kind in ("json-schema", "proto")]
    if binding:
        kinds = _BINDING_KINDS.get(binding)
        if kinds is None:
            raise ConfigurationError(f"unknown binding '{binding}' (known: json, grpc)")
        schemas = [s for s in schemas if s.kind in kinds]
    if not schemas:
        raise ConfigurationError(f"version {v.id} has no {binding or 'schema'} source to compare")
    # The normative binding: the .proto of v1.x (specification/a2a.proto), else the JSON schema.
    schemas.sort(key=lambda s: (s.path != "specification/a2a.proto", s.kind != "json-schema"))
    schema = schemas[0]
    prose = [s for s in sources if s.kind in ("spec", "docs")]
    return Side(
        v.id,
        "json" if schema.kind == "json-schema" else "grpc",
        schema,
        prose,
        book.facts(schema),
        {s.id: book.facts(s) for s in prose},
    )


def _first(facts: dict[str, list[Fact]], key: str) -> Fact | None:
    found = facts.get(key)
    return found[0] if found else None


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def diff(kb: KnowledgeBase, old: str, new: str) -> DiffResult:
    """Every change between ``old`` and ``new`` (each 'VERSION' or 'VERSION:BINDING')."""
    book = FactBook(kb, Cache(kb.project.cache_dir))
    old_name, old_binding = _split_spec(old)
    new_name, new_binding = _split_spec(new)
    if kb.version(old_name).id == kb.version(new_name).id and not (old_binding or new_binding):
        old_binding, new_binding = "json", "grpc"
    a = _side(kb, book, old_name, old_binding)
    b = _side(kb, book, new_name, new_binding)
    changes: list[Change] = []
    changes += _states(a, b)
    changes += _classes(a, b)
    changes += _fields(a, b)
    changes += _errors(a, b)
    changes += _methods(a, b)
    # Set arithmetic above has no order; sort so that output and builds are reproducible.
    kinds = {kind: i for i, kind in enumerate(_KIND_ORDER)}
    changes.sort(key=lambda c: (kinds.get(c.kind, len(kinds)), c.subject))
    return DiffResult(a.label, b.label, changes)


def _enum(side: Side) -> tuple[Fact | None, dict[str, str]]:
    fact = _first(side.facts, "enum-values:TaskState")
    spelled: dict[str, str] = {}
    for raw in fact.value if fact else []:
        state = state_name(raw)  # a state added upstream is a change too, not skipped
        if state:
            spelled[state] = raw
    return fact, spelled


def _value_fact(side: Side, raw: str) -> Fact | None:
    return _first(side.facts, f"enum-value:TaskState.{raw}")


def _states(a: Side, b: Side) -> list[Change]:
    changes: list[Change] = []
    fa, sa = _enum(a)
    fb, sb = _enum(b)
    binding = a.binding if a.binding == b.binding else f"{a.binding}→{b.binding}"
    for state in sb.keys() - sa.keys():
        changes.append(
            Change(
                "state-added",
                f"TaskState.{state}",
                None,
                sb[state],
                "source-breaking",
                binding,
                [_location(b.schema, _value_fact(b, sb[state]) or fb, "new")],
            )
        )
    for state in sa.keys() - sb.keys():
        changes.append(
            Change(
                "state-removed",
                f"TaskState.{state}",
                sa[state],
                None,
                "wire-breaking",
                binding,
                [_location(a.schema, _value_fact(a, sa[state]) or fa, "old")],
            )
        )
    renamed = [s for s in sa.keys() & sb.keys() if sa[s] != sb[s]]
    if renamed and _convention(list(sa.values())) != _convention(list(sb.values())):
        changes.append(
            Change(
                "naming-convention",
                "TaskState",
                _convention(list(sa.values())),
                _convention(list(sb.values())),
                "wire-breaking",
                binding,
                [_location(a.schema, fa, "old"), _location(b.schema, fb, "new")],
            )
        )
    for state in sorted(renamed, key=lambda s: list(sb).index(s)):
        changes.append(
            Change(
                "state-renamed",
                f"TaskState.{state}",
                sa[state],
                sb[state],
                "wire-breaking",
                binding,
                [
                    _location(a.schema, _value_fact(a, sa[state]) or fa, "old"),
                    _location(b.schema, _value_fact(b, sb[state]) or fb, "new"),
                ],
            )
        )
    for state in sa.keys() & sb.keys():
        va, vb = _value_fact(a, sa[state]), _value_fact(b, sb[state])
        na = va.value.get("number") if va and isinstance(va.value, dict) else None
        nb = vb.value.get("number") if vb and isinstance(vb.value, dict) else None
        if na is not None and nb is not None and na != nb:
            changes.append(
                Change(
                    "state-renumbered",
                    f"TaskState.{state}",
                    na,
                    nb,
                    "wire-breaking",
                    binding,
                    [_location(a.schema, va, "old"), _location(b.schema, vb, "new")],
                )
            )
    return changes


def _convention(spellings: list[str]) -> str:
    if all(re.fullmatch(r"TASK_STATE_[A-Z_]+", s) for s in spellings):
        return "SCREAMING_SNAKE_CASE with TASK_STATE_ prefix"
    if all(re.fullmatch(r"[a-z]+(-[a-z]+)*", s) for s in spellings):
        return "lowercase kebab-case strings"
    return "mixed"


def _class_map(side: Side) -> dict[str, tuple[str, Source, Fact]]:
    """The class each state has according to the version's sources (first that says)."""
    result: dict[str, tuple[str, Source, Fact]] = {}
    sources = [(side.schema, side.facts)] + [(s, side.prose_facts[s.id]) for s in side.prose]
    for source, facts in sources:
        for key, label in (
            ("terminal-states:TaskState", "terminal"),
            ("interrupted-states:TaskState", "interrupted"),
        ):
            fact = _first(facts, key)
            for state in fact.value if fact else []:
                result.setdefault(state, (label, source, fact))  # type: ignore[arg-type]
    return result


def _classes(a: Side, b: Side) -> list[Change]:
    ca, cb = _class_map(a), _class_map(b)
    changes = []
    for state in sorted(ca.keys() | cb.keys()):
        old = ca.get(state)
        new = cb.get(state)
        if old and new and old[0] != new[0]:
            changes.append(
                Change(
                    "class-changed",
                    f"TaskState.{state}",
                    old[0],
                    new[0],
                    "behavioural",
                    "prose",
                    [_location(old[1], old[2], "old"), _location(new[1], new[2], "new")],
                )
            )
        elif old and not new and state in _enum(b)[1]:
            changes.append(
                Change(
                    "class-changed",
                    f"TaskState.{state}",
                    old[0],
                    "unclassified",
                    "behavioural",
                    "prose",
                    [_location(old[1], old[2], "old")],
                )
            )
        elif new and not old and state in _enum(a)[1]:
            changes.append(
                Change(
                    "class-changed",
                    f"TaskState.{state}",
                    "unclassified",
                    new[0],
                    "behavioural",
                    "prose",
                    [_location(new[1], new[2], "new")],
                )
            )
    return changes


def _fields(a: Side, b: Side) -> list[Change]:
    changes: list[Change] = []
    binding = a.binding if a.binding == b.binding else f"{a.binding}→{b.binding}"
    for message in LIFECYCLE_MESSAGES:
        ma, mb = (
            _first(a.facts, f"message-fields:{message}"),
            _first(b.facts, f"message-fields:{message}"),
        )
        if ma is None or mb is None:
            continue
        by_a = {_snake(f): f for f in ma.value}
        by_b = {_snake(f): f for f in mb.value}
        for name in [n for n in by_a if n not in by_b]:
            fa = _first(a.facts, f"field:{message}.{by_a[name]}")
            changes.append(
                Change(
                    "field-removed",
                    f"{message}.{by_a[name]}",
                    by_a[name],
                    None,
                    "wire-breaking",
                    binding,
                    [_location(a.schema, fa or ma, "old"), _location(b.schema, mb, "new")],
                )
            )
        for name in [n for n in by_b if n not in by_a]:
            fb = _first(b.facts, f"field:{message}.{by_b[name]}")
            required = bool(fb and isinstance(fb.value, dict) and fb.value.get("required"))
            changes.append(
                Change(
                    "field-added",
                    f"{message}.{by_b[name]}",
                    None,
                    by_b[name],
                    "wire-breaking" if required else "behavioural",
                    binding,
                    [_location(a.schema, ma, "old"), _location(b.schema, fb or mb, "new")],
                )
            )
        numbers_a: dict[int, str] = {}
        for name in by_a:
            fa = _first(a.facts, f"field:{message}.{by_a[name]}")
            if fa and isinstance(fa.value, dict) and fa.value.get("number") is not None:
                numbers_a[fa.value["number"]] = name
        for name in [n for n in by_a if n in by_b]:
            fa = _first(a.facts, f"field:{message}.{by_a[name]}")
            fb = _first(b.facts, f"field:{message}.{by_b[name]}")
            if not (fa and fb and isinstance(fa.value, dict) and isinstance(fb.value, dict)):
                continue
            locs = [_location(a.schema, fa, "old"), _location(b.schema, fb, "new")]
            ra, rb = bool(fa.value.get("required")), bool(fb.value.get("required"))
            if ra != rb:
                changes.append(
                    Change(
                        "field-required-changed",
                        f"{message}.{by_b[name]}",
                        "required" if ra else "optional",
                        "required" if rb else "optional",
                        "wire-breaking" if rb else "behavioural",
                        binding,
                        locs,
                    )
                )
            na, nb = fa.value.get("number"), fb.value.get("number")
            if na is not None and nb is not None and na != nb:
                changes.append(
                    Change(
                        "field-renumbered",
                        f"{message}.{by_b[name]}",
                        na,
                        nb,
                        "wire-breaking",
                        binding,
                        locs,
                    )
                )
        for name in by_b:
            fb = _first(b.facts, f"field:{message}.{by_b[name]}")
            nb = fb.value.get("number") if fb and isinstance(fb.value, dict) else None
            if nb is not None and nb in numbers_a and numbers_a[nb] != name:
                fa = _first(a.facts, f"field:{message}.{by_a[numbers_a[nb]]}")
                changes.append(
                    Change(
                        "field-number-reused",
                        f"{message}#{nb}",
                        by_a[numbers_a[nb]],
                        by_b[name],
                        "wire-breaking",
                        binding,
                        [_location(a.schema, fa, "old"), _location(b.schema, fb, "new")],
                    )
                )
    return changes


def _errors(a: Side, b: Side) -> list[Change]:
    changes: list[Change] = []
    for key in sorted(k for k in a.facts if k.startswith("error:")):
        fa, fb = _first(a.facts, key), _first(b.facts, key)
        if (
            fa is None
            or fb is None
            or not isinstance(fa.value, dict)
            or not isinstance(fb.value, dict)
        ):
            continue
        name = key.split(":", 1)[1]
        locs = [_location(a.schema, fa, "old"), _location(b.schema, fb, "new")]
        if fa.value.get("code") != fb.value.get("code") and fb.value.get("code") is not None:
            changes.append(
                Change(
                    "error-code-changed",
                    name,
                    fa.value.get("code"),
                    fb.value.get("code"),
                    "wire-breaking",
                    a.binding,
                    locs,
                )
            )
        if fa.value.get("message") != fb.value.get("message") and fb.value.get("message"):
            changes.append(
                Change(
                    "error-message-changed",
                    name,
                    fa.value.get("message"),
                    fb.value.get("message"),
                    "editorial",
                    a.binding,
                    locs,
                )
            )
    mapping_a, prose_a = _mappings(a)
    mapping_b, prose_b = _mappings(b)
    for key in sorted(mapping_a.keys() & mapping_b.keys()):
        fa, fb = mapping_a[key][0], mapping_b[key][0]
        if fa.value != fb.value:
            changes.append(
                Change(
                    "error-mapping-changed",
                    key.split(":", 1)[1],
                    fa.value,
                    fb.value,
                    "behavioural",
                    "prose",
                    [_location(prose_a[key], fa, "old"), _location(prose_b[key], fb, "new")],
                )
            )
    return changes


def _mappings(side: Side) -> tuple[dict[str, list[Fact]], dict[str, Source]]:
    """The error mappings of a side's prose, by their leading passage only: the copies
    keyed ``…@<section>`` repeat them and would report every change twice."""
    facts: dict[str, list[Fact]] = {}
    where: dict[str, Source] = {}
    for source in side.prose:
        for key, found in side.prose_facts[source.id].items():
            if key.startswith("error-mapping:") and "@" not in key and key not in facts:
                facts[key], where[key] = found, source
    return facts, where


def _methods(a: Side, b: Side) -> list[Change]:
    changes: list[Change] = []
    ka = {k for k in a.facts if k.startswith("rpc-methods:")}
    kb_ = {k for k in b.facts if k.startswith("rpc-methods:")}
    for key in sorted(ka & kb_):
        fa, fb = _first(a.facts, key), _first(b.facts, key)
        if fa is None or fb is None:
            continue
        service = key.split(":", 1)[1]
        for m in [m for m in fa.value if m not in fb.value]:
            changes.append(
                Change(
                    "method-removed",
                    f"{service}.{m}",
                    m,
                    None,
                    "wire-breaking",
                    "grpc",
                    [
                        _location(
                            a.schema, _first(a.facts, f"rpc-method:{service}.{m}") or fa, "old"
                        )
                    ],
                )
            )
        for m in [m for m in fb.value if m not in fa.value]:
            changes.append(
                Change(
                    "method-added",
                    f"{service}.{m}",
                    None,
                    m,
                    "behavioural",
                    "grpc",
                    [
                        _location(
                            b.schema, _first(b.facts, f"rpc-method:{service}.{m}") or fb, "new"
                        )
                    ],
                )
            )
    return changes


def format_text(result: DiffResult) -> str:
    lines = [f"{result.old} → {result.new}: {len(result.changes)} change(s)"]
    for c in result.changes:
        where = "; ".join(
            f"{loc['source']}:{loc['lines'][0]}" for loc in c.locations if loc["lines"][0]
        )
        lines.append(f"  [{c.severity}] {c.kind} {c.subject}: {c.old!r} → {c.new!r}  ({where})")
    return "\n".join(lines)


def format_markdown(result: DiffResult) -> str:
    def cell(v: Any) -> str:
        text = "—" if v is None else str(v)
        return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")

    out = [
        f"| Change | Subject | {result.old} | {result.new} | Severity | Where |",
        "|---|---|---|---|---|---|",
    ]
    for c in result.changes:
        links = " ".join(
            f"[{loc['side']} L{loc['lines'][0]}]({loc['permalink']})"
            for loc in c.locations
            if loc["lines"][0]
        )
        out.append(
            f"| {c.kind} | `{cell(c.subject)}` | {cell(c.old)} | {cell(c.new)} | {c.severity} | {links} |"
        )
    if not result.changes:
        out.append("| — | no lifecycle change | | | | |")
    return "\n".join(out)
