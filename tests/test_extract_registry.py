"""Every extractor over every mirrored file, the lines its facts point at, and the store."""

from __future__ import annotations

import doctest
import functools
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import a2a_kb.extract as extract_stage
from a2a_kb.errors import ExtractError
from a2a_kb.extract import (
    EXTRACTOR_VERSIONS,
    EXTRACTORS,
    READERS,
    VERSIONS,
    Artifact,
    extract,
    git_refs,
    inventory,
    json_positions,
    json_schema,
    lifecycle,
)
from a2a_kb.extract.factstore import FactStore, facts_for
from a2a_kb.facts import Fact, canonical_state
from a2a_kb.records.model import Source
from extract_mirror import REGISTERED_REPOSITORIES, at, every_source, kind_of, manifest


@functools.cache
def all_facts() -> tuple[tuple[Source, bytes, tuple[Fact, ...]], ...]:
    return tuple((s, d, tuple(extract(s, d))) for s, d in every_source())


def test_every_mirrored_file_has_an_extractor_and_facts() -> None:
    rows = [row for row in manifest() if kind_of(row)]
    # all but the dossier and the conformance suite's files it does not register
    skipped = [row for row in manifest() if row["ref"] == "dossier"
               or (row["ref"].startswith("tck-") and kind_of(row) is None)
               or not any(r in row["url"] for r in (*REGISTERED_REPOSITORIES, "llms-explorer"))]
    assert len(rows) == len(manifest()) - len(skipped)
    assert {kind_of(row) for row in rows} == set(EXTRACTORS) - {"capture", "tck-run"}  # in captures/
    for source, data, facts in all_facts():
        assert facts, source.id
        assert all(f.source == source.id and f.path == source.path for f in facts)
        assert all(f.commit == source.commit for f in facts)
        line_count = len(data.decode("utf-8").splitlines())
        for f in facts:
            assert 1 <= f.line_start <= f.line_end <= line_count, (source.id, f.key)
        keys = [f.key for f in facts]
        assert len(keys) == len(set(keys)), f"{source.id} repeats a kind:subject"


def _mentions(text: str, state: str) -> bool:
    """Whether ``text`` names ``state`` in any spelling a source uses."""
    words = re.findall(r"[A-Za-z][A-Za-z_-]*", text)
    return any(canonical_state(w) == state for w in words)


def _subject(fact: Fact) -> str:
    return re.sub(r"@[^@]*$", "", fact.subject)  # drop the passage suffix


def _check_enum_values(fact: Fact, text: str) -> None:
    for spelling in fact.value:
        assert spelling in text


def _check_states(fact: Fact, text: str) -> None:
    for state in fact.value:
        assert _mentions(text, state), state


def _check_enum_value(fact: Fact, text: str) -> None:
    assert _subject(fact).removeprefix("TaskState.") in text


def _check_state_class(fact: Fact, text: str) -> None:
    assert _mentions(text, _subject(fact).removeprefix("TaskState."))


def _check_first_line_names(fact: Fact, text: str) -> None:
    first = text.splitlines()[0]
    assert _subject(fact).rsplit(".", 1)[-1] in first


def _check_name_in_lines(fact: Fact, text: str) -> None:
    assert _subject(fact) in text


def _check_section(fact: Fact, text: str) -> None:
    assert fact.value["text"] == text
    assert text.startswith("#")
    first_word = fact.value["title"].split()[0].strip("`*")
    assert first_word in text.splitlines()[0]


def _check_section_title(fact: Fact, text: str) -> None:
    assert text.lstrip("#").strip().startswith(fact.value)


def _check_reserved(fact: Fact, text: str) -> None:
    assert text.strip().startswith("reserved")
    for number in fact.value["numbers"]:
        assert str(number) in text
    for name in fact.value["names"]:
        assert name in text


def _check_release(fact: Fact, text: str) -> None:
    assert fact.subject.split("~")[0] in text and fact.value in text


def _check_sha(fact: Fact, text: str) -> None:
    assert fact.value in text


def _check_branch(fact: Fact, text: str) -> None:
    assert f'"refs/heads/{fact.subject}"' in text and fact.value in text


def _check_newest(fact: Fact, text: str) -> None:
    """The newest release: the lines are its tag's ref."""
    assert f'"refs/tags/{fact.value}"' in text


