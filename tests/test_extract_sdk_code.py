"""The SDK extractor (tree-sitter, six languages) on the pinned source, and on planted copies:
a member added to a terminal set, or a cancel check taken out, changes the facts and flips
exactly the claims that rest on them."""

from __future__ import annotations

import functools

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from a2a_kb.extract.sdk_reader import error_of
from a2a_kb.facts import Fact
from a2a_kb.knowledge.check import _matches
from a2a_kb.project import Project
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.validate import validate
from conftest import MIRROR, REPO


@functools.cache
def kb() -> KnowledgeBase:
    return validate(Project.at(REPO))


def pinned(source_id: str) -> bytes:
    source = kb().sources[source_id]
    path = MIRROR / source.url.removeprefix("https://")
    return path.read_bytes()


def facts(source_id: str, data: bytes) -> dict[str, Fact]:
    return {f.key: f for f in extract(kb().sources[source_id], data)}


def verdicts(source_id: str, data: bytes) -> dict[str, bool]:
    """Whether each claim resting on ``source_id`` holds against the facts of ``data``."""
    found = facts(source_id, data)
    result = {}
    for claim in kb().claims.values():
        checks = [e for e in claim.expect if (e.source or claim.source) == source_id]
        if checks:
            result[claim.id] = all(e.fact in found and _matches(e.op, found[e.fact].value, e.value)
                                   for e in checks)
    return result


def planted(source_id: str, old: str, new: str) -> bytes:
    text = pinned(source_id).decode("utf-8")
    if "\r\n" in text:  # the C# files are kept with Windows line ends
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    assert text.count(old) == 1, f"{old!r} is not once in {source_id}"
    return text.replace(old, new).encode("utf-8")


# (source, text as pinned, text planted, the claims that must flip)
PLANTS = {
    "java: INPUT_REQUIRED made final": (
        "a2a-java-taskstate@v1.2.0.Final", "TASK_STATE_INPUT_REQUIRED(false, true)",
        "TASK_STATE_INPUT_REQUIRED(true, true)", {"a2a-java-v120final-terminal-set"}),
    "java: cancel check removed": (
        "a2a-java-defaultrequesthandler@v1.2.0.Final",
        "        // Check if task is in a non-cancelable state (completed, canceled, failed, rejected)\n"
        "        if (task.status().state().isFinal()) {",
        "        if (task == null) {", {"a2a-java-v120final-cancel-of-terminal"}),
    "go: INPUT_REQUIRED made terminal": (
        "a2a-go-core@v2.3.1", "return ts == TaskStateCompleted ||",
        "return ts == TaskStateCompleted || ts == TaskStateInputRequired ||",
        {"a2a-go-v231-terminal-set"}),
    "go: CANCELED no longer spared": (
        "a2a-go-agentexec@v2.3.1",
        "task.Status.State.Terminal() && task.Status.State != a2a.TaskStateCanceled",
        "task.Status.State.Terminal()", {"a2a-go-v231-cancel-of-terminal"}),
    "csharp: AUTH_REQUIRED made terminal": (
        "a2a-dotnet-taskstateextensions@v1.0.0-preview2", "or TaskState.Rejected;",
        "or TaskState.Rejected or TaskState.AuthRequired;",
        # the cancel claim reads the terminal set its guard consults, so it flips as well
        {"a2a-dotnet-v100-preview2-terminal-set", "a2a-dotnet-v100-preview2-cancel-of-terminal"}),
    "csharp: cancel check removed": (
        "a2a-dotnet-a2aserver@v1.0.0-preview2",
        "        if (task.Status.State.IsTerminal())\n        {\n"
        "            throw new A2AException(\"Task is already in a terminal state.\"",
        "        if (task is null)\n        {\n"
        "            throw new A2AException(\"Task is already in a terminal state.\"",
        {"a2a-dotnet-v100-preview2-cancel-of-terminal"}),
    "rust: INPUT_REQUIRED made terminal": (
        "a2a-rs-types@a2a-server-lf-v0.2.7", "| TaskState::Rejected\n",
        "| TaskState::Rejected | TaskState::InputRequired\n",
        {"a2a-rs-a2a-server-lf-v027-terminal-set", "a2a-rs-a2a-server-lf-v027-cancel-of-terminal"}),
    "rust: cancel check removed": (
        "a2a-rs-handler@a2a-server-lf-v0.2.7",
        "        if task.status.state.is_terminal() {\n"
        "            return Err(A2AError::task_not_cancelable(&req.id));",
        "        if req.id.is_empty() {\n"
        "            return Err(A2AError::task_not_cancelable(&req.id));",
        {"a2a-rs-a2a-server-lf-v027-cancel-of-terminal"}),
    "typescript: INPUT_REQUIRED made terminal": (
        "a2a-js-utils@v1.0.1", "  TaskState.TASK_STATE_REJECTED,\n];",
        "  TaskState.TASK_STATE_REJECTED,\n  TaskState.TASK_STATE_INPUT_REQUIRED,\n];",
        {"a2a-js-v101-terminal-set"}),
    "typescript: CANCELED made cancelable": (
        "a2a-js-default-request-handler@v0.3.14",
        "const nonCancelableStates = ['completed', 'failed', 'canceled', 'rejected'];",
        "const nonCancelableStates = ['completed', 'failed', 'rejected'];",
        {"a2a-js-v0314-cancel-of-terminal"}),
    "typescript: the early return for CANCELED removed": (
        "a2a-js-default-request-handler@v1.0.1",
        "    if (currentState === TaskState.TASK_STATE_CANCELED) {\n      return task;\n    }\n", "",
        {"a2a-js-v101-cancel-of-terminal"}),
    "python: INPUT_REQUIRED made terminal": (
        "a2a-python-active-task@v1.1.0", "    TaskState.TASK_STATE_REJECTED,\n}",
        "    TaskState.TASK_STATE_REJECTED,\n    TaskState.TASK_STATE_INPUT_REQUIRED,\n}",
        {"a2a-python-v110-terminal-set"}),
    "python: cancel check removed": (
        "a2a-python-default-request-handler@v0.3.26",
        "        # Check if task is in a non-cancelable state (completed, canceled, failed, rejected)\n"
        "        if task.status.state in TERMINAL_TASK_STATES:",
        "        if task is None:", {"a2a-python-v0326-cancel-of-terminal"}),
}


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_a_planted_change_flips_exactly_its_claims(name: str) -> None:
    source_id, old, new, flips = PLANTS[name]
    before = verdicts(source_id, pinned(source_id))
    assert before and all(before.values()), f"the pinned copy must verify every claim: {before}"
    after = verdicts(source_id, planted(source_id, old, new))
    assert {cid for cid, holds in after.items() if not holds} == flips


