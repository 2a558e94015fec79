"""The .proto extractor against the mirrored gRPC and v1 protos, and its failures."""

from __future__ import annotations

import dataclasses

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from a2a_kb.facts import Fact
from extract_mirror import at

GRPC = "specification/grpc/a2a.proto"
V1 = "specification/a2a.proto"


def facts_at(ref: str, path: str) -> dict[str, Fact]:
    source, data = at(ref, path)
    return {f.key: f for f in extract(source, data)}


def test_v1_0_0_numbers_unspecified_zero_and_eight_states_one_to_eight() -> None:
    facts = facts_at("v1.0.0", V1)
    values = facts["enum-values:TaskState"].value
    numbers = {v: facts[f"enum-value:TaskState.{v}"].value["number"] for v in values}
    assert numbers["TASK_STATE_UNSPECIFIED"] == 0
    others = sorted(n for v, n in numbers.items() if v != "TASK_STATE_UNSPECIFIED")
    assert others == list(range(1, 9))
    assert numbers["TASK_STATE_CANCELED"] == 5
    assert facts["named-states:TaskState"].value == [
        "submitted", "working", "completed", "failed", "canceled", "input-required", "rejected",
        "auth-required"]


def test_v0_3_0_grpc_spells_cancelled_and_says_auth_required_is_neither_interrupted_nor_terminal() -> None:
    facts = facts_at("v0.3.0", GRPC)
    assert "TASK_STATE_CANCELLED" in facts["enum-values:TaskState"].value
    assert "TASK_STATE_CANCELED" not in facts["enum-values:TaskState"].value
    assert facts["enum-value:TaskState.TASK_STATE_CANCELLED"].value["state"] == "canceled"
    assert facts["state-class:TaskState.auth-required"].value == "not-interrupted-or-terminal"
    assert facts["interrupted-states:TaskState"].value == ["input-required"]
    assert facts["terminal-states:TaskState"].value == [
        "completed", "failed", "canceled", "rejected"]
    assert "state-class:TaskState.submitted" not in facts  # its comment says nothing of class


def test_v1_0_0_calls_auth_required_interrupted() -> None:
    facts = facts_at("v1.0.0", V1)
    assert facts["state-class:TaskState.auth-required"].value == "interrupted"
    assert facts["interrupted-states:TaskState"].value == ["input-required", "auth-required"]
    description = facts["enum-value:TaskState.TASK_STATE_REJECTED"].value["description"]
    assert "decided to not perform the task" in description
    assert description.endswith("This is a terminal state.")


def test_final_is_in_the_v0_3_0_event_and_gone_from_v1_0_0() -> None:
    old = facts_at("v0.3.0", GRPC)
    new = facts_at("v1.0.0", V1)
    assert "final" in old["message-fields:TaskStatusUpdateEvent"].value
    assert old["field:TaskStatusUpdateEvent.final"].value["number"] == 4
    assert "final" not in new["message-fields:TaskStatusUpdateEvent"].value
    assert "field:TaskStatusUpdateEvent.final" not in new
    # v1.0.0 gave number 4 to another field
    assert new["field:TaskStatusUpdateEvent.metadata"].value["number"] == 4


def test_required_and_json_name_options() -> None:
    old = facts_at("v0.3.0", GRPC)
    assert old["field:TaskStatus.update"].value == {
        "number": 2, "type": "Message", "required": False, "json_name": "message"}
    new = facts_at("v1.0.0", V1)
    assert new["field:TaskStatus.state"].value["required"] is True
    assert new["field:TaskStatus.message"].value["required"] is False
    assert new["field:Task.artifacts"].value["type"] == "Artifact[]"


def test_service_methods_and_streaming() -> None:
    facts = facts_at("v1.0.0", V1)
    methods = facts["rpc-methods:A2AService"].value
    expected = {"SendMessage", "SendStreamingMessage", "GetTask", "CancelTask", "SubscribeToTask"}
    assert expected <= set(methods)
    assert facts["rpc-method:A2AService.SendStreamingMessage"].value == {
        "request": "SendMessageRequest", "response": "StreamResponse", "streaming": True}
    assert facts["rpc-method:A2AService.GetTask"].value["streaming"] is False
    assert "TaskSubscription" in facts_at("v0.2.2", GRPC)["rpc-methods:A2AService"].value


