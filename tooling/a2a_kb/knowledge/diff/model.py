"""What a diff is made of: changes, the comparisons that found them, and the registry of
change kinds.

A change names what changed (`kind`, `subject`, `old`, `new`), the binding whose
comparison found it, the encodings it breaks (`breaks`) and, derived from those and the
binding, one `severity` for a client of that binding. Kinds live in one registry so that
another comparison (wording changes between versions' prose, say) adds its own with
[`register_kind`][a2a_kb.knowledge.diff.model.register_kind] and every format and page knows how to order and
name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...records.model import Source
from .encodings import ENCODINGS, SEVERITIES
from .grades import LEVELS, WIRE, Grade, grade, level_in


@dataclass(frozen=True)
class ChangeKind:
    """One kind of change: its name in the output and what it means, for the pages."""

    name: str
    meaning: str


KINDS: dict[str, ChangeKind] = {}


def register_kind(name: str, meaning: str) -> ChangeKind:
    """Add a kind of change (once); the order of registration is the order of output."""
    if name in KINDS:
        raise ValueError(f"change kind '{name}' is registered twice")
    KINDS[name] = ChangeKind(name, meaning)
    return KINDS[name]


for _name, _meaning in (
    ("package-renamed", "the .proto package changed: every gRPC method path changes"),
    ("file-option-changed", "a file option for generated code (go_package, java_package …) changed"),
    ("naming-convention", "the TaskState values are spelled after another convention"),
    ("state-added", "a TaskState value appeared"),
    ("state-removed", "a TaskState value went away"),
    ("state-renamed", "a TaskState value is spelled differently (same number in a .proto)"),
    ("state-renumbered", "a TaskState value kept its name and changed its number"),
    ("class-changed", "the prose files a state under another class (terminal, interrupted …)"),
    ("enum-value-added", "an enum value appeared"),
    ("enum-value-removed", "an enum value went away"),
    ("enum-value-renamed", "an enum value's name changed at the same number"),
    ("message-added", "a message (or JSON schema definition) appeared"),
    ("message-removed", "a message (or JSON schema definition) went away"),
    ("field-added", "a field (or property) appeared"),
    ("field-removed", "a field (or property) went away"),
    ("field-number-reused", "a field number now carries another field of another type"),
    ("field-renamed", "a field's name changed at the same number"),
    ("field-renumbered", "the same field (name and type) moved to another number"),
    ("field-json-name-changed", "a field's JSON name changed"),
    ("field-type-changed", "a field's (or property's) type changed"),
    ("field-cardinality-changed", "a field became repeated or singular"),
    ("field-presence-changed", "a field gained or lost explicit presence (optional)"),
    ("field-oneof-changed", "a field joined, left or changed its oneof"),
    ("field-required-changed", "a field (or property) became required or optional"),
    ("field-null-changed", "a JSON schema property began or stopped accepting null"),
    ("field-const-changed", "a JSON schema property was pinned to one value, released, or re-pinned"),
    ("oneof-renamed", "a oneof's name changed with the same members"),
    ("reserved-removed", "a reserved number or name is no longer reserved"),
    ("reserved-added", "a number or name became reserved"),
    ("method-added", "an RPC (or JSON-RPC method) appeared"),
    ("method-removed", "an RPC (or JSON-RPC method) went away"),
    ("method-signature-changed", "an RPC's request or response type or streaming changed"),
    ("http-route-changed", "an RPC's REST route (google.api.http) changed"),
    ("http-route-added", "an HTTP+JSON route (verb and URL pattern) appeared"),
    ("http-route-removed", "an HTTP+JSON route no longer reaches any RPC"),
    ("http-body-changed", "what an HTTP+JSON route takes as its body changed"),
    ("error-code-changed", "a JSON-RPC error's code changed"),
    ("error-message-changed", "a JSON-RPC error's default message changed"),
    ("error-mapping-changed", "an error's mapping to HTTP or gRPC status changed"),
):
    register_kind(_name, _meaning)


@dataclass(frozen=True)
class Location:
    """Where one side of a change is written: a source and its lines (0, 0 when unknown)."""

    side: str  # "old" or "new"
    source: Source
    lines: tuple[int, int] = (0, 0)

    def as_json(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "source": self.source.id,
            "path": self.source.path,
            "commit": self.source.commit,
            "lines": list(self.lines),
            "permalink": self.source.permalink(*self.lines) if self.lines[0] else self.source.permalink(),
        }


@dataclass
class Change:
    kind: str
    subject: str
    old: Any
    new: Any
    binding: str
    breaks: tuple[str, ...] = ()
    locations: list[Location] = field(default_factory=list)
    note: str = ""
    severity: str = ""  # derived from breaks and binding unless a comparison sets it
    # The descriptor elements the change is about ("field:Task#2", "rpc:A2AService.GetTask",
    # "package" …): what the differential test matches buf's findings against.
    elements: tuple[str, ...] = ()
    # One grade per wire encoding the change touches (see `grades`); derived from
    # `breaks` unless the comparison that found the change knows better.
    grades: tuple[Grade, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown change kind '{self.kind}' (register it in diff.model)")
        unknown = [b for b in self.breaks if b not in ENCODINGS]
        if unknown:
            raise ValueError(f"unknown encoding(s) {unknown} in a {self.kind} change")
        self.breaks = tuple(e for e in ENCODINGS if e in self.breaks)
        if self.grades is None:
            self.grades = grade(self)
        if not self.severity:
            self.severity = self._severity()

    def _severity(self) -> str:
        """The worst the change is for anyone: a break in any wire encoding it touches is
        wire-breaking, whatever the binding that found it."""
        if level_in(self.graded, "any") == "breaking":
            return "wire-breaking"
        if "source" in self.breaks:
            return "source-breaking"
        if "behaviour" in self.breaks or level_in(self.graded, "any") == "behavioural":
            return "behavioural"
        return "compatible"

    @property
    def graded(self) -> tuple[Grade, ...]:
        return self.grades or ()

    def level(self, encoding: str) -> str:
        """The change's level in one encoding, or the worst of all ('any')."""
        return level_in(self.graded, encoding)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "old": self.old,
            "new": self.new,
            "severity": self.severity,
            "binding": self.binding,
            "breaks": list(self.breaks),
            "note": self.note,
            "grades": [g.as_json() for g in self.graded],
            "locations": [loc.as_json() for loc in self.locations],
        }


