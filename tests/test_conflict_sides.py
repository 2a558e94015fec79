"""Conflict sides from evidence: a claim whose own checked evidence takes a position on a
conflict's question stands on that position's side (issue 30, first class: D3)."""

from __future__ import annotations

import re

from a2a_kb.facts import Fact, canonical_state
from a2a_kb.knowledge import conflicts
from a2a_kb.knowledge.states import state_table
from a2a_kb.site.data import SiteData
from conftest import REPO

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


# --- D2: is the sentinel value (unknown, UNSPECIFIED, UNRECOGNIZED) terminal? ---------------

_SENTINELS = {"unknown", "unspecified", "unrecognized"}


def _value_name(raw: object) -> str:
    text = str(raw)
    if "UNRECOGNIZED" in text.upper():
        return "unrecognized"
    if text.startswith("TaskState") and text[9:10].isupper():  # Go: TaskStateUnspecified
        text = text[9:]
    return canonical_state(text) or text.lower()


def _values_of(data: SiteData, source_id: str) -> set[str]:
    """The TaskState values a source has, in canonical names (UNRECOGNIZED kept apart). An
    SDK's file is read with the other files of the same release: the enum may be elsewhere."""
    source = data.kb.sources[source_id]
    same = [source]
    if source.kind == "sdk-code":
        same = [s for s in data.kb.sources.values() if s.kind == "sdk-code"
                and s.repository == source.repository and s.ref == source.ref]
    found: set[str] = set()
    for each in same:
        facts = data.book.facts(each)
        for key in ("sdk-enum:TaskState", "enum-values:TaskState", "states:TaskState"):
            for fact in facts.get(key, []):
                raw = fact.value.get("members") if isinstance(fact.value, dict) else fact.value
                found |= {_value_name(v) for v in raw or [] if v is not None}
    return found


def _terminal_set(fact: Fact) -> set[str] | None:
    """The states a fact calls terminal, where the fact is a whole terminal set: a source's
    list of terminal states, Java's isFinal flags, a Terminal()/is_terminal/IsTerminal body,
    a TERMINAL_TASK_STATES or TERMINAL_STATE_LIST constant."""
    if fact.kind == "terminal-states":
        return {_value_name(v) for v in fact.value}
    if fact.kind == "sdk-flag" and fact.subject.endswith(".isFinal"):
        return {_value_name(v) for v in fact.value}
    if fact.kind == "sdk-scope" and fact.subject.rsplit(".", 1)[-1] in (
            "Terminal", "is_terminal", "IsTerminal", "TERMINAL_TASK_STATES", "TERMINAL_STATE_LIST"):
        return {_value_name(v) for v in fact.value["states"]}
    return None


def test_every_source_whose_terminal_set_decides_d2_stands_on_that_side(real_data: SiteData) -> None:
    """A verified claim that reads a whole terminal set of a source that has a sentinel value
    takes D2's position: yes if the set holds the sentinel, no if it leaves it out. The
    source, at the claim's versions, must stand on that side."""
    register = {c["id"]: c for c in conflicts.register(real_data.kb)["conflicts"]}
    sides = register["D2"]["sides"]
    missing, decided = [], 0
    for claim in real_data.kb.claims.values():
        result = real_data.results.get(claim.id)
        if result is None or result.verdict != "verified":
            continue
        for fact in result.evidence:
            terminal = _terminal_set(fact)
            if terminal is None or fact.source not in real_data.kb.sources:
                continue
            present = _values_of(real_data, fact.source) & _SENTINELS
            if not present:
                continue
            decided += 1
            side = 0 if present & terminal else 1
            key = conflicts.source_key(real_data.kb.sources[fact.source])
            # A claim about its own source's set needs that source on the side at its
            # versions; one that reads another file's set (a cancel guard reading the
            # enum's isFinal) needs that file on the side, through the claim about it.
            own = fact.source == claim.source
            stands = any(s["source"] == key and (not own or set(claim.versions) <= set(s["versions"]))
                         for s in sides[side]["standing"])
            if not stands:
                missing.append(f"{claim.id}: {fact.source} says {'yes' if side == 0 else 'no'} "
                               f"({sorted(present)} {'in' if side == 0 else 'not in'} its terminal set)")
    assert decided > 20
    assert not missing, "on no side of D2:\n" + "\n".join(sorted(set(missing)))


# --- conflicts over a state's class: each source that classes the state stands on a side ----

# (conflict, state, the side each class takes, the versions the conflict is about)
_CLASS_CONFLICTS = {
    "D7": ("auth-required", {"interrupted": 1, "not-interrupted-or-terminal": 0}, ("0.2.0", "0.3.0")),
    "D9": ("unknown", {"terminal": 0, "not-terminal": 1}, ("0.2.4", "0.2.5")),
}


def test_every_source_that_classes_the_state_stands_on_its_side(real_data: SiteData) -> None:
    """D7 asks whether auth-required was interrupted before v1.0, D9 whether unknown was
    terminal in v0.2.4/v0.2.5. Every source whose state table reading gives that state a
    class, at each version in question, must stand on the side its class takes."""
    order = [v.id for v in real_data.kb.ordered_versions]
    register = {c["id"]: c for c in conflicts.register(real_data.kb)["conflicts"]}
    missing, decided = [], 0
    for cid, (state, side_of, (first, last)) in _CLASS_CONFLICTS.items():
        sides = register[cid]["sides"]
        for version in order[order.index(first):order.index(last) + 1]:
            row = next(r for r in state_table(real_data.kb, version, real_data.book)["states"]
                       if r["name"] == state)
            for source_id, readings in row["readings"].items():
                for reading in readings:
                    side = side_of.get(reading["class"])
                    if side is None:
                        continue
                    decided += 1
                    key = conflicts.source_key(real_data.kb.sources[source_id])
                    if not any(s["source"] == key and version in s["versions"]
                               for s in sides[side]["standing"]):
                        missing.append(f"{cid} side {side + 1}: {source_id} ({version}) calls "
                                       f"{state} {reading['class']} at lines {reading['lines']}")
    assert decided > 10
    assert not missing, "not on the side its reading takes:\n" + "\n".join(sorted(set(missing)))


def test_the_changelog_says_where_each_moved_claim_stands(real_data: SiteData) -> None:
    """Each bullet of the changelog that says a conflict's side gained claims names claims
    that stand on that side now: the record of what moved cannot drift from the register."""
    text = (REPO / "content" / "changelog.md").read_text("utf-8")
    register = {c["id"]: c for c in conflicts.register(real_data.kb)["conflicts"]}
    moves = 0
    for bullet in re.split(r"\n- ", text):
        said = re.match(r"\{\{conflict (D\d+)\}\} side (\d+)\b", bullet)
        if not said:
            continue
        cid, side = said.group(1), int(said.group(2))
        named = re.findall(r"\{\{claim ([\w.-]+)\}\}", bullet)
        assert named, bullet
        on_side = set(register[cid]["sides"][side - 1]["claims"])
        assert set(named) <= on_side, f"{cid} side {side}: {sorted(set(named) - on_side)} are not there"
        moves += len(named)
    assert moves >= 15
