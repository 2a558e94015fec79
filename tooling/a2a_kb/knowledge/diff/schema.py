"""The JSON side of the protocol: a JSON schema (the JSON-RPC binding up to v0.3.0), or a
.proto read as ProtoJSON (the JSON-RPC and REST bindings from v1.0), compared by
definition: enum strings, required lists, property names and their types.

Both are read into one `JsonDescription`, so the same comparison covers v0.2 →
v0.3 (two schemas), v1.0 → v1.0.1 (two ProtoJSON views) and the migration from v0.3.0's
schema to v1.0's ProtoJSON.

Why it is long: a JSON schema and a .proto read as ProtoJSON become one description and are
compared by one function; the readers of both sides and the comparison share the definition
type, and the comparison of v0.3.0's schema with v1.0's proto depends on the two readers
agreeing field by field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ExtractError
from ...extract.json_positions import locate
from ...extract.json_schema import type_name
from ...extract.lifecycle import state_name  # a state added upstream is a change, not skipped
from ...records.model import Source
from .descriptors import NO_LINES, Lines, ProtoField, ProtoFile
from .grades import NEW_CLIENT, OLD_CLIENT, Grade
from .kept import kept
from .model import Change, Location
from .scope import TASK_STATE, closure, proto_scope

JSON = "json"


@dataclass
class Definition:
    name: str
    lines: Lines
    properties: dict[str, tuple[str, Lines]] = field(default_factory=dict)  # name → (type, lines)
    required: set[str] = field(default_factory=set)
    enum: dict[str, Lines] | None = None  # string → lines, when the definition is an enum
    refers_to: set[str] = field(default_factory=set)  # the definitions it refers to
    payload: str = ""  # a JSON-RPC envelope's params (or result) definition
    nullable: set[str] = field(default_factory=set)  # the properties that accept null
    consts: dict[str, Any] = field(default_factory=dict)  # property → the one value it accepts


@dataclass
class JsonDescription:
    source: Source
    definitions: dict[str, Definition]
    scope: set[str]  # the definitions the diff covers
    proto_json: bool  # read from a .proto: `required` is an annotation, not validation


# --- reading a JSON schema ---------------------------------------------------------------------

# Bump when what from_schema gives, or how _dump writes it, changes: kept copies are then
# read again.
SCHEMA_MODEL = 2


def load_schema(source: Source, text: str, cache_root: Path) -> JsonDescription:
    """`from_schema`, kept by the text's sha256 (see `kept`): walking a schema
    for the line of every member is most of what reading it costs."""
    return kept(cache_root, text, f"json-schema-{SCHEMA_MODEL}", lambda: from_schema(source, text),
                _dump, lambda model: _undump(source, model))


def from_schema(source: Source, text: str) -> JsonDescription:
    try:
        document = json.loads(text)
    except ValueError as e:
        raise ExtractError(f"source '{source.id}': not valid JSON: {e}") from e
    container = next((k for k in ("$defs", "definitions") if isinstance(document, dict)
                      and isinstance(document.get(k), dict)), "")
    if not container:
        raise ExtractError(f"source '{source.id}': no `$defs` or `definitions`: is it the A2A JSON schema?")
    spans = locate(text)
    definitions: dict[str, Definition] = {}
    for name, schema in document[container].items():
        if not isinstance(schema, dict):
            continue
        where = (container, name)
        found = Definition(name, spans.get(where, NO_LINES))
        if isinstance(schema.get("enum"), list) and all(isinstance(v, str) for v in schema["enum"]):
            found.enum = {v: spans.get((*where, "enum", i), NO_LINES) for i, v in enumerate(schema["enum"])}
        for prop, prop_schema in (schema.get("properties") or {}).items():
            lines = spans.get((*where, "properties", prop), NO_LINES)
            found.properties[prop] = (type_name(prop_schema), lines)
            if _accepts_null(prop_schema):
                found.nullable.add(prop)
            if isinstance(prop_schema, dict) and "const" in prop_schema:
                found.consts[prop] = prop_schema["const"]
        found.required = {r for r in schema.get("required") or [] if isinstance(r, str)}
        found.refers_to = _refs(schema)
        found.payload = _payload(found)
        definitions[name] = found
    for found in definitions.values():  # XResponse = XSuccessResponse | error: take its payload
        if not found.payload and not found.properties and found.name.endswith("Response"):
            success = definitions.get(found.name.removesuffix("Response") + "SuccessResponse")
            found.payload = success.payload if success else ""
    return JsonDescription(source, definitions, _schema_scope(definitions, document[container]), False)


def _dump(description: JsonDescription) -> dict[str, Any]:
    return {
        "definitions": [
            [d.name, d.lines, [[name, kind, lines] for name, (kind, lines) in d.properties.items()],
             sorted(d.required), None if d.enum is None else list(d.enum.items()),
             sorted(d.refers_to), d.payload, sorted(d.nullable), d.consts]
            for d in description.definitions.values()
        ],
        "scope": sorted(description.scope),
        "proto_json": description.proto_json,
    }


def _undump(source: Source, model: dict[str, Any]) -> JsonDescription:
    def lines(value: Any) -> Lines:
        start, end = value
        return (int(start), int(end))

    definitions = {
        name: Definition(name, lines(at), {p: (str(kind), lines(p_at)) for p, kind, p_at in properties},
                         set(required), None if enum is None else {str(v): lines(v_at) for v, v_at in enum},
                         set(refers_to), str(payload), set(nullable), dict(consts))
        for name, at, properties, required, enum, refers_to, payload, nullable, consts in model["definitions"]
    }
    return JsonDescription(source, definitions, set(model["scope"]), bool(model["proto_json"]))


def _accepts_null(schema: Any) -> bool:
    """Whether a property's schema names null among what it accepts (`type: null`, a
    `null` in a type list, an `anyOf`/`oneOf` member, or a null `const`)."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    return any(_accepts_null(option) for key in ("anyOf", "oneOf")
               for option in schema.get(key) or [] if isinstance(option, dict))


