"""The JSON schema extractor against the mirrored schemas, and its failures."""

from __future__ import annotations

import json

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from a2a_kb.extract.json_positions import locate
from a2a_kb.facts import Fact
from extract_mirror import at

SCHEMA = "specification/json/a2a.json"


def facts_at(ref: str) -> dict[str, Fact]:
    source, data = at(ref, SCHEMA)
    return {f.key: f for f in extract(source, data)}


def test_v0_1_0_has_the_seven_states_of_the_first_release() -> None:
    facts = facts_at("v0.1.0")
    assert facts["enum-values:TaskState"].value == [
        "submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"]
    assert facts["named-states:TaskState"].value == [
        "submitted", "working", "input-required", "completed", "canceled", "failed"]


def test_v0_2_0_adds_rejected_and_auth_required() -> None:
    states = facts_at("v0.2.0")["states:TaskState"].value
    assert len(states) == 9
    assert {"rejected", "auth-required"} <= set(states)
    assert "rejected" not in facts_at("v0.1.0")["states:TaskState"].value


def test_the_initial_commit_keeps_definitions_under_defs() -> None:
    facts = facts_at("47b436f")
    assert facts["message-fields:Task"].value == [
        "id", "sessionId", "status", "artifacts", "metadata"]
    assert facts["field:Task.id"].value["required"] is True
    assert facts["field:Task.sessionId"].value == {
        "number": None, "type": "string", "required": False, "json_name": None}


def test_v0_3_0_status_update_event_has_a_required_final() -> None:
    facts = facts_at("v0.3.0")
    assert "final" in facts["message-fields:TaskStatusUpdateEvent"].value
    assert facts["field:TaskStatusUpdateEvent.final"].value == {
        "number": None, "type": "boolean", "required": True, "json_name": None}
    assert facts["field:Task.artifacts"].value["type"] == "Artifact[]"
    assert facts["field:TaskStatus.state"].value["type"] == "TaskState"
    assert "message-fields:TaskArtifactUpdateEvent" in facts


def test_v0_3_0_errors_carry_codes_and_messages() -> None:
    facts = facts_at("v0.3.0")
    assert facts["error:TaskNotCancelableError"].value == {
        "code": -32002, "message": "Task cannot be canceled"}
    assert facts["error:TaskNotFoundError"].value["code"] == -32001
    assert facts["error:UnsupportedOperationError"].value["code"] == -32004
    # the base object and the union have no fixed code, so they are no error facts
    assert "error:JSONRPCError" not in facts
    assert "error:A2AError" not in facts


def test_v0_1_0_error_codes_come_from_const() -> None:
    assert facts_at("v0.1.0")["error:TaskNotCancelableError"].value == {
        "code": -32002, "message": "Task cannot be canceled"}


def test_lines_point_at_the_enum_and_its_values() -> None:
    source, data = at("v0.3.0", SCHEMA)
    lines = data.decode().splitlines()
    facts = {f.key: f for f in extract(source, data)}
    enum = facts["enum-values:TaskState"]
    assert lines[enum.line_start - 1].strip() == '"enum": ['
    assert lines[enum.line_end - 1].strip() == "],"
    rejected = facts["enum-value:TaskState.rejected"]
    assert rejected.line_start == rejected.line_end
    assert lines[rejected.line_start - 1].strip() == '"rejected",'
    final = facts["field:TaskStatusUpdateEvent.final"]
    assert lines[final.line_start - 1].strip() == '"final": {'


def _without(ref: str, definition: str) -> tuple[object, bytes]:
    source, data = at(ref, SCHEMA)
    document = json.loads(data)
    container = "definitions" if "definitions" in document else "$defs"
    del document[container][definition]
    return source, json.dumps(document, indent=2).encode()


@pytest.mark.parametrize(("definition", "words"), [
    ("TaskState", "TaskState"),
    ("TaskStatusUpdateEvent", "TaskStatusUpdateEvent"),
])
def test_a_schema_without_a_lifecycle_definition_is_an_error(definition: str,
                                                             words: str) -> None:
    source, data = _without("v0.3.0", definition)
    with pytest.raises(ExtractError, match=words):
        extract(source, data)  # type: ignore[arg-type]


@pytest.mark.parametrize("data", [b"", b"{not json", b"[1, 2]", b'{"definitions": {}}',
                                  b"\xff\xfe"])
def test_broken_or_empty_input_is_an_error(data: bytes) -> None:
    source, _ = at("v0.3.0", SCHEMA)
    with pytest.raises(ExtractError, match=r"json-schema@v0\.3\.0"):
        extract(source, data)


def test_locate_handles_escapes_nesting_and_empty_containers() -> None:
    text = '{\n  "a\\"b": {"x": []},\n  "list": [\n    {},\n    "s\\n",\n    -1.5e3\n  ]\n}\n'
    spans = locate(text)
    assert json.loads(text)  # the finder runs on valid JSON only
    assert spans[('a"b',)] == (2, 2)
    assert spans[('a"b', "x")] == (2, 2)
    assert spans[("list",)] == (3, 7)
    assert spans[("list", 2)] == (6, 6)
    assert spans[()] == (1, 8)


def test_descriptions_give_normative_inventories() -> None:
    facts = facts_at("v0.3.0")
    whole = facts["normative:document"].value
    assert whole and all(any(k in s for k in ("MUST", "SHOULD", "MAY", "REQUIRED", "OPTIONAL",
                                                "RECOMMENDED", "SHALL")) for s in whole)
    card = facts["normative:AgentCard"]
    assert set(card.value) <= set(whole)
    assert facts["time-limits:document"].value == []
    _, data = at("v0.3.0", "specification/json/a2a.json")
    lines = data.decode().splitlines()
    assert lines[card.line_start - 1].strip().startswith('"AgentCard"')
