"""The conformance suite's records (captures/tck/): what `a2a-kb tck` keeps of a run, and
how `tck --check` reports a verdict that changed. The run itself is `make capture-check`
(`a2a-kb tck --check`, part of `make test`), which starts each build's system under test
and the suite's own runner."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from a2a_kb import cli
from a2a_kb.capture import tck
from a2a_kb.errors import ConfigurationError
from conftest import MIRROR

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "captures" / "tck" / "1.0-dev" / "a2a-sdk-1.3.0.json"


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text("utf-8"))
    return data


def _registry_ids(suite: tck.Suite) -> set[str]:
    """Every requirement id the suite's registry defines, read with Python's parser from its
    tck/requirements/*.py in the mirror (RequirementSpec(id="…", …))."""
    ids = set()
    for path, _, local in tck.suite_files(MIRROR, suite):
        if path.startswith("tck/requirements/") and path.endswith(".py"):
            for node in ast.walk(ast.parse(local.read_text("utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RequirementSpec":
                    ids |= {k.value.value for k in node.keywords
                            if k.arg == "id" and isinstance(k.value, ast.Constant)}
    return ids


def test_the_record_answers_every_requirement_of_the_registry(recorded: dict[str, Any]) -> None:
    ids = _registry_ids(tck.SUITES["1.0-dev"])
    assert len(ids) > 100
    assert set(recorded["requirements"]) == ids
    assert recorded["suite"]["commit"] == tck.SUITES["1.0-dev"].commit
    assert recorded["build"]["version"] == "1.3.0"


def test_every_transport_the_build_serves_was_run(recorded: dict[str, Any]) -> None:
    ran = {t["transport"] for t in recorded["tests"]}
    assert set(tck.TRANSPORTS) <= ran
    outcomes = {t["outcome"] for t in recorded["tests"]}
    assert {"passed", "failed"} <= outcomes
    # each test is tied to its requirement and transport where the suite says which
    assert sum(1 for t in recorded["tests"] if not t["requirement"]) <= 5
    assert all(t["transport"] for t in recorded["tests"])


def test_a_changed_verdict_names_its_requirement_build_and_transport(recorded: dict[str, Any]) -> None:
    now = copy.deepcopy(recorded)
    assert tck.differences(recorded, now) == []
    passing = next(rid for rid, r in now["requirements"].items() if r["transports"].get("grpc") == "PASS")
    now["requirements"][passing]["transports"]["grpc"] = "FAIL"
    test = next(t for t in now["tests"] if t["requirement"] == passing and t["transport"] == "grpc")
    test["outcome"], test["reason"] = "failed", "stream stays open"
    lines = tck.differences(recorded, now)
    assert f"{passing} on a2a-sdk-1.3.0 over grpc: recorded PASS, now FAIL" in lines
    assert any(line.startswith(f"{passing} on a2a-sdk-1.3.0 over grpc: {test['test']} was passed, now failed "
                               "(stream stays open)") for line in lines)


def test_a_reason_is_one_stable_line() -> None:
    url = "http://127.0.0.1:40123"
    text = ("AssertionError: task 0b6c4f1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f at http://127.0.0.1:40123/x "
            "took 2.51 s\nsecond line")
    assert tck.reason(text, url) == "AssertionError: task <id> at <sut>/x took <t>"


def test_a_damaged_suite_file_in_the_mirror_is_refused(tmp_path: Path) -> None:
    url = "https://raw.githubusercontent.com/a2aproject/a2a-tck/abc/run_tck.py"
    local = tmp_path / "raw.githubusercontent.com/a2aproject/a2a-tck/abc/run_tck.py"
    local.parent.mkdir(parents=True)
    local.write_text("print('the suite')\n")
    sha = hashlib.sha256(b"print('the suite')\n").hexdigest()
    (tmp_path / "MANIFEST.tsv").write_text(f"ref\tcommit\tpath\tbytes\tsha256\turl\n"
                                           f"tck-x\tabc\trun_tck.py\t19\t{sha}\t{url}\n")
    suite = tck.Suite("x", "abc", ".cache/tck/runner-x")
    tck.copy_suite(tmp_path, suite, tmp_path / "out")
    assert (tmp_path / "out" / "run_tck.py").read_text() == "print('the suite')\n"
    local.write_text("print('changed')\n")
    with pytest.raises(ConfigurationError, match=r"run_tck\.py: missing or not the file MANIFEST\.tsv names"):
        tck.copy_suite(tmp_path, suite, tmp_path / "out2")
    with pytest.raises(ConfigurationError, match="no files of a2a-tck y"):
        tck.copy_suite(tmp_path, tck.Suite("y", "abc", ".cache/tck/runner-y"), tmp_path / "out3")


def test_tck_needs_the_mirror_and_knows_its_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("A2A_KB_MIRROR", raising=False)
    assert cli.main(["--root", str(ROOT), "tck", "--check"]) == 2
    assert "set A2A_KB_MIRROR" in capsys.readouterr().err
    assert cli.main(["--root", str(ROOT), "tck", "--check", "--mirror", str(MIRROR), "--build", "nope"]) == 2
    known = "a2a-sdk-1.3.0, a2a-sdk-0.3, a2a-js-sdk-1.3.0"
    assert f"no suite build nope (known: {known})" in capsys.readouterr().err


def test_records_hold_nothing_of_the_run_that_made_them() -> None:
    """The same build gives the same file: no temporary path, port or id of one run."""
    for path in sorted((ROOT / "captures" / "tck").rglob("*.json")):
        text = path.read_text("utf-8")
        assert "/.cache/" not in text and "127.0.0.1:" not in text, path
        assert not tck._UUID.search(text), path


def test_the_0_3_suite_runs_the_0_3_build_over_json_rpc() -> None:
    found = json.loads((ROOT / "captures" / "tck" / "0.3.x" / "a2a-sdk-0.3.json").read_text("utf-8"))
    assert found["suite"]["commit"] == tck.SUITES["0.3.x"].commit
    assert found["build"]["version"].startswith("0.3.")
    categories = {t["category"] for t in found["tests"]}
    assert {"mandatory", "capabilities", "quality", "features"} <= categories
    assert {t["transport"] for t in found["tests"]} == {"jsonrpc"}
    assert {"passed", "failed"} <= {t["outcome"] for t in found["tests"]}


# --- the JavaScript agent: the suite's scenarios, played through @a2a-js/sdk -------------------

JS_BUILD = tck.BUILDS["a2a-js-sdk-1.3.0"]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The 1.0-dev suite's scenarios, read by the suite's own parser from a copy of the mirror."""
    suite_dir = tmp_path_factory.mktemp("suite") / "a2a-tck"
    tck.copy_suite(MIRROR, JS_BUILD.suite, suite_dir)
    found = tck.scenarios_json(JS_BUILD, ROOT, suite_dir)
    return suite_dir, json.loads(found.read_text("utf-8"))


def _agent_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", str(ROOT / JS_BUILD.main), "--scenarios", str(path), "--check"],
                          capture_output=True, text=True, check=False, timeout=60)


def test_every_scenario_of_the_feature_files_has_its_handler(
        scenarios: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    suite_dir, found = scenarios
    # counted apart from any Gherkin parser: every "Scenario:" line of every feature file
    written = {f"scenarios/{p.name}:{n}" for p in sorted((suite_dir / "scenarios").glob("*.feature"))
               for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
               if line.strip().startswith("Scenario:")}
    assert len(written) >= 16
    assert {f"{s['file']}:{s['line']}" for s in found} == written
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(found), "utf-8")
    done = _agent_check(path)
    assert done.returncode == 0, done.stderr
    played = {line.split("\t")[0]: line.split("\t") for line in done.stdout.splitlines()}
    assert set(played) == written
    # each scenario's steps, all of them, with the actions that end a run taken last
    for s in found:
        steps = played[f"{s['file']}:{s['line']}"][2].split(",")
        assert sorted(steps) == sorted(a["kind"] for a in s["actions"])
        assert steps[-1] in ("CompleteTask", "RejectWithError", "UpdateTaskStatus", "ReturnMessage")


@pytest.mark.parametrize(("plant", "named"), [
    ({"kind": "SendPushNotification"}, "no handler for the action SendPushNotification"),
    ({"kind": "UpdateTaskStatus", "state": "paused"}, 'no handler for the state "paused"'),
    ({"kind": "RejectWithError", "error_type": "quota_exceeded"},
     'no handler for the error "quota_exceeded"'),
    ({"kind": "AddArtifact", "parts": [{"kind": "AudioPartDef"}], "append": False, "last_chunk": False},
     "no handler for the part kind AudioPartDef"),
])
def test_a_step_without_a_handler_stops_the_agent_naming_its_scenario(
        scenarios: tuple[Path, list[dict[str, Any]]], tmp_path: Path, plant: dict[str, Any],
        named: str) -> None:
    found = copy.deepcopy(scenarios[1])
    found[3]["actions"].append(plant)
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(found), "utf-8")
    done = _agent_check(path)
    assert done.returncode == 1
    assert f"{found[3]['file']}:{found[3]['line']}" in done.stderr and named in done.stderr
    assert "at " not in done.stderr  # a message, not a stack trace


def test_the_javascript_build_ran_every_transport_it_serves() -> None:
    found = json.loads(tck.path_of(ROOT / "captures", JS_BUILD).read_text("utf-8"))
    assert found["build"]["package"] == "@a2a-js/sdk" and found["build"]["version"] == "1.3.0"
    assert set(tck.TRANSPORTS) <= {t["transport"] for t in found["tests"]}
    assert set(found["requirements"]) == _registry_ids(tck.SUITES["1.0-dev"])
    # the scenario that returns a Message, not a Task, is answered as the scenario says
    assert found["requirements"]["CORE-SEND-001"]["status"] == "PASS"
