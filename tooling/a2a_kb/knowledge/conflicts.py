"""The conflict register as data: each disagreement with its sides and their claims."""

from __future__ import annotations

from typing import Any

from ..records.kb import KnowledgeBase


def register(kb: KnowledgeBase) -> dict[str, Any]:
    """The register in the JSON shape of the CLI contract (`conflicts` list)."""
    items = []
    for c in sorted(kb.conflicts.values(), key=_order):
        items.append(
            {
                "id": c.id,
                "title": c.title or None,
                "question": c.question,
                "status": c.status,
                "resolved_in": c.resolved_in or None,
                "advice": c.advice,
                "origin": c.origin or None,
                "sides": [
                    {
                        "position": s.position,
                        "claims": s.claims,
                        "sources": sorted(
                            {kb.claims[cid].source for cid in s.claims if cid in kb.claims}
                        ),
                    }
                    for s in c.sides
                ],
            }
        )
    return {"conflicts": items}


def _order(conflict: Any) -> tuple[int, str]:
    digits = "".join(ch for ch in conflict.id[1:] if ch.isdigit())
    return (int(digits or 0), conflict.id)


def format_text(data: dict[str, Any]) -> str:
    out = []
    for c in data["conflicts"]:
        status = c["status"] + (f" {c['resolved_in']}" if c.get("resolved_in") else "")
        out.append(f"{c['id']}  [{status}]  {c['question']}")
        for i, side in enumerate(data_sides(c), start=1):
            out.append(f"    side {i}: {side['position']}")
            out.append(f"            claims: {', '.join(side['claims'])}")
        out.append(f"    advice: {c['advice']}")
        out.append("")
    out.append(f"{len(data['conflicts'])} conflicts")
    return "\n".join(out)


def data_sides(conflict: dict[str, Any]) -> list[dict[str, Any]]:
    sides: list[dict[str, Any]] = conflict["sides"]
    return sides
