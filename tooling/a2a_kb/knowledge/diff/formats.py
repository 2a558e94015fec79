"""The diff as text (a terminal) and Markdown (a pull request), grouped by binding.
JSON is `DiffResult.as_json` in the CLI's envelope."""

from __future__ import annotations

from typing import Any

from .encodings import BINDINGS
from .model import Change, DiffResult


def _groups(result: DiffResult) -> list[tuple[str, list[Change]]]:
    """(heading, changes) per comparison, then the prose."""
    groups = []
    taken: set[str] = set()
    for comparison in result.comparisons:
        for binding in comparison.owns:
            if binding in taken:
                continue
            taken.add(binding)
            heading = (comparison.title if binding == comparison.owns[0]
                       else BINDINGS.get(binding, binding))
            heading += f" ({comparison.old} → {comparison.new})"
            groups.append((heading, result.of(binding)))
    rest = [c for c in result.changes if c.binding not in taken]
    if rest:
        groups.append(("Prose: state classes and error mappings", rest))
    return groups


def _breaks(change: Change) -> str:
    return ", ".join(change.breaks) if change.breaks else "nothing"


def format_text(result: DiffResult) -> str:
    lines = [f"{result.old} → {result.new}: {len(result.changes)} change(s)"]
    for heading, changes in _groups(result):
        lines.append("")
        lines.append(f"{heading}: {len(changes)}")
        for c in changes:
            where = "; ".join(f"{loc.source.id}:{loc.lines[0]}" for loc in c.locations if loc.lines[0])
            lines.append(f"  [{c.severity}] {c.kind} {c.subject}: {c.old!r} → {c.new!r}"
                         f"  breaks {_breaks(c)}  ({where})")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    text = "—" if value is None else str(value)
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def format_markdown(result: DiffResult) -> str:
    out = [f"**{_cell(result.old)} → {_cell(result.new)}**: {len(result.changes)} change(s)"]
    for heading, changes in _groups(result):
        out += ["", f"### {_cell(heading)}", "",
                "| Change | Subject | Old | New | Severity | Breaks | Where |",
                "|---|---|---|---|---|---|---|"]
        for c in changes:
            links = " ".join(f"[{loc.side} L{loc.lines[0]}]({loc.as_json()['permalink']})"
                             for loc in c.locations if loc.lines[0])
            out.append(f"| {c.kind} | `{_cell(c.subject)}` | {_cell(c.old)} | {_cell(c.new)} | "
                       f"{c.severity} | {_cell(_breaks(c))} | {links} |")
        if not changes:
            out.append("| — | no change | | | | | |")
    return "\n".join(out)
