"""Which encodings a change breaks, and what that means for a client of each binding.

`breaks` lists the encodings (and the generated code) a change breaks, coarsely: binary
protobuf, JSON (whichever JSON the comparison reads), generated source, behaviour. The
grade per wire encoding, with its direction and reason, is `grades`; a change's one
`severity` word is the worst of them.

The type tables follow the protobuf language guide's "updating a message type" rules,
which buf's FIELD_WIRE_COMPATIBLE_TYPE and FIELD_WIRE_JSON_COMPATIBLE_TYPE also apply.
"""

from __future__ import annotations

ENCODINGS: dict[str, str] = {
    "binary": "binary protobuf (gRPC)",
    "json": "JSON on the wire (ProtoJSON, JSON-RPC, REST)",
    "source": "generated source code",
    "behaviour": "behaviour (what a peer accepts or does)",
}

# Worst first. `compatible`: something was added or changed that no client of the binding
# notices; `editorial`: wording only.
SEVERITIES = ("wire-breaking", "source-breaking", "behavioural", "compatible", "editorial")

BINDINGS: dict[str, str] = {
    "grpc": "gRPC (binary protobuf)",
    "json": "JSON-RPC (JSON schema up to v0.3, ProtoJSON from v1.0)",
    "rest": "HTTP+JSON / REST routes",
    "prose": "specification prose",
}

# Scalar types that read each other's bytes (varints of one kind, zigzag, fixed widths,
# length-delimited text).
_BINARY_GROUPS = (
    {"int32", "uint32", "int64", "uint64", "bool", "enum"},
    {"sint32", "sint64"},
    {"fixed32", "sfixed32"},
    {"fixed64", "sfixed64"},
    {"string", "bytes"},
)
# ProtoJSON writes 64-bit integers as strings, bytes as base64, enums by name.
_JSON_GROUPS = (
    {"int32", "sint32", "sfixed32"},
    {"uint32", "fixed32"},
    {"int64", "sint64", "sfixed64"},
    {"uint64", "fixed64"},
)


def binary_compatible(old: str, new: str) -> bool:
    return old == new or any(old in g and new in g for g in _BINARY_GROUPS)


def json_compatible(old: str, new: str) -> bool:
    return old == new or any(old in g and new in g for g in _JSON_GROUPS)
