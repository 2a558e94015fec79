"""The research dossier's structure: which `<report file>#<anchor>` blocks it has, and
which item numbers each block holds, so that a claim's `origin` can be checked."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Each block of the dossier ends with a trailer naming the report section it came from:
#   — source: `~/…/7-state-task-lifecycle/reports/history.md#origin-7-states`
_TRAILER = re.compile(r"— source: `[^`]*?7-state-task-lifecycle/([^`#]+)(?:#([^`]+))?`")
_NUMBERED = re.compile(r"(?:^|\s)(\d{1,3})\.\s+(?=\S)")
_BULLET = re.compile(r"(?:^|\s)-\s+(?=\S)")


@dataclass(frozen=True)
class Block:
    report: str
    anchor: str
    numbers: frozenset[int]
    bullets: int
    rows: int
    text: str

    def has_item(self, n: int) -> bool:
        """Numbered items count by their number; bullets and table rows by position."""
        return n in self.numbers or 1 <= n <= max(self.bullets, self.rows, 1)


def blocks(text: str) -> dict[str, list[Block]]:
    """The dossier's blocks keyed by ``report#anchor`` (a key may recur)."""
    found: dict[str, list[Block]] = {}
    start = 0
    for m in _TRAILER.finditer(text):
        body = text[start : m.start()]
        start = m.end()
        report, anchor = m.group(1), m.group(2) or ""
        if not anchor:
            continue
        # A block begins after the previous trailer, or after a "## Heading" that follows it.
        body = re.split(r"## [^-]+? - ", body)[-1]
        numbers = frozenset(int(n) for n in _NUMBERED.findall(body))
        rows = body.count("| |")  # the dossier is one line: each table row ends in "| |"
        block = Block(report, anchor, numbers, len(_BULLET.findall(" " + body)), rows, body)
        found.setdefault(f"{report}#{anchor}", []).append(block)
    return found


ORIGIN = re.compile(r"^(?P<report>[A-Za-z0-9._/-]+\.md)#(?P<anchor>[a-z0-9-]+):(?P<n>\d+)$")


def check_origin(origin: str, index: dict[str, list[Block]]) -> str | None:
    """None when ``origin`` names a block and an item that exist; else what is wrong."""
    m = ORIGIN.match(origin)
    if m is None:
        return "is not of the form '<report file>#<anchor>:<n>'"
    key = f"{m['report']}#{m['anchor']}"
    found = index.get(key)
    if not found:
        return f"names '{key}', which is not a section of the fetched dossier"
    n = int(m["n"])
    if not any(b.has_item(n) for b in found):
        numbers = sorted(set().union(*(b.numbers for b in found)))
        have = f"items {numbers[0]}–{numbers[-1]}" if numbers else "no numbered items"
        return f"names item {n} of '{key}', which has {have}"
    return None


def closest(key: str, index: dict[str, list[Block]]) -> str:
    """The dossier section whose name is closest to ``key``, for a tip."""
    import difflib

    match = difflib.get_close_matches(key, list(index), n=1, cutoff=0.5)
    return match[0] if match else ""
