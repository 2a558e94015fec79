"""The diff's HTTP+JSON and JSON-RPC grades held to two maintained tools, as
tests/test_buf_oracle.py holds its protobuf grades to buf:

- openapi-diff (npm, Atlassian) on each ordered pair of the versions with a .proto, whose
  routes become OpenAPI documents: every route of the old version it finds broken for an
  old client, the diff grades breaking for an old HTTP+JSON client, and the reverse;
- json-schema-diff (npm, Atlassian) on each ordered pair of the versions with a JSON
  schema, definition by definition: values a request definition no longer accepts, or a
  response definition now also accepts, and the diff's breaking grades for an old client.

Recall and precision must be 100 % each, counting the disagreements kept on purpose in
diff/disagreements.yaml with their reasons. Both tools are pinned with their integrity in
tooling/npm/api-diff and installed by `make api-diff`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2a_kb.cache import Cache
from a2a_kb.knowledge.check import FactBook
from a2a_kb.knowledge.diff import api_oracles, oracle, sides

ROOT = Path(__file__).resolve().parents[1]
KEPT = oracle.KEPT


def _installed() -> None:
    if not api_oracles.installed(ROOT):
        pytest.fail(f"openapi-diff and json-schema-diff are not installed in {api_oracles.API_DIFF} "
                    "(tip: run `make api-diff`)")


@pytest.fixture(scope="module")
def measured(real_cache: Path) -> tuple[list[api_oracles.HttpPair], list[api_oracles.JsonRpcPair]]:
    from a2a_kb import load

    _installed()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        kb = load(ROOT)
        reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
        return api_oracles.measure(kb, reader, ROOT)


def test_api_differential(measured: tuple[list[api_oracles.HttpPair], list[api_oracles.JsonRpcPair]]) -> None:
    http, jsonrpc = measured
    kept = oracle.load_disagreements(KEPT)
    found = [("http", len(http), api_oracles.http_agreement(http, kept)),
             ("jsonrpc", len(jsonrpc), api_oracles.jsonrpc_agreement(jsonrpc, kept))]
    rows = ["encoding  oracle            pairs  items  oracle-breaking  matched  kept  recall (raw)"
            "  diff-breaking  confirmed  kept  precision (raw)"]
    for encoding, pairs, v in found:
        oracle_kept, diff_kept = v.kept_count(kept, "oracle-only"), v.kept_count(kept, "diff-only")
        recall = (v.matched + oracle_kept) / max(v.oracle_breaking, 1)
        precision = (v.confirmed + diff_kept) / max(v.diff_breaking, 1)
        rows.append(f"{encoding:<9} {v.oracle:<17} {pairs:>5} {v.items:>6} {v.oracle_breaking:>16} "
                    f"{v.matched:>8} {oracle_kept:>5} {recall:>6.0%} ({v.recall:.0%}) {v.diff_breaking:>14} "
                    f"{v.confirmed:>10} {diff_kept:>5} {precision:>9.0%} ({v.precision:.0%})")
    rows.append("items: http, each route of the old version; jsonrpc, each definition in scope in both "
                "versions. recall and precision count the kept disagreements as explained; (raw) does not")
    print("\n" + "\n".join(rows))
    assert len(http) == 45, "every ordered pair of the ten versions with a .proto"
    assert len(jsonrpc) == 45, "every ordered pair of the ten versions with a JSON schema"
    for encoding, _, v in found:
        assert v.oracle_breaking > 100, f"{v.oracle} found next to nothing breaking: is it comparing?"
        assert not v.missed, (f"{encoding}: {v.oracle} breaks the diff does not grade breaking for an old "
                              f"client (fix the diff, or keep the disagreement in {KEPT.name} with its "
                              "reason):\n" + "\n".join(v.missed))
        assert not v.extra, (f"{encoding}: breaking grades {v.oracle} does not confirm (fix the diff, or "
                             f"keep the disagreement in {KEPT.name} with its reason):\n" + "\n".join(v.extra))
    stale = api_oracles.unused(kept, [v for _, _, v in found])
    assert not stale, f"kept disagreements nothing needs any more: {stale}"


# --- the rewriting that lets json-schema-diff see enum and const, held to known answers ---------


def _verdict(old: dict[str, Any], new: dict[str, Any]) -> dict[str, bool]:
    _installed()
    literals = api_oracles._Literals()
    schemas = [api_oracles.definition_schemas(json.dumps({"definitions": {"X": s}}), literals)["X"]
               for s in (old, new)]
    answer = api_oracles.run(ROOT, {"jsonschema": [{"id": "x", "old": schemas[0], "new": schemas[1]}]})
    return dict(answer["jsonschema"]["x"])


STATES = ["submitted", "working", "completed"]


@pytest.mark.parametrize(("old", "new", "added", "removed"), [
    # a state added: more values (an old client that validates responses refuses them)
    ({"type": "string", "enum": STATES}, {"type": "string", "enum": [*STATES, "rejected"]}, True, False),
    # a state removed: fewer
    ({"type": "string", "enum": STATES}, {"type": "string", "enum": STATES[:2]}, False, True),
    # a spelling changed: both
    ({"enum": STATES}, {"enum": ["TASK_STATE_" + s.upper() for s in STATES]}, True, True),
    # any string narrowed to the states: fewer only
    ({"type": "string"}, {"type": "string", "enum": STATES}, False, True),
    # an error's pinned message released: more
    ({"type": "string", "const": "Task not found"}, {"type": "string"}, True, False),
    # null no longer accepted
    ({"anyOf": [{"type": "object"}, {"type": "null"}]}, {"type": "object"}, False, True),
    # a reference that points elsewhere: both; the same one: neither
    ({"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}, True, True),
    ({"$ref": "#/definitions/A"}, {"$ref": "#/definitions/A", "description": "reworded"}, False, False),
    # numbers stay numbers: an error code re-pinned
    ({"type": "integer", "const": -32001}, {"type": "integer", "const": -32002}, True, True),
])
def test_json_schema_diff_sees_enum_and_const(old: dict[str, Any], new: dict[str, Any], added: bool,
                                              removed: bool) -> None:
    """json-schema-diff reads neither `enum` nor `const`; the rewriting in
    api_oracles.definition_schemas must keep what each schema accepts, or the oracle would
    be blind to a state added to TaskState."""
    assert _verdict(old, new) == {"added": added, "removed": removed}


def test_the_oracle_sees_a_state_added_to_a_response(
        measured: tuple[list[api_oracles.HttpPair], list[api_oracles.JsonRpcPair]]) -> None:
    """v0.1.0 → v0.2.0 added `rejected` and `auth-required` to TaskState, which travels in
    responses: both json-schema-diff and the diff say an old client breaks."""
    _, jsonrpc = measured
    pair = next(p for p in jsonrpc if (p.old_version, p.new_version) == ("0.1.0", "0.2.0"))
    assert pair.answers["TaskState"] == {"added": True, "removed": False}
    assert "response" in pair.roles["TaskState"]
    ours, _ = api_oracles.jsonrpc_item_changes(pair.changes)
    assert {c.new for c in ours["TaskState"]} == {"rejected", "auth-required"}
