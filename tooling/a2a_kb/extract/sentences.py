"""The sweep's candidates: the sentences of a pinned source that may say how a task moves,
stops, resumes, streams or fails, each with a stable key and its exact lines.

The sweep (`a2a_kb.knowledge.sweep`) reads the primary sources themselves, not what
the research dossier made of them. This module is its extractor, a pure function per
source kind like the fact extractors (`READERS`), with the same real parsers:
markdown-it-py for the specification and the docs pages, proto-schema-parser (through
`a2a_kb.extract.proto.parse`, whose listener keeps every comment's line) for the
.proto, and `a2a_kb.extract.json_positions.locate` for the JSON schema's
`description` members.

What counts as a unit:

- Markdown: every sentence of a paragraph, list item or table cell, split on sentence
  ends (not on `e.g.`, `i.e.`, section numbers or inside brackets); a table row is one
  unit (its cells joined with ` | `); the comments of a TypeScript block, each about the
  declaration it belongs to. Other code blocks, HTML and headings are not prose.
- .proto: every sentence of the comment block above (or after) a declaration, under its
  top-level declaration (`TaskState`, `Task`, `A2AService`).
- JSON schema: every sentence of a `description` (or `title`) inside a definition,
  under the definition's name.

A unit is a candidate when its plain text has one of the lifecycle cues of `CUES`
(state names in any spelling, terminal/interrupted, cancel, (re)subscribe, stream, final,
history, the ids that continue a task, task status, the task errors, pausing and
resuming); a push-notification sentence counts only through another cue, so only where it
concerns a state. The cues are deliberately wide: a false positive costs one
`not-lifecycle` line in the ledger, a miss would cost a fact.

The key of a candidate is the first 12 hex digits of the sha256 of its normalised plain
text (Unicode NFKC, lowercase, one space between words), so an unchanged sentence has the
same key in every version and wherever it moved.

Why it is long: it reads candidate sentences from every kind of pinned source the sweep
looks at (specification Markdown, docs pages, .proto comments, JSON Schema descriptions,
TypeScript comments), and all of them share one sentence splitter, one key scheme and one
cue list; the readers differ in a few lines each.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .artifact import Artifact
from .json_positions import Pointer, locate
from .markdown import Heading, read_headings, read_table

VERSION = "1"
KEY_DIGITS = 12

# Each cue is one way a sentence can touch the task lifecycle; the names are what the
# sweep shows beside a sentence, so a reader sees why it was picked.
CUES: dict[str, re.Pattern[str]] = {
    "state": re.compile(
        r"\bTASK_STATE_[A-Z_]+|\b(?:input|auth)[-_ ]required\b|\b(?:InputRequired|AuthRequired)\b",
        re.IGNORECASE),
    "class": re.compile(r"\bterminal\b|\binterrupted\b|\bpaused?\b", re.IGNORECASE),
    "cancel": re.compile(r"\bcancel", re.IGNORECASE),
    "subscribe": re.compile(r"\b(?:re)?subscri", re.IGNORECASE),
    "stream": re.compile(r"\bstream|\bevents?\b", re.IGNORECASE),
    "final": re.compile(r"\bfinal\b", re.IGNORECASE),
    "history": re.compile(r"\bhistory", re.IGNORECASE),
    "continuation": re.compile(
        r"\b(?:context_?id|task_?id|reference_?task_?ids|task ids?|(?:context|task) identifiers?)\b|"
        r"\bmulti-turn\b|\bfollow-?ups?\b|\brefine", re.IGNORECASE),
    "status": re.compile(
        r"\bTask ?(?:State|Status)\b|\b(?:task|its) (?:state|status)\b|\bstatus (?:update|change)|"
        r"\bstate (?:change|transition)|\blifecycle\b|\btransition|"
        r"\b(?:state|status) of (?:a|the|this) task\b|\btask updates?\b|\blong-running\b",
        re.IGNORECASE),
    "error": re.compile(r"\bTaskNotFound|\bTaskNotCancelable|\bUnsupportedOperation", re.IGNORECASE),
    "resume": re.compile(r"\bresum|\brestart|\bcontinu(?:e|es|ed|ing|ation)\b", re.IGNORECASE),
    "progress": re.compile(r"\bprogress|\bcomplet(?:e|ion)\b|\bexpir|\bpurge|\bpoll", re.IGNORECASE),
}
# A state's plain name is an ordinary English word ("failed deliveries", "Working Group"):
# it is a cue only in a sentence that is about a task, a state or a status.
_STATE_WORD = re.compile(r"\b(?:submitted|working|completed|canceled|cancelled|failed|rejected)\b",
                         re.IGNORECASE)
_ABOUT_TASKS = re.compile(r"\btasks?\b|\bstates?\b|\bstatus\b", re.IGNORECASE)
# A template macro of the v1 spec (`{{ proto_to_table("Task") }}`) stands for a table the
# .proto gives; its words are the proto's, swept there.
_MACRO = re.compile(r"^\{\{.*\}\}$")


@dataclass(frozen=True, slots=True)
class Sentence:
    """One candidate: its key, its plain text, the section it is in and its lines."""

    key: str
    text: str
    section: str  # a spec section number, a heading anchor, a proto or JSON definition name
    line_start: int
    line_end: int
    cues: tuple[str, ...]
    # What a comment or description is about (`TaskState.TASK_STATE_FAILED`, `Task.history`):
    # "This is a terminal state." says one thing of FAILED and another of WORKING, so the
    # subject is part of the key. Empty for prose, whose sentences stand on their own.
    subject: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "text": self.text, "section": self.section,
                "subject": self.subject or None,
                "lines": [self.line_start, self.line_end], "cues": list(self.cues)}


@dataclass(frozen=True, slots=True)
class Section:
    """A section a source offers to the sweep: its id, its title and its lines."""

    id: str
    title: str
    line_start: int
    line_end: int
    parent: str = ""  # the enclosing section's id, "" at the top


@dataclass(frozen=True, slots=True)
class Reading:
    """What the sweep reads of one source: its sections, and every unit of prose in them
    (candidate or not: `cues` is empty for the rest)."""

    sections: list[Section]
    units: list[Sentence]

    def candidates(self) -> list[Sentence]:
        return [u for u in self.units if u.cues]


def normalise(text: str) -> str:
    """The text a key is computed from: NFKC, lowercase, single spaces.

    Examples:
        >>> normalise("The  Task\\nMUST   close.")
        'the task must close.'
    """
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def key_of(text: str, subject: str = "") -> str:
    """The key of a sentence (of a comment about `subject`, when it has one)."""
    said = f"{subject}: {text}" if subject else text
    return hashlib.sha256(normalise(said).encode("utf-8")).hexdigest()[:KEY_DIGITS]


def cues_of(text: str) -> tuple[str, ...]:
    """The lifecycle cues a plain text has, in the order of `CUES`.

    Examples:
        >>> cues_of("The stream MUST close when the task reaches a terminal state.")
        ('class', 'stream')
        >>> cues_of("Push notifications are sent to a webhook URL.")
        ()
    """
    if _MACRO.match(text):
        return ()
    found = [name for name, pattern in CUES.items() if pattern.search(text)]
    if "state" not in found and _STATE_WORD.search(text) and _ABOUT_TASKS.search(text):
        found.insert(0, "state")
    return tuple(found)


def _unit(text: str, section: str, start: int, end: int, subject: str = "") -> Sentence | None:
    plain = " ".join(text.split())
    if not plain:
        return None
    # A member's name is part of what its comment says ("Unique identifier", of
    # Task.context_id); the message's name is not (every field of CancelTaskRequest is not
    # about cancelling).
    member = subject.rsplit(".", 1)[1] if "." in subject else ""
    if member == "id":  # Task.id is the task id; a bare "id" says nothing
        member = subject.replace(".", " ")
    cues = cues_of(f"{member}: {plain}" if member else plain)
    return Sentence(key_of(plain, subject), plain, section, start, end, cues, subject)


# --- sentences ------------------------------------------------------------------------------

# Words whose full stop ends no sentence, and the places a stop is part of a token.
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "cf", "approx", "no", "sec", "fig", "eg", "ie"}
_END = re.compile(r"[.!?](?=[\s)\]*_`\"']*(?:\s|$))")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of each sentence of `text`, a run of prose.

    A sentence ends at `.`, `!` or `?` followed by space or the end, outside
    brackets, and not after an abbreviation (`e.g.`), a lone letter or a number
    (`Section 3.1.`, `v0.2.`).

    Examples:
        >>> t = "It ends (e.g., when done). See Section 3.1. Then [a. b](x.y) stops."
        >>> [t[a:b] for a, b in split_sentences(t)]
        ['It ends (e.g., when done).', 'See Section 3.1. Then [a. b](x.y) stops.']
    """
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in ".!?" and depth == 0 and _END.match(text, i) and not _abbreviation(text, i):
            end = i + 1
            while end < len(text) and text[end] in ")]*_`\"'":
                end += 1
            spans.append((start, end))
            start = end
        i += 1
    if text[start:].strip():
        spans.append((start, len(text)))
    return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in spans if text[a:b].strip()]


