"""Validating some record kinds only, as `a2a-kb diff` does: which files are read (told by
their lines at column 0, before any YAML is parsed), which rules run, and what the diff
still refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2a_kb import cli
from a2a_kb.project import Project
from a2a_kb.records.loader import load, may_hold, record_files, top_level_keys
from a2a_kb.records.rules import RULES, rules_for
from a2a_kb.records.validate import validate
from a2a_kb.schemas import FILE_KEYS, KINDS
from conftest import REPO, copy_records
from test_negative import CASES, case_bytes, read_case

DIFF_KINDS = ("version", "source")
DIFF_KEYS = ("versions", "sources")


# --- which files are read -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "keys"), [
    ("sources:\n  - id: a\n", {"sources"}),
    ("# yaml-language-server: $schema=x\n#\nclaims:\n  - id: a\n    statement: |\n      x\n",
     {"claims"}),
    ("%YAML 1.2\n---\nversions: []\n...\n", {"versions"}),
    ("--- # the claims\nclaims: []\n", {"claims"}),
    ("claims :  []\n", {"claims"}),
    ("claims: []\nsources: []\n", {"claims", "sources"}),  # two kinds: parsed, reported
    ("claims: []\n---\nsources: []\n", {"claims", "sources"}),  # two documents: parsed too
    ("claims: []\u2028sources: []\n", {"claims", "sources"}),  # a YAML 1.1 line separator
    ("claims: []\fsources: []\n", {"claims", "sources"}),  # an extra split adds a key
    ("claims: 'one\nsources: two'\n", {"claims", "sources"}),  # a quoted scalar's line
    ("claimz: []\n", {"claimz"}),
])
def test_the_keys_at_column_0_are_the_top_level_keys(text: str, keys: set[str]) -> None:
    assert top_level_keys(text) == keys


@pytest.mark.parametrize("text", [
    "", "# only a comment\n", "\n\n",
    '"sources": []\n', "'sources': []\n", "? sources\n: []\n",  # quoted and complex keys
    "{sources: []}\n", "- id: a\n",  # a flow mapping, a list
    "  sources:\n    - id: a\n",  # an indented document
    "claims: []\n---\n  sources: []\n",  # ... as the second document
    "--- {sources: []}\n", "--- sources: []\n",  # content on the marker's line
    "sources:[]\n", "sources\n",  # not a key: a plain scalar
    "claims: []\n\tsources: []\n",  # a tab is no indentation: what it meant cannot be told
])
def test_lines_that_do_not_say_for_sure_are_none(text: str) -> None:
    result = top_level_keys(text)
    assert result is None or "sources" in result


@pytest.mark.parametrize("path", record_files(Project.at(REPO)), ids=lambda p: p.name)
def test_the_cheap_check_agrees_with_the_parser_on_every_record_file(path: Path) -> None:
    parsed = load(Project.at(REPO), [path])
    held = {key for key, kind in FILE_KEYS.items() if parsed.records[kind]}
    assert len(held) == 1, held
    for key in FILE_KEYS:
        assert may_hold(path, [key]) == (key in held), key


@pytest.mark.parametrize(("data", "why"), [
    (b"", "empty"),
    (b"\xef\xbb\xbfclaims: []\n", None),  # a UTF-8 byte-order mark is not part of the key
    (b"claims: [\xff]\n", "not UTF-8"),
    ("claims: []\n".encode("utf-16"), "UTF-16"),
    (b"claimz: []\n", "a key of no kind: it may be a misspelt 'sources'"),
    (b'"claims": []\n', "a quoted key"),
])
def test_a_file_that_does_not_say_is_read(tmp_path: Path, data: bytes, why: str | None) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(data)
    assert may_hold(path, DIFF_KEYS) == (why is not None), why


def test_a_file_too_large_to_be_read_is_read_to_be_reported(tmp_path: Path) -> None:
    from a2a_kb.records.yamldoc import MAX_BYTES

    path = tmp_path / "x.yaml"
    path.write_bytes(b"claims: []\n" + b"#" * MAX_BYTES)
    assert may_hold(path, DIFF_KEYS)


# --- which rules run ------------------------------------------------------------------------


def test_every_rule_reads_known_kinds_and_all_run_by_default() -> None:
    assert all(reads <= set(KINDS) for reads in RULES.values())
    assert rules_for(KINDS) == list(RULES)
    assert {r.__name__ for r in rules_for(DIFF_KINDS)} == {
        "unique_ids", "versions_in_order", "source_rules", "source_dates", "pinned_sources"}


def test_unknown_kinds_are_a_mistake_of_the_caller() -> None:
    with pytest.raises(ValueError, match="unknown record kinds: clam"):
        validate(Project.at(REPO), kinds=("clam",))


def _shown(problems: list[Any]) -> list[str]:
    return sorted(p.format() for p in problems)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_versions_and_sources_alone_report_what_a_full_run_reports_in_their_files(
        path: Path, fixture_kb: Path) -> None:
    """Every broken input of tests/negative: validating versions and sources reports the
    problems a full run reports in the files it reads, and reads every file that parses to
    anything but records of other kinds (theirs, a misspelt key, a list)."""
    case = read_case(path)
    written = fixture_kb / case.target / path.name
    written.write_bytes(case_bytes(case))
    project = Project.at(fixture_kb)
    full = validate(project)
    part = validate(project, kinds=DIFF_KINDS)
    read = {project.relative(f) for f in record_files(project) if may_hold(f, DIFF_KEYS)}
    assert _shown(part.problems) == _shown([p for p in full.problems if p.mark.path in read])
    assert (part.versions, part.sources) == (full.versions, full.sources)
    doc = load(project, [written]).files[0]
    if doc.value is not None:  # parsed: what it holds is known, so it is read when it may be ours
        keys = set(doc.value) if isinstance(doc.value, dict) else {"not a mapping"}
        others = set(FILE_KEYS) - set(DIFF_KEYS)
        if not keys or not keys <= others:
            assert project.relative(written) in read, keys


# --- a2a-kb diff ------------------------------------------------------------------------------


@pytest.fixture
def kb_copy(tmp_path: Path, real_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))
    return copy_records(tmp_path / "kb")


def _diff(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["--root", str(root), "diff", "0.3.0", "1.0.0", "--format", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def _replace(path: Path, old: str, new: str) -> int:
    """Replace the first ``old`` in the file; the line it was on (1-based)."""
    text = path.read_text("utf-8")
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old):], "utf-8")
    return text.count("\n", 0, at) + 1


@pytest.mark.parametrize(("file", "old", "new", "rule"), [
    ("sources/versions.yaml", "released: true", "released: yes-ish", "schema"),
    ("sources/primary.yaml", "https://", "http://", "https-only"),
    ("sources/primary.yaml", "versions: [", "versions: ['9.9.9', ", "unknown-version"),
])
def test_diff_reports_a_broken_version_or_source_and_exits_1(
        kb_copy: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str,
        rule: str) -> None:
    line = _replace(kb_copy / file, old, new)
    code, out, err = _diff(kb_copy, capsys)
    assert code == 1 and not out
    found = [d for d in err.splitlines() if d.startswith(f"{file}:{line}:") and f"error[{rule}]" in d]
    assert found, err
    assert "(tip: " in found[0] and "Traceback" not in err
    assert "error(s) in the records; run `a2a-kb validate`" in err


def test_a_broken_claim_stops_validate_and_check_but_not_diff(
        kb_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, before, _ = _diff(kb_copy, capsys)
    assert code == 0
    (kb_copy / "claims" / "broken.yaml").write_text(
        "claims:\n  - id: Not-Kebab\n    statement: too short\n", "utf-8")
    _replace(kb_copy / "claims" / "state-set.yaml", "source: ", "source: no-such-")
    code, after, err = _diff(kb_copy, capsys)
    assert code == 0, err
    assert _without_time(after) == _without_time(before)
    for command in (["validate"], ["check"]):
        assert cli.main(["--root", str(kb_copy), *command]) == 1, command
        text = "".join(capsys.readouterr())
        assert "claims/broken.yaml:2:" in text and "error[unknown-source]" in text


def _without_time(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    data.pop("generated_at")
    return data
