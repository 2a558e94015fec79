"""states and diff on the real sources: counts, spellings, classes and changes from facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.knowledge.states import disagreement


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    code = cli.main(["--root", str(Path(__file__).resolve().parents[1]), *argv, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    data: dict = json.loads(out)  # type: ignore[type-arg]
    assert data["schema_version"] == 1 and data["generated_at"].endswith("Z")
    return data


@pytest.mark.parametrize(
    ("version", "count"), [("1.0.0", 9), ("v1.0.1", 9), ("0.1.0", 7), ("draft", 7), ("0.2.0", 9)]
)
def test_state_counts(
    real_kb_env: Path, capsys: pytest.CaptureFixture[str], version: str, count: int
) -> None:
    data = run_json(capsys, "states", "--version", version)
    assert len(data["states"]) == count
    for state in data["states"]:
        assert set(state) >= {"name", "number", "spellings", "class", "disagreement"}


def test_v030_bindings_have_different_value_sets(
    real_kb_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSON schema of v0.3.0 has `unknown`, its gRPC binding `TASK_STATE_UNSPECIFIED`
    instead: nine values each, ten between them."""
    data = run_json(capsys, "states", "--version", "0.3.0")
    assert data["counts"] == {"json": 9, "grpc": 9}
    by_name = {s["name"]: s for s in data["states"]}
    assert len(by_name) == 10
    assert (
        "grpc" not in by_name["unknown"]["spellings"]
        and by_name["unknown"]["spellings"]["json"] == "unknown"
    )
    assert by_name["unspecified"]["spellings"] == {"grpc": "TASK_STATE_UNSPECIFIED"}


def test_v1_numbers_and_spellings(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "states", "--version", "1.0.0")
    numbered = {s["name"]: s["number"] for s in data["states"]}
    assert numbered["unspecified"] == 0 and numbered["auth-required"] == 8
    assert sorted(numbered.values()) == list(range(9))
    canceled = next(s for s in data["states"] if s["name"] == "canceled")
    assert canceled["spellings"]["proto"] == "TASK_STATE_CANCELED"
    assert all(c == "terminal" for c in canceled["class"].values())


def test_v030_bindings_disagree_on_auth_required(
    real_kb_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "states", "--version", "0.3.0")
    auth = next(s for s in data["states"] if s["name"] == "auth-required")
    canceled = next(s for s in data["states"] if s["name"] == "canceled")
    assert canceled["spellings"] == {
        "json": "canceled",
        "grpc": "TASK_STATE_CANCELLED",
        **{k: v for k, v in canceled["spellings"].items() if k not in ("json", "grpc")},
    }
    # The gRPC proto's "not an interrupted or terminal state" is a class of its own, and it
    # cannot hold beside Life of a Task's "interrupted": the table flags it, naming D7.
    assert auth["stated"]["grpc-proto@v0.3.0"] == "not-interrupted-or-terminal"
    # The contract's `class` keeps its four values: ruling out two groups leaves active.
    assert auth["class"]["grpc-proto@v0.3.0"] == "active"
    assert set(auth["class"].values()) <= {"active", "interrupted", "terminal", "unclassified"}
    assert auth["class"]["life-of-a-task@v0.3.0"] == "interrupted"
    assert auth["disagreement"] is True and auth["conflicts"] == ["D7"]
    # A source that says nothing of a state does not disagree: spec@v0.3.0 classifies only
    # the terminal states, so input-required is unclassified there and interrupted elsewhere.
    required = next(s for s in data["states"] if s["name"] == "input-required")
    assert required["class"]["spec@v0.3.0"] == "unclassified"
    assert required["disagreement"] is False
    assert not any(s["disagreement"] for s in data["states"] if s["name"] != "auth-required")


def test_v030_text_names_the_disagreement_and_its_conflict(
    real_kb_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(Path(__file__).resolve().parents[1]),
                     "states", "--version", "0.3.0"]) == 0
    out = capsys.readouterr().out
    assert "auth-required *" in out
    assert ("* auth-required: the sources disagree on its class (grpc-proto@v0.3.0 "
            "not-interrupted-or-terminal, life-of-a-task@v0.3.0 interrupted); conflict D7") in out