def _check_date(fact: Fact, text: str) -> None:
    raw = json.loads("{" + text.strip().rstrip(",") + "}")["date"]
    assert git_refs.utc(raw) == fact.value


def _check_definition(fact: Fact, text: str) -> None:
    """A test, runner helper or task factory: its ``def`` is in the lines."""
    assert re.search(rf"\bdef {re.escape(fact.subject.split('::')[-1])}\(", text)


def _check_requirement(fact: Fact, text: str) -> None:
    assert f'"{fact.subject}"' in text and f"RequirementLevel.{fact.value['level']}" in text


def _check_marker(fact: Fact, text: str) -> None:
    assert text.startswith(f"{fact.subject} = pytest.mark.{fact.subject}")


def _check_spec_pin(fact: Fact, text: str) -> None:
    assert fact.value["commit"] in text and fact.value["branch"] in text


def _check_state_map(fact: Fact, text: str) -> None:
    assert f"def {fact.subject}(" in text and all(f'"{name}"' in text for name in fact.value["mapping"])


def _check_fixed_state(fact: Fact, text: str) -> None:
    assert f'"state": "{fact.value["state"]}"' in text


def _check_schema_state(fact: Fact, text: str) -> None:
    # the lines are the state property: the patterns and names it accepts are written there
    assert text.lstrip().startswith('"state"') and "TASK_STATE_UNSPECIFIED" in text


def _flat(text: str) -> str:
    return " ".join(text.split())


def _read_as_prose(fact: Fact, text: str) -> str:
    """The words of the lines as the inventory read them: a JSON member's strings decoded,
    a proto's comment markers and a Markdown quote's '>' taken off."""
    if fact.path.endswith(".json"):
        body = text.strip().rstrip(",")
        document = json.loads(body if body.startswith("{") and fact.subject == "document"
                              else "{" + body + "}")
        return _flat(" ".join(str(v) for v in _strings(document)))
    if fact.path.endswith(".proto"):
        kept = []
        for line in text.splitlines():
            if "//" in line:
                kept.append(line.split("//", 1)[1])
            elif line.strip().startswith(("/*", "*")):
                kept.append(line.strip().lstrip("/*").rstrip("*/"))
        return _flat(" ".join(kept))
    return _flat(" ".join(re.sub(r"^[\s>]*", "", line) for line in text.splitlines()))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _in_code(word: str, text: str) -> bool:
    """Whether ``text`` names ``word``: an identifier, a state in any spelling, or a literal."""
    if word == "default":
        return "default" in text or re.search(r"(?:\b|case )_\s*(?:=>|:)", text) is not None
    if word.startswith('"'):
        return word.strip('"') in text
    words = re.findall(r"[A-Za-z][A-Za-z_-]*", text)
    return word in text or _mentions(text, word) or (
        word == "unrecognized" and "UNRECOGNIZED" in text) or any(
        canonical_state(w.removeprefix("TaskState")) == word for w in words)


def _check_sdk_enum(fact: Fact, text: str) -> None:
    assert all(m in text for m in fact.value["members"])
    # a wire name is written out, or made by the enum's kebab-case converter (C#)
    assert all(w in text or "KebabCase" in text for w in fact.value["wire"] if w)


def _check_sdk_flag(fact: Fact, text: str) -> None:
    assert fact.subject.rsplit(".", 1)[1] in text and "true" in text
    assert all(_in_code(s, text) for s in fact.value)


def _check_sdk_scope(fact: Fact, text: str) -> None:
    assert fact.subject.split("~")[0].rsplit(".", 1)[-1] in text
    assert all(_in_code(s, text) for s in fact.value["states"])
    assert all(n in text for n in fact.value["names"])


def _check_sdk_guard(fact: Fact, text: str) -> None:
    error = fact.subject.split("/", 1)[1].split("~")[0]
    assert re.search("_?".join(re.findall("[A-Z][a-z]*", error)), text, re.IGNORECASE)
    assert all(n in text for n in fact.value["names"])
    assert all(_in_code(s, text) or "TERMINAL" in text or "terminal" in text or "Cancelable" in text
               for s in fact.value["states"] + fact.value["unless"])


