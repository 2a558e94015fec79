"""A change graded once per wire encoding it touches: whether an old peer breaks against a
new one, in which direction, and why.

Four encodings carry A2A messages. One .proto defines three of them: binary protobuf
(gRPC), ProtoJSON, and HTTP+JSON (the `google.api.http` routes, whose payloads are the
messages' ProtoJSON). JSON-RPC is its own: a JSON schema up to v0.3.0, the .proto's ProtoJSON
from v1.0. A change found by comparing .protos is graded in binary protobuf, ProtoJSON
and HTTP+JSON (a route change in HTTP+JSON alone); a change found by comparing JSON-RPC
descriptions in JSON-RPC; a prose change in none (it is behavioural everywhere).

A grade is `breaking` when some old peer fails or misreads a new one on the wire,
`behavioural` when every message still parses but a peer may now act differently (a
`field_behavior` annotation, a value dropped as unknown), `compatible` otherwise. The
direction names the pair that breaks: an old client calling a new server, or a new client
calling an old server. A new client that uses only what the old version defined is the
yardstick of the second direction: widening what a request accepts breaks nobody.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WIRE = ("binary", "protojson", "http", "jsonrpc")
WIRE_NAMES = {
    "binary": "binary protobuf",
    "protojson": "ProtoJSON",
    "http": "HTTP+JSON",
    "jsonrpc": "JSON-RPC",
}
LEVELS = ("breaking", "behavioural", "compatible")  # worst first
OLD_CLIENT = "old client → new server"
NEW_CLIENT = "new client → old server"
BOTH = (OLD_CLIENT, NEW_CLIENT)


@dataclass(frozen=True)
class Grade:
    encoding: str
    level: str
    directions: tuple[str, ...]
    why: str

    def as_json(self) -> dict[str, Any]:
        return {"encoding": self.encoding, "level": self.level, "directions": list(self.directions),
                "why": self.why}


def worse(a: str, b: str) -> str:
    return a if LEVELS.index(a) <= LEVELS.index(b) else b


# The encodings a comparison's change is graded in, by the binding that found it.
_TOUCHES = {"grpc": ("binary", "protojson", "http"), "rest": ("http",), "json": ("jsonrpc",)}
# Kinds about the gRPC service or the file, not about a message's shape: HTTP+JSON has its
# own route comparison, ProtoJSON has no method paths.
_SERVICE_KINDS = {"package-renamed", "method-added", "method-removed", "method-signature-changed"}
_NO_WIRE = {"file-option-changed", "oneof-renamed", "reserved-added"}

# Who breaks when a change breaks: most changes break both peers (each writes what the
# other no longer reads); these break one.
_DIRECTIONS = {
    "method-removed": (OLD_CLIENT,),
    "message-removed": (OLD_CLIENT,),
    "http-route-removed": (OLD_CLIENT,),
    "field-added": (OLD_CLIENT,),  # only graded when the new field is required
    "reserved-removed": (NEW_CLIENT,),
}

# What an old peer meets, per kind, for an encoding the change breaks: one sentence each.
_WHY_BREAKING = {
    "package-renamed": "every gRPC method path changes ({old} → {new}): an old peer calls a path the "
                       "new one does not serve; move both sides together or serve both packages",
    "state-removed": "a peer that still writes {old} is refused or reads an unknown value; keep accepting it",
    "enum-value-removed": "a peer that still writes {old} is refused or reads an unknown value; keep "
                          "accepting it",
    "state-renamed": "the value is spelled {new} where old peers write and read {old}: each side refuses "
                     "the other's spelling; accept both while peers upgrade",
    "enum-value-renamed": "the value is spelled {new} where old peers write and read {old}: each side "
                          "refuses the other's spelling; accept both while peers upgrade",
    "naming-convention": "every state is spelled another way ({old} → {new}): old and new peers refuse "
                         "each other's states; translate at the edge",
    "message-removed": "an old client that sends or expects {old} finds no such message; keep it until "
                       "old clients are gone",
    "field-removed": "an old peer still writes {subject}, which a new peer drops or rejects as unknown, "
                     "and still expects it in what it reads",
    "field-number-reused": "the number now carries another field: an old peer reads the new bytes as the "
                           "old field; reserve the number and use a new one",
    "field-renumbered": "{note}; keep the old number",
    "field-json-name-changed": "the JSON key is '{new}' where old peers write and read '{old}': each side "
                               "drops or rejects the other's key; accept both during the move",
    "field-type-changed": "the field's type changed ({old} → {new}): a peer reads the other's value as "
                          "the wrong type; add a new field instead",
    "field-cardinality-changed": "the field went {old} → {new}: peers parse each other's value wrongly; "
                                 "add a new field instead",
    "field-oneof-changed": "the field moved into, out of or between oneofs: setting it may clear another "
                           "field a peer sent",
    "field-required-changed": "the field is now {new}: a message that leaves it out is refused by the "
                              "other peer's schema",
    "field-added": "the new field is required: an old client's message, which lacks it, is refused",
    "reserved-removed": "a number or name is free again: a later field may reuse it and old peers misread it",
    "method-removed": "an old client that calls {subject} gets UNIMPLEMENTED (or a 404 over HTTP)",
    "method-signature-changed": "{subject} takes or returns another message ({old} → {new}): each side "
                                "reads the other's bytes as the wrong type",
    "http-route-changed": "{note}",
    "http-route-removed": "{note}",
    "http-body-changed": "{note}",
    "error-code-changed": "a client that matches on the old code no longer recognises the error",
}
_WHY_BEHAVIOURAL = {
    "field-required-changed": "(google.api.field_behavior) is an annotation: the bytes are the same, but "
                              "a peer that enforces it may now refuse a message without the field",
    "field-added": "the new field is required by annotation: a peer that enforces it refuses an old "
                   "client's message without it",
    "field-renumbered": "{note}",
    "method-removed": "an old client that calls {subject} gets UNIMPLEMENTED",
}


# Why an encoding does not notice a change, for the kinds where that is not obvious.
_NAMES_NOT_NUMBERS = "binary protobuf carries numbers, not names: the bytes do not change"
_WHY_COMPATIBLE = {
    ("field-renamed", "binary"): _NAMES_NOT_NUMBERS,
    ("field-json-name-changed", "binary"): _NAMES_NOT_NUMBERS,
    ("state-renamed", "binary"): _NAMES_NOT_NUMBERS,
    ("enum-value-renamed", "binary"): _NAMES_NOT_NUMBERS,
    ("field-renumbered", "json"): "JSON matches fields by name, and the name did not change",
    ("field-number-reused", "json"): "JSON matches fields by name, and the name did not change",
    ("field-renamed", "json"): "the JSON name did not change",
    ("field-added", "json"): "an old peer that reads it drops it as unknown (a ProtoJSON parser must be "
                             "set to ignore unknown fields); a new client that leaves it out is "
                             "understood by an old server",
    ("field-added", "binary"): "an old peer skips the unknown field number",
    ("message-added", "binary"): "a new message no old peer is sent",
    ("message-added", "json"): "a new message no old peer is sent",
    ("method-added", "binary"): "a new RPC: only a new feature calls it",
    ("state-added", "binary"): "an old peer reads the new number as an unknown value",
    ("state-added", "json"): "an old peer that is sent the new value refuses it or maps it to an "
                             "unknown state; only a task that reaches it sends it",
    ("enum-value-added", "json"): "an old peer that is sent the new value refuses it; only a message that "
                                  "uses it sends it",
    ("field-presence-changed", "binary"): "the bytes are the same; generated code gains or loses "
                                          "has-accessors",
}


def _compatible_why(change: Any, encoding: str) -> str:
    family = "binary" if encoding == "binary" else "json"
    return (_WHY_COMPATIBLE.get((change.kind, family))
            or ("every old peer still reads and writes the same bytes" if family == "binary"
                else "every old peer still reads and writes the same JSON"))


def _fill(template: str, change: Any) -> str:
    def short(value: Any) -> str:
        return "none" if value is None else str(value)

    return template.format(old=short(change.old), new=short(change.new), subject=change.subject,
                           note=change.note.rstrip(".") or "peers disagree")


def _level(change: Any, encoding: str) -> str:
    broken = "binary" if encoding == "binary" else "json"
    if broken in change.breaks:
        return "breaking"
    if "behaviour" in change.breaks:
        return "behavioural"
    return "compatible"


def touched(change: Any) -> tuple[str, ...]:
    """The encodings a change is graded in."""
    if change.kind in _NO_WIRE or change.binding not in _TOUCHES:
        return ()
    if change.binding == "grpc" and change.kind in _SERVICE_KINDS:
        return ("binary", "protojson") if "json" in change.breaks else ("binary",)
    return _TOUCHES[change.binding]


def grade(change: Any) -> tuple[Grade, ...]:
    """The change's grade in each encoding it touches, from what it breaks."""
    found = []
    for encoding in touched(change):
        level = _level(change, encoding)
        if level == "compatible":
            found.append(Grade(encoding, level, (), _compatible_why(change, encoding)))
            continue
        table = _WHY_BREAKING if level == "breaking" else _WHY_BEHAVIOURAL
        template = table.get(change.kind) or (_WHY_BREAKING.get(change.kind, "{note}"))
        found.append(Grade(encoding, level, _DIRECTIONS.get(change.kind, BOTH), _fill(template, change)))
    return tuple(found)


def level_in(grades: tuple[Grade, ...], encoding: str) -> str:
    """The worst level among `grades` in `encoding` ('any' for every wire encoding);
    'compatible' when none touches it."""
    level = "compatible"
    for g in grades:
        if encoding in ("any", g.encoding):
            level = worse(level, g.level)
    return level
