"""Facts of the JSON binding's schema (specification/json/a2a.json, 47b436f … v0.3.0).

Reads the TaskState enum, the properties of every object definition (the lifecycle
messages Task, TaskStatus, TaskStatusUpdateEvent and TaskArtifactUpdateEvent must be
there), and the JSON-RPC error definitions whose code is fixed by `const`, `default`
or `examples`, and the `description` of every definition and property (`description`
facts). Early schemas keep definitions under `$defs`, later ones under
`definitions`. Lines come from `json_positions`: a property's fact points at its
key, a definition's at its whole body. The `description` strings give the inventories
(`inventory`) of normative and time-limit sentences, for the file and per definition.
"""

from __future__ import annotations

import json
from typing import Any

from ..facts import Fact
from .artifact import Artifact, Draft
from .inventory import DOCUMENT, PROSE_KINDS, Inventory
from .json_positions import Pointer, Span, locate
from .lifecycle import TASK_STATE, EnumEntry, enum_drafts

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.
LIFECYCLE_MESSAGES = ("Task", "TaskStatus", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent")


def extract(artifact: Artifact) -> list[Fact]:
    text = artifact.text
    try:
        document = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not valid JSON: {e}") from e
    if not isinstance(document, dict):
        raise artifact.fail("the schema is not a JSON object")
    container = next((k for k in ("$defs", "definitions") if isinstance(document.get(k), dict)), "")
    if not container:
        raise artifact.fail("no `$defs` or `definitions` object: is this the A2A JSON schema?")
    definitions: dict[str, Any] = document[container]
    spans = locate(text)

    drafts = _task_state(artifact, definitions.get(TASK_STATE), spans, (container, TASK_STATE))
    for name, definition in definitions.items():
        if isinstance(definition, dict) and isinstance(definition.get("properties"), dict):
            drafts += _message(name, definition, spans, (container, name))
    messages = {d.subject for d in drafts if d.kind == "message-fields"}
    missing = [m for m in LIFECYCLE_MESSAGES if m not in messages]
    if missing:
        raise artifact.fail(f"no object definition with properties for {', '.join(missing)}")
    errors = [d for name, definition in definitions.items()
              for d in _error(name, definition, spans, (container, name))]
    if not errors:
        raise artifact.fail("no JSON-RPC error definition with a fixed code, "
                            "such as TaskNotFoundError")
    inventories = _inventories(document, container, spans, len(text.splitlines()))
    return artifact.facts(drafts + errors + inventories)


def _descriptions(value: Any, pointer: Pointer) -> list[tuple[Pointer, str]]:
    """Every `description` string in `value`, with the pointer of the object holding it."""
    found: list[tuple[Pointer, str]] = []
    if isinstance(value, dict):
        if isinstance(value.get("description"), str):
            found.append((pointer, value["description"]))
        for key, member in value.items():
            found += _descriptions(member, (*pointer, key))
    elif isinstance(value, list):
        for i, member in enumerate(value):
            found += _descriptions(member, (*pointer, i))
    return found


def _inventories(document: dict[str, Any], container: str, spans: dict[Pointer, Span],
                 line_count: int) -> list[Draft]:
    """The normative and time-limit sentences of the descriptions, for the whole schema and
    for each definition that has any."""
    whole = Inventory()
    by_definition: dict[str, Inventory] = {}
    for pointer, text in _descriptions(document, ()):
        whole.add_prose(text)
        if len(pointer) >= 2 and pointer[0] == container:
            by_definition.setdefault(str(pointer[1]), Inventory()).add_prose(text)
    drafts = whole.drafts(DOCUMENT, 1, max(line_count, 1), PROSE_KINDS, always=True)
    for name, inventory in by_definition.items():
        drafts += inventory.drafts(name, *spans[(container, name)], PROSE_KINDS, always=False)
    return drafts


def _task_state(artifact: Artifact, definition: Any, spans: dict[Pointer, Span],
                where: Pointer) -> list[Draft]:
    values = definition.get("enum") if isinstance(definition, dict) else None
    if not values or not all(isinstance(v, str) for v in values):
        raise artifact.fail("no TaskState definition with an `enum` of strings")
    entries = [EnumEntry(spelling=v, line_start=spans[(*where, "enum", i)][0],
                         line_end=spans[(*where, "enum", i)][1])
               for i, v in enumerate(values)]
    return enum_drafts(entries, *spans[(*where, "enum")]) + _description(
        TASK_STATE, definition, spans, where)


def _message(name: str, definition: dict[str, Any], spans: dict[Pointer, Span],
             where: Pointer) -> list[Draft]:
    properties: dict[str, Any] = definition["properties"]
    required = set(definition.get("required") or [])
    drafts = [Draft("message-fields", name, list(properties), *spans[where])]
    drafts += _description(name, definition, spans, where)
    for field, schema in properties.items():
        value = {"number": None, "type": type_name(schema), "required": field in required,
                 "json_name": None}
        where_field = spans[(*where, "properties", field)]
        drafts.append(Draft("field", f"{name}.{field}", value, *where_field))
        drafts += _description(f"{name}.{field}", schema, spans, (*where, "properties", field))
    return drafts


def _description(subject: str, schema: Any, spans: dict[Pointer, Span], where: Pointer) -> list[Draft]:
    """The `description` of a definition or property, as written; nothing when it has none."""
    text = schema.get("description") if isinstance(schema, dict) else None
    if not isinstance(text, str) or not text.strip():
        return []
    return [Draft("description", subject, text, *spans[(*where, "description")])]


def type_name(schema: Any) -> str:
    """A short name for a property's type, written the same way as the proto extractor's:
    a referenced definition by its name, an array as `X[]`, a nullable type as itself.

    Examples:
        >>> type_name({"anyOf": [{"$ref": "#/$defs/Message"}, {"type": "null"}]})
        'Message'
        >>> type_name({"items": {"$ref": "#/definitions/Artifact"}, "type": "array"})
        'Artifact[]'
    """
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("$ref"), str):
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            kept = [type_name(o) for o in options
                    if not (isinstance(o, dict) and o.get("type") == "null")]
            return " | ".join(kept) if kept else "null"
    kind = schema.get("type")
    if kind == "array":
        return f"{type_name(schema.get('items'))}[]"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind if k != "null")
    if isinstance(kind, str):
        return kind
    if "const" in schema:
        return type(schema["const"]).__name__ if schema["const"] is not None else "null"
    return "any"


def _fixed(schema: Any) -> Any:
    """The value a property is pinned to: its const, else its default, else its first example."""
    if not isinstance(schema, dict):
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    examples = schema.get("examples")
    return examples[0] if isinstance(examples, list) and examples else None


def _error(name: str, definition: Any, spans: dict[Pointer, Span], where: Pointer) -> list[Draft]:
    if not name.endswith("Error") or not isinstance(definition, dict):
        return []
    properties = definition.get("properties")
    if not isinstance(properties, dict):
        return []
    code = _fixed(properties.get("code"))
    if not isinstance(code, int) or isinstance(code, bool):
        return []  # the generic JSONRPCError, or a union such as A2AError
    message = _fixed(properties.get("message"))
    value = {"code": code, "message": message if isinstance(message, str) else None}
    return [Draft("error", name, value, *spans[where])]