def _check_sdk_branches(fact: Fact, text: str) -> None:
    assert fact.subject.split("~")[0].rsplit(".", 1)[-1] in text  # an overload is ~2, ~3 …
    for branch in fact.value:
        assert all(n in text for n in branch["names"])
        # a state is written in the condition, or comes from a constant the condition names
        assert all(_in_code(s, text) or branch["names"] or "States" in text
                   for s in branch["states"] + branch["unless"])
        if branch["does"].startswith("raise "):
            error = branch["does"].split()[1]
            assert re.search("_?".join(re.findall("[A-Z][a-z]*", error)), text, re.IGNORECASE)
        elif branch["does"] == "return":
            assert "return" in text


def _check_sdk_map(fact: Fact, text: str) -> None:
    assert all(_in_code(k, text) for k in fact.value)
    assert all(_in_code(v, text) for v in fact.value.values() if v not in ("error", "null", "other"))


def _check_sdk_code(fact: Fact, text: str) -> None:
    assert str(abs(fact.value)) in text


HTTP_NAMES = {400: "BadRequest", 404: "NotFound", 409: "Conflict", 415: "UnsupportedMediaType",
              422: "UnprocessableEntity", 500: "InternalServerError"}


def _check_sdk_error_map(fact: Fact, text: str) -> None:
    for key, value in fact.value.items():
        if isinstance(value, int):  # a number, or a status by its name (Results.NotFound)
            assert str(abs(value)) in text or HTTP_NAMES.get(value, "?") in text, (key, value)
        elif value is not None:
            assert value in text or "".join(w.title() for w in value.split("_")) in text, (key, value)


def _check_sdk_scopes(fact: Fact, text: str) -> None:
    assert all(name.rsplit(".", 1)[-1] in text for name in fact.value)


def _check_inventory_items(fact: Fact, text: str) -> None:
    """Each item of a Markdown inventory is in the lines: a heading or header cell as
    written, a block's language and first line, an image's alt text and address."""
    flat = _flat(text)
    for item in fact.value:
        if fact.kind == "tables":
            assert all(_flat(cell) in flat for cell in item.split(" | ")), item
        elif fact.kind in ("diagrams", "code-blocks"):
            head, _, rest = item.partition(": ")
            if head == "image":
                assert all(part in flat for part in rest.split(" ") if part), item
            else:
                assert (head == "text" or head in text) and _flat(rest) in flat, item
        else:
            assert _flat(item) in flat, item
    if fact.subject.startswith("§"):
        assert fact.value, "a section's inventory is given only where it holds something"
        assert text.startswith("#")


def _check_sentences(fact: Fact, text: str) -> None:
    words = _read_as_prose(fact, text)
    for sentence in fact.value:
        assert _flat(sentence) in words, sentence
    if fact.subject != "document":
        assert fact.value, "a part's inventory is given only where it holds something"


def _check_comment(fact: Fact, text: str) -> None:
    """A proto comment: its words, in order, are the lines' comment text."""
    def words(t: str) -> str:
        return " ".join(re.sub(r"[/*]+", " ", t).split())

    assert words(fact.value) in words(text)


def _check_description(fact: Fact, text: str) -> None:
    """A JSON description: the lines hold its member, string and all."""
    assert '"description": ' + json.dumps(fact.value, ensure_ascii=False) in text


CHECKS: dict[str, Callable[[Fact, str], None]] = {
    "comment": _check_comment,
    "description": _check_description,
    "enum-values": _check_enum_values,
    "states": _check_states,
    "named-states": _check_states,
    "terminal-states": _check_states,
    "interrupted-states": _check_states,
    "terminal-examples": _check_states,
    "interrupted-examples": _check_states,
    "enum-value": _check_enum_value,
    "state-class": _check_state_class,
    "message-fields": _check_first_line_names,
    "field": _check_first_line_names,
    "rpc-methods": _check_first_line_names,
    "rpc-method": _check_first_line_names,
    "reserved": _check_reserved,
    "error": _check_name_in_lines,
    "error-mapping": _check_name_in_lines,
    "section": _check_section,
    "section-title": _check_section_title,
    "release-date": _check_release,
    "tag-commit": _check_sha,
    "tag-object": _check_sha,
    "tag-date": _check_date,
    "branch-commit": _check_branch,
    "commit-date": _check_date,
    "commit-author-date": _check_date,
    "newest-release": _check_newest,
    "suite-requirement": _check_requirement,
    "suite-test": _check_definition,
    "suite-runner": _check_definition,
    "suite-helper": _check_definition,
    "suite-marker": _check_marker,
    "suite-spec-pin": _check_spec_pin,
    "suite-schema-state": _check_schema_state,
    "suite-state-map": _check_state_map,
    "suite-fixed-state": _check_fixed_state,
    "headings": _check_inventory_items,
    "tables": _check_inventory_items,
    "diagrams": _check_inventory_items,
    "code-blocks": _check_inventory_items,
    "normative": _check_sentences,
    "time-limits": _check_sentences,
    "sdk-enum": _check_sdk_enum,
    "sdk-flag": _check_sdk_flag,
    "sdk-scope": _check_sdk_scope,
    "sdk-guard": _check_sdk_guard,
    "sdk-branches": _check_sdk_branches,
    "sdk-map": _check_sdk_map,
    "sdk-code": _check_sdk_code,
    "sdk-error-map": _check_sdk_error_map,
    "sdk-scopes": _check_sdk_scopes,
}


