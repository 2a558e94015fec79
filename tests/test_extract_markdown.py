"""The spec and docs extractor: sections, anchors, lifecycle passages and error tables."""

from __future__ import annotations

import re

import pytest

from a2a_kb.errors import ExtractError
from a2a_kb.extract import extract
from a2a_kb.extract.inventory import KINDS as INVENTORY_KINDS
from a2a_kb.facts import Fact
from extract_mirror import at

SPEC = "docs/specification.md"
LIFE = "docs/topics/life-of-a-task.md"


def facts_at(ref: str, path: str = SPEC) -> dict[str, Fact]:
    source, data = at(ref, path)
    return {f.key: f for f in extract(source, data)}


def test_v1_0_0_section_3_1_5_is_cancel_task() -> None:
    source, data = at("v1.0.0", SPEC)
    lines = data.decode().splitlines()
    facts = {f.key: f for f in extract(source, data)}
    section = facts["section:3.1.5"]
    assert section.value["title"] == "Cancel Task"
    assert section.value["anchor"] == "315-cancel-task"
    assert lines[section.line_start - 1] == "#### 3.1.5. Cancel Task"
    assert lines[section.line_end - 1].startswith("The operation attempts to cancel")
    assert lines[section.line_end] == ""  # trailing blank lines are not part of it
    assert lines[section.line_end + 1] == "#### 3.1.6. Subscribe to Task"
    assert section.value["text"] == "\n".join(lines[section.line_start - 1 : section.line_end])
    assert "TaskNotCancelableError" in section.value["text"]
    assert facts["section-title:cancel-task"].value == "3.1.5"
    # a section holds its subsections, up to the next heading of its level
    assert "#### 3.1.5. Cancel Task" in facts["section:3.1"].value["text"]
    assert "### 3.2." not in facts["section:3.1"].value["text"]


def test_v0_x_headings_with_code_keep_their_words() -> None:
    facts = facts_at("v0.3.0")
    assert facts["section:6.3"].value["title"] == "TaskState Enum"
    assert facts["section:6.3"].value["anchor"] == "63-taskstate-enum"
    assert facts["section:7.4"].value["anchor"] == "74-taskscancel"


def test_repeated_titles_are_numbered() -> None:
    facts = facts_at("v1.0.0")
    assert facts["section-title:error-handling"].value == "3.3.2"
    assert facts["section-title:error-handling~2"].value == "9.5"


@pytest.mark.parametrize("ref", ["v0.2.5", "v0.3.0", "v1.0.0", "main"])
def test_every_link_to_a_heading_finds_its_anchor(ref: str) -> None:
    source, data = at(ref, SPEC)
    text = data.decode()
    anchors = {f.value["anchor"] for f in extract(source, data) if f.kind == "section"}
    explicit = set(re.findall(r'id="([^"]+)"', text))  # <a id="…"> and <span id="…">
    links = set(re.findall(r"\]\(#([^)\s]+)\)", text))
    assert links, "the spec links to its own sections"
    assert links - anchors - explicit == set()


def test_v0_1_0_enum_as_the_spec_prints_it() -> None:
    facts = facts_at("v0.1.0")
    assert facts["enum-values:TaskState"].value == [
        "submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"]
    unknown = facts["enum-value:TaskState.unknown"].value
    assert "Effectively a terminal state" in unknown["description"]
    assert facts["state-class:TaskState.unknown"].value == "terminal"
    assert facts["terminal-states:TaskState"].value == [
        "completed", "canceled", "failed", "unknown"]
    assert facts["interrupted-states:TaskState"].value == ["input-required"]
    # the union comes first in §6.3, the table after it: both are kept
    assert facts["terminal-states:TaskState@63-taskstate-enum"].value == [
        "completed", "canceled", "failed", "unknown"]
    assert facts["terminal-states:TaskState@63-taskstate-enum~2"].line_start > (
        facts["terminal-states:TaskState@63-taskstate-enum"].line_end)
    # the table's "No" says active, which the union's comment does not
    assert facts["state-class:TaskState.working"].value == "active"


