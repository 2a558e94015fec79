"""The diff held to `buf breaking` (rules WIRE, WIRE_JSON and FILE) over every consecutive
pair of versions with a gRPC binding: recall 100% of buf's findings in scope, and every
change the diff calls binary-breaking confirmed by buf or allow-listed with its reason
(precision at least 95%). buf is the npm package @bufbuild/buf, pinned in tooling/npm/buf
and installed by `make buf`; it runs offline on temporary modules (see diff.oracle)."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from a2a_kb.knowledge.check import FactBook
from a2a_kb.knowledge.diff import oracle, proto, sides
from a2a_kb.sources.cache import Cache

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def measured(real_cache: Path) -> list[oracle.PairFigures]:
    from a2a_kb import load

    buf = oracle.buf_path(ROOT)
    if not buf.exists():
        pytest.fail(f"buf is not installed at {buf} (tip: run `make buf`)")
    encodings = oracle.rule_encodings(buf)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        kb = load(ROOT)
        reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
        versions = [v.id for v in kb.ordered_versions if "grpc" in sides.bindings(kb, v.id)]
        results = []
        for old, new in itertools.pairwise(versions):
            a, b = sides.bindings(kb, old)["grpc"], sides.bindings(kb, new)["grpc"]
            pa, pb = reader.proto(a), reader.proto(b)
            results.append(oracle.figures(old, new, pa, pb, reader.book.text(a), reader.book.text(b),
                                          proto.compare(pa, pb), buf, encodings))
    return results


def test_buf_differential(measured: list[oracle.PairFigures]) -> None:
    rows = ["pair                 buf-in-scope  matched  recall  kb-binary-calls  confirmed  allowed"
            "  precision"]
    for f in measured:
        pair = f"{f.old} → {f.new}"
        rows.append(f"{pair:<20} {len(f.findings):>12} {len(f.findings) - len(f.unmatched):>8} "
                    f"{f.recall:>7.0%} {len(f.calls):>16} {len(f.confirmed):>10} {len(f.allowed):>8} "
                    f"{f.precision:>10.0%}")
    findings = sum(len(f.findings) for f in measured)
    matched = findings - sum(len(f.unmatched) for f in measured)
    calls = sum(len(f.calls) for f in measured)
    confirmed = sum(len(f.confirmed) for f in measured)
    rows.append(f"{'all pairs':<20} {findings:>12} {matched:>8} {matched / max(findings, 1):>7.0%} "
                f"{calls:>16} {confirmed:>10} {sum(len(f.allowed) for f in measured):>8} "
                f"{confirmed / max(calls, 1):>10.0%}")
    print("\n" + "\n".join(rows))
    assert len(measured) >= 7, "every consecutive gRPC pair from v0.2.2 on"
    assert findings > 100, "buf found next to nothing: is it comparing the files?"
    unparsed = [u for f in measured for u in f.unparsed]
    assert not unparsed, "buf findings no pattern in diff.oracle understands:\n" + "\n".join(unparsed)
    unmatched = [f"{f.old}→{f.new} {u.rule} {u.element}: {u.message}" for f in measured for u in f.unmatched]
    assert not unmatched, "buf findings in scope that the diff does not report:\n" + "\n".join(unmatched)
    unconfirmed = [f"{f.old}→{f.new} {c.kind} {c.subject} {c.elements}"
                   for f in measured for c in f.unconfirmed]
    assert not unconfirmed, ("binary-breaking calls buf does not confirm (fix the diff, or allow-list "
                             "them in diff.oracle.ALLOWED with a reason):\n" + "\n".join(unconfirmed))
    assert confirmed / max(calls, 1) >= 0.95
    stale = oracle.stale_allowances(measured)
    assert not stale, f"allow-list entries no change needs any more: {stale}"


def test_the_package_rename_pair_is_held_to_an_aligned_run(measured: list[oracle.PairFigures]) -> None:
    """buf matches by fully-qualified name: without the aligned run it would see no field
    across the rename (v1.0.0-rc → v1.0.0, where field 4 of TaskStatusUpdateEvent, reserved
    in the release candidate, is given to metadata), and that field would go unchecked."""
    renamed = [f for f in measured
               if any(x.element == "package" and x.encoding == "binary" and not x.aligned
                      for x in f.findings)]
    assert [(f.old, f.new) for f in renamed] == [("1.0.0-rc", "1.0.0")]
    pair = renamed[0]
    moved = next(c for c in pair.confirmed if "field:TaskStatusUpdateEvent#4" in c.elements)
    assert moved.kind == "field-renumbered" and moved.breaks == ("binary",)
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
        wrong = [dataclasses.replace(c, breaks=("binary",), severity="")
                 if c.kind == "field-required-changed" else c for c in changes]
        encodings = oracle.rule_encodings(buf)
        args = ("0.3.0", "1.0.0", pa, pb, reader.book.text(a), reader.book.text(b))
        assert oracle.figures(*args, missing, buf, encodings).unmatched
        assert oracle.figures(*args, wrong, buf, encodings).unconfirmed


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