def _refs(schema: Any) -> set[str]:
    """Every definition a schema refers to, however deep."""
    found: set[str] = set()
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            found.add(ref.rsplit("/", 1)[-1])
        for value in schema.values():
            found |= _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= _refs(item)
    return found


def _payload(definition: Definition) -> str:
    """The definition a JSON-RPC request or response carries, when it is a single one."""
    if "jsonrpc" not in definition.properties:
        return ""
    for key in ("params", "result"):
        carried = definition.properties.get(key, ("", NO_LINES))[0]
        if re.fullmatch(r"[A-Za-z0-9_]+", carried) and carried not in _SCALARS.values():
            return carried
    return ""


def unwrapped(description: JsonDescription) -> JsonDescription:
    """The schema with each JSON-RPC envelope replaced by what it carries, as ProtoJSON
    names it: v0.3.0's `SendMessageRequest` is `{jsonrpc, id, method, params:
    MessageSendParams}`, v1.0's is the params themselves."""
    definitions = dict(description.definitions)
    for name, found in description.definitions.items():
        carried = definitions.get(found.payload) if found.payload else None
        if carried is not None:
            definitions[name] = Definition(name, found.lines, dict(carried.properties), set(carried.required),
                                           carried.enum, carried.refers_to | {found.payload})
    return JsonDescription(description.source, definitions, description.scope, description.proto_json)


def _method(schema: Any) -> str:
    method = (schema.get("properties") or {}).get("method") if isinstance(schema, dict) else None
    const = method.get("const") if isinstance(method, dict) else None
    if const is None and isinstance(method, dict) and isinstance(method.get("enum"), list):
        const = method["enum"][0] if len(method["enum"]) == 1 else None
    return const if isinstance(const, str) else ""


def _schema_scope(definitions: dict[str, Definition], schemas: dict[str, Any]) -> set[str]:
    """TaskState and every definition reachable from the task operations' requests and
    responses. A JSON-RPC request is a task operation when its method is in the `tasks/`
    namespace or the response paired with it by name (`XRequest` → `XResponse`)
    reaches TaskState."""

    def edges(name: str) -> set[str]:
        found = definitions.get(name)
        return found.refers_to if found else set()

    scope = {TASK_STATE} if TASK_STATE in definitions else set()
    for name, schema in schemas.items():
        method = _method(schema)
        if not method:
            continue
        stem = name.removesuffix("Request")
        responses = [n for n in definitions if n != name and n.startswith(stem) and n.endswith("Response")]
        reached = closure([name, *responses], edges)
        if method.startswith("tasks/") or TASK_STATE in reached:
            scope |= reached
    return scope & set(definitions)


