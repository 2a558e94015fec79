"""Property-based fuzzing of the loader and the validator (hypothesis).

For each record kind (claims, sources, conflicts) hypothesis writes record files: valid ones
built from the fixture's own ids, then the same with their data mutated (fields dropped,
renamed or replaced by random values, unicode, deep nesting) and with their text mutated
(characters inserted or deleted, lines duplicated or re-indented, bytes that are not UTF-8).
Each file is read and validated next to the fixture knowledge base. Whatever the input:

* reading and validating never raise;
* every diagnostic has a rule, a message, a tip and a place (line and column ≥ 1, and a
  line that exists in the file);
* input that is certainly broken (not UTF-8, not YAML, or against the JSON Schema) gives
  at least one error in that file, and valid input gives none;
* of the files the fuzzer dumped itself, the reader reads every value it accepts as
  PyYAML's safe loader does;
* every record that validates survives a JSON round trip (what the JSON API serves).

The number of examples run per kind goes to test-artifacts/reliability/validate.json.
A2A_KB_FUZZ_EXAMPLES sets the count per kind: 1,000 by default (2,000 took about 340 s of
a worker in make test, whose whole run is meant to stay under 20 minutes).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from a2a_kb.diagnostics import Diagnostic, Severity
from a2a_kb.project import Project
from a2a_kb.records import yamldoc
from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.records.loader import LoadResult, load
from a2a_kb.records.validate import validate
from a2a_kb.schemas import FILE_KEYS, KINDS, schema
from conftest import make_fixture_kb, record_reliability

EXAMPLES = int(os.environ.get("A2A_KB_FUZZ_EXAMPLES", "1000"))
FILE_KEY = {"claim": "claims", "source": "sources", "conflict": "conflicts"}
FOLDER = {"claim": "claims", "source": "sources", "conflict": "claims"}

# Ids that exist in the fixture knowledge base (tests/fixtures/kb).
VERSIONS = ["draft", "0.3.0", "1.0.0", "v0.3.0", "v1.0.0"]
PINNED = ["json-schema@v0.3.0", "proto@v1.0.0", "spec@v1.0.0"]
UNPINNED = ["google-blog-launch"]
CLAIMS = ["v1-terminal-states", "proto-has-unspecified", "lifecycle-has-seven-states",
          "v030-state-count"]
ORIGINS = ["rabbithole-synthesis.md#c-groups-of-states:1",
           "rabbithole-synthesis.md#c-groups-of-states:3",
           "reports/history.md#unresolved-disagreements:2"]
# Generated conflicts take ids D20–D29; two companion claims list them all, so that a
# generated conflict whose sides name the companions is valid.
CONFLICT_IDS = [f"D{n}" for n in range(20, 30)]
COMPANIONS = """\
claims:
  - id: fuzz-side-a
    statement: One side of every conflict the fuzzer writes.
    versions: ['1.0.0']
    source: spec@v1.0.0
    conflicts: [D20, D21, D22, D23, D24, D25, D26, D27, D28, D29]
    verdict: verified
  - id: fuzz-side-b
    statement: The other side of every conflict the fuzzer writes.
    versions: ['1.0.0']
    source: spec@v1.0.0
    conflicts: [D20, D21, D22, D23, D24, D25, D26, D27, D28, D29]
    verdict: verified
