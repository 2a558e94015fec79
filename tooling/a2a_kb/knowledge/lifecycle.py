"""lifecycle: the state machine the sources imply, as data for the simulator and the site.

No version of the specification gives a transition table. What the sources do give is a
class for each state (active, interrupted, terminal) and two invariants: a task in a
terminal state never changes, and `submitted` is only ever the first state. The allowed
transitions below follow from those and nothing else, so that the simulator and the state
table read the same classes from the same facts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..cache import Cache
from ..extract.lifecycle import POSITIVE_CLASSES, ruled_out
from ..output import envelope
from ..records.kb import KnowledgeBase
from .check import FactBook
from .states import state_table

# Whichever way the sources of one version disagree, the simulator needs one class per
# state: the class most sources of that version give, ties going to the stricter class.
# A negative class ("not an interrupted or terminal state") names no group; it settles the
# class only when no source names one and it leaves one group open.
_STRICTNESS = {"terminal": 3, "interrupted": 2, "active": 1, "unclassified": 0}


def settled_class(classes: dict[str, str], name: str) -> str:
    stated = [c for c in classes.values() if c in POSITIVE_CLASSES]
    if not stated:
        open_groups = set(POSITIVE_CLASSES)
        for c in classes.values():
            open_groups -= ruled_out(c)
        if len(open_groups) == 1:
            return open_groups.pop()
        return "active" if name in ("submitted", "working") else "unclassified"
    counts = Counter(stated)
    return max(counts, key=lambda c: (counts[c], _STRICTNESS.get(c, 0)))


def transitions(states: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Every move the invariants allow: out of any non-terminal state into any other state
    but `submitted`; none out of a terminal state; none into or out of a value that names
    no state (unspecified, unknown)."""
    names = [s["name"] for s in states if s["class"] != "unclassified"]
    moves = []
    for s in states:
        if s["class"] in ("terminal", "unclassified"):
            continue
        for target in names:
            if target not in (s["name"], "submitted"):
                moves.append({"from": s["name"], "to": target})
    return moves


def version_model(kb: KnowledgeBase, version: str, book: FactBook) -> dict[str, Any]:
    table = state_table(kb, version, book)
    states = []
    for row in table["states"]:
        cls = settled_class(row["stated"], row["name"])
        spelling = next(iter(row["spellings"].values()), row["name"])
        states.append(
            {
                "name": row["name"],
                "spelling": spelling,
                "class": cls,
                "description": row["description"],
                "disagreement": row["disagreement"],
            }
        )
    names = {s["name"] for s in states}
    return {
        "title": table["title"],
        "states": states,
        "transitions": transitions(states),
        "terminal": [s["name"] for s in states if s["class"] == "terminal"],
        "interrupted": [s["name"] for s in states if s["class"] == "interrupted"],
        "has": {
            name: name in names
            for name in ("auth-required", "rejected", "input-required", "unknown")
        },
    }


def model(kb: KnowledgeBase) -> dict[str, Any]:
    """The simulator's data: one state machine per version, and which is the latest."""
    book = FactBook(kb, Cache(kb.project.cache_dir))
    versions = {v.id: version_model(kb, v.id, book) for v in kb.ordered_versions}
    return envelope({"latest": kb.latest.id, "versions": versions})
