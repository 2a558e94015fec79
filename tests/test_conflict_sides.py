"""Conflict sides from evidence: a claim whose own checked evidence takes a position on a
conflict's question stands on that position's side (issue 30, first class: D3)."""

from __future__ import annotations

import re

from a2a_kb.site.data import SiteData

# What a source says when it lets a stream end at an interrupted state: "… until the Task is
# in an interrupted or terminal state", "The stream should complete when the Task if in an
# interrupted or terminal state" (the v0.2.2–v0.3.0 gRPC proto's words).
ENDS_AT_INTERRUPTED = re.compile(r"(?is)\b(?:until|complete)\b[^.]{0,80}\binterrupted or terminal\b")


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def test_a_claim_whose_evidence_ends_streams_at_interrupted_states_is_on_that_side_of_d3(
        real_data: SiteData) -> None:
    sides = [set(side.claims) for side in real_data.kb.conflicts["D3"].sides]
    ends_at_interrupted = sides[0]
    found = set()
    for claim in real_data.kb.claims.values():
        result = real_data.results.get(claim.id)
        if result is None or result.verdict != "verified":
            continue
        if any(ENDS_AT_INTERRUPTED.search(t) for f in result.evidence for t in _texts(f.value)):
            found.add(claim.id)
    assert "grpc-v02x-stream-until-interrupted-or-terminal" in found  # the rule reads evidence
    misplaced = sorted(found - ends_at_interrupted)
    assert not misplaced, f"these claims' evidence ends a stream at an interrupted state: {misplaced}"
    # and none of them stands on the side that says streams end only at a terminal state
    assert not found & sides[1]


def test_each_side_shows_who_stands_on_it_by_source_version_and_binding(
        real_data: SiteData, real_pages: dict[str, str]) -> None:
    from a2a_kb.knowledge.conflicts import register

    sides = {c["id"]: c["sides"] for c in register(real_data.kb)["conflicts"]}
    d3 = sides["D3"]
    grpc = [s for s in d3[0]["standing"] if s["source"] == "grpc-proto"]
    assert grpc and grpc[0]["binding"] == "grpc"
    assert grpc[0]["versions"] == ["0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.3.0"]
    assert "grpc-v02x-stream-until-interrupted-or-terminal" in grpc[0]["claims"]
    assert not [s for s in d3[1]["standing"] if s["source"] == "grpc-proto"]
    # standing is derived: every verified claim of a side is in exactly one entry of it
    for cid, found in sides.items():
        for side in found:
            listed = [c for s in side["standing"] for c in s["claims"]]
            verified = [c for c in side["claims"] if real_data.kb.claims[c].verdict == "verified"]
            assert sorted(listed) == sorted(verified), cid
    page = real_pages["conflicts.md"]
    d3_html = page.split('data-conflict="D3"', 1)[1].split('data-conflict="D4"', 1)[0]
    assert "<code>grpc-proto</code> <span class=\"kb-muted\">(grpc, v0.2.2 to v0.3.0)</span>" in d3_html