"""

# --- valid records --------------------------------------------------------------------------
# Strategies are built once, here: building them inside a draw costs more than the draw.

LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
# Strings that YAML, JSON or HTML treat specially, drawn whole (one draw instead of one per
# character keeps examples fast); random text is mixed in below.
TRICKY = [
    "The task ends when it reaches a terminal state.", "Задача завершена ✓", "המשימה הסתיימה",
    "任务已完成", "😀 emoji and ZWJ 👩‍💻", "null", "~", "yes", "No", "on", "1.0", "0x1F", "0o17",
    "1_000", "1e400", ".inf", ".nan", "2026-02-30", "2025-13-01", "12:30:00", "=", "<<",
    "<script>alert(1)</script>", "javascript:alert(1)", "a: b", "# not a comment", "key: 'v'",
    "' \" \\", "\ttab", "line\nbreak", "cr\rreturn", "nul\x00byte", "bell\x07", "\u2028sep",
    "\x85nel", "\ufeffbom", " leading", "trailing ", "@at", "`tick`", "*star", "&amp", "!bang",
    "%pct", "{x: 1}", "[y, z]", "| pipe", "> fold", "- dash", "? query", "---", "...",
    "\u202eright-to-left override", "e\u0301 combining", "\U0001d54f math", "x" * 2001,
]
# Record text: anything printable, tab and line break included. Control characters and
# bidirectional overrides are refused in records, so they belong to the mutated inputs.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
TEXT = st.characters(exclude_categories=["Cc", "Cs"], include_characters="\t\n",
                     exclude_characters=BIDI_CONTROLS)
PRINTABLE = [t for t in TRICKY if not re.search(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]", t)]
short_text = st.sampled_from(PRINTABLE) | st.text(TEXT, max_size=12)
# Long text, cheaply: a short piece repeated.
long_text = st.tuples(st.text(TEXT, min_size=1, max_size=6), st.integers(1, 500)).map(
    lambda piece: piece[0] * piece[1])


def bounded(low: int, high: int) -> st.SearchStrategy[str]:
    """Text whose length is within [low, high]."""
    pool = [t for t in PRINTABLE if low <= len(t) <= high]
    return (st.sampled_from(pool) | st.text(TEXT, min_size=low, max_size=low + 12) | long_text).filter(
        lambda t: low <= len(t) <= high)


def slug(prefix: str, size: int = 10, suffix: str = "") -> st.SearchStrategy[str]:
    return st.text(LOWER, min_size=1, max_size=size).map(lambda t: prefix + t + suffix)


dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2025, 12, 31)).map(str)
versions = st.lists(st.sampled_from(VERSIONS), max_size=3, unique=True)

VALUE_FOR_OP: dict[str, st.SearchStrategy[Any]] = {
    "count": st.integers(0, 99),
    "matches": st.sampled_from([r"^TASK_STATE_", "[a-z]+", "canceled|cancelled"]),
    "not-matches": st.sampled_from([r"TASK_STATE_UNSPECIFIED", r"(?i)unknown"]),
    **{op: short_text | st.integers() | st.lists(short_text, max_size=3)
       for op in ("equals", "contains", "excludes", "quote-in-section", "date-equals")},
}
CHECK = st.fixed_dictionaries(
    {"fact": st.sampled_from(["enum-values:TaskState", "state-class:terminal",
                              "enum-value:TASK_STATE_CANCELED", "section:4.1.3"]),
     "op": st.sampled_from([*VALUE_FOR_OP, "present", "absent"])},
    optional={"source": st.sampled_from([*PINNED, "proto@latest", "spec@latest"])},
)
CLAIM = st.fixed_dictionaries(
    {"id": slug("fuzz-"), "statement": bounded(10, 2000), "versions": versions.filter(bool),
     "conflicts": st.sampled_from([[], ["D1"]])},
    optional={
        "subject": bounded(0, 120), "locator": bounded(0, 200), "quote": bounded(3, 300),
        "verdict": st.sampled_from(["verified", "contradicted", "unverifiable",
                                    "quote-missing", "stale", "drifted"]),
        "reviewed": dates, "origin": st.sampled_from(ORIGINS),
        "rank": st.sampled_from(["preferred", "normal", "deprecated"]),
        "tracks": st.just("latest"),
        "related": st.lists(st.sampled_from(CLAIMS), max_size=2, unique=True),
        "note": bounded(0, 2000),
    },
)
SOURCE = st.fixed_dictionaries(
    {"id": slug("fuzz-") | slug("fuzz-", 4, "@v1.0.0"),
     # Not "capture" (its transcript must exist in captures/), nor "dossier" (the fixture
     # has its one dossier).
     "kind": st.sampled_from(["json-schema", "proto", "spec", "docs", "changelog", "git-refs",
                              "test-suite", "sdk", "web", "paper", "issue"]),
     "authority": st.sampled_from(["primary", "secondary"]),
     "title": bounded(1, 300), "versions": versions},
    optional={"ref": bounded(0, 60), "size": st.integers(0, 10**12), "moving": st.booleans(),
              "binding": st.sampled_from(["json", "grpc", "http", "prose"]),
              "notes": bounded(0, 2000)},
)
PINNED_COPY = st.tuples(
    st.text(HEX, min_size=40, max_size=40),
    st.tuples(st.sampled_from(["", "docs/", "specification/json/"]), slug("", 8),
              st.sampled_from([".md", ".json", ".proto"])).map("".join),
    st.text(HEX, min_size=64, max_size=64),
).map(lambda c: {"url": f"https://raw.githubusercontent.com/a2aproject/A2A/{c[0]}/{c[1]}",
                 "commit": c[0], "path": c[1], "sha256": c[2]})
PAGE = st.fixed_dictionaries({"url": st.text(LOWER + "/._-", max_size=30).map(
    lambda path: "https://example.org/" + path), "retrieved": dates})
SIDE = st.fixed_dictionaries({
    "position": bounded(3, 1000),
    "claims": st.lists(st.sampled_from(["fuzz-side-a", "fuzz-side-b"]), min_size=1,
                       max_size=2, unique=True),
})
CONFLICT = st.fixed_dictionaries(
    {"id": st.sampled_from(CONFLICT_IDS), "question": bounded(5, 500),
     "sides": st.lists(SIDE, min_size=2, max_size=3),
     "status": st.sampled_from(["open", "settled", "resolved-in-version"]),
     "advice": bounded(5, 2000)},
    optional={"title": bounded(0, 200), "origin": st.sampled_from(ORIGINS),
              "resolved_in": st.sampled_from(VERSIONS)},
)


@st.composite
def valid_claims(draw: st.DrawFn) -> dict[str, Any]:
    claim: dict[str, Any] = draw(CLAIM)
    if draw(st.booleans()):
        check: dict[str, Any] = draw(CHECK)
        if check["op"] in VALUE_FOR_OP:
            check["value"] = draw(VALUE_FOR_OP[check["op"]])
        claim["expect"] = check if draw(st.booleans()) else [check]
        # A check needs a pinned copy: its own source's, or else the claim's.
        claim["source"] = draw(st.sampled_from(PINNED + UNPINNED if "source" in check
                                               else PINNED))
    else:
        claim["source"] = draw(st.sampled_from([*PINNED, *UNPINNED,
                                                "https://example.org/a2a/tasks"]))
    # What an unpinned page says is never verified by checks that do not read it
    # (rule reported-claim-verified): such a claim is recorded unverifiable, or stale.
    checked = "expect" in claim or "quote" in claim
    if claim["source"] not in PINNED and checked and claim.get("verdict") == "verified":
        claim["verdict"] = draw(st.sampled_from(["unverifiable", "stale"]))
    return claim


@st.composite
def valid_sources(draw: st.DrawFn) -> dict[str, Any]:
    # A file pinned to a commit of the repository, or a page read on a date.
    return draw(SOURCE) | draw(PINNED_COPY | PAGE)


@st.composite
def valid_conflicts(draw: st.DrawFn) -> dict[str, Any]:
    conflict = draw(CONFLICT)
    if conflict["status"] == "resolved-in-version" and "resolved_in" not in conflict:
        conflict["resolved_in"] = draw(st.sampled_from(VERSIONS))
    return conflict


VALID: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "claim": valid_claims(), "source": valid_sources(), "conflict": valid_conflicts(),
}

# --- mutations ------------------------------------------------------------------------------

scalars = (st.none() | st.booleans() | st.integers(-(10**30), 10**30)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
junk = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"level": value}
    return value


any_value = junk | st.integers(1, 60).map(_nested)
field_names = st.sampled_from(["id", "statement", "versions", "source", "conflicts", "expect",
                               "verdict", "reviewed", "origin", "sides", "claims", "status",
                               "url", "path", "sha256", "commit", "retrieved", "kind", "op",
                               "value", "fact", "related", "resolved_in"]) | st.text(max_size=12)
# A position in a list or text, drawn once and reduced modulo its length.
index = st.integers(0, 2**16)
rounds = st.integers(1, 3)
TREE_EDITS = st.sampled_from(["replace", "delete", "add", "rename"])
TEXT_EDITS = st.sampled_from(["insert", "delete", "duplicate-line", "indent", "truncate"])
NASTY = st.sampled_from([
    "\t", ":", ": ", "&a ", "*a", "!", "!!python/object ", "[", "]", "{", "}", "'", '"', "#",
    "\x00", "\ufeff", "\r", "- ", "  ", "%", "@", "`", "|", ">", "<<: ", "---\n", "\n",
    "\u2028", "\x85", "é", "😀", "=",
]) | st.text(max_size=3)
INDENTS = st.sampled_from(["", " ", "   ", "\t"])
ENCODINGS = st.sampled_from(["utf-8"] * 8 + ["broken-byte", "utf-16"])


def _places(tree: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in the tree."""
    found: list[tuple[Any, Any]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node))
        for key in keys:
            found.append((node, key))
            if isinstance(node[key], dict | list):
                stack.append(node[key])
    return found