def test_a_negative_class_disagrees_only_with_what_it_rules_out() -> None:
    assert disagreement({"a": "not-interrupted-or-terminal", "b": "interrupted"})
    assert disagreement({"a": "not-interrupted-or-terminal", "b": "terminal"})
    assert not disagreement({"a": "not-interrupted-or-terminal", "b": "active"})
    assert not disagreement({"a": "not-terminal", "b": "interrupted", "c": "unclassified"})
    assert disagreement({"a": "terminal", "b": "active"})
    assert not disagreement({"a": "terminal", "b": "unclassified", "c": "terminal"})


@pytest.mark.parametrize(
    ("name", "in_v1", "in_v01"),
    [
        ("cancelled", "canceled", "canceled"),
        ("TASK_STATE_CANCELLED", "canceled", "canceled"),
        ("input-required", "input-required", "input-required"),
        ("AUTH_REQUIRED", "auth-required", None),
        ("unknown", None, "unknown"),
    ],
)
def test_resolve(
    real_kb_env: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    in_v1: str | None,
    in_v01: str | None,
) -> None:
    code = cli.main(["--root", str(real_kb_env), "states", "--resolve", name, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    by_version = {v["version"]: v for v in data["versions"]}
    assert by_version["1.0.0"]["state"] == in_v1
    assert by_version["0.1.0"]["state"] == in_v01
    if in_v1 is None:
        assert by_version["1.0.0"]["note"]


def test_resolve_nonsense_exits_1(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "states", "--resolve", "paused"]) == 1
    assert "not a spelling of any TaskState value" in capsys.readouterr().out


def test_diff_030_to_100(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "diff", "0.3.0", "1.0.0")
    changes = data["changes"]
    final = [
        c
        for c in changes
        if c["kind"] == "field-removed" and c["subject"] == "TaskStatusUpdateEvent.final"
    ]
    assert len(final) == 1 and final[0]["severity"] == "wire-breaking"
    assert any(
        loc["source"] == "json-schema@v0.3.0" and loc["lines"][0] > 0
        for loc in final[0]["locations"]
    )
    renamed = {c["subject"].split(".", 1)[1] for c in changes if c["kind"] == "state-renamed"}
    assert renamed == {
        "submitted",
        "working",
        "input-required",
        "auth-required",
        "completed",
        "canceled",
        "failed",
        "rejected",
    }
    for c in changes:
        assert c["kind"] and c["severity"] in (
            "wire-breaking",
            "source-breaking",
            "behavioural",
            "compatible",
            "editorial",
        )
        for loc in c["locations"]:
            assert loc["permalink"].startswith("https://github.com/a2aproject/A2A/blob/")


def test_diff_bindings_of_one_version(
    real_kb_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "diff", "0.3.0", "0.3.0")
    assert data["old"] == "0.3.0:json" and data["new"] == "0.3.0:grpc"
    renamed = {c["subject"]: c for c in data["changes"] if c["kind"] == "state-renamed"}
    assert renamed["TaskState.canceled"]["new"] == "TASK_STATE_CANCELLED"


def test_diff_fail_on(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(
            ["--root", str(real_kb_env), "diff", "0.3.0", "1.0.0", "--fail-on", "wire-breaking"]
        )
        == 1
    )
    capsys.readouterr()
    assert (
        cli.main(
            ["--root", str(real_kb_env), "diff", "1.0.0", "1.0.0:grpc", "--fail-on", "editorial"]
        )
        == 0
    )


def test_diff_100_to_101_reports_each_mapping_change_once(real_kb_env: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "diff", "1.0.0", "1.0.1")
    subjects = [c["subject"] for c in data["changes"] if c["kind"] == "error-mapping-changed"]
    assert "TaskNotCancelableError" in subjects
    assert len(subjects) == len(set(subjects)) and not any("@" in s for s in subjects)
    canceled = next(c for c in data["changes"] if c["subject"] == "TaskNotCancelableError")
    assert (canceled["old"]["http"], canceled["new"]["http"]) == (409, 400)