def test_every_fact_points_at_the_lines_that_say_it() -> None:
    kinds_seen: set[str] = set()
    for source, data, facts in all_facts():
        lines = data.decode("utf-8").splitlines()
        for fact in facts:
            text = "\n".join(lines[fact.line_start - 1 : fact.line_end])
            try:
                CHECKS[fact.kind](fact, text)
            except (AssertionError, KeyError, ValueError) as e:
                raise AssertionError(
                    f"{source.id} {fact.key} L{fact.line_start}-{fact.line_end}: {text[:200]!r}"
                ) from e
            kinds_seen.add(fact.kind)
    assert kinds_seen == set(CHECKS)


def _documented_kinds() -> set[str]:
    """The first column of the Markdown table in a2a_kb.facts' docstring, read by a
    Markdown parser (markdown-it-py, with its table rule)."""
    from markdown_it import MarkdownIt

    import a2a_kb.facts

    tokens = MarkdownIt("commonmark").enable("table").parse(a2a_kb.facts.__doc__ or "")
    kinds, column, in_body = set(), 0, False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif token.type == "tr_open":
            column = 0
        elif token.type == "td_open":
            column += 1
        elif in_body and column == 1 and token.type == "inline":
            kinds.add(token.content.strip("`"))
    return kinds


def test_every_kind_an_extractor_emits_is_in_the_facts_table() -> None:
    emitted = {f.kind for _, _, facts in all_facts() for f in facts}
    emitted |= {"capture-sdk", "capture-states", "capture-final-state", "capture-final-artifacts",
                "capture-stream-close", "capture-error", "capture-exchange",
                "tck-build", "tck-verdict", "tck-test"}  # from captures/
    assert emitted <= _documented_kinds(), sorted(emitted - _documented_kinds())


def test_the_registry_and_the_versions_agree() -> None:
    assert set(EXTRACTOR_VERSIONS) == set(EXTRACTORS) == set(READERS)
    assert set(VERSIONS) == {module for module, _ in READERS.values()}
    for module, function in READERS.values():
        assert callable(getattr(importlib.import_module(f"a2a_kb.extract.{module}"), function))


