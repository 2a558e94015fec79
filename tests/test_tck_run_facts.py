"""Facts of the suite's run records (source kind ``tck-run``): each verdict and test at its lines,
and a record that is not one refused with a message that says what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import tck_run, test_suite
from a2a_kb.extract.artifact import Artifact

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "captures" / "tck" / "1.0-dev" / "a2a-sdk-1.3.0.json"


def _facts(data: bytes) -> dict[str, object]:
    found = tck_run.extract(Artifact("tck-run-x", "tck-run", "captures/tck/x.json", "", data))
    return {f"{f.kind}:{f.subject}": f for f in found}


def test_each_verdict_is_a_fact_at_the_lines_of_its_entry() -> None:
    text = RECORD.read_text("utf-8")
    facts = _facts(text.encode())
    record = json.loads(text)
    verdict = facts["tck-verdict:CORE-HIST-005"]
    found = record["requirements"]["CORE-HIST-005"]
    assert verdict.value == {"level": found["level"], "status": found["status"], **found["transports"]}  # type: ignore[attr-defined]
    lines = text.splitlines()
    assert '"CORE-HIST-005"' in lines[verdict.line_start - 1]  # type: ignore[attr-defined]
    assert facts["tck-build:a2a-sdk-1.3.0"].value["version"] == "1.3.0"  # type: ignore[attr-defined]
    tests = [f for k, f in facts.items() if k.startswith("tck-test:")]
    assert len(tests) == len(record["tests"])


def test_a_changed_verdict_changes_its_fact() -> None:
    record = json.loads(RECORD.read_text("utf-8"))
    record["requirements"]["CORE-CANCEL-002"]["transports"]["grpc"] = "FAIL"
    facts = _facts(json.dumps(record, indent=1).encode())
    assert facts["tck-verdict:CORE-CANCEL-002"].value["grpc"] == "FAIL"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("data", "said"), [
    (b"{not json", "not JSON"),
    (b'{"suite": {}}', "write it with `a2a-kb tck`"),
])
def test_a_record_that_is_not_one_is_refused(data: bytes, said: str) -> None:
    with pytest.raises(ExtractError, match=r"captures/tck/x\.json") as e:
        _facts(data)
    assert said in str(e.value)


# --- the suite's bundled schema: which TaskStatus.state values it lets through -------------------


def _schema_facts(state: dict[str, object], required: list[str] | None = None) -> dict[str, object]:
    schema = {"definitions": {"Task Status": {"type": "object", "properties": {"state": state},
                                              **({"required": required} if required else {})}}}
    text = json.dumps(schema, indent=1)
    found = test_suite.extract(Artifact("tck-spec-a2a@x", "test-suite", "specification/a2a.json", "",
                                        text.encode()))
    [fact] = found
    assert fact.kind == "suite-schema-state" and '"state"' in text.splitlines()[fact.line_start - 1]
    return dict(fact.value)


def test_the_schema_probe_reports_what_the_suite_lets_through() -> None:
    # the suite's own shape: the zero value's pattern, the named states, any int32
    loose = _schema_facts({"anyOf": [{"type": "string", "pattern": "^TASK_STATE_UNSPECIFIED$"},
                                     {"type": "string",
                                      "enum": ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]},
                                     {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}]})
    assert loose["TASK_STATE_UNSPECIFIED"] and loose["0"] and loose["99"] and loose["no state"]
    assert loose["TASK_STATE_WORKING"] and not loose["TASK_STATE_PAUSED"]
    # a schema that held servers to the eight names, state required: the same probes flip
    strict = _schema_facts({"type": "string", "enum": list(test_suite.STATE_PROBES)[:8]}, ["state"])
    assert not strict["TASK_STATE_UNSPECIFIED"] and not strict["0"] and not strict["99"]
    assert not strict["no state"] and strict["TASK_STATE_WORKING"]


def test_a_schema_without_a_task_status_is_refused() -> None:
    with pytest.raises(ExtractError, match="no definition 'Task Status'"):
        test_suite.extract(Artifact("x", "test-suite", "specification/a2a.json", "", b'{"definitions": {}}'))


# --- the 0.3 suite's gRPC client: how it reads a state ------------------------------------------

_CLIENT = '''
class Client:
    def _map_state_enum_to_json(self, state_enum):
        try:
            name = self._pb.TaskState.Name(state_enum)
        except Exception:
            return "completed"
        mapping = {"TASK_STATE_WORKING": "working", "TASK_STATE_CANCELLED": "canceled"}
        return mapping.get(name, "completed")

    def cancel_task(self, task_id):
        resp = self.stub.CancelTask(task_id)
        return {"id": resp.id, "status": {"state": "canceled"}}
'''


def _client_facts(text: str) -> dict[str, object]:
    found = test_suite.extract(Artifact("c", "test-suite", "tck/transport/grpc_client.py", "", text.encode()))
    return {f"{f.kind}:{f.subject}": f.value for f in found}


def test_the_client_reader_finds_the_fallback_and_the_literal_state() -> None:
    facts = _client_facts(_CLIENT)
    assert facts["suite-state-map:_map_state_enum_to_json"] == {
        "mapping": {"TASK_STATE_WORKING": "working", "TASK_STATE_CANCELLED": "canceled"},
        "fallback": "completed", "on_error": "completed"}
    assert facts["suite-fixed-state:cancel_task"] == {"state": "canceled"}
    # a client that read the reply and refused what it cannot name: both facts change
    fixed = (_CLIENT.replace('return "completed"', 'raise ValueError(state_enum)')
             .replace('mapping.get(name, "completed")', 'mapping.get(name, "unknown")')
             .replace('"status": {"state": "canceled"}', '"status": {"state": resp.status.state}'))
    facts = _client_facts(fixed)
    assert facts["suite-state-map:_map_state_enum_to_json"]["fallback"] == "unknown"  # type: ignore[index]
    assert facts["suite-state-map:_map_state_enum_to_json"]["on_error"] is None  # type: ignore[index]
    assert "suite-fixed-state:cancel_task" not in facts