@st.composite
def mutated_tree(draw: st.DrawFn, tree: dict[str, Any]) -> dict[str, Any]:
    tree = copy.deepcopy(tree)
    for _ in range(draw(rounds)):
        places = _places(tree)
        if not places:
            break
        node, key = places[draw(index) % len(places)]
        action = draw(TREE_EDITS)
        if action == "replace":
            node[key] = draw(any_value)
        elif action == "delete":
            del node[key]
        elif action == "add" and isinstance(node, dict):
            node[draw(field_names)] = draw(any_value)
        elif action == "add":
            node.insert(key, draw(any_value))
        elif isinstance(node, dict):  # rename a key: a typo, or another field's name
            node[draw(field_names)] = node.pop(key)
    return tree


@st.composite
def mutated_bytes(draw: st.DrawFn, source: str) -> bytes:
    for _ in range(draw(rounds)):
        action = draw(TEXT_EDITS)
        at = draw(index) % (len(source) + 1)
        if action == "insert":
            source = source[:at] + draw(NASTY) + source[at:]
        elif action == "delete":
            source = source[:at] + source[at + 1 + draw(index) % 20:]
        elif action == "truncate":
            source = source[:at]
        else:
            lines = source.split("\n")
            i = draw(index) % len(lines)
            if action == "duplicate-line":
                lines.insert(i, lines[i])
            else:
                lines[i] = draw(INDENTS) + lines[i].lstrip(" ")
            source = "\n".join(lines)
    encoding = draw(ENCODINGS)
    if encoding == "utf-16":
        return source.encode("utf-16")
    data = source.encode("utf-8")
    if encoding == "broken-byte":
        at = draw(index) % (len(data) + 1)
        data = data[:at] + bytes([0x80 + draw(index) % 0x80]) + data[at:]
    return data


