"""The diff held to `buf breaking` on every ordered pair of versions with a gRPC binding
(old < new): its binary-protobuf grades to buf's WIRE category, its ProtoJSON grades to
WIRE_JSON, recall and precision 100 % each, with the disagreements kept on purpose listed
in diff/disagreements.yaml with their reasons. buf is the npm package @bufbuild/buf, pinned
in tooling/npm/buf and installed by `make buf`; it runs offline on temporary modules (see
diff.oracle)."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from a2a_kb.cache import Cache
from a2a_kb.knowledge.check import FactBook
from a2a_kb.knowledge.diff import oracle, proto, sides

ROOT = Path(__file__).resolve().parents[1]
KEPT = oracle.KEPT


@pytest.fixture(scope="module")
def measured(real_cache: Path) -> list[oracle.PairFigures]:
    from a2a_kb import load

    buf = oracle.buf_path(ROOT)
    if not buf.exists():
        pytest.fail(f"buf is not installed at {buf} (tip: run `make buf`)")
    categories = oracle.rule_categories(buf)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        kb = load(ROOT)
        reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
        versions = [v.id for v in kb.ordered_versions if "grpc" in sides.bindings(kb, v.id)]
        results = []
        for old, new in itertools.combinations(versions, 2):
            a, b = sides.bindings(kb, old)["grpc"], sides.bindings(kb, new)["grpc"]
            pa, pb = reader.proto(a), reader.proto(b)
            results.append(oracle.figures(old, new, pa, pb, reader.book.text(a), reader.book.text(b),
                                          proto.compare(pa, pb), buf, categories))
    return results


def test_buf_differential(measured: list[oracle.PairFigures]) -> None:
    kept = oracle.load_disagreements(KEPT)
    found = {e: oracle.agreement(measured, e, kept) for e in oracle.CATEGORY}
    rows = ["encoding   buf category  pairs  buf-findings  matched  kept  recall (raw)  diff-calls  confirmed"
            "  kept  precision (raw)"]
    for e, a in found.items():
        buf_kept = sum(n for i, n in a.kept.items() if kept[i].side == "buf-only")
        diff_kept = sum(n for i, n in a.kept.items() if kept[i].side == "diff-only")
        recall = (a.matched + buf_kept) / max(a.findings, 1)
        precision = (a.confirmed + diff_kept) / max(a.calls, 1)
        rows.append(f"{e:<10} {oracle.CATEGORY[e]:<13} {len(measured):>5} {a.findings:>13} {a.matched:>8} "
                    f"{buf_kept:>5} {recall:>6.0%} ({a.recall:.0%}) {a.calls:>11} {a.confirmed:>10} "
                    f"{diff_kept:>5} {precision:>9.0%} ({a.precision:.0%})")
    rows.append("recall and precision count the kept disagreements as explained; (raw) does not")
    print("\n" + "\n".join(rows))
    assert len(measured) == 45, "every ordered pair of the ten versions with a .proto"
    assert sum(len(f.findings) for f in measured) > 500, "buf found next to nothing: is it comparing?"
    unparsed = [u for f in measured for u in f.unparsed]
    assert not unparsed, "buf findings no pattern in diff.oracle understands:\n" + "\n".join(unparsed)
    for e, a in found.items():
        assert not a.missed, (f"{e}: buf findings the diff does not grade breaking (fix the diff, or keep "
                              f"the disagreement in {KEPT.name} with its reason):\n" + "\n".join(a.missed))
        assert not a.extra, (f"{e}: breaking grades buf does not confirm (fix the diff, or keep the "
                             f"disagreement in {KEPT.name} with its reason):\n" + "\n".join(a.extra))
    stale = oracle.unused(kept, found.values())
    assert not stale, f"kept disagreements nothing needs any more: {stale}"


def test_the_package_rename_pair_is_held_to_an_aligned_run(measured: list[oracle.PairFigures]) -> None:
    """buf matches by fully-qualified name: without the aligned run it would see no field
    across the rename (v1.0.0-rc → v1.0.0, where field 4 of TaskStatusUpdateEvent, reserved
    in the release candidate, is given to metadata), and that field would go unchecked."""
    renamed = [f for f in measured
               if any(x.element == "package" and x.encoding == "binary" and not x.aligned
                      for x in f.findings)]
    # every pair from a version with package a2a.v1 (v0.2.2 … v1.0.0-rc) to one with lf.a2a.v1
    assert len(renamed) == 7 * 3 and ("1.0.0-rc", "1.0.0") in [(f.old, f.new) for f in renamed]
    pair = next(f for f in renamed if (f.old, f.new) == ("1.0.0-rc", "1.0.0"))
    moved = next(c for c in pair.changes if "field:TaskStatusUpdateEvent#4" in c.elements)
    assert moved.kind == "field-renumbered" and moved.breaks == ("binary",)
    assert any(f.element in moved.elements and "WIRE" in f.categories for f in pair.findings)
    # buf sees metadata leave number 5 only in the aligned run: across the rename it would
    # compare no field at all.
    assert any(f.aligned and f.element == "field:TaskStatusUpdateEvent#5" and f.encoding == "binary"
               for f in pair.findings)
    assert not any(not f.aligned and f.element.startswith("field:") for f in pair.findings)


def test_the_oracle_can_fail(measured: list[oracle.PairFigures], real_cache: Path) -> None:
    """A diff that misses a change, or calls an annotation binary-breaking, is caught."""
    from a2a_kb import load

    buf = oracle.buf_path(ROOT)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        kb = load(ROOT)
        reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
        a, b = kb.sources["grpc-proto@v0.3.0"], kb.sources["proto@v1.0.0"]
        pa, pb = reader.proto(a), reader.proto(b)
        changes = proto.compare(pa, pb)
        missing = [c for c in changes if c.kind != "package-renamed"]
        wrong = [dataclasses.replace(c, breaks=("binary",), severity="", grades=None)
                 if c.kind == "field-required-changed" else c for c in changes]
        categories = oracle.rule_categories(buf)
        kept = oracle.load_disagreements(KEPT)
        args = ("0.3.0", "1.0.0", pa, pb, reader.book.text(a), reader.book.text(b))
        assert oracle.agreement([oracle.figures(*args, missing, buf, categories)], "binary", kept).missed
        assert oracle.agreement([oracle.figures(*args, wrong, buf, categories)], "binary", kept).extra


@pytest.mark.parametrize(("message", "element"), [
    ('Field "4" with name "metadata" on message "TaskStatusUpdateEvent" changed type from "bool" to "x".',
     "field:TaskStatusUpdateEvent#4"),
    ('Previously present field "5" with name "metadata" on message "TaskStatusUpdateEvent" was deleted.',
     "field:TaskStatusUpdateEvent#5"),
    ('Enum value "5" on enum "TaskState" changed name from "TASK_STATE_CANCELLED" to "TASK_STATE_CANCELED".',
     "value:TaskState#5"),
    ('RPC "CreateTaskPushNotificationConfig" on service "A2AService" changed request type from "a" to "b".',
     "rpc:A2AService.CreateTaskPushNotificationConfig"),
    ('File package changed from "a2a.v1" to "lf.a2a.v1".', "package"),
    ('Previously present message "Security.SchemesEntry" was deleted from file.',
     "message:Security.SchemesEntry"),
    ('Previously present oneof "part" on message "Part" was deleted.', "oneof:Part.part"),
    ('an unheard-of finding', ""),
])
def test_finding_elements(message: str, element: str) -> None:
    assert oracle.element_of(message) == element