def _abbreviation(text: str, at: int) -> bool:
    word = re.search(r"([A-Za-z0-9.]*)$", text[:at])
    before = word.group(1) if word else ""
    if text[at] != ".":
        return False
    if before.lower().rstrip(".") in _ABBREVIATIONS or before.lower() in _ABBREVIATIONS:
        return True
    if re.fullmatch(r"v?\d+(?:\.\d+)*", before) and "." in before:
        return True  # a section or version number: 3.1. or v0.2.
    return len(before) == 1 and before.isalpha()  # an initial, a list letter


# --- Markdown -------------------------------------------------------------------------------

_MARKDOWN = MarkdownIt("commonmark").enable("table")


def plain_inline(raw: str) -> str:
    """Inline Markdown as a reader sees it: code without backticks, link text without its
    target, no emphasis marks and no HTML."""
    parts: list[str] = []
    for token in _MARKDOWN.parseInline(raw):
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
            elif child.type == "image":
                parts.append(child.content)
    return " ".join("".join(parts).split())


def _line_of(content: str, offset: int, first_line: int) -> int:
    return first_line + content.count("\n", 0, offset)


def _prose(inline: Token, section: str) -> Iterator[Sentence]:
    if inline.map is None:
        return
    content = inline.content
    first = inline.map[0] + 1
    for a, b in split_sentences(content):
        found = _unit(plain_inline(content[a:b]), section, _line_of(content, a, first),
                      _line_of(content, max(a, b - 1), first))
        if found:
            yield found