def test_v0_2_5_table_and_no_restart_rule_disagree_on_unknown() -> None:
    source, data = at("v0.2.5", SPEC)
    lines = data.decode().splitlines()
    facts = {f.key: f for f in extract(source, data)}
    table = facts["terminal-states:TaskState"]
    rule = facts["terminal-states:TaskState@61-task-object"]
    assert table.value == ["completed", "canceled", "failed", "rejected", "unknown"]
    assert rule.value == ["completed", "canceled", "rejected", "failed"]
    assert "can't be restarted" in lines[rule.line_start - 1]
    assert facts["interrupted-states:TaskState"].value == ["input-required", "auth-required"]
    assert facts["state-class:TaskState.auth-required"].value == "interrupted"  # "No (Pause)"


def test_v1_0_0_classifies_in_prose_and_maps_errors() -> None:
    facts = facts_at("v1.0.0")
    assert facts["terminal-states:TaskState"].value == [
        "completed", "failed", "canceled", "rejected"]
    blocking = facts["interrupted-states:TaskState@322-sendmessageconfiguration"]
    assert blocking.value == ["input-required", "auth-required"]
    leading = facts["interrupted-states:TaskState"]  # the only passage, so also the leading one
    assert (leading.value, leading.line_start) == (blocking.value, blocking.line_start)
    assert facts["terminal-examples:TaskState@311-send-message"].value == [
        "completed", "canceled", "rejected"]
    assert facts["error-mapping:TaskNotCancelableError"].value == {
        "json-rpc": -32002, "http": 409, "grpc": "FAILED_PRECONDITION"}
    assert facts["error-mapping:ContentTypeNotSupportedError"].value["http"] == 415
    assert facts["error:InvalidParamsError@95-error-handling"].value == {
        "code": -32602, "message": "Invalid parameters"}
    assert "enum-values:TaskState" not in facts  # v1 prints the enum through a macro


def test_v0_3_0_spec_error_table() -> None:
    facts = facts_at("v0.3.0")
    assert facts["error:TaskNotCancelableError"].value == {
        "code": -32002, "message": "Task cannot be canceled"}
    assert facts["error:TaskNotCancelableError@82-a2a-specific-errors"].value["code"] == -32002


def test_life_of_a_task_british_spelling_is_read_as_canceled() -> None:
    source, data = at("v0.2.4", LIFE)
    facts = {f.key: f for f in extract(source, data)}
    rule = facts["terminal-states:TaskState@task-refinements-follow-ups"]
    assert rule.value == ["completed", "canceled", "rejected", "failed"]
    assert "`cancelled`" in data.decode().splitlines()[rule.line_start - 1]
    assert facts["interrupted-states:TaskState"].value == ["input-required", "auth-required"]


def test_v1_life_of_a_task_gives_examples_across_lines() -> None:
    source, data = at("v1.0.0", LIFE)
    lines = data.decode().splitlines()
    facts = {f.key: f for f in extract(source, data)}
    examples = facts["interrupted-examples:TaskState"]
    assert examples.value == ["input-required", "auth-required"]
    assert "interrupted state (e.g.," in lines[examples.line_start - 1]
    assert "`auth-required`)" in lines[examples.line_end - 1]
    assert "interrupted-states:TaskState" not in facts
    assert facts["terminal-states:TaskState@task-immutability"].value == [
        "completed", "canceled", "rejected", "failed"]


def test_docs_sections_are_keyed_by_anchor() -> None:
    facts = facts_at("v1.0.0", "docs/whats-new-v1.md")
    assert "section:1" not in facts  # "### 1. **…**" is a list position, not a section number
    assert facts["section:1-protocol-maturity-and-standardization"].value["title"] == (
        "1. Protocol Maturity and Standardization")


SMALL = """# Demo

## 1. Lifecycle

A task in a terminal state (`completed` or `failed`) stays there.
Later: a terminal state (completed, failed, canceled).

## 2. TaskState

A terminal state (`completed`, `failed`, `canceled`, `rejected`).
"""


def _small(text: str, kind: str = "spec") -> dict[str, Fact]:
    source, _ = at("v1.0.0", SPEC if kind == "spec" else LIFE)
    return {f.key: f for f in extract(source, text.encode())}


def test_naming_of_repeated_passages() -> None:
    facts = _small(SMALL)
    assert facts["terminal-states:TaskState@1-lifecycle"].value == ["completed", "failed"]
    assert facts["terminal-states:TaskState@1-lifecycle~2"].value == [
        "completed", "failed", "canceled"]
    assert facts["terminal-states:TaskState@1-lifecycle~2"].line_start == 6
    # the section that names TaskState leads, though it comes last
    assert facts["terminal-states:TaskState"].value == [
        "completed", "failed", "canceled", "rejected"]
    assert facts["terminal-states:TaskState"].line_start == 10