# --- reading a .proto as ProtoJSON -------------------------------------------------------------

_WELL_KNOWN = {
    "google.protobuf.Struct": "object", "google.protobuf.Value": "any",
    "google.protobuf.ListValue": "array", "google.protobuf.Timestamp": "string",
    "google.protobuf.Duration": "string", "google.protobuf.Empty": "object",
    "google.protobuf.Any": "object", "google.protobuf.FieldMask": "string",
}
_SCALARS = {
    "double": "number", "float": "number", "bool": "boolean", "string": "string", "bytes": "string",
    **dict.fromkeys(("int32", "sint32", "sfixed32", "uint32", "fixed32"), "integer"),
    # ProtoJSON writes 64-bit integers as strings
    **dict.fromkeys(("int64", "sint64", "sfixed64", "uint64", "fixed64"), "string"),
}


def _json_type(f: ProtoField) -> str:
    if f.map_entry:
        return "object"
    if f.kind in ("message", "enum"):
        one = _WELL_KNOWN.get(f.type_name, f.type_name)
    else:
        one = _SCALARS.get(f.kind, f.kind)
    return f"{one}[]" if f.cardinality == "repeated" else one


def from_proto(proto: ProtoFile) -> JsonDescription:
    """A .proto as its ProtoJSON reads: properties by json_name, enums by value name."""
    definitions: dict[str, Definition] = {}
    for name, message in proto.messages.items():
        if message.map_entry:
            continue
        found = Definition(name, message.lines)
        for f in message.fields.values():
            found.properties[f.json_name] = (_json_type(f), f.lines)
            if f.required:
                found.required.add(f.json_name)
        definitions[name] = found
    for name, enum in proto.enums.items():
        definitions[name] = Definition(name, enum.lines, enum={v[0]: v[1] for v in enum.values.values()})
    return JsonDescription(proto.source, definitions, proto_scope(proto).types, True)


# --- comparing ---------------------------------------------------------------------------------


def compare(old: JsonDescription, new: JsonDescription) -> list[Change]:
    changes: list[Change] = []
    if old.proto_json != new.proto_json:  # a migration: compare what the envelopes carry
        old, new = (old if old.proto_json else unwrapped(old)), (new if new.proto_json else unwrapped(new))

    def at(old_lines: Lines, new_lines: Lines) -> list[Location]:
        return [Location("old", old.source, old_lines), Location("new", new.source, new_lines)]

    def add(kind: str, subject: str, before: object, after: object, breaks: tuple[str, ...],
            where: list[Location], note: str = "", grades: tuple[Grade, ...] | None = None) -> None:
        changes.append(Change(kind, subject, before, after, JSON, breaks, where, note,
                              elements=(f"definition:{subject.split('.', 1)[0]}",), grades=grades))

    roles = _roles(old)
    for name, found in _roles(new).items():
        roles[name] = roles.get(name, set()) | found

    names = (old.definitions.keys() | new.definitions.keys()) & (old.scope | new.scope)
    for name in sorted(names):
        a, b = old.definitions.get(name), new.definitions.get(name)
        if a is None or b is None:
            kind = "message-added" if a is None else "message-removed"
            add(kind, name, a and name, b and name, () if a is None else ("json",),
                at(a.lines if a else NO_LINES, b.lines if b else NO_LINES))
            continue
        role = roles.get(name, {"request", "response"})
        if a.enum is not None or b.enum is not None:
            if name == TASK_STATE:
                _states(a, b, add, at, role)
            else:
                _enum_strings(name, a, b, add, at, role)
            continue
        _properties(name, a, b, add, at, validation=not (old.proto_json or new.proto_json), role=role)
    return changes


