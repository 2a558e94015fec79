"""The research dossier's structure: which blocks it has, and which items each block holds,
so that a claim's `origin` can be checked and the dossier's coverage measured.

The dossier is one long line. Each block ends in a trailer naming the report section it
came from, and a block's items are counted in one of three ways, the first that applies:

- **numbered** items (`28. …`) by their number; the `-` that opens every block is the
  block's own list marker, not an item;
- **table rows** by position among the data rows (the header and the `|---|` row are not
  items), 1 for the first row under the header;
- otherwise **bullets** by position, nested ones included, and a block that is one
  paragraph is item 1.

A section whose trailer recurs (`reports/mechanism.md#scope` closes two blocks) is one
list: the second block's bullets carry on from the first block's. A trailer without an
anchor (a report's preamble) names the report alone, and its origin is `<report>:<n>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Each block of the dossier ends with a trailer naming the report section it came from:
#   — source: `~/…/7-state-task-lifecycle/reports/history.md#origin-7-states`
_TRAILER = re.compile(r"— source: `[^`]*?7-state-task-lifecycle/([^`#]+)(?:#([^`]+))?`")
_NUMBERED = re.compile(r"(?:^|\s)(\d{1,3})\.\s+(?=\S)")
# A bullet's marker; "- - " (a block whose first entry is a bullet) is one marker, since
# the block's own "- " and the bullet's open the same entry.
_BULLET = re.compile(r"(?:^|\s)-\s+(?=\S)")
_HEADING = re.compile(r"## [^-]+? - ")
# The dossier is one line: each table row ends in "| |" where the next one begins.
_ROW_END = "| |"
_RULE_ROW = re.compile(r"^[\s|:-]+$")


@dataclass(frozen=True)
class Block:
    report: str
    anchor: str
    numbers: frozenset[int]
    bullets: int
    rows: int  # data rows of the block's table, 0 when it has none
    text: str
    first: int = 1  # the position of the first bullet, when the block's section recurs

    @property
    def key(self) -> str:
        return f"{self.report}#{self.anchor}" if self.anchor else self.report

    @property
    def items(self) -> tuple[int, ...]:
        """The item numbers an origin may name in this block (see the module docstring)."""
        if self.numbers:
            return tuple(sorted(self.numbers))
        count = self.rows or max(self.bullets, 1)
        return tuple(range(self.first, self.first + count))

    def has_item(self, n: int) -> bool:
        return n in self.items

    def item_text(self, n: int) -> str:
        """The words of item `n`, as the dossier has them (cut where the dossier cuts)."""
        if self.numbers:
            parts = _split(self.text, _NUMBERED)
            return next((t for m, t in parts if m and m.group(1) == str(n)), "")
        if self.rows:
            return _data_rows(self.text)[n - self.first] if self.has_item(n) else ""
        # "- - First" is cut once, after its first "- ": the second is the bullet's own.
        entries = [t.removeprefix("- ") for _, t in _split(" " + self.text, _BULLET) if t]
        entries = entries or [self.text.strip()]
        return entries[n - self.first] if self.has_item(n) else ""


def _split(text: str, marker: re.Pattern[str]) -> list[tuple[re.Match[str] | None, str]]:
    """`text` cut at each `marker`: (the marker, the words up to the next one)."""
    cuts = list(marker.finditer(text))
    ends = [m.start() for m in cuts[1:]] + [len(text)] * bool(cuts)
    head = text[: cuts[0].start()] if cuts else text
    return [(None, head.strip())] + [(m, text[m.end() : end].strip())
                                     for m, end in zip(cuts, ends, strict=True)]


def _data_rows(body: str) -> list[str]:
    """The rows under a table's header rule, the last one as far as the dossier goes."""
    cells = body.split(_ROW_END)
    rule = next((i for i, c in enumerate(cells) if _RULE_ROW.match(c) and "---" in c), None)
    return [] if rule is None else [c.strip(" |") for c in cells[rule + 1 :]]


def _is_table(body: str) -> bool:
    return body.lstrip(" -").startswith("|")


def blocks(text: str) -> dict[str, list[Block]]:
    """The dossier's blocks keyed by `report#anchor` (`report` for a preamble), in the
    order they appear; a key may recur."""
    found: dict[str, list[Block]] = {}
    start = 0
    for m in _TRAILER.finditer(text):
        body = text[start : m.start()]
        start = m.end()
        report, anchor = m.group(1), m.group(2) or ""
        # A block begins after the previous trailer, or after a "## Heading" that follows it.
        body = _HEADING.split(body)[-1]
        key = f"{report}#{anchor}" if anchor else report
        earlier = found.get(key, [])
        first = max((b.items[-1] for b in earlier), default=0) + 1
        if _is_table(body):
            # Numbers in a table's cells ("DEV says 6.") are not items.
            block = Block(report, anchor, frozenset(), 0, len(_data_rows(body)), body, first)
        else:
            numbers = frozenset(int(n) for n in _NUMBERED.findall(body))
            bullets = len(_BULLET.findall(" " + body))
            block = Block(report, anchor, numbers, bullets, 0, body, first)
        found.setdefault(key, []).append(block)
    return found


def items(index: dict[str, list[Block]]) -> dict[str, dict[int, str]]:
    """Every item of the dossier: section key → item number → its words. This is what
    coverage counts: an origin `<key>:<n>` covers exactly one of these."""
    return {key: {n: b.item_text(n) for b in found for n in b.items}
            for key, found in index.items()}


@dataclass(frozen=True)
class Coverage:
    """How many of the dossier's items some origin names, and the ones none does."""

    items: int
    covered: int
    missing: list[tuple[str, int, str]]  # (section key, item number, its words)

    @property
    def percent(self) -> float:
        return 100.0 * self.covered / self.items if self.items else 100.0


def coverage(index: dict[str, list[Block]], origins: list[str]) -> Coverage:
    """The dossier's items, against the origins of the records that cite them."""
    named = {k for k in map(origin_key, origins) if k is not None}
    every = [(key, n, text) for key, found in items(index).items() for n, text in found.items()]
    missing = [(key, n, text) for key, n, text in every if (key, n) not in named]
    return Coverage(len(every), len(every) - len(missing), missing)


ORIGIN = re.compile(
    r"^(?P<report>[A-Za-z0-9._/-]+\.md)(?:#(?P<anchor>[a-z0-9-]+))?:(?P<n>\d+)$")


def origin_key(origin: str) -> tuple[str, int] | None:
    """`(section key, item number)` of an origin, or None when it is malformed."""
    m = ORIGIN.match(origin)
    if m is None:
        return None
    key = f"{m['report']}#{m['anchor']}" if m["anchor"] else m["report"]
    return key, int(m["n"])


def check_origin(origin: str, index: dict[str, list[Block]]) -> str | None:
    """None when `origin` names a block and an item that exist; else what is wrong."""
    named = origin_key(origin)
    if named is None:
        return "is not of the form '<report file>#<anchor>:<n>'"
    key, n = named
    found = index.get(key)
    if not found:
        return f"names '{key}', which is not a section of the fetched dossier"
    if not any(b.has_item(n) for b in found):
        numbers = sorted({i for b in found for i in b.items})
        return f"names item {n} of '{key}', which has items {_ranges(numbers)}"
    return None


def _ranges(numbers: list[int]) -> str:
    """`[1, 2, 3, 7]` → `1–3, 7`."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def closest(key: str, index: dict[str, list[Block]]) -> str:
    """The dossier section whose name is closest to `key`, for a tip."""
    import difflib

    match = difflib.get_close_matches(key, list(index), n=1, cutoff=0.5)
    return match[0] if match else ""