def _section_id(heading: Heading, numbered: bool) -> str:
    return heading.number if numbered and heading.number else heading.anchor


def read_markdown(artifact: Artifact, numbered: bool) -> Reading:
    """The sections (by heading) and prose units of a Markdown source. `numbered` says
    whether headings are addressed by their section number (the spec) or by anchor."""
    text = artifact.text
    tokens = _MARKDOWN.parse(text)
    headings = read_headings(tokens, numbered=numbered)
    if not headings:
        raise artifact.fail("no headings: is this Markdown?")
    lines = text.splitlines()
    sections = _markdown_sections(list(headings.values()), len(lines), numbered)
    by_line = {s.line_start: s.id for s in sections}
    units: list[Sentence] = []
    current = "top"
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if index in headings:
            current = by_line[headings[index].line]
            index += 3  # heading_open, inline, heading_close
            continue
        if token.type == "table_open":
            table, _, index = read_table(tokens, index)  # one unit per body row
            for line, cells in table.rows:
                found = _unit(" | ".join(plain_inline(c) for c in cells), current, line, line)
                if found:
                    units.append(found)
            continue
        if token.type == "inline":
            units += _prose(token, current)
        elif token.type == "fence" and token.info.split()[:1] in (["ts"], ["typescript"]):
            units += _typescript_comments(token, current)
        index += 1
    return Reading(sections, units)


# The early specifications (up to v0.2.0) define the objects in TypeScript blocks whose
# comments say what a field means ("signifies the terminal status update ..."); later ones
# include the definitions from a file the mirror does not hold, and the JSON schema's
# descriptions carry the same words.
_TS_TYPE = re.compile(r"^\s*(?:export\s+)?(?:interface|type|enum|class)\s+(\w+)")
_TS_MEMBER = re.compile(r"^\s*(?:\|\s*)?(?:readonly\s+)?[\"']?([\w-]+)[\"']?\??\s*(?:[:=;,]|//|$)")