def test_facts_carry_file_lines_of_the_code_they_read() -> None:
    found = facts("a2a-go-core@v2.3.1", pinned("a2a-go-core@v2.3.1"))
    terminal = found["sdk-scope:TaskState.Terminal"]
    lines = pinned("a2a-go-core@v2.3.1").decode().splitlines()
    assert lines[terminal.line_start - 1].startswith("func (ts TaskState) Terminal() bool")
    assert terminal.value == {"states": ["canceled", "completed", "failed", "rejected"], "names": []}
    enum = found["sdk-enum:TaskState"].value
    assert enum["wire"][0] == "" and "TASK_STATE_INPUT_REQUIRED" in enum["wire"]


def test_comments_are_not_code() -> None:
    """A state named only in a comment is not a state the code names."""
    data = planted("a2a-go-core@v2.3.1", "return ts == TaskStateCompleted ||",
                   "// ts == TaskStateInputRequired\n\treturn ts == TaskStateCompleted ||")
    assert facts("a2a-go-core@v2.3.1", data)["sdk-scope:TaskState.Terminal"].value["states"] == [
        "canceled", "completed", "failed", "rejected"]


def test_a_file_the_parser_cannot_read_is_an_error_with_its_line() -> None:
    data = planted("a2a-rs-types@a2a-server-lf-v0.2.7", "pub fn is_terminal(&self) -> bool {",
                   "pub fn is_terminal(&self) -> bool { {{")
    with pytest.raises(ExtractError, match=r"line \d+: the rust parser cannot read this"):
        extract(kb().sources["a2a-rs-types@a2a-server-lf-v0.2.7"], data)


@pytest.mark.parametrize("spelling", ["ErrTaskNotCancelable", "task_not_cancelable",
                                      "TaskNotCancelableError", "TaskNotCancelable",
                                      "TaskNotCancelableException"])
def test_error_names_in_every_language(spelling: str) -> None:
    assert error_of(spelling) == "TaskNotCancelable"
