"""Facts of the suite's run records (source kind ``tck-run``): each verdict and test at its lines,
and a record that is not one refused with a message that says what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import tck_run
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
