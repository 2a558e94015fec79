"""Facts of the specification and the docs pages (Markdown), read with markdown-it-py.

Sections: every heading starts a section that runs to the line before the next heading of
the same or a higher level, so a section's text includes its subsections. A numbered
heading of the spec ("#### 3.1.5. Cancel Task") is addressed by its number (``3.1.5``);
any other heading, and every heading of a docs page (whose numbers, if any, are list
positions, not section numbers), by its anchor. The anchor is the one the site generator
gives the heading: Python-Markdown's toc slug of the heading's text, made unique the way
toc does it (``_1``, ``_2`` …), which is what the spec's own ``#…`` links point at.

Lifecycle passages (TaskState presentations, classifications, error tables) are read by
:mod:`.passages`, which also explains how repeated passages are named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown.extensions.toc import slugify, unique
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..facts import Fact
from .artifact import Artifact, Draft
from .passages import (
    Passage,
    Table,
    publish,
    read_error_table,
    read_state_lists,
    read_state_table,
    read_union,
)

VERSION = "1"

# CommonMark plus GitHub tables: what the spec's Markdown needs. The parser keeps no
# state between calls, so one instance serves every call.
_MARKDOWN = MarkdownIt("commonmark").enable("table")
_NUMBERED = re.compile(r"^(?P<number>\d+(?:\.\d+)*)\.?\s+(?P<title>\S.*)$")
_DEFINES_TASK_STATE = re.compile(r"\bTaskState\b")


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str  # plain text, as the reader sees it
    anchor: str
    line: int  # 1-based
    number: str = ""
    title: str = ""


def heading_text(inline: Token) -> str:
    """The heading as rendered text: code without backticks, no emphasis, no HTML."""
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts).strip()


def read_headings(tokens: list[Token], numbered: bool) -> dict[int, Heading]:
    """Each heading by the index of its ``heading_open`` token."""
    headings: dict[int, Heading] = {}
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        text = heading_text(tokens[index + 1])
        anchor = unique(slugify(text, "-"), used)
        match = _NUMBERED.match(text) if numbered else None
        headings[index] = Heading(
            level=int(token.tag[1:]), text=text, anchor=anchor, line=token.map[0] + 1,
            number=match.group("number") if match else "",
            title=match.group("title").strip() if match else text,
        )
    return headings


def section_drafts(headings: list[Heading], lines: list[str]) -> list[Draft]:
    drafts: list[Draft] = []
    numbers_seen: set[str] = set()
    titles_seen: dict[str, int] = {}
    for i, heading in enumerate(headings):
        end = len(lines)
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end = later.line - 1
                break
        while end > heading.line and not lines[end - 1].strip():
            end -= 1
        text = "\n".join(lines[heading.line - 1 : end])
        value = {"title": heading.title, "anchor": heading.anchor, "text": text}
        numbered = bool(heading.number) and heading.number not in numbers_seen
        subject = heading.number if numbered else heading.anchor
        drafts.append(Draft("section", subject, value, heading.line, end))
        if numbered:
            numbers_seen.add(heading.number)
            slug = slugify(heading.title, "-")
            titles_seen[slug] = titles_seen.get(slug, 0) + 1
            if titles_seen[slug] > 1:
                slug = f"{slug}~{titles_seen[slug]}"
            drafts.append(Draft("section-title", slug, heading.number, heading.line, heading.line))
    return drafts


def _table(tokens: list[Token], start: int) -> tuple[Table, list[Token], int]:
    """The table opening at ``start``, its cells' inline tokens, and the index after it."""
    header: list[str] = []
    rows: list[tuple[int, list[str]]] = []
    cells: list[Token] = []
    row: list[str] = []
    row_line = 0
    in_head = False
    index = start
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
            row_line = (token.map[0] + 1) if token.map else 0
        elif token.type == "inline":
            row.append(token.content)
            cells.append(token)
        elif token.type == "tr_close":
            if in_head:
                header = row
            else:
                rows.append((row_line, row))
        index += 1
    span = tokens[start].map or [0, 0]
    return Table(header, rows, span[0] + 1, span[1]), cells, index + 1


def find_passages(tokens: list[Token], headings: dict[int, Heading]) -> list[Passage]:
    passages: list[Passage] = []
    current: Heading | None = None

    def add(drafts: list[Draft]) -> None:
        if drafts:
            defining = current is not None and bool(_DEFINES_TASK_STATE.search(current.text))
            passages.append(Passage(current.anchor if current else "top", defining, drafts))

    def prose(inline: Token) -> None:
        if inline.map is not None:
            for drafts in read_state_lists(inline.content, inline.map[0] + 1):
                add(drafts)

    index = 0
    while index < len(tokens):
        token = tokens[index]
        if index in headings:
            current = headings[index]
            index += 3  # heading_open, inline, heading_close: a title classifies nothing
            continue
        if token.type == "table_open":
            table, cells, index = _table(tokens, index)
            state_table = read_state_table(table)
            add(state_table)
            add(read_error_table(table))
            if not state_table:  # the state table's own cells are read as a whole above
                for cell in cells:
                    prose(cell)
            continue
        if token.type == "fence":
            add(read_union(token))
        elif token.type == "inline":
            prose(token)
        index += 1
    return passages


def _extract(artifact: Artifact, spec: bool) -> list[Fact]:
    text = artifact.text
    tokens = _MARKDOWN.parse(text)
    headings = read_headings(tokens, numbered=spec)
    if not headings:
        raise artifact.fail("no headings: is this Markdown?")
    ordered = list(headings.values())
    if spec and not any(h.number for h in ordered):
        raise artifact.fail("no numbered sections (like `### 3.1.5. Cancel Task`)")
    passages = find_passages(tokens, headings)
    drafts = section_drafts(ordered, text.splitlines()) + publish(passages)
    if spec and not any(d.kind == "terminal-states" for d in drafts):
        raise artifact.fail("no passage that lists the terminal states of TaskState")
    return artifact.facts(drafts)


def extract_spec(artifact: Artifact) -> list[Fact]:
    """docs/specification.md: numbered sections, and every lifecycle passage."""
    return _extract(artifact, spec=True)


def extract_docs(artifact: Artifact) -> list[Fact]:
    """A docs page (life-of-a-task, key-concepts, whats-new-v1): sections by anchor, and
    every lifecycle passage it has (a page may have none)."""
    return _extract(artifact, spec=False)