def test_the_stage_imports_no_parser_until_a_kind_is_extracted() -> None:
    """Reading cached facts (a diff) needs no parser: the registry, the fact store and the
    diff import none (the diff reads JSON schemas with json_schema's helpers, which need
    none), and extracting one kind imports that kind's module only."""
    program = """
import sys
import a2a_kb.extract, a2a_kb.extract.factstore, a2a_kb.extract.lifecycle, a2a_kb.knowledge.diff
from a2a_kb.errors import ExtractError
from a2a_kb.extract import EXTRACTORS, READERS, Artifact

PARSERS = ("markdown_it", "markdown", "antlr4", "proto_schema_parser")
def loaded():
    parsers = sorted({m.split(".")[0] for m in sys.modules} & set(PARSERS))
    return parsers, [k for k, (m, _) in READERS.items() if f"a2a_kb.extract.{m}" in sys.modules]
print(loaded())
try:
    EXTRACTORS["git-refs"](Artifact("x", "git-refs", "refs", "", b"[]"))
except ExtractError:
    pass
print(loaded())
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=False)
    assert done.stdout.splitlines() == ["([], ['json-schema'])", "([], ['json-schema', 'git-refs'])"], \
        done.stdout + done.stderr


def test_a_kind_without_an_extractor_is_an_error() -> None:
    source, data = at("v1.0.0", "CHANGELOG.md")
    other = Source(id="paper-x", kind="paper", authority="secondary", url=source.url,
                   title="", versions=[], mark=source.mark)
    with pytest.raises(ExtractError, match="no extractor for source kind 'paper'"):
        extract(other, data)


def test_non_utf8_bytes_are_an_error() -> None:
    artifact = Artifact(source_id="spec@x", kind="spec", path="docs/specification.md",
                        commit="", data=b"# Spec \xff\n")
    with pytest.raises(ExtractError, match=r"spec@x.*not UTF-8"):
        EXTRACTORS["spec"](artifact)


@pytest.mark.parametrize("module", [lifecycle, json_positions, json_schema, git_refs, inventory])
def test_the_examples_in_docstrings_hold(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0


# --- the fact store -------------------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls of every extractor through the registry."""
    calls: dict[str, int] = {}

    Extractor = Callable[[Artifact], list[Fact]]

    def counting(kind: str, real: Extractor) -> Extractor:
        def run(artifact: Artifact) -> list[Fact]:
            calls[kind] = calls.get(kind, 0) + 1
            return real(artifact)
        return run

    for kind, real in list(EXTRACTORS.items()):
        monkeypatch.setitem(EXTRACTORS, kind, counting(kind, real))
    return calls


def test_the_store_reads_each_content_once(tmp_path: Path, counted: dict[str, int]) -> None:
    store = FactStore.in_cache(tmp_path)
    source, data = at("v1.0.0", "specification/a2a.proto")
    first = facts_for(source, data, store)
    second = facts_for(source, data, store)
    assert counted == {"proto": 1}
    assert second == first
    assert store.path(source.sha256).is_file()
    assert [p.name for p in store.directory.iterdir()] == [f"{source.sha256}.json"]  # no temp files


def test_same_bytes_under_another_source_get_that_source(tmp_path: Path,
                                                        counted: dict[str, int]) -> None:
    store = FactStore(tmp_path / "facts")
    v010, data = at("v0.1.0", "specification/json/a2a.json")
    draft, same = at("8a44cff", "specification/json/a2a.json")
    assert data == same
    facts_for(v010, data, store)
    served = facts_for(draft, same, store)
    assert counted == {"json-schema": 1}
    assert {(f.source, f.commit) for f in served} == {(draft.id, draft.commit)}


def test_a_new_extractor_version_or_a_damaged_file_reads_again(
        tmp_path: Path, counted: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> None:
    store = FactStore(tmp_path / "facts")
    source, data = at("v1.0.1", "CHANGELOG.md")
    facts_for(source, data, store)
    monkeypatch.setitem(EXTRACTOR_VERSIONS, "changelog", "changed")
    facts_for(source, data, store)
    assert counted == {"changelog": 2}
    store.path(source.sha256).write_text("{ half a file")
    again = facts_for(source, data, store)
    assert counted == {"changelog": 3}
    assert {f.subject for f in again} >= {"1.0.0", "1.0.1"}


def test_one_content_read_as_two_kinds_keeps_both(tmp_path: Path, counted: dict[str, int]) -> None:
    store = FactStore(tmp_path / "facts")
    spec, data = at("v1.0.0", "docs/whats-new-v1.md")
    as_docs = facts_for(spec, data, store)
    changelog_like = Source(id="odd", kind="spec", authority="primary", url=spec.url, title="",
                            versions=[], mark=spec.mark, path=spec.path)
    with pytest.raises(ExtractError):
        facts_for(changelog_like, data, store)  # whats-new has no numbered sections
    assert facts_for(spec, data, store) == as_docs
    assert counted == {"docs": 1, "spec": 1}


def test_extract_failures_are_not_cached(tmp_path: Path, counted: dict[str, int]) -> None:
    store = FactStore(tmp_path / "facts")
    source, _ = at("v1.0.0", "specification/a2a.proto")
    for _ in range(2):
        with pytest.raises(ExtractError):
            facts_for(source, b"syntax = 'proto3';", store)
    assert counted == {"proto": 2}
    assert not store.directory.exists() or not list(store.directory.iterdir())


def test_the_package_exports_its_registry() -> None:
    assert extract_stage.EXTRACTORS is EXTRACTORS
    assert callable(extract_stage.extract)
