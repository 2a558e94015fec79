"""A JSON Schema compiled once into plain Python checks, to say quickly that a record is valid.

jsonschema walks the schema for every record it validates, which costs a 10,000-claim KB
several seconds. Almost every record is valid, so validation asks this compiled check
first and runs jsonschema only for the records it rejects, where jsonschema's errors make
the diagnostics. The compiled check must therefore never accept what jsonschema rejects:
it implements the keywords our schemas use with JSON Schema's exact meaning (``1`` is not
``true``, ``1.0`` is an integer, patterns are searched, lengths count code points), and a
schema with any other keyword is not compiled at all (:func:`compile_schema` returns
None and every record goes to jsonschema).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that describe and never constrain (under Draft 2020-12 without format assertion).
_ANNOTATIONS = frozenset({
    "$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples",
    "deprecated", "readOnly", "writeOnly", "format", "markdownDescription",
})
_SUPPORTED = _ANNOTATIONS | {
    "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "minimum",
    "maximum", "oneOf", "anyOf", "allOf",
}


class _NotCompiled(Exception):
    """The schema uses something this module does not implement."""


def compile_schema(schema: dict[str, Any]) -> Check | None:
    """A predicate that is True only for instances ``schema`` accepts; None when the schema
    uses a keyword or reference this module does not implement."""
    try:
        return _Compiler(schema).compile(schema)
    except _NotCompiled:
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it: booleans are not numbers, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return a is None and b is None


def _unique(items: list[Any]) -> bool:
    if all(isinstance(v, str) for v in items):  # the common case, and exact for strings
        return len(set(items)) == len(items)
    return not any(json_equal(items[i], items[j])
                   for i in range(len(items)) for j in range(i + 1, len(items)))


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise _NotCompiled(repr(schema))
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise _NotCompiled(", ".join(sorted(unknown)))
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if any(n not in _TYPES for n in names):
                raise _NotCompiled(f"type {names}")
            kinds = [_TYPES[n] for n in names]
            checks.append(kinds[0] if len(kinds) == 1 else lambda v: any(k(v) for k in kinds))
        if "enum" in schema:
            checks.append(self._enum(list(schema["enum"])))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: json_equal(v, const))
        checks += self._string(schema) + self._number(schema) + self._array(schema)
        checks += self._object(schema)
        if "allOf" in schema:
            checks += [self.compile(s) for s in schema["allOf"]]
        if "anyOf" in schema:
            choices: list[Check] = [self.compile(s) for s in schema["anyOf"]]
            checks.append(lambda v: any(c(v) for c in choices))
        if "oneOf" in schema:
            options: list[Check] = [self.compile(s) for s in schema["oneOf"]]
            checks.append(lambda v: sum(1 for o in options if o(v)) == 1)
        return _all(checks)

    def _ref(self, ref: Any) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref.count("/") != 2:
            raise _NotCompiled(f"$ref {ref!r}")
        if ref not in self.refs:
            target = self.root.get("$defs", {}).get(ref.rsplit("/", 1)[1])
            if target is None:
                raise _NotCompiled(f"$ref {ref!r} does not resolve")
            slot: list[Check] = []
            self.refs[ref] = lambda v: slot[0](v)  # a schema may refer to itself
            slot.append(self.compile(target))
        return self.refs[ref]

    @staticmethod
    def _enum(choices: list[Any]) -> Check:
        if all(isinstance(c, str) for c in choices):
            allowed = frozenset(choices)
            return lambda v: isinstance(v, str) and v in allowed
        return lambda v: any(json_equal(v, c) for c in choices)

    @staticmethod
    def _string(schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        low, high = schema.get("minLength"), schema.get("maxLength")
        if low is not None:
            checks.append(lambda v: not isinstance(v, str) or len(v) >= low)
        if high is not None:
            checks.append(lambda v: not isinstance(v, str) or len(v) <= high)
        if "pattern" in schema:
            search = re.compile(schema["pattern"]).search
            checks.append(lambda v: not isinstance(v, str) or search(v) is not None)
        return checks

    @staticmethod
    def _number(schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None:
            checks.append(lambda v: not _is_number(v) or v >= low)
        if high is not None:
            checks.append(lambda v: not _is_number(v) or v <= high)
        return checks

    def _array(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None:
            checks.append(lambda v: not isinstance(v, list) or len(v) >= low)
        if high is not None:
            checks.append(lambda v: not isinstance(v, list) or len(v) <= high)
        if schema.get("uniqueItems") is True:
            checks.append(lambda v: not isinstance(v, list) or _unique(v))
        if "items" in schema:
            item = self.compile(schema["items"])
            checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
        return checks

    def _object(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        required = list(schema.get("required", []))
        if required:
            checks.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
        properties = {k: self.compile(s) for k, s in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        other = None if extra is True else self.compile(extra)

        def members(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, value in v.items():
                check = properties.get(key)
                if check is None:
                    if other is not None and not other(value):
                        return False
                elif not check(value):
                    return False
            return True

        if properties or other is not None:
            checks.append(members)
        return checks
