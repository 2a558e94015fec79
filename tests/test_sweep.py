"""The sweep: the candidate extractor on real parsers, and the ledger held to the sources.

The extractor's units are checked against the files they come from (every candidate's
lines hold its words); the ledger of the real knowledge base is swept and must be clean;
and each way the ledger can go wrong (a sentence left out, an account whose sentence is
gone, a claim that does not name the version, a section list the scope no longer
selects, a claim that does not exist) is made on purpose and must be reported by name.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import time
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.cache import Cache
from a2a_kb.extract import artifact_of
from a2a_kb.extract.artifact import Artifact
from a2a_kb.extract.sentences import cues_of, key_of, read, split_sentences
from a2a_kb.knowledge.sweep import sweep
from a2a_kb.project import Project
from a2a_kb.records.validate import validate
from conftest import copy_records

# --- the extractor ---------------------------------------------------------------------


def _artifact(kind: str, text: str) -> Artifact:
    return Artifact(source_id=f"{kind}@test", kind=kind, path="x", commit="0" * 40,
                    data=text.encode("utf-8"))


def test_sentences_end_at_stops_not_at_abbreviations_numbers_or_inside_brackets() -> None:
    text = ("The task ends (e.g., when it fails). See Section 3.1.5. for more. "
            "Links [like. this](a.b) stay whole! Does v0.2. split? No.")
    parts = [text[a:b] for a, b in split_sentences(text)]
    assert parts == [
        "The task ends (e.g., when it fails).",
        "See Section 3.1.5. for more.",
        "Links [like. this](a.b) stay whole!",
        "Does v0.2. split?",
        "No.",
    ]


def test_a_key_ignores_markup_case_and_spacing_but_not_words_or_subject() -> None:
    assert key_of("The  stream MUST\nclose.") == key_of("the stream must close.")
    assert key_of("The stream MUST close.") != key_of("The stream MAY close.")
    assert key_of("This is a terminal state.", "TaskState.TASK_STATE_FAILED") != key_of(
        "This is a terminal state.", "TaskState.TASK_STATE_WORKING")
    assert re.fullmatch(r"[0-9a-f]{12}", key_of("x"))


@pytest.mark.parametrize(("text", "cue"), [
    ("Messages to a task in TASK_STATE_COMPLETED fail.", "state"),
    ("The task was canceled by the client.", "state"),
    ("It waits in input-required.", "state"),
    ("The stream closes when the task is terminal.", "class"),
    ("Clients may resubscribe after a drop.", "subscribe"),
    ("The `final` flag marks the last event.", "final"),
    ("historyLength caps the messages returned.", "history"),
    ("Clients MAY use taskId with contextId.", "continuation"),
    ("Returns TaskNotFoundError for an unknown id.", "error"),
    ("The agent continues processing.", "resume"),
])
def test_each_lifecycle_cue_picks_its_sentences(text: str, cue: str) -> None:
    assert cue in cues_of(text)


@pytest.mark.parametrize("text", [
    "Author/Change controller: A2A Protocol Working Group",
    "Agents SHOULD implement retry logic for failed deliveries",
    "Push notifications are delivered to a webhook URL.",
    '{{ proto_to_table("CancelTaskRequest") }}',
])
def test_ordinary_words_and_macros_are_not_cues(text: str) -> None:
    assert cues_of(text) == ()


MARKDOWN = """# Spec

## 3. Operations

### 3.1. Cancel Task

Requests the cancellation of a task. The server tries; success is
not guaranteed (e.g., the task already completed).

- `TaskNotFoundError`: the task ID does not exist.

| Value | Terminal? |
|---|---|
| `completed` | Yes, terminal |

```json
{"state": "canceled"}
```

## 4. Agent Card

The card is cached.
"""


def test_markdown_units_carry_their_section_and_exact_lines() -> None:
    reading = read(_artifact("spec", MARKDOWN))
    assert [(s.id, s.parent) for s in reading.sections] == [
        ("spec", ""), ("3", "spec"), ("3.1", "3"), ("4", "spec")]
    found = {u.text: (u.section, u.line_start, u.line_end) for u in reading.candidates()}
    assert found == {
        "Requests the cancellation of a task.": ("3.1", 7, 7),
        "The server tries; success is not guaranteed (e.g., the task already completed).": ("3.1", 7, 8),
        "TaskNotFoundError: the task ID does not exist.": ("3.1", 10, 10),
        "completed | Yes, terminal": ("3.1", 14, 14),
    }  # the code block is not prose, the Agent Card sentence has no cue


PROTO = """syntax = "proto3";
package t;

// The possible states.
enum TaskState {
  TASK_STATE_UNSPECIFIED = 0;
  // Finished with an error. This is a terminal state.
  TASK_STATE_FAILED = 1;
}

// A task.
message Task {
  // protolint:disable REPEATED_FIELD_NAMES_PLURALIZED
  // The history of the task.
  repeated string history = 1;
  string context_id = 2; // Unique identifier of the conversation.
}

