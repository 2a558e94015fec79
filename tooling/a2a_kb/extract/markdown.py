"""Facts of the specification and the docs pages (Markdown), read with markdown-it-py.

Sections: every heading starts a section that runs to the line before the next heading of
the same or a higher level, so a section's text includes its subsections. A numbered
heading of the spec ("#### 3.1.5. Cancel Task") is addressed by its number (`3.1.5`);
any other heading, and every heading of a docs page (whose numbers, if any, are list
positions, not section numbers), by its anchor. The anchor is the one the site generator
gives the heading: Python-Markdown's toc slug of the heading's text, made unique the way
toc does it (`_1`, `_2` …), which is what the spec's own `#…` links point at.

Lifecycle passages (TaskState presentations, classifications, error tables) are read by
`passages`, which also explains how repeated passages are named. The inventories of
the document and of each section (headings, tables, diagrams, code blocks, normative and
time-limit sentences; see `inventory`) are read from the same tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from markdown.extensions.toc import slugify, unique
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..facts import Fact
from .artifact import Artifact, Draft
from .inventory import DIAGRAM_LANGUAGES, DOCUMENT, KINDS, Inventory
from .passages import (
    Passage,
    Table,
    publish,
    read_error_table,
    read_state_lists,
    read_state_table,
    read_union,
)

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.

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
    """Each heading by the index of its `heading_open` token."""
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


@dataclass(frozen=True, slots=True)
class Section:
    heading: Heading
    subject: str  # the number of a numbered spec heading, else the anchor
    numbered: bool
    first_line: int
    last_line: int


def sections_of(headings: list[Heading], lines: list[str]) -> list[Section]:
    """Each heading's section: from the heading to the line before the next heading of the
    same or a higher level (trailing blank lines left out)."""
    found: list[Section] = []
    numbers_seen: set[str] = set()
    for i, heading in enumerate(headings):
        end = len(lines)
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end = later.line - 1
                break
        while end > heading.line and not lines[end - 1].strip():
            end -= 1
        numbered = bool(heading.number) and heading.number not in numbers_seen
        if numbered:
            numbers_seen.add(heading.number)
        found.append(Section(heading, heading.number if numbered else heading.anchor, numbered,
                             heading.line, end))
    return found


def section_drafts(sections: list[Section], lines: list[str]) -> list[Draft]:
    drafts: list[Draft] = []
    titles_seen: dict[str, int] = {}
    for section in sections:
        heading = section.heading
        text = "\n".join(lines[section.first_line - 1 : section.last_line])
        value = {"title": heading.title, "anchor": heading.anchor, "text": text}
        drafts.append(Draft("section", section.subject, value, section.first_line, section.last_line))
        if section.numbered:
            slug = slugify(heading.title, "-")
            titles_seen[slug] = titles_seen.get(slug, 0) + 1
            if titles_seen[slug] > 1:
                slug = f"{slug}~{titles_seen[slug]}"
            drafts.append(Draft("section-title", slug, heading.number, heading.line, heading.line))
    return drafts


def read_table(tokens: list[Token], start: int) -> tuple[Table, list[Token], int]:
    """The table opening at `start`, its cells' inline tokens, and the index after it."""
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
            table, cells, index = read_table(tokens, index)
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


class _Images(HTMLParser):
    """The `<img>` tags of a piece of raw HTML in the Markdown, as (alt, src)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            named = dict(attrs)
            self.found.append((named.get("alt") or "", named.get("src") or ""))


def _html_images(html: str) -> list[tuple[str, str]]:
    parser = _Images()
    parser.feed(html)
    parser.close()
    return parser.found


def _first_line(code: str) -> str:
    return next((line.strip() for line in code.splitlines() if line.strip()), "")


def _token_items(tokens: list[Token], index: int) -> tuple[list[tuple[str, str]], list[str]]:
    """What the token at `index` adds to an inventory: (kind, item) pairs, and prose."""
    token = tokens[index]
    items: list[tuple[str, str]] = []
    prose: list[str] = []
    if token.type == "heading_open":
        items.append(("headings", tokens[index + 1].content))
    elif token.type in ("fence", "code_block"):
        language = (token.info.split() or ["text"])[0].lower() if token.type == "fence" else "text"
        entry = f"{language}: {_first_line(token.content)}"
        items.append(("code-blocks", entry))
        if language in DIAGRAM_LANGUAGES:
            items.append(("diagrams", entry))
    elif token.type == "thead_open":
        cells = []
        for cell in tokens[index + 1 :]:
            if cell.type == "thead_close":
                break
            if cell.type == "inline":
                cells.append(cell.content)
        items.append(("tables", " | ".join(cells)))
    elif token.type == "inline" and not (index and tokens[index - 1].type == "heading_open"):
        prose.append(token.content)
        for child in token.children or []:
            if child.type == "image":
                items.append(("diagrams", f"image: {child.content} {child.attrs.get('src', '')}"))
            elif child.type == "html_inline":
                items += [("diagrams", f"image: {alt} {src}") for alt, src in _html_images(child.content)]
    elif token.type == "html_block":
        items += [("diagrams", f"image: {alt} {src}") for alt, src in _html_images(token.content)]
    return items, prose


def inventory_drafts(tokens: list[Token], headings: dict[int, Heading], sections: list[Section],
                     line_count: int) -> list[Draft]:
    """The inventories of the document and of every section that holds something.

    Every token adds to the document's inventory and to those of the sections it lies in:
    the section of the heading last seen and the sections enclosing that one.
    """
    section_at = {s.heading.line: s for s in sections}
    document = Inventory()
    by_section = {s.subject: Inventory() for s in sections}
    chain: list[Section] = []  # the sections open at the current token, outermost first
    for index in range(len(tokens)):
        if index in headings:
            heading = headings[index]
            chain = [s for s in chain if s.heading.level < heading.level]
            chain.append(section_at[heading.line])
        items, prose = _token_items(tokens, index)
        for scope in (document, *(by_section[s.subject] for s in chain)):
            for kind, item in items:
                scope.add(kind, item)
            for text in prose:
                scope.add_prose(text)
    drafts = document.drafts(DOCUMENT, 1, max(line_count, 1), KINDS, always=True)
    for section in sections:
        drafts += by_section[section.subject].drafts(
            f"§{section.subject}", section.first_line, section.last_line, KINDS, always=False)
    return drafts


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
    lines = text.splitlines()
    sections = sections_of(ordered, lines)
    drafts = (section_drafts(sections, lines) + publish(passages)
              + inventory_drafts(tokens, headings, sections, len(lines)))
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