@pytest.mark.parametrize(("text", "kind", "words"), [
    ("", "spec", "no headings"),
    ("# Title\n\nA terminal state (completed).\n", "spec", "no numbered sections"),
    ("# T\n\n## 1. One\n\nNothing about states.\n", "spec", "terminal states"),
    ("just text, no heading\n", "docs", "no headings"),
])
def test_markdown_without_what_is_expected_is_an_error(text: str, kind: str, words: str) -> None:
    with pytest.raises(ExtractError, match=words):
        _small(text, kind)


def test_a_docs_page_may_say_nothing_of_states() -> None:
    facts = _small("# Page\n\n## Part\n\nNo lifecycle here.\n", "docs")
    lifecycle = {k for k in facts if k.split(":")[0] not in INVENTORY_KINDS}
    assert lifecycle == {"section:page", "section:part"}
    # the document's inventory is always there: an empty list is an answer (none)
    assert facts["tables:document"].value == [] and facts["normative:document"].value == []
    assert facts["headings:document"].value == ["Page", "Part"]
    assert "tables:§part" not in facts  # a section's only where it holds something


INVENTORIED = """# Guide

## 1. States

| From | To |
| --- | --- |
| working | completed |

A server **MUST** reply within 30 seconds. It may wait (e.g. `working`) longer.

> Clients SHOULD retry
> after a timeout.

```mermaid
stateDiagram-v2
  working --> completed
```

![Lifecycle](img/states.png)

### 1.1. Notes

```json
{"a": 1}
```

## 2. Other

Nothing normative here.
"""


def test_inventories_list_what_each_section_holds() -> None:
    facts = _small(INVENTORIED, "docs")
    lines = INVENTORIED.splitlines()
    assert facts["tables:document"].value == ["From | To"]
    assert facts["tables:§1-states"].value == ["From | To"]
    assert (facts["tables:§1-states"].line_start, facts["tables:§1-states"].line_end) == (
        facts["section:1-states"].line_start, facts["section:1-states"].line_end)
    assert facts["diagrams:§1-states"].value == [
        "mermaid: stateDiagram-v2", "image: Lifecycle img/states.png"]
    assert facts["code-blocks:§1-states"].value == ["mermaid: stateDiagram-v2", "json: {\"a\": 1}"]
    assert facts["code-blocks:§11-notes"].value == ["json: {\"a\": 1}"]  # a subsection is in its parent
    assert facts["normative:§1-states"].value == [
        "A server **MUST** reply within 30 seconds.", "Clients SHOULD retry after a timeout."]
    assert facts["time-limits:§1-states"].value == [
        "A server **MUST** reply within 30 seconds.", "Clients SHOULD retry after a timeout."]
    assert facts["headings:§1-states"].value == ["1. States", "1.1. Notes"]
    assert facts["headings:document"].value == ["Guide", "1. States", "1.1. Notes", "2. Other"]
    # nothing in §2 but its heading: no inventory of tables or sentences, so `absent` holds
    assert "tables:§2-other" not in facts and "normative:§2-other" not in facts
    assert facts["headings:§2-other"].value == ["2. Other"]
    document = facts["normative:document"]
    assert (document.line_start, document.line_end) == (1, len(lines))


def test_v1_spec_has_no_transition_table_and_one_diagram() -> None:
    facts = facts_at("v1.0.1")
    headers = facts["tables:document"].value
    assert "Legacy Name | Current Name | Earliest Removal Version | Notes" in headers
    assert not any("transition" in h.lower() for h in headers)
    assert facts["diagrams:document"].value == ["mermaid: graph TB"]
    timed = facts["time-limits:document"].value
    assert any("timeout for webhook requests" in s for s in timed)
    assert not any(w in s.lower() for s in timed for w in ("input-required", "input_required", "interrupted"))
    # §3.1.5 (Cancel Task) has no RFC 2119 keyword at all: no inventory of it
    assert "section:3.1.5" in facts and "normative:§3.1.5" not in facts
    assert any("MUST terminate" in s for s in facts["normative:§3.1.6"].value)
