"""Inventories: what a source holds, so that what it does not hold is a fact too.

"The specification gives no transition table" or "no timeout is defined for an
interrupted task" are claims about an absence. An absence across a pinned file is as
checkable as a presence once the file's contents are listed: a claim checks the list with
`not-matches` (no item matches the pattern) or `excludes`, and the verdict flips the day
the thing appears. Each extractor finds the items with its own parser (markdown-it tokens,
proto comments, JSON schema descriptions); this module names the kinds, splits prose into
sentences and turns the items into facts.

Kinds (values are lists of strings, in source order):

- `headings`     Markdown: each heading as written after its `#` marks;
- `tables`       Markdown: each table's header row, its cells joined by ` | `;
- `diagrams`     Markdown: each fenced block in a diagram language (`mermaid: graph TB`,
                   the language and the block's first line) and each image
                   (`image: <alt> <src>`);
- `code-blocks`  Markdown: every fenced or indented code block, `<language>: <first line>`
                   (`text` when the fence names none);
- `normative`    every sentence with an RFC 2119 keyword in capitals (MUST, SHOULD NOT, MAY,
                   REQUIRED …): Markdown prose and table cells, proto comments, schema
                   descriptions;
- `time-limits`  every sentence that mentions a timeout, a time limit, a deadline, an
                   expiry, idleness, a duration ("10-30 seconds", "an hour") or
                   "indefinitely".

Subjects: `document` covers the whole file and is always given, an empty list meaning
that the file has none (the extractor read it all). A part of the file gives its own
inventory only where it is not empty, so that `op: absent` on it says "none here": a
Markdown section (with its subsections, as the `section` facts) is `§<number>` or
`§<anchor>`; a proto's top-level message, enum or service, and a JSON schema's
definition, go by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .artifact import Draft

DOCUMENT = "document"
KINDS = ("headings", "tables", "diagrams", "code-blocks", "normative", "time-limits")
PROSE_KINDS = ("normative", "time-limits")

# RFC 2119 / RFC 8174: the keywords are normative only in capitals.
_NORMATIVE = re.compile(
    r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|SHOULD(?: NOT)?|(?:NOT )?RECOMMENDED|REQUIRED|MAY|OPTIONAL)\b"
)
_TIME_LIMIT = re.compile(
    r"\btime-?outs?\b|\btimed[- ]out\b|\btime[- ]limits?\b|\bdeadlines?\b"
    r"|\bexpir(?:e|es|ed|ing|y|ation|ations)\b|\bTTLs?\b|\bkeep-?alive\b"
    r"|\bindefinite(?:ly)?\b|\bhow long\b|\bidle\b|\binactiv(?:e|ity)\b|\bgrace period\b"
    r"|\b(?:\d+(?:\s*-\s*\d+)?|an?|one|several|a few)\s*"
    r"(?:ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|days?|weeks?)\b",
    re.IGNORECASE,
)
# Languages whose fenced blocks draw a picture rather than show code or data.
DIAGRAM_LANGUAGES = frozenset({"mermaid", "plantuml", "puml", "dot", "graphviz", "ditaa",
                               "svgbob", "d2", "nomnoml", "wavedrom"})

_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]*_`]*\s+(?=[\"'(\[*_`]*[A-Z0-9])")
# A full stop after these ends no sentence ("e.g. `working`", "Sec. 3").
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "sec.", "no.", "approx.")


def sentences(text: str) -> list[str]:
    """The sentences of a run of prose, each with its whitespace made single spaces.

    Examples:
        >>> sentences("Agents MAY stop.  A task (e.g. `working`) goes on.\\nIt ends.")
        ['Agents MAY stop.', 'A task (e.g. `working`) goes on.', 'It ends.']
    """
    flat = " ".join(text.split())
    found: list[str] = []
    start = 0
    for boundary in _BOUNDARY.finditer(flat):
        head = flat[start : boundary.start()].rsplit(" ", 1)[-1].lower()
        if head.endswith(_ABBREVIATIONS):
            continue
        found.append(flat[start : boundary.start() + len(boundary.group(0).rstrip())].strip())
        start = boundary.end()
    tail = flat[start:].strip()
    if tail:
        found.append(tail)
    return [s for s in found if s]


def is_normative(sentence: str) -> bool:
    """Whether a sentence carries an RFC 2119 keyword (in capitals, as the RFC asks).

    Examples:
        >>> is_normative("Agents **MUST NOT** restart it."), is_normative("you may retry")
        (True, False)
    """
    return _NORMATIVE.search(sentence) is not None


def mentions_time_limit(sentence: str) -> bool:
    """Whether a sentence speaks of a timeout or a limit in time.

    Examples:
        >>> mentions_time_limit("use a timeout (recommended: 10-30 seconds)")
        True
        >>> mentions_time_limit("The task waits for input.")
        False
    """
    return _TIME_LIMIT.search(sentence) is not None


def prose_items(text: str) -> dict[str, list[str]]:
    """The normative and time-limit sentences of a run of prose."""
    said = sentences(text)
    return {"normative": [s for s in said if is_normative(s)],
            "time-limits": [s for s in said if mentions_time_limit(s)]}


class Inventory:
    """Items found in one scope of a source (the document, a section, a declaration)."""

    def __init__(self) -> None:
        self.items: dict[str, list[str]] = {kind: [] for kind in KINDS}

    def add(self, kind: str, item: str) -> None:
        self.items[kind].append(item)

    def add_prose(self, text: str) -> None:
        for kind, found in prose_items(text).items():
            self.items[kind] += found

    def drafts(self, subject: str, first_line: int, last_line: int,
               kinds: Iterable[str], always: bool) -> list[Draft]:
        """One fact per kind; an empty kind only when `always` (the document's)."""
        return [Draft(kind, subject, list(self.items[kind]), first_line, last_line)
                for kind in kinds if always or self.items[kind]]