def _typescript_comments(fence: Token, section: str) -> list[Sentence]:
    """The sentences of the comments in a TypeScript block, each about the declaration it
    sits above or trails: `TaskStatusUpdateEvent.final`, `TaskState.completed`."""
    if fence.map is None:
        return []
    first = fence.map[0] + 2  # the fence's opening line comes first
    pending: list[tuple[int, str]] = []  # comment lines waiting for their declaration
    owner = ""
    units: list[Sentence] = []
    for offset, raw in enumerate(fence.content.splitlines()):
        line = first + offset
        code, _, comment = raw.partition("//")
        stripped = code.strip()
        if stripped.startswith(("/*", "*")) and not comment:
            text = stripped.lstrip("/*").rstrip("*/").strip()
            if text:
                pending.append((line, text))
            continue
        if not stripped:
            if comment.strip():
                pending.append((line, comment.strip()))
            continue
        declared = _TS_TYPE.match(code)
        member = _TS_MEMBER.match(code)
        if declared:
            owner = declared.group(1)
            subject = owner
        elif member and owner:
            subject = f"{owner}.{member.group(1)}"
        else:
            subject = owner
        if pending:
            units += _joined_units(pending, section, subject)
            pending = []
        if comment.strip():
            units += _joined_units([(line, comment.strip())], section, subject)
    if pending:
        units += _joined_units(pending, section, owner)
    return units


def _markdown_sections(headings: list[Heading], last_line: int, numbered: bool) -> list[Section]:
    sections: list[Section] = []
    open_ids: list[tuple[int, str]] = []  # (level, id) of the headings enclosing this one
    seen: set[str] = set()
    for i, heading in enumerate(headings):
        end = last_line
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end = later.line - 1
                break
        section_id = _section_id(heading, numbered)
        if section_id in seen:  # a repeated number is addressed by its anchor, as facts do
            section_id = heading.anchor
        seen.add(section_id)
        while open_ids and open_ids[-1][0] >= heading.level:
            open_ids.pop()
        parent = open_ids[-1][1] if open_ids else ""
        sections.append(Section(section_id, heading.title, heading.line, end, parent))
        open_ids.append((heading.level, section_id))
    return sections


def read_spec(artifact: Artifact) -> Reading:
    return read_markdown(artifact, numbered=True)


def read_docs(artifact: Artifact) -> Reading:
    return read_markdown(artifact, numbered=False)


# --- .proto ---------------------------------------------------------------------------------

# Tool directives in comments (`protolint:disable …`, the docs' snippet markers
# `--8<-- [start:Task]`) are not prose.
_DIRECTIVE = re.compile(r"^(?:protolint|buf:lint|nolint)\b|^--8<--")


def read_proto(artifact: Artifact) -> Reading:
    """The top-level declarations of a .proto as sections, and the sentences of every
    comment, each about the declaration it sits above (or trails): a value, a field, a
    method, or the top-level declaration itself."""
    from .proto import parse

    _, positions = parse(artifact)
    comments = {n: t for n, t in positions.comments.items() if not _DIRECTIVE.match(t)}
    declarations = sorted((span, key) for key, span in positions.spans.items())
    owner: dict[int, str] = {}  # comment line → the subject it is about
    for (start, end), key in declarations:
        subject = ".".join(key[1:])
        line = start - 1
        while line in comments and line not in owner:
            owner[line] = subject
            line -= 1
        if key[0] in ("value", "field"):
            for n in range(start, end + 1):
                if n in positions.trailing:
                    owner.setdefault(-n, subject)  # a trailing comment, keyed apart
    sections: list[Section] = []
    for (start, end), key in declarations:
        if key[0] in ("message", "enum", "service") and len(key) == 2:
            first = start
            while first - 1 in comments:
                first -= 1
            sections.append(Section(key[1], key[1], first, end))
    if not sections:
        raise artifact.fail("no message, enum or service declarations")
    units: list[Sentence] = []
    for section in sections:
        lines = [n for n in sorted(comments) if section.line_start <= n <= section.line_end]
        blocks: list[tuple[str, list[tuple[int, str]]]] = []
        for n in lines:
            subject = owner.get(n, section.id)
            if not blocks or blocks[-1][0] != subject or blocks[-1][1][-1][0] != n - 1:
                blocks.append((subject, []))
            blocks[-1][1].append((n, comments[n]))
        for n, text in sorted(positions.trailing.items()):
            if section.line_start <= n <= section.line_end and not _DIRECTIVE.match(text):
                blocks.append((owner.get(-n, section.id), [(n, text)]))
        for subject, block in blocks:
            units += _joined_units([(n, t) for n, t in block if t], section.id, subject)
    return Reading(sections, sorted(units, key=lambda u: (u.line_start, u.line_end)))


