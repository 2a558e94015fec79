"""The compiled schema check must agree with jsonschema: validation trusts it to pass
records, so accepting one that jsonschema rejects would hide a problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from a2a_kb.project import Project
from a2a_kb.records.compiled_schema import compile_schema, json_equal
from a2a_kb.records.loader import load
from a2a_kb.schemas import KINDS, schema

ROOT = Path(__file__).resolve().parents[1]


def record_schema(kind: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{kind}", "$defs": schema(kind)["$defs"]}


CHECKS = {kind: compile_schema(record_schema(kind)) for kind in KINDS}
VALIDATORS = {kind: Draft202012Validator(record_schema(kind)) for kind in KINDS}
REAL = load(Project.at(ROOT)).records

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False, width=32)
    | st.sampled_from(["", "x", "D1", "verified", "equals", "spec@v1.0.0", "0.3.0", "a" * 90,
                       "2026-01-01", "https://example.org/", "abc-def"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["fact", "op", "value", "id", "claims", "position", "x"]), inner,
        max_size=3),
    max_leaves=6,
)


def agree(kind: str, instance: Any) -> None:
    check = CHECKS[kind]
    assert check is not None
    assert check(instance) == VALIDATORS[kind].is_valid(instance), (kind, instance)


def test_every_record_schema_compiles() -> None:
    assert all(CHECKS[kind] is not None for kind in KINDS)


def test_the_real_records_pass_both() -> None:
    for kind in KINDS:
        assert REAL[kind], kind
        for record in REAL[kind]:
            assert CHECKS[kind](record.data) is True  # type: ignore[misc]
            agree(kind, record.data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_changed_record_gets_the_same_answer(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(KINDS))
    record = dict(data.draw(st.sampled_from(REAL[kind])).data)
    properties = list(schema(kind)["$defs"][kind]["properties"])
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["set", "drop", "add", "nest"]))
        key = data.draw(st.sampled_from(properties))
        if action == "set":
            record[key] = data.draw(json_values)
        elif action == "drop":
            record.pop(key, None)
        elif action == "add":
            record[data.draw(st.sampled_from(["extra", "Id", "verdicts"]))] = 1
        elif isinstance(record.get(key), list) and record[key]:
            items = list(record[key])
            items[data.draw(st.integers(0, len(items) - 1))] = data.draw(json_values)
            record[key] = items
    agree(kind, record)


@pytest.mark.parametrize(
    ("schema_", "instance", "valid"),
    [
        ({"enum": [1]}, True, False),  # true is not 1 in JSON
        ({"enum": [True]}, 1, False),
        ({"const": 1.0}, 1, True),
        ({"type": "integer"}, 2.0, True),
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"uniqueItems": True}, [1, True], True),
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"uniqueItems": True}, [{"a": [1]}, {"a": [1]}], False),
        ({"pattern": "b"}, "abc", True),  # patterns are searched, not matched
        ({"maxLength": 1}, "é", True),  # lengths count characters, not bytes
        ({"oneOf": [{"type": "string"}, {"maxLength": 3}]}, "ab", False),  # both match
        ({"anyOf": [{"type": "integer"}, {"minimum": 3}]}, "x", True),  # minimum ignores text
    ],
)
def test_json_schema_meanings(schema_: dict[str, Any], instance: Any, valid: bool) -> None:
    check = compile_schema(schema_)
    assert check is not None
    assert check(instance) is valid
    assert Draft202012Validator(schema_).is_valid(instance) is valid


def test_a_schema_with_an_unknown_keyword_is_not_compiled() -> None:
    assert compile_schema({"type": "object", "patternProperties": {"^x": {}}}) is None
    assert compile_schema({"$ref": "https://example.org/other.json"}) is None
    assert compile_schema({"items": [{"type": "string"}]}) is None


def test_a_schema_may_refer_to_itself() -> None:
    tree = {"$ref": "#/$defs/node", "$defs": {"node": {
        "type": "object", "additionalProperties": False,
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}
    check = compile_schema(tree)
    assert check is not None
    assert check({"children": [{"children": []}, {}]})
    assert not check({"children": [{"children": [{"x": 1}]}]})


def test_json_equal() -> None:
    assert json_equal([1, {"a": None}], [1.0, {"a": None}])
    assert not json_equal(0, False)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