def test_lines_of_a_value_cover_its_comment_and_its_declaration() -> None:
    source, data = at("v0.3.0", GRPC)
    lines = data.decode().splitlines()
    facts = {f.key: f for f in extract(source, data)}
    auth = facts["state-class:TaskState.auth-required"]
    assert lines[auth.line_end - 1].strip() == "TASK_STATE_AUTH_REQUIRED = 8;"
    assert lines[auth.line_start - 1].strip().startswith("// Represents the state that some")
    enum = facts["enum-values:TaskState"]
    assert lines[enum.line_start - 1] == "enum TaskState {"
    assert lines[enum.line_end - 1] == "}"
    event = facts["message-fields:TaskStatusUpdateEvent"]
    assert lines[event.line_start - 1] == "message TaskStatusUpdateEvent {"


SMALL = b"""syntax = "proto3";
package demo;

// The states.
enum TaskState {
  TASK_STATE_UNSPECIFIED = 0;
  TASK_STATE_DONE = 1; // Finished. This is a terminal state.
}

message Event {
  reserved 2, 5 to 7;
  reserved "final";
  string id = 1 [json_name = "eventId"];
  map<string, string> labels = 3;
  oneof payload {
    string text = 4;
  }
  message Inner {
    int32 n = 1;
  }
}

service Demo {
  rpc Watch(Event) returns (stream Event);
}
"""


def _artifact_facts(data: bytes) -> dict[str, Fact]:
    source, _ = at("v1.0.0", V1)
    return {f.key: f for f in extract(source, data)}


def test_reserved_maps_oneofs_nested_messages_and_trailing_comments() -> None:
    facts = _artifact_facts(SMALL)
    assert facts["reserved:Event"].value == {"numbers": [2, 5, 6, 7], "names": ["final"]}
    assert (facts["reserved:Event"].line_start, facts["reserved:Event"].line_end) == (11, 12)
    assert facts["message-fields:Event"].value == ["id", "labels", "text"]
    assert facts["field:Event.labels"].value["type"] == "map<string, string>"
    assert facts["field:Event.id"].value["json_name"] == "eventId"
    assert facts["field:Event.text"].line_start == 16
    assert facts["message-fields:Event.Inner"].value == ["n"]
    assert facts["field:Event.Inner.n"].line_start == 19
    assert facts["state-class:TaskState.done"].value == "terminal"
    assert facts["enum-value:TaskState.TASK_STATE_DONE"].value["description"] == (
        "Finished. This is a terminal state.")
    assert facts["rpc-method:Demo.Watch"].value["streaming"] is True


@pytest.mark.parametrize(("data", "words"), [
    (b"", "enum TaskState"),
    (b"message A { string x = 1 }", "not a valid .proto file: line 1"),
    (SMALL.replace(b"enum TaskState", b"enum Other"), "enum TaskState"),
    (SMALL.replace(b"service Demo {\n  rpc Watch(Event) returns (stream Event);\n}\n", b""),
     "no service"),
])
def test_broken_or_incomplete_protos_are_errors(data: bytes, words: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ExtractError, match=words):
        _artifact_facts(data)
    assert capsys.readouterr() == ("", "")  # ANTLR's console listener is replaced


def test_facts_name_their_source() -> None:
    source, data = at("v1.0.1", V1)
    fact = next(iter(extract(source, data)))
    assert dataclasses.astuple(fact)[3:6] == (source.id, V1, source.commit)


def test_comment_inventories_per_file_and_declaration() -> None:
    data = SMALL.replace(
        b"message Event {",
        b"// Servers MUST drop an event after a timeout\n// of 30 seconds. Nothing else.\nmessage Event {",
    ).replace(b"  int32 n = 1;", b"  int32 n = 1; // Clients MAY retry.")
    facts = _artifact_facts(data)
    lines = data.decode().splitlines()
    event = facts["normative:Event"]
    assert event.value == ["Servers MUST drop an event after a timeout of 30 seconds.",
                           "Clients MAY retry."]  # a nested message's comment is its parent's
    assert lines[event.line_start - 1].startswith("// Servers MUST")  # from its leading comment
    assert lines[event.line_end - 1] == "}"
    assert facts["time-limits:Event"].value == ["Servers MUST drop an event after a timeout of 30 seconds."]
    assert facts["normative:document"].value == event.value
    assert "normative:TaskState" not in facts  # its comments carry no keyword
    plain = _artifact_facts(SMALL)
    assert plain["time-limits:document"].value == [] and "time-limits:Event" not in plain


def test_v030_grpc_says_no_time_limit_and_v1_comments_are_normative() -> None:
    assert facts_at("v0.3.0", GRPC)["time-limits:document"].value == []
    v1 = facts_at("v1.0.1", V1)
    assert any("MUST wait until the task reaches a terminal" in s
               for s in v1["normative:SendMessageConfiguration"].value)