def _joined_units(lines: list[tuple[int, str]], section: str, subject: str = "") -> list[Sentence]:
    """The sentences of lines of prose that belong together (a comment block, a JSON
    description split at its newlines), each with the lines it spans."""
    if not lines:
        return []
    text = ""
    starts: list[tuple[int, int]] = []  # (offset in text, source line)
    for line, words in lines:
        if text:
            text += "\n"
        starts.append((len(text), line))
        text += words

    def line_at(offset: int) -> int:
        found = starts[0][1]
        for at, line in starts:
            if at <= offset:
                found = line
        return found

    units = []
    for a, b in split_sentences(text):
        # Comments and descriptions mark code with backticks, as Markdown does; the key is of
        # the words, so `Task` and Task are the same word here too.
        found = _unit(text[a:b].replace("`", ""), section, line_at(a), line_at(max(a, b - 1)),
                      subject)
        if found:
            units.append(found)
    return units


# --- JSON schema ----------------------------------------------------------------------------

def read_json_schema(artifact: Artifact) -> Reading:
    """Each definition as a section, and the sentences of every `description` and
    `title` inside it, each about its definition or the property it describes."""
    import json

    text = artifact.text
    try:
        document = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not valid JSON: {e}") from e
    container = next((k for k in ("$defs", "definitions")
                      if isinstance(document, dict) and isinstance(document.get(k), dict)), "")
    if not container:
        raise artifact.fail("no `$defs` or `definitions` object: is this the A2A JSON schema?")
    spans = locate(text)
    sections: list[Section] = []
    units: list[Sentence] = []
    for name, definition in document[container].items():
        start, end = spans[(container, name)]
        sections.append(Section(name, name, start, end))
        for pointer, words in _descriptions(definition, (container, name)):
            line = spans[pointer][0]
            units += _joined_units([(line, part) for part in words.splitlines()], name,
                                   _property_of(pointer))
    return Reading(sections, units)


def _property_of(pointer: Pointer) -> str:
    """`Task.history` for a description under `properties/history`, else the definition."""
    subject = str(pointer[1])
    for i, part in enumerate(pointer[:-1]):
        if part == "properties" and i + 1 < len(pointer) - 1:
            subject = f"{pointer[1]}.{pointer[i + 1]}"
    return subject


def _descriptions(value: Any, pointer: Pointer) -> Iterator[tuple[Pointer, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("description", "title") and isinstance(item, str):
                yield (*pointer, key), item
            elif key not in ("examples", "default", "const", "enum"):
                yield from _descriptions(item, (*pointer, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _descriptions(item, (*pointer, i))


Reader = Callable[[Artifact], Reading]

READERS: dict[str, Reader] = {
    "spec": read_spec,
    "docs": read_docs,
    "proto": read_proto,
    "json-schema": read_json_schema,
}


def read(artifact: Artifact) -> Reading:
    """What the sweep reads of `artifact`, by the reader of its kind."""
    reader = READERS.get(artifact.kind)
    if reader is None:
        known = ", ".join(sorted(READERS))
        raise artifact.fail(f"the sweep reads no source of kind '{artifact.kind}' (kinds: {known})")
    return _with_definitions(reader(artifact))


# Where a source defines the states (the TaskState enum and its table, the TaskStatus
# object) or describes the flow of one state (in-task authorization, which is the
# auth-required state), every sentence is about the lifecycle, whatever its words.
_DEFINES_STATES = re.compile(
    r"^(?:Task ?(?:State|Status)(?: Enum| Object)?|In-Task Authori[sz]ation.*|"
    r"In-Task Authentication.*)$", re.IGNORECASE)


def _with_definitions(reading: Reading) -> Reading:
    defining = {s.id for s in reading.sections if _DEFINES_STATES.match(s.title)}
    units = [u if u.cues or u.section not in defining or _MACRO.match(u.text) else
             Sentence(u.key, u.text, u.section, u.line_start, u.line_end, ("about-a-state",),
                      u.subject)
             for u in reading.units]
    return Reading(reading.sections, units)
