"""The conflict register as data: each disagreement with its sides and their claims."""

from __future__ import annotations

from typing import Any

from ..records.kb import KnowledgeBase
from ..records.model import Source


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
                        "standing": standing(kb, s.claims),
                    }
                    for s in c.sides
                ],
            }
        )
    return {"conflicts": items}


# What a source's claims speak for, where the source does not say (its `binding` does:
# json, grpc, prose).
_BY_KIND = {"json-schema": "json", "proto": "grpc", "spec": "prose", "docs": "prose",
            "changelog": "prose", "git-refs": "git history", "capture": "SDK run",
            "tck-run": "conformance run", "sdk-code": "SDK source", "sdk": "SDK documentation",
            "web": "web page", "paper": "paper", "issue": "issue", "dossier": "dossier"}


def binding(source: Source) -> str:
    """What a source speaks for: a binding of the specification (json, grpc, prose), or,
    outside the specification, the kind of evidence (SDK source, SDK run, web page …)."""
    if source.binding:
        return source.binding
    if source.kind == "proto" and source.path == "specification/a2a.proto":
        return "proto"
    return _BY_KIND.get(source.kind, source.kind)


# Sources pinned at a release of the specification are named without it (the versions say
# which); an SDK's file, a run or a page is named whole, release and all.
_SPEC_KINDS = ("json-schema", "proto", "spec", "docs", "changelog", "git-refs")


def source_key(source: Source) -> str:
    """How a side names a source: `proto` for `proto@v1.0.1` (its versions follow), the
    whole id for an SDK release's file, a run or a page (`a2a-java-taskstate@v1.2.0.Final`)."""
    return source.id.split("@", 1)[0] if source.kind in _SPEC_KINDS else source.id


def standing(kb: KnowledgeBase, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Who takes a side: each (source, binding) whose verified claims stand on it, with the
    versions those claims cover, in version order, and the claims. A claim that is not
    verified is listed on the side but speaks for no one here."""
    order = {v.id: i for i, v in enumerate(kb.ordered_versions)}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for cid in claim_ids:
        claim = kb.claims.get(cid)
        source = kb.sources.get(claim.source) if claim else None
        if claim is None or source is None or claim.verdict != "verified":
            continue
        name = source_key(source)
        entry = found.setdefault((name, binding(source)), {
            "source": name, "binding": binding(source), "authority": source.authority,
            "versions": [], "claims": []})
        entry["versions"] = sorted(set(entry["versions"]) | set(claim.versions),
                                   key=lambda v: order.get(v, len(order)))
        entry["claims"].append(cid)
    # The specification's own bindings first, then SDK releases and runs; each group by the
    # first version it speaks for.
    return sorted(found.values(), key=lambda e: (
        e["authority"] != "primary", "@" in e["source"],
        order.get(e["versions"][0], len(order)) if e["versions"] else len(order), e["source"]))


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