def _roles(description: JsonDescription) -> dict[str, set[str]]:
    """Which way each definition travels: in requests (reachable from a request or its
    params), in responses (from a response or a streamed event), or both."""
    definitions = description.definitions

    def edges(name: str) -> set[str]:
        found = definitions.get(name)
        return found.refers_to if found else set()

    requests = [n for n in definitions if n.endswith(("Request", "Params"))]
    responses = [n for n in definitions if n.endswith(("Response", "Event"))]
    roles: dict[str, set[str]] = {}
    for role, roots in (("request", requests), ("response", responses)):
        for name in closure(roots, edges):
            roles.setdefault(name, set()).add(role)
    return roles


def _alternatives(type_text: str) -> set[str]:
    return {t.strip() for t in type_text.split("|")}


def _retyped(subject: str, old_type: str, new_type: str, role: set[str], add: Any,
             where: list[Location]) -> None:
    """A property's type changed. Widening a union (`A` → `A | B`) breaks only the peer
    that receives: nobody in a request, an old client in a response; narrowing it the
    reverse. Any other change breaks both."""
    before, after = _alternatives(old_type), _alternatives(new_type)
    more, fewer = " | ".join(sorted(after - before)), " | ".join(sorted(before - after))
    if "any" in (old_type, new_type):  # one side accepts every value: the other is narrower
        before, after = (after | before, after) if old_type == "any" else (before, before | after)
        more, fewer = ("anything", "") if new_type == "any" else ("", f"anything but {new_type}")
    if before < after and role == {"request"}:
        note = (f"{subject} now also takes {more}: every old request stays valid; a new client that "
                "sends the new form needs a new server")
        add("field-type-changed", subject, old_type, new_type, (), where, note,
            grades=(Grade("jsonrpc", "compatible", (), note),))
    elif before < after and role == {"response"}:
        note = f"{subject} may now be {more}, which an old client that validates responses refuses"
        add("field-type-changed", subject, old_type, new_type, ("json",), where, note,
            grades=(Grade("jsonrpc", "breaking", (OLD_CLIENT,), note),))
    elif after < before and role == {"response"}:
        note = (f"{subject} is no longer {fewer}: an old client accepts everything a new server "
                "sends; a new client refuses an old server's other forms")
        add("field-type-changed", subject, old_type, new_type, ("json",), where, note,
            grades=(Grade("jsonrpc", "breaking", (NEW_CLIENT,), note),))
    else:
        add("field-type-changed", subject, old_type, new_type, ("json",), where)


def widened(subject: str, what: str, role: set[str]) -> tuple[tuple[str, ...], tuple[Grade, ...]]:
    """What a schema that now also accepts `what` breaks, by the way the definition
    travels: an old client that validates a new server's responses refuses it; a request
    never does (only a new client sends the new form, to a server that knows it)."""
    if "response" in role:
        note = f"{subject} now also accepts {what}, which an old client that validates responses refuses"
        return ("json",), (Grade("jsonrpc", "breaking", (OLD_CLIENT,), note),)
    note = f"{subject} now also accepts {what}: every old request stays valid"
    return (), (Grade("jsonrpc", "compatible", (), note),)


def narrowed(subject: str, what: str, role: set[str]) -> tuple[tuple[str, ...], tuple[Grade, ...]]:
    """What a schema that no longer accepts `what` breaks: an old client's request that
    carries it; in a response, a new client that meets an old server's."""
    directions = ((OLD_CLIENT,) if "request" in role else ()) + ((NEW_CLIENT,) if "response" in role else ())
    note = (f"{subject} no longer accepts {what}: "
            + ("an old client's request that carries it is refused" if "request" in role
               else "a new client refuses an old server's response that carries it"))
    return ("json",), (Grade("jsonrpc", "breaking", directions, note),)


def _states(a: Definition, b: Definition, add: Any, at: Any, role: set[str]) -> None:
    old = {state_name(v): v for v in a.enum or {} if state_name(v)}
    new = {state_name(v): v for v in b.enum or {} if state_name(v)}
    old_lines, new_lines = a.enum or {}, b.enum or {}
    for state in [s for s in new if s not in old]:
        breaks, grades = widened("TaskState", repr(new[state]), role)
        add("state-added", f"TaskState.{state}", None, new[state], breaks, at(a.lines, new_lines[new[state]]),
            grades=grades)
    for state in [s for s in old if s not in new]:
        add("state-removed", f"TaskState.{state}", old[state], None, ("json",),
            at(old_lines[old[state]], b.lines),
            note="a peer that still sends this string is refused")
    renamed = [s for s in new if s in old and old[s] != new[s]]
    if renamed and _convention(list(old.values())) != _convention(list(new.values())):
        add("naming-convention", TASK_STATE, _convention(list(old.values())),
            _convention(list(new.values())), ("json",), at(a.lines, b.lines))
    for state in renamed:
        add("state-renamed", f"TaskState.{state}", old[state], new[state], ("json",),
            at(old_lines[old[state]], new_lines[new[state]]))


