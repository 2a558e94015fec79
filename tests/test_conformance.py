"""The conformance matrix from the real knowledge base: its rows, its columns, its answers
and their evidence, the marks it may and may not make, and its JSON against its schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from a2a_kb.site import paths
from a2a_kb.site.data import SiteData
from a2a_kb.site.links import Linker
from a2a_kb.site.render import api, conformance
from conftest import REPO


@pytest.fixture(scope="module")
def matrix(real_data: SiteData) -> conformance.Matrix:
    return conformance.matrix(real_data, Linker(paths.CONFORMANCE))


def _cell(found: conformance.Matrix, behaviour: str, column: str) -> list[conformance.Answer]:
    row = next(r for r in found.rows if r.behaviour == behaviour)
    index = [c.key for c in found.columns].index(column)
    return row.cells[index]


def test_columns_cover_the_spec_the_suite_every_build_and_the_sdks_only_read(
    matrix: conformance.Matrix,
) -> None:
    kinds: dict[str, list[str]] = {}
    for column in matrix.columns:
        kinds.setdefault(column.kind, []).append(column.key)
    assert kinds["spec"] == ["0.3.0", "1.0.0", "1.0.1"]
    assert kinds["suite"] == ["tck@1.0-dev", "tck@0.3.x", "tck@main"]
    assert kinds["sdk"] == ["build@a2a-sdk-1.3.0", "build@a2a-sdk-0.3", "build@a2a-js-sdk-1.3.0"]
    assert kinds["read"] == ["read@a2a-python", "read@a2a-js", "read@a2a-java", "read@a2a-rs",
                             "read@a2a-go", "read@a2a-dotnet"]
    present = {r.behaviour for r in matrix.rows}
    assert [r.behaviour for r in matrix.rows] == [b for b in conformance.ROWS if b in present]
    assert len(matrix.rows) >= 15


def test_every_observed_build_answers_every_new_point(matrix: conformance.Matrix) -> None:
    for behaviour in ("context-generated", "context-inferred", "context-mismatch", "unknown-task",
                      "history-length", "cancel-interrupted", "cancel-twice", "multiple-subscribers"):
        for build in ("build@a2a-sdk-1.3.0", "build@a2a-sdk-0.3", "build@a2a-js-sdk-1.3.0"):
            answers = _cell(matrix, behaviour, build)
            assert answers, (behaviour, build)
            assert all(a.verdict == "verified" and a.evidence for a in answers), (behaviour, build)
            observed = [a for a in answers if not a.claim.startswith("tck-")]  # the suite's verdicts aside
            assert observed and all(e.label.startswith("capture ") and "#L" in e.href
                                    for a in observed for e in a.evidence)
            for a in answers:
                if a.claim.startswith("tck-"):  # a verdict leads to its requirement's row
                    assert a.text.startswith("a2a-tck ") and a.evidence[0].href.startswith("#req-")


def _observed(found: conformance.Matrix, behaviour: str, column: str) -> list[conformance.Answer]:
    """A build's answers from its captures, without the suite's verdicts on it."""
    return [a for a in _cell(found, behaviour, column) if not a.claim.startswith("tck-")]


def test_cells_show_answers_linked_to_claims_and_lines(matrix: conformance.Matrix) -> None:
    [js] = _observed(matrix, "message-to-terminal", "build@a2a-js-sdk-1.3.0")
    assert js.text == "-32004 UnsupportedOperationError"
    assert js.href.endswith("claims/#a2a-js-130-message-to-terminal-unsupported")
    assert js.evidence[0].href.startswith("../sdk/captures/a2a-js-sdk-1.3.0/11-message-to-completed/#L")
    [old] = _observed(matrix, "message-to-terminal", "build@a2a-sdk-0.3")
    assert old.text == "-32602 InvalidParamsError"
    # answers read off the checks where a claim has none of its own
    derived = [a.text for a in _cell(matrix, "cancel-of-terminal", "build@a2a-sdk-1.3.0")]
    assert "-32002 TaskNotCancelableError" in derived
    # the suite's cell links to the pinned line of the suite's own file
    [suite] = _cell(matrix, "message-to-terminal", "tck@1.0-dev")
    assert suite.text == "MUST; test accepts any error"
    assert any(e.href.startswith("https://github.com/a2aproject/a2a-tck/blob/357c4a87")
               for e in suite.evidence)


def test_a_departure_needs_a_verified_claim(matrix: conformance.Matrix, real_data: SiteData) -> None:
    marked = [a for r in matrix.rows for cell in r.cells for a in cell if a.departs]
    assert marked, "the matrix marks the verified departures (D3, D40, D42, D43, D44 …)"
    assert all(real_data.verdict(a.claim) == "verified" for a in marked)
    read = _cell(matrix, "message-to-terminal", "read@a2a-python")
    assert [a.claim for a in read] == ["a2a-python-message-to-terminal-invalid-params"]
    assert read[0].verdict == "unverifiable" and not read[0].departs
    suite = [a for a in _cell(matrix, "subscribe-interrupted", "tck@1.0-dev")]
    assert any("D44" in a.departs for a in suite)
    assert all(not a.departs for col, cells in zip(matrix.columns, matrix.rows[0].cells, strict=True)
               if col.kind == "spec" for a in cells)


def test_the_json_document_follows_its_schema_and_the_page(real_data: SiteData) -> None:
    document: dict[str, Any] = api.documents(real_data)["conformance"]
    jsonschema.validate(document, api.api_schema("conformance"))
    claims = real_data.kb.claims
    for row in document["rows"]:
        for answers in row["cells"].values():
            for answer in answers:
                assert answer["claim"] in claims, answer
                assert answer["verdict"] == real_data.verdict(answer["claim"])
                for evidence in answer["evidence"]:
                    assert evidence["url"].startswith(("sdk/captures/", "https://github.com/",
                                                       "conformance/#req-")), evidence
                    if evidence["url"].startswith("conformance/#req-"):  # a row of the table below
                        rid = evidence["url"].split("#req-", 1)[1]
                        assert rid in {r["requirement"].lower() for r in document["requirements"]}
    keys = {c["key"] for c in document["columns"]}
    assert all(set(r["cells"]) <= keys for r in document["rows"])
    json.dumps(document)  # serialisable as it stands


def test_the_page_is_generated_and_in_the_api_index(real_pages: dict[str, str]) -> None:
    page = real_pages[paths.CONFORMANCE]
    assert '<table class="kb-conformance kb-cards">' in page
    assert 'data-title="@a2a-js/sdk 1.3.0"' in page and "no claim yet" in page
    assert paths.api_file("conformance") in real_pages and paths.api_schema("conformance") in real_pages
    assert "conformance.json" in real_pages[paths.API_INDEX]


# --- requirement by requirement: the suite's registry and its verdicts -------------------------


def _lifecycle_ids_in_the_mirror() -> set[str]:
    """The lifecycle requirement ids of a2a-tck 1.0-dev's registry, read with Python's parser
    straight from the mirror (not through the KB): RequirementSpec calls whose operation is a
    task operation, whose id starts STREAM-, or whose tags name a task."""
    import ast

    from a2a_kb.capture import tck
    from conftest import MIRROR

    ids = set()
    for path, _, local in tck.suite_files(MIRROR, tck.SUITES["1.0-dev"]):
        if not (path.startswith("tck/requirements/") and path.endswith(".py")):
            continue
        for node in ast.walk(ast.parse(local.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RequirementSpec":
                k = {kw.arg: kw.value for kw in node.keywords}
                rid = k["id"].value  # type: ignore[attr-defined]
                operation = ast.unparse(k["operation"]) if "operation" in k else ""
                tags = [ast.unparse(t) for t in getattr(k.get("tags"), "elts", [])]
                task_operation = any(operation.endswith(o) for o in (
                    "SEND_MESSAGE", "SEND_STREAMING_MESSAGE", "GET_TASK", "LIST_TASKS", "CANCEL_TASK",
                    "SUBSCRIBE_TO_TASK"))
                if task_operation or rid.startswith("STREAM-") or "TASK" in tags:
                    ids.add(rid)
    return ids


def test_every_lifecycle_requirement_of_the_registry_is_a_row(real_data: SiteData) -> None:
    wanted = _lifecycle_ids_in_the_mirror()
    assert {"STREAM-SUB-001", "CORE-HIST-003", "CORE-HIST-006", "CORE-MULTI-002a", "DM-TASK-002"} <= wanted
    rows = conformance.document(real_data)["requirements"]
    assert {r["requirement"] for r in rows} == wanted
    for row in rows:  # every build's cell is a verified claim, in words, with the suite's verdicts
        for build, cell in row["builds"].items():
            assert cell["verdict"] == "verified", (row["requirement"], build)
            assert cell["transports"] and cell["answer"].split()[0] in ("passes", "fails", "skipped", "not")
        for version, cell in row["spec"].items():
            assert cell["answer"].startswith(("§", "no §")), (row["requirement"], version)


def test_the_json_answers_which_requirements_a_build_fails_over_grpc(real_data: SiteData) -> None:
    rows = conformance.document(real_data)["requirements"]
    failing = {r["requirement"] for r in rows
               if r["builds"]["a2a-sdk-1.3.0"]["transports"].get("grpc") == "FAIL"}
    record = json.loads((REPO / "captures" / "tck" / "1.0-dev" / "a2a-sdk-1.3.0.json").read_text("utf-8"))
    assert failing == {rid for rid in (r["requirement"] for r in rows)
                       if record["requirements"][rid]["transports"].get("grpc") == "FAIL"}
    assert "CORE-HIST-005" in failing
    for rid in failing:  # a failing cell says why, per transport
        assert any(why.startswith("gRPC: ") for why in next(
            r for r in rows if r["requirement"] == rid)["builds"]["a2a-sdk-1.3.0"]["reasons"])


def test_the_requirement_table_is_on_the_page(real_pages: dict[str, str]) -> None:
    page = real_pages[paths.CONFORMANCE]
    assert 'id="req-stream-sub-001"' in page and "## Requirement by requirement" in page
    assert "fails over JSON-RPC, gRPC and HTTP+JSON" in page


def test_builds_that_answer_alike_stand_on_the_same_side(real_data: SiteData) -> None:
    """A conflict's side holds every build that gives its answer, not only one SDK's: an observed
    build claim with the same behaviour and the same answer as one on a side is on that side."""
    names = conformance._error_names(real_data)
    observed: dict[tuple[str, str], list[str]] = {}
    for claim in real_data.kb.claims.values():
        where = conformance.place(real_data, claim)
        if where and where[0][0].startswith("build@"):
            observed.setdefault((where[1], conformance.answer_text(claim, names)), []).append(claim.id)
    wrong = []
    for conflict in real_data.kb.conflicts.values():
        for n, side in enumerate(conflict.sides):
            for alike in observed.values():
                if set(alike) & set(side.claims):
                    wrong += [f"{conflict.id}: {cid} answers as side {n} does, and is not on it"
                              for cid in alike if cid not in side.claims]
    assert not wrong, "\n".join(wrong)