@dataclass
class Comparison:
    """One binding compared between the two sides: which descriptions were read, and
    whether the binding was replaced (a migration, e.g. JSON-RPC schema → ProtoJSON)."""

    binding: str
    old: str  # VERSION:BINDING as read
    new: str
    old_source: str  # source ids
    new_source: str
    migration: bool = False
    title: str = ""
    owns: tuple[str, ...] = ()  # the change bindings it reports (a .proto also has REST routes)

    def as_json(self, changes: list[Change]) -> dict[str, Any]:
        mine = [c for c in changes if c.binding in self.owns]
        return {
            "binding": self.binding,
            "title": self.title,
            "old": self.old,
            "new": self.new,
            "old_source": self.old_source,
            "new_source": self.new_source,
            "migration": self.migration,
            "reports": list(self.owns),
            "counts": {s: sum(c.severity == s for c in mine) for s in SEVERITIES},
        }


@dataclass
class DiffResult:
    old: str
    new: str
    changes: list[Change]
    comparisons: list[Comparison] = field(default_factory=list)

    def at_least(self, severity: str) -> bool:
        limit = SEVERITIES.index(severity)
        return any(SEVERITIES.index(c.severity) <= limit for c in self.changes)

    def reaches(self, encoding: str, level: str) -> bool:
        """Whether some change is at `level` or worse in `encoding` ('any': in any)."""
        limit = LEVELS.index(level)
        return any(LEVELS.index(c.level(encoding)) <= limit for c in self.changes
                   if encoding == "any" or any(g.encoding == encoding for g in c.graded))

    def summary(self) -> dict[str, dict[str, int]]:
        """Per wire encoding, how many changes are at each level in it."""
        return {e: {lvl: sum(any(g.encoding == e and g.level == lvl for g in c.graded)
                             for c in self.changes) for lvl in LEVELS} for e in WIRE}

    def of(self, binding: str) -> list[Change]:
        return [c for c in self.changes if c.binding == binding]

    def as_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "bindings": [c.as_json(self.changes) for c in self.comparisons],
            "changes": [c.as_json() for c in self.changes],
            "counts": {s: sum(c.severity == s for c in self.changes) for s in SEVERITIES},
            "encodings": self.summary(),
        }
