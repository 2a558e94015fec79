"""A JSON Schema compiled once into plain Python checks, to say quickly that a record is valid.

jsonschema walks the schema for every record it validates, which costs a 10,000-claim KB
several seconds. Almost every record is valid, so validation asks this compiled check
first and runs jsonschema only for the records it rejects, where jsonschema's errors make
the diagnostics. The compiled check must therefore never accept what jsonschema rejects:
it implements the keywords our schemas use with JSON Schema's exact meaning (`1` is not
`true`, `1.0` is an integer, patterns are searched, lengths count code points), and a
schema with any other keyword is not compiled at all (`compile_schema` returns
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
    """A predicate that is True only for instances `schema` accepts; None when the schema
    uses a keyword or reference this module does not implement."""
    try:
        return _Compiler(schema).build(schema)
    except _NotCompiled:
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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


class _Compiler:
    """Writes the schema out as Python source, one function per subschema, and runs it once.

    Closures that call closures (`all(check(v) for check in checks)`) pay for a generator
    and a call at every node of every record; a generated function is a flat list of
    `if …: return False` tests, and checks 10,000 claims in half the time. The
    source holds no text from the schema but its property names (as `repr` literals):
    every other value (patterns, enums, bounds, constants) is passed in as a named object.
    """

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, str] = {}  # "#/$defs/x" → the name of its function
        self.source: list[str] = []  # the functions, in the order they were written
        self.tables: list[str] = []  # property tables, assigned once every function exists
        self.names: dict[str, Any] = {"_is_number": _is_number, "json_equal": json_equal,
                                      "_unique": _unique}
        self.count = 0

    def _name(self, prefix: str, value: Any = None) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not None:
            self.names[name] = value
        return name

    def build(self, schema: Any) -> Check:
        entry = self.compile(schema)
        code = "\n".join([*self.source, *self.tables])
        exec(compile(code, "<compiled schema>", "exec"), self.names)  # our own source, see above
        check: Check = self.names[entry]
        return check

    def compile(self, schema: Any) -> str:
        """The name of a function that says whether a value is valid against `schema`."""
        name = self._name("_check")
        body = self._body(schema)
        self.source += [f"def {name}(v):", *(f"    {line}" for line in body), "    return True", ""]
        return name

    def _body(self, schema: Any) -> list[str]:
        if schema is True:
            return []
        if schema is False:
            return ["return False"]
        if not isinstance(schema, dict):
            raise _NotCompiled(repr(schema))
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise _NotCompiled(", ".join(sorted(unknown)))
        lines: list[str] = []
        if "$ref" in schema:
            lines.append(f"if not {self._ref(schema['$ref'])}(v): return False")
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if any(n not in _TYPE_TESTS for n in names):
                raise _NotCompiled(f"type {names}")
            lines.append(f"if not ({' or '.join(_TYPE_TESTS[n] for n in names)}): return False")
        if "enum" in schema:
            lines.append(self._enum(list(schema["enum"])))
        if "const" in schema:
            lines.append(f"if not json_equal(v, {self._name('_const', [schema['const']])}[0]): return False")
        lines += self._string(schema) + self._number(schema) + self._array(schema)
        lines += self._object(schema)
        for sub in schema.get("allOf", []):
            lines.append(f"if not {self.compile(sub)}(v): return False")
        if "anyOf" in schema:
            lines.append(f"if not ({' or '.join(f'{self.compile(s)}(v)' for s in schema['anyOf'])}): "
                         "return False")
        if "oneOf" in schema:
            options = " + ".join(f"{self.compile(s)}(v)" for s in schema["oneOf"])
            lines.append(f"if ({options}) != 1: return False")
        return lines

    def _ref(self, ref: Any) -> str:
        if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref.count("/") != 2:
            raise _NotCompiled(f"$ref {ref!r}")
        if ref not in self.refs:
            target = self.root.get("$defs", {}).get(ref.rsplit("/", 1)[1])
            if target is None:
                raise _NotCompiled(f"$ref {ref!r} does not resolve")
            # Named before its body is written: a schema may refer to itself, and the
            # function looks the name up only when it runs.
            name = self._name("_ref")
            self.refs[ref] = name
            self.source += [f"def {name}(v):", f"    return {self.compile(target)}(v)", ""]
        return self.refs[ref]

    def _enum(self, choices: list[Any]) -> str:
        if all(isinstance(c, str) for c in choices):
            allowed = self._name("_enum", frozenset(choices))
            return f"if not (isinstance(v, str) and v in {allowed}): return False"
        listed = self._name("_enum", choices)
        return f"if not any(json_equal(v, c) for c in {listed}): return False"

    def _bounds(self, schema: dict[str, Any], test: str, measure: str, low: str, high: str) -> list[str]:
        lines = []
        for keyword, fails in ((low, "<"), (high, ">")):
            if schema.get(keyword) is not None:
                bound = self._name("_bound", [schema[keyword]])
                lines.append(f"if {test} and {measure} {fails} {bound}[0]: return False")
        return lines

    def _string(self, schema: dict[str, Any]) -> list[str]:
        lines = self._bounds(schema, "isinstance(v, str)", "len(v)", "minLength", "maxLength")
        if "pattern" in schema:
            search = self._name("_search", re.compile(schema["pattern"]).search)
            lines.append(f"if isinstance(v, str) and {search}(v) is None: return False")
        return lines

    def _number(self, schema: dict[str, Any]) -> list[str]:
        return self._bounds(schema, "_is_number(v)", "v", "minimum", "maximum")

    def _array(self, schema: dict[str, Any]) -> list[str]:
        lines = self._bounds(schema, "isinstance(v, list)", "len(v)", "minItems", "maxItems")
        if schema.get("uniqueItems") is True:
            lines.append("if isinstance(v, list) and not _unique(v): return False")
        if "items" in schema:
            item = self.compile(schema["items"])
            lines += ["if isinstance(v, list):", "    for x in v:", f"        if not {item}(x): return False"]
        return lines

    def _object(self, schema: dict[str, Any]) -> list[str]:
        lines = []
        required = list(schema.get("required", []))
        if required:
            present = " and ".join(f"{str(k)!r} in v" for k in required)
            lines.append(f"if isinstance(v, dict) and not ({present}): return False")
        properties = {str(k): self.compile(s) for k, s in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        if not properties and extra is True:
            return lines
        table = self._name("_properties")
        self.tables.append(f"{table} = {{{', '.join(f'{k!r}: {f}' for k, f in properties.items())}}}")
        if extra is True:
            unknown = "pass"
        elif extra is False:
            unknown = "return False"
        else:
            unknown = f"if not {self.compile(extra)}(x): return False"
        lines += [
            "if isinstance(v, dict):",
            "    for k, x in v.items():",
            f"        c = {table}.get(k)",
            "        if c is None:",
            f"            {unknown}",
            "        elif not c(x): return False",
        ]
        return lines


# The test each JSON type is, as Python source over the value `v`.
_TYPE_TESTS = {
    "string": "isinstance(v, str)",
    "object": "isinstance(v, dict)",
    "array": "isinstance(v, list)",
    "boolean": "isinstance(v, bool)",
    "null": "v is None",
    "number": "_is_number(v)",
    "integer": "((isinstance(v, int) and not isinstance(v, bool))"
               " or (isinstance(v, float) and v.is_integer()))",
}
