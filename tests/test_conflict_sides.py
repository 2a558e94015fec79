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