service S {
  // Cancels a task in progress.
  rpc Cancel(Task) returns (Task);
}
"""


def test_proto_comments_are_read_with_what_they_are_about() -> None:
    reading = read(_artifact("proto", PROTO))
    assert [s.id for s in reading.sections] == ["TaskState", "Task", "S"]
    found = {(u.subject, u.text): (u.section, u.line_start, u.line_end) for u in reading.units}
    assert found == {
        ("TaskState", "The possible states."): ("TaskState", 4, 4),
        ("TaskState.TASK_STATE_FAILED", "Finished with an error."): ("TaskState", 7, 7),
        ("TaskState.TASK_STATE_FAILED", "This is a terminal state."): ("TaskState", 7, 7),
        ("Task", "A task."): ("Task", 11, 11),
        ("Task.history", "The history of the task."): ("Task", 14, 14),
        ("Task.context_id", "Unique identifier of the conversation."): ("Task", 16, 16),
        ("S.Cancel", "Cancels a task in progress."): ("S", 20, 20),
    }  # the protolint directive is not prose
    cues = {u.subject: u.cues for u in reading.units}
    assert "continuation" in cues["Task.context_id"]  # the field's name is part of the cue
    assert "about-a-state" in cues["TaskState"]  # every sentence of the state enum counts


def test_json_descriptions_are_read_with_the_property_they_describe() -> None:
    schema = json.dumps({"definitions": {"TaskStatus": {
        "description": "The status of a task.",
        "properties": {"state": {"description": "Its state.\nSee TaskState."}}}}}, indent=1)
    reading = read(_artifact("json-schema", schema))
    found = {(u.subject, u.text): u.line_start for u in reading.units}
    line = next(i for i, t in enumerate(schema.splitlines(), 1) if "Its state" in t)
    assert found == {("TaskStatus", "The status of a task."): 4,
                     ("TaskStatus.state", "Its state."): line,
                     ("TaskStatus.state", "See TaskState."): line}


def test_every_candidate_of_every_pinned_source_sits_on_its_lines(real_kb_env: Path) -> None:
    """On the real sources: the words of each candidate are on the lines it names."""
    kb = validate(Project.at(real_kb_env))
    cache = Cache(kb.project.cache_dir)
    checked = 0
    for source in kb.sources.values():
        if source.authority != "primary" or source.kind not in ("spec", "docs", "proto",
                                                                 "json-schema"):
            continue
        data = cache.content(source.id, source.sha256)
        assert data is not None, source.id
        lines = data.decode("utf-8").splitlines()
        for unit in read(artifact_of(source, data)).candidates():
            # A JSON string writes its line breaks as \n: they part words there too.
            span = " ".join(lines[unit.line_start - 1 : unit.line_end]).replace("\\n", " ")
            first, last = _words(unit.text)[0], _words(unit.text)[-1]
            assert first in _words(span) and last in _words(span), (source.id, unit)
            checked += 1
    assert checked > 2000


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+", text)


# --- the ledger, on the real knowledge base ----------------------------------------------


def test_the_real_ledger_accounts_for_every_sentence_of_every_version(real_kb_env: Path) -> None:
    kb = validate(Project.at(real_kb_env))
    started = time.process_time()
    result = sweep(kb)
    spent = time.process_time() - started
    assert not result.problems, "\n".join(d.format() for d in result.problems[:20])
    assert set(result.versions) == set(kb.versions)
    for version in result.versions:
        figures = result.figures(version)
        assert figures.sentences > 0 and figures.unaccounted == 0
        assert figures.by_claims > figures.not_lifecycle, version
    assert spent < 30, f"the sweep took {spent:.1f}s of CPU"


def test_every_claim_an_account_names_exists_and_is_not_deprecated(real_kb_env: Path) -> None:
    kb = validate(Project.at(real_kb_env))
    named = {c for a in kb.sweep.accounts.values() for c in a.claims}
    assert named and named <= set(kb.claims)
    assert not [c for c in named if kb.claims[c].rank == "deprecated"]


LIFECYCLE_ERRORS = ("TaskNotFoundError", "TaskNotCancelableError", "UnsupportedOperationError")


def test_every_lifecycle_change_the_diff_reports_has_claims_on_both_sides(real_kb_env: Path) -> None:
    """`a2a-kb diff` and the swept claims agree: where the prose or an error mapping of the
    lifecycle changes between two consecutive versions, a claim about that subject names the
    old version and one names the new."""
    from a2a_kb.knowledge import diff

    kb = validate(Project.at(real_kb_env))
    order = [v.id for v in kb.ordered_versions]
    seen = 0
    for old, new in itertools.pairwise(order):
        for change in diff.diff(kb, old, new).changes:
            name = change.subject.split(".")[-1]
            if not (change.subject.startswith("TaskState.") or name in LIFECYCLE_ERRORS):
                continue
            if change.binding != "prose" and not change.kind.startswith("error-"):
                continue
            about = [c for c in kb.claims.values() if name in c.subject and c.rank != "deprecated"]
            assert any(old in c.versions for c in about), (old, new, change.kind, change.subject)
            assert any(new in c.versions for c in about), (old, new, change.kind, change.subject)
            seen += 1
    assert seen >= 3  # unknown's class in v0.2.6, two error mappings in v1.0.1


# --- each way the ledger goes wrong is reported -----------------------------------------


@pytest.fixture
def swept(real_kb_env: Path):  # type: ignore[no-untyped-def]
    kb = validate(Project.at(real_kb_env))
    version = "1.0.1"
    return kb, version, sweep(kb, [version])


def test_a_sentence_without_an_account_is_reported_with_its_place(swept) -> None:  # type: ignore[no-untyped-def]
    kb, version, before = swept
    key, places = next(iter(before.keys(version).items()))
    del kb.sweep.accounts[key]
    problems = [d for d in sweep(kb, [version]).problems if d.rule == "sweep-unaccounted"]
    assert len(problems) == 1 and key in problems[0].message
    source, sentence = places[0][0].source.id, places[0][1]
    assert f"{source} §{sentence.section} lines {sentence.line_start}" in problems[0].message
    assert f"- key: {key}" in problems[0].tip


def test_an_account_for_a_sentence_no_source_has_is_stale(real_kb_env: Path) -> None:
    kb = validate(Project.at(real_kb_env))
    some = next(iter(kb.sweep.accounts.values()))
    kb.sweep.accounts["0123456789ab"] = dataclasses.replace(some, key="0123456789ab")
    problems = [d for d in sweep(kb).problems]
    assert [d.rule for d in problems] == ["sweep-stale"] and "0123456789ab" in problems[0].message


def test_a_claim_that_does_not_name_the_version_leaves_the_sentence_uncovered(swept) -> None:  # type: ignore[no-untyped-def]
    kb, version, before = swept
    key = next(k for k in before.keys(version) if kb.sweep.accounts[k].claims)
    for claim_id in kb.sweep.accounts[key].claims:
        kb.claims[claim_id].versions = [v for v in kb.claims[claim_id].versions if v != version]
    problems = [d for d in sweep(kb, [version]).problems if d.rule == "sweep-uncovered"]
    assert any(key in d.message and version in d.message for d in problems)


def test_a_section_list_the_scope_no_longer_selects_is_reported(swept) -> None:  # type: ignore[no-untyped-def]
    kb, version, _ = swept
    entry = kb.sweep.versions[version]
    source_id = next(iter(entry.swept))
    removed = entry.swept[source_id].pop(0)
    entry.swept[source_id].append("99.99")
    problems = [d for d in sweep(kb, [version]).problems if d.rule == "sweep-sections"]
    assert len(problems) == 1
    assert f"also selects {removed}" in problems[0].message and "99.99" in problems[0].message


def test_a_wrong_place_is_reported_with_the_right_one(real_kb_env: Path) -> None:
    kb = validate(Project.at(real_kb_env))
    account = next(a for a in kb.sweep.accounts.values() if a.found_in)
    kb.sweep.accounts[account.key] = dataclasses.replace(account, found_in="spec@v1.0.1 §99")
    problems = sweep(kb).problems
    assert [d.rule for d in problems] == ["sweep-moved"] and "write 'in: " in problems[0].tip



def test_an_unknown_claim_fails_validate_with_file_line_and_tip(
    real_kb_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_records(tmp_path, ("claims", "sources"))
    ledger = root / "sources" / "sweep.yaml"
    text = ledger.read_text("utf-8")
    match = re.search(r"\n    claims: \[([a-z0-9-]+)", text)
    assert match
    broken = text[: match.start(1)] + "no-such-claim" + text[match.end(1):]
    ledger.write_text(broken, "utf-8")
    line = broken[: match.start(1)].count("\n") + 1
    assert cli.main(["--root", str(root), "validate"]) == 1
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert re.search(rf"sources/sweep.yaml:{line}:\d+: error\[unknown-claim\]: .*no-such-claim.*\(tip: ",
                     err)
    assert cli.main(["--root", str(root), "sweep"]) == 1  # sweep refuses broken records too


def test_the_command_prints_figures_and_json(real_kb_env: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "sweep", "--version", "1.0.1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^version\s+sources\s+sections\s+sentences\s+accounted\s+by claims\s+"
                     r"not-lifecycle\s+unaccounted$", out, re.M)
    assert re.search(r"^1\.0\.1\s+5\s+\d+\s+\d+", out, re.M)
    assert cli.main(["--root", str(real_kb_env), "sweep", "--version", "1.0.1",
                     "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == 1 and data["ok"] is True
    (version,) = data["versions"]
    assert version["unaccounted"] == 0 and version["sentences"] == version["accounted"]
    sentence = version["sources"][0]["sentences"][0]
    assert set(sentence) >= {"key", "text", "section", "lines", "cues", "account"}


def test_an_account_with_both_claims_and_a_reason_is_refused(real_kb_env: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_records(tmp_path, ("claims", "sources"))
    ledger = root / "sources" / "sweep.yaml"
    ledger.write_text(ledger.read_text("utf-8") + "  - key: 0123456789ab\n    claims: [x-y]\n"
                      "    not-lifecycle: both given here\n", "utf-8")
    assert cli.main(["--root", str(root), "validate"]) == 1
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "error[sweep-account]" in err and "not both" in err