def _convention(spellings: list[str]) -> str:
    if all(re.fullmatch(r"TASK_STATE_[A-Z_]+", s) for s in spellings):
        return "SCREAMING_SNAKE_CASE with TASK_STATE_ prefix"
    if all(re.fullmatch(r"[a-z]+(-[a-z]+)*", s) for s in spellings):
        return "lowercase kebab-case strings"
    return "mixed"


def _enum_strings(name: str, a: Definition, b: Definition, add: Any, at: Any, role: set[str]) -> None:
    old, new = a.enum or {}, b.enum or {}
    for value in [v for v in old if v not in new]:
        add("enum-value-removed", f"{name}.{value}", value, None, ("json",), at(old[value], b.lines))
    for value in [v for v in new if v not in old]:
        breaks, grades = widened(name, repr(value), role)
        add("enum-value-added", f"{name}.{value}", None, value, breaks, at(a.lines, new[value]),
            grades=grades)


def _properties(name: str, a: Definition, b: Definition, add: Any, at: Any, *, validation: bool,
                role: set[str]) -> None:
    required_breaks = ("json",) if validation else ("behaviour",)
    for prop in [p for p in a.properties if p not in b.properties]:
        add("field-removed", f"{name}.{prop}", a.properties[prop][0], None, ("json",),
            at(a.properties[prop][1], b.lines))
    for prop in [p for p in b.properties if p not in a.properties]:
        required = prop in b.required
        add("field-added", f"{name}.{prop}", None, b.properties[prop][0],
            required_breaks if required else (), at(a.lines, b.properties[prop][1]),
            note="required: a message without it is invalid" if required else "")
    for prop in [p for p in a.properties if p in b.properties]:
        (old_type, old_lines), (new_type, new_lines) = a.properties[prop], b.properties[prop]
        if old_type != new_type:
            _retyped(f"{name}.{prop}", old_type, new_type, role, add, at(old_lines, new_lines))
        if validation:
            _null_and_const(f"{name}.{prop}", prop, a, b, role, add, at(old_lines, new_lines))
        was, now = prop in a.required, prop in b.required
        if was != now:
            add("field-required-changed", f"{name}.{prop}", "required" if was else "optional",
                "required" if now else "optional", required_breaks if now else ("behaviour",),
                at(old_lines, new_lines))


def _null_and_const(subject: str, prop: str, a: Definition, b: Definition, role: set[str], add: Any,
                    where: list[Location]) -> None:
    """A property that began or stopped accepting null, or was pinned to one value, released
    or re-pinned (a JSON schema's `const`: an error's fixed message, a part's kind)."""
    if (prop in a.nullable) != (prop in b.nullable):
        breaks, grades = (widened if prop in b.nullable else narrowed)(subject, "null", role)
        add("field-null-changed", subject, "null accepted" if prop in a.nullable else "no null",
            "null accepted" if prop in b.nullable else "no null", breaks, where, grades[0].why, grades=grades)
    was, now = a.consts.get(prop, _UNSET), b.consts.get(prop, _UNSET)
    if was == now:
        return
    if now is _UNSET:
        breaks, grades = widened(subject, f"values other than {was!r}", role)
    elif was is _UNSET:
        breaks, grades = narrowed(subject, f"any value but {now!r}", role)
    else:
        note = (f"{subject} is pinned to {now!r} where old peers write and expect {was!r}: each side "
                "refuses the other's")
        breaks, grades = ("json",), (Grade("jsonrpc", "breaking", (OLD_CLIENT, NEW_CLIENT), note),)
    add("field-const-changed", subject, "any" if was is _UNSET else was, "any" if now is _UNSET else now,
        breaks, where, grades[0].why, grades=grades)


_UNSET = object()