@dataclass
class Example:
    data: bytes
    tree: Any  # the value written, when the text was not mutated after dumping
    valid: bool  # built only from valid records: must give no errors


class _Dumper(yaml.CSafeDumper):
    """Writes a value used twice out twice: records refuse anchors and aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump(tree: Any) -> str:
    return yaml.dump(tree, Dumper=_Dumper, allow_unicode=True, sort_keys=False)


MODES = st.sampled_from(["valid", "data", "data", "text", "text", "both"])


@st.composite
def examples(draw: st.DrawFn, kind: str) -> Example:
    records = draw(st.lists(VALID[kind], min_size=1, max_size=2,
                            unique_by=lambda r: str(r["id"]).casefold()))
    tree: Any = {FILE_KEY[kind]: records}
    mode = draw(MODES)
    if mode == "valid":
        return Example(_dump(tree).encode(), tree, valid=True)
    if mode in ("data", "both"):
        tree = draw(mutated_tree(tree))
    if mode == "data":
        return Example(_dump(tree).encode(), tree, valid=False)
    return Example(draw(mutated_bytes(_dump(tree))), None, valid=False)


# --- the properties -------------------------------------------------------------------------


# The files of the fixture each kind's records refer to; fewer records to re-check per
# example keeps the 6,000 examples fast.
BASE_FILES = {
    "claim": ["sources/versions.yaml", "sources/primary.yaml", "sources/secondary.yaml",
              "claims/states.yaml", "claims/conflicts.yaml"],
    "source": ["sources/versions.yaml"],
    "conflict": ["sources/versions.yaml", "sources/primary.yaml", "sources/secondary.yaml",
                 "claims/companions.yaml"],
}


@dataclass
class FuzzProject:
    """The fixture knowledge base, read once; each example adds one file next to it."""

    project: Project
    bases: dict[str, LoadResult]

    def check(self, kind: str, data: bytes) -> tuple[yamldoc.Document, KnowledgeBase]:
        """Read and validate ``data`` as a file of ``kind`` records, named fuzz.yaml."""
        path = self.project.root / FOLDER[kind] / "fuzz.yaml"
        path.write_bytes(data)
        fresh = load(self.project, [path])
        base = self.bases[kind]
        merged = LoadResult(
            files=[*base.files, *fresh.files],
            records={k: [*base.records[k], *fresh.records[k]] for k in base.records},
            problems=[*base.problems, *fresh.problems],
        )
        return fresh.files[0], validate(self.project, merged)


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzProject]:
    root, cache = make_fixture_kb(tmp_path_factory.mktemp("fuzz"))
    (root / "claims" / "companions.yaml").write_text(COMPANIONS, "utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A2A_KB_CACHE", str(cache))
        project = Project.at(root)
        bases = {kind: load(project, [root / f for f in files])
                 for kind, files in BASE_FILES.items()}
        assert not any(base.problems for base in bases.values())
        yield FuzzProject(project, bases)


FILE_SCHEMAS = {kind: Draft202012Validator(schema(kind)) for kind in KINDS}
RUN: dict[str, int] = {}
FAILED: dict[str, int] = {}


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    yield
    if RUN:
        record_reliability({"fuzz_examples": dict(sorted(RUN.items())),
                            "fuzz_failures": sum(FAILED.values())})


def _kind_of(tree: Any, default: str) -> str:
    if isinstance(tree, dict) and len(tree) == 1:
        return FILE_KEYS.get(str(next(iter(tree))), default)
    return default


def _certainly_broken(data: bytes) -> bool:
    """Broken by a judge other than ours: not UTF-8, or not one YAML document."""
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    try:
        documents = list(yaml.compose_all(source, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return True
    return len(documents) != 1


def _well_formed(d: Diagnostic, lines: int) -> None:
    assert d.rule and d.message and d.tip, d
    assert d.mark.path, d
    assert 1 <= d.mark.line <= lines + 1, (d.format(), lines)
    assert d.mark.column >= 1, d.format()
    assert "\n" not in d.format(), d.format()


def _property(project: FuzzProject, kind: str, example: Example) -> None:
    doc, kb = project.check(kind, example.data)
    name = doc.path

    # What the reader accepts, it reads as PyYAML's safe loader does. (Not always as the
    # tree that was dumped: PyYAML's emitter writes a NEL character in single quotes in a
    # form that reads back as a space.)
    if example.tree is not None and not doc.problems:
        assert doc.value == yaml.load(example.data.decode("utf-8"), Loader=yaml.CSafeLoader)

    try:
        lines = len(example.data.decode("utf-8").splitlines())
    except UnicodeDecodeError:
        lines = example.data.count(b"\n") + 1
    for d in kb.problems:
        _well_formed(d, lines if d.mark.path == name else 10**6)
    json.dumps([d.as_json() for d in kb.problems])
    mine = [d for d in kb.problems if d.mark.path == name and d.severity is Severity.ERROR]

    if example.valid:
        assert not mine, "\n".join(d.format() for d in mine)
    if _certainly_broken(example.data):
        assert mine, "broken input passed"
    # A record file's single top-level key names its kind (a mutation can turn a sources
    # file into a valid, empty versions file), so judge it by the schema of that kind.
    judged = _kind_of(example.tree, kind)
    if example.tree is not None and not FILE_SCHEMAS[judged].is_valid(example.tree):
        assert mine, "input against the JSON Schema passed"

    # What validated is what the JSON API serves: it survives a strict JSON round trip.
    stored: dict[str, list[Any]] = {"claim": list(kb.claims.values()),
                                    "source": list(kb.sources.values()),
                                    "conflict": list(kb.conflicts.values())}
    for record in stored[kind]:
        if record.mark.path == name:
            assert json.loads(json.dumps(record.raw, allow_nan=False)) == record.raw


def _fuzz(project: FuzzProject, kind: str) -> None:
    RUN[kind] = 0
    FAILED[kind] = 0

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(examples(kind))
    def run(example: Example) -> None:
        RUN[kind] += 1
        try:
            _property(project, kind, example)
        except BaseException:
            FAILED[kind] += 1
            raise

    try:
        run()
    finally:
        # Shrinking re-runs a failing example many times: record one failure per kind.
        FAILED[kind] = min(FAILED[kind], 1)
    assert RUN[kind] >= EXAMPLES


@pytest.mark.parametrize("kind", ["claim", "source", "conflict"])
def test_loader_and_validator_hold_for_generated_records(
    fuzz_project: FuzzProject, kind: str
) -> None:
    _fuzz(fuzz_project, kind)
