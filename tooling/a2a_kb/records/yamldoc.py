"""Strict YAML reading that remembers where every value came from.

Records are read with libyaml's composer (the pure-Python one where libyaml is
missing) and built into plain Python values by hand, so that:

* every mapping entry and list item keeps its line and column (JSON pointer → mark);
* anchors and aliases are refused, which rules out "billion laughs" documents;
* duplicate keys, over-deep nesting, non-UTF-8 bytes, tabs, empty documents, oversized
  files and files of too many values are reported as diagnostics instead of being
  silently accepted;
* the work is linear in the size of the file: nothing scans the whole text per value,
  and a file stops being read at its limit of values (`max_nodes`), so one hostile file
  can cost neither quadratic time nor unbounded memory;
* timestamps stay strings, so the validator can say that 2026-02-30 is no date.

Why it is long: every part of it is one pass over the composer's node tree: the builder, the
position of each value, and each refusal (aliases, duplicate keys, depth, size, tabs,
encoding) read the same nodes and the same limits. Split apart, a limit could be applied in
one half and missed in the other, and the position map would have to be handed across.
"""

from __future__ import annotations

import codecs
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern
from typing import Any

import yaml

from ..diagnostics import Diagnostic, Mark, Severity

try:  # libyaml is an order of magnitude faster; fall back when it is not built.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 32
# Values (scalars, lists, mappings) one file may hold. A claim is about 20 of them, so a
# file at the byte limit written as claims holds some 350,000; a file of empty nested lists
# at the same size would hold four million, and cost about a gigabyte to build.
MAX_NODES = 500_000

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_KNOWN_SCALAR_TAGS = {_INT, _FLOAT, _BOOL, _NULL, _STR, "tag:yaml.org,2002:timestamp"}
_ALLOWED_TAGS = _KNOWN_SCALAR_TAGS | {"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"}
_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
# The event classes, looked up once: the builder compares a million events a run with them.
_ALIAS, _SCALAR = yaml.AliasEvent, yaml.ScalarEvent
_SEQUENCE_START, _SEQUENCE_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_MAPPING_END = yaml.MappingEndEvent
# Control characters a double-quoted scalar can spell as escapes ("\e[2J", "\x9b"); the
# reader refuses them written raw. In a record they could only be there to drive the
# terminal of whoever reads `a2a-kb query`, so they are refused too (tab and line break
# are text). So are the bidirectional overrides, which YAML lets through raw: they make a
# statement read differently from what it says (right-to-left text needs none of them).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

# Byte-order marks of encodings an editor may save a file in by mistake. UTF-32 comes
# first because its little-endian mark begins with the UTF-16 one.
_FOREIGN_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)

# libyaml notices an unclosed quote or bracket only where it gives up (the end of the
# file, or a later line); the place to fix is where the construct was opened.
_OPENED = {
    "while scanning a quoted scalar": "the quoted string that starts here",
    "while parsing a flow sequence": "the '[' list that starts here",
    "while parsing a flow mapping": "the '{' mapping that starts here",
}


# Where a node is: 1-based line and column, and the places of its children (a dict by key
# for a mapping, a list for a sequence, None for a scalar). A mapping entry is placed at its
# key, a sequence item at the item. Tuples rather than Marks: a 10,000-claim KB has half a
# million nodes, and only the few that a diagnostic or a record names are ever looked up.
Place = tuple[int, int, Any]


@dataclass
class Document:
    """A parsed YAML file: its value, and where every node is, by JSON pointer."""

    path: str
    value: Any
    problems: list[Diagnostic] = field(default_factory=list)
    places: Place | None = field(default=None, repr=False)
    nodes: int = 0  # the values read (what the file cost to hold in memory)
    _marks: dict[str, Mark] | None = field(default=None, init=False, repr=False, compare=False)

    def mark(self, pointer: str) -> Mark:
        """The mark of `pointer`, or of its nearest ancestor that has one."""
        if self.places is None:
            return Mark(self.path, 1, 1)
        line, column, children = self.places
        for part in pointer.split("/")[1:]:
            child: Place | None = None
            if isinstance(children, dict):
                child = children.get(part.replace("~1", "/").replace("~0", "~"))
            elif isinstance(children, list) and part.isdigit() and int(part) < len(children):
                child = children[int(part)]
            if child is None:
                break
            line, column, children = child
        return Mark(self.path, line, column)

    @property
    def marks(self) -> dict[str, Mark]:
        """Every node's mark by JSON pointer (built on first use)."""
        if self._marks is None:
            self._marks = {}
            if self.places is not None:
                self._collect(self.places, "")
        return self._marks

    def _collect(self, place: Place, pointer: str) -> None:
        assert self._marks is not None
        line, column, children = place
        self._marks[pointer] = Mark(self.path, line, column)
        if isinstance(children, dict):
            for key, child in children.items():
                self._collect(child, f"{pointer}/{pointer_escape(key)}")
        elif isinstance(children, list):
            for i, child in enumerate(children):
                self._collect(child, f"{pointer}/{i}")


def pointer_escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _line_col_at(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def read(path: Path, display: str | None = None, max_bytes: int = MAX_BYTES,
         max_nodes: int = MAX_NODES) -> Document:
    """Read one YAML file. Problems are in `Document.problems`; value is None then.

    `max_bytes` and `max_nodes` are this file's share of the limits; the loader lowers
    them to what is left of the run's budget."""
    name = display or str(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        return _failed(name, "unreadable", f"cannot read the file: {e.strerror}", "check the path")
    if size > max_bytes:
        return _failed(
            name,
            "file-too-large",
            f"the file is {size:,} bytes, over the {max_bytes:,}-byte limit for one record file",
            "split it into several files by topic",
        )
    try:
        data = path.read_bytes()
    except OSError as e:
        return _failed(name, "unreadable", f"cannot read the file: {e.strerror}", "check the path")
    if len(data) > max_bytes:  # it grew between stat and read
        return _failed(name, "file-too-large", f"the file is over the {max_bytes:,}-byte limit "
                       "for one record file", "split it into several files by topic")
    key = (str(path), name)
    kept = _PARSED.get(key)
    if kept is not None and kept[0] == data and kept[1] == max_nodes:
        return kept[2]
    doc = parse(data, name, max_nodes)
    if not doc.problems:  # a document with problems may be amended by its reader
        _PARSED[key] = (data, max_nodes, doc)
    else:
        _PARSED.pop(key, None)
    return doc


# The last clean document read from each file, with the bytes it was parsed from: a process
# that reads the records again (the preview, after an edit) parses only the files whose bytes
# changed. A Document is not changed by those who read it.
_PARSED: dict[tuple[str, str], tuple[bytes, int, Document]] = {}


def parse(data: bytes, name: str, max_nodes: int = MAX_NODES) -> Document:
    """Parse bytes as one strict YAML document (see the module docstring)."""
    for bom, encoding in _FOREIGN_BOMS:
        if data.startswith(bom):
            return _failed(
                name,
                "encoding",
                f"the file is {encoding} (it starts with a {encoding} "
                "byte-order mark); record files are UTF-8",
                "save the file as UTF-8",
            )
    if _looks_like_utf16(data):
        return _failed(
            name,
            "encoding",
            "the file looks like UTF-16 without a byte-order mark (every other byte "
            "is zero); record files are UTF-8",
            "save the file as UTF-8",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col_at(data, e.start)
        return _failed(
            name,
            "encoding",
            f"byte 0x{data[e.start]:02x} is not valid UTF-8",
            "save the file as UTF-8",
            line,
            col,
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        return _failed(
            name, "empty-file", "the file holds no YAML document", "add records or delete the file"
        )
    try:
        builder = _Builder(name, text, max_nodes)
        documents = builder.documents()
    except _Refused as e:
        return Document(name, None, problems=[e.diagnostic])
    except yaml.YAMLError as e:
        # The scanner reaches an anchor that comes before a grammar error; report the anchor
        # then, as a reader who fixes the file from the top would meet it first.
        found = _find_anchor(text, name) if "&" in text or "*" in text else None
        if found is not None:
            return Document(name, None, problems=[found])
        if isinstance(e, yaml.reader.ReaderError):
            return _failed(name, *_reader_problem(e, text))
        if isinstance(e, yaml.MarkedYAMLError):
            rule = "too-deep" if "maximum nesting depth" in (e.problem or "") else "yaml-syntax"
            return _failed(name, rule, _yaml_message(e, text), _yaml_tip(e, text), *_mark_of(e))
        return _failed(  # pragma: no cover - every libyaml error is marked
            name, "yaml-syntax", " ".join(str(e).split()), "fix the YAML syntax"
        )
    if len(documents) != 1:
        return _failed(
            name,
            "multiple-documents",
            f"the file holds {len(documents)} YAML documents; a record file holds one",
            "remove the extra '---' separators",
        )
    documents[0].nodes = builder.nodes
    return documents[0]


def _failed(name: str, rule: str, message: str, tip: str, line: int = 1, col: int = 1) -> Document:
    message = " ".join(message.split())  # libyaml's messages may quote a line break
    return Document(name, None, problems=[Diagnostic(Mark(name, line, col), rule, message, tip)])


def _looks_like_utf16(data: bytes) -> bool:
    """Mostly-ASCII text saved as UTF-16 has a zero in every other byte."""
    head = data[:512]
    zeros = max(head[0::2].count(0), head[1::2].count(0))
    return len(head) >= 8 and zeros * 4 >= len(head)


def _reader_problem(e: yaml.reader.ReaderError, text: str) -> tuple[str, str, str, int, int]:
    """A character YAML refuses (a control character): rule, message, tip and place."""
    char = chr(e.character) if isinstance(e.character, int) else str(e.character)[:1] or "?"
    # libyaml counts the position in bytes, not characters; the character it refuses is
    # the first one of its kind in the text, so find that instead.
    offset = text.find(char)
    if offset < 0:
        offset = min(max(e.position, 0), len(text))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    message = f"the character U+{ord(char):04X} is not allowed in YAML ({e.reason})"
    return "control-character", message, "delete it; record files hold printable text", line, col


def _mark_of(e: yaml.MarkedYAMLError) -> tuple[int, int]:
    m = e.problem_mark or e.context_mark
    if e.context in _OPENED and e.context_mark is not None:
        m = e.context_mark
    if m is None:
        return 1, 1
    return m.line + 1, m.column + 1


def _tab_at(e: yaml.MarkedYAMLError, text: str) -> bool:
    """Whether the error points at a tab (libyaml does not always say so itself)."""
    m = e.problem_mark
    if m is None:
        return "\\t" in (e.problem or "")
    lines = text.splitlines()
    line = lines[m.line] if m.line < len(lines) else ""
    return "\t" in line[: m.column + 1] or "\\t" in (e.problem or "")


def _yaml_message(e: yaml.MarkedYAMLError, text: str) -> str:
    problem = (e.problem or "invalid YAML").strip()
    if _tab_at(e, text):
        return "a tab character is used where YAML only allows spaces"
    if "maximum nesting depth" in problem:
        return (
            f"nesting deeper than the YAML parser allows (records nest at most {MAX_DEPTH} levels)"
        )
    opened = _OPENED.get(e.context or "")
    if opened and e.problem_mark is not None:
        if "end of stream" in problem:
            return f"{opened} is never closed: the file ends first"
        stop = e.problem_mark
        return (
            f"{opened} is not closed: {problem} "
            f"(the parser gave up at line {stop.line + 1}, column {stop.column + 1})"
        )
    if "mapping values are not allowed" in problem:
        return "a ': ' inside an unquoted value starts a second key on the same line"
    if "'-' indicator" in problem or "<block end>" in problem:
        return f"this line is indented differently from the lines above ({problem})"
    if e.context:
        return f"{problem} ({e.context.strip()})"
    return problem


def _yaml_tip(e: yaml.MarkedYAMLError, text: str) -> str:
    problem, context = e.problem or "", e.context or ""
    if _tab_at(e, text):
        return "indent with spaces, never tabs"
    if "maximum nesting depth" in problem:
        return "flatten the record"
    if context == "while scanning a quoted scalar":
        return "add the closing quote at the end of the value"
    if context in _OPENED:
        return "close the bracket, and quote values that hold ',', ':', '[' or ']'"
    if "mapping values are not allowed" in problem:
        return "put the whole value in quotes"
    if "block" in context or "<block end>" in problem or "'-' indicator" in problem:
        return "check this line's indentation: the fields of one record start in the same column"
    return "fix the YAML syntax at this place; quote strings that hold ':' or '#'"


def _find_anchor(text: str, name: str) -> Diagnostic | None:
    try:
        for token in yaml.scan(text, Loader=_Loader):
            if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                kind = "anchor" if isinstance(token, yaml.AnchorToken) else "alias"
                mark = token.start_mark
                return Diagnostic(
                    Mark(name, mark.line + 1, mark.column + 1),
                    "yaml-alias",
                    f"YAML {kind} '{token.value}' is not allowed in records",
                    "write the value out in full; anchors and aliases are refused "
                    "so that no record can expand into a YAML bomb",
                )
    except yaml.YAMLError:
        return None  # the composer will report the syntax error with its place
    return None


def _place_of(event: Any) -> tuple[int, int]:
    """The 1-based line and column where an event starts."""
    start = event.start_mark
    return start.line + 1, start.column + 1


class _Refused(Exception):
    """An anchor or alias: the whole file is refused with this one diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


_RESOLVER = yaml.resolver.Resolver()


@functools.lru_cache(maxsize=8192)
def _short_plain_tag(value: str) -> str:
    return str(_RESOLVER.resolve(yaml.ScalarNode, value, (True, False)))


# The first characters of the plain scalars YAML 1.1 may read as something other than a
# string (numbers, booleans, null, '=' and '<<'): any other plain scalar, as most record
# text is, is a string without asking the resolver.
_TAGGED_STARTS = frozenset(start for start in _RESOLVER.yaml_implicit_resolvers if start)
assert None not in _RESOLVER.yaml_implicit_resolvers and not _RESOLVER.yaml_path_resolvers


def _plain_tag(value: str) -> str:
    """The tag YAML 1.1 gives an unquoted scalar (keys and short values repeat a lot)."""
    if value and value[0] not in _TAGGED_STARTS:
        return _STR
    if len(value) <= 40:
        return _short_plain_tag(value)
    return str(_RESOLVER.resolve(yaml.ScalarNode, value, (True, False)))


class _Builder:
    """Plain values and their places, built in one pass over libyaml's parse events.

    Working from events rather than composed nodes sees anchors and aliases as they come
    (so no second scan of the text is needed to refuse them) and builds no node tree.
    The rules are those of the composer plus the strict ones of the module docstring.
    """

    def __init__(self, path: str, text: str, max_nodes: int = MAX_NODES) -> None:
        self.path = path
        self.max_nodes = max_nodes
        self.nodes = 0  # values built so far, in every document of the file
        # The parser's own get_event, not the yaml.parse generator around it: half a
        # million events pay for one call each, not three. Events are typed loosely: the
        # stubs know none of their attributes.
        self.parser = _Loader(text)
        self.next: Callable[[], Any] = self.parser.get_event
        self.problems: list[Diagnostic] = []
        self.text = text
        # Asked once per file, not once per value: a scan of the whole text for each plain
        # scalar made reading quadratic (8 MB of claims took a minute).
        self.has_comment_mark = "#" in text
        # `in`, not a regular expression: for text that is all ASCII (or Latin-1), CPython
        # answers without scanning, and a regex took a tenth of the reading time.
        self.has_bidi_control = any(c in text for c in _BIDI)
        self._lines: list[str] | None = None  # split only when a value may have been cut

    def documents(self) -> list[Document]:
        found: list[Document] = []
        try:
            self.next()  # the start of the stream
            while not isinstance(self.next(), yaml.StreamEndEvent):  # a document starts
                doc = Document(self.path, None)
                self.problems = doc.problems
                doc.value, doc.places = self.node(self.next(), 0)
                self.next()  # the end of the document
                found.append(doc)
        finally:
            self.parser.dispose()
        return found

    def _too_many(self, line: int, column: int) -> _Refused:
        return _Refused(
            Diagnostic(
                Mark(self.path, line, column),
                "too-many-values",
                f"the file holds more than {self.max_nodes:,} YAML values (scalars, lists and "
                "mappings); reading stopped here so that one file cannot exhaust memory",
                "split the file by topic; a record file holds records, not bulk data",
            )
        )

    def _refuse(self, event: Any) -> _Refused:
        kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
        mark = event.start_mark
        return _Refused(
            Diagnostic(
                Mark(self.path, mark.line + 1, mark.column + 1),
                "yaml-alias",
                f"YAML {kind} '{event.anchor}' is not allowed in records",
                "write the value out in full; anchors and aliases are refused "
                "so that no record can expand into a YAML bomb",
            )
        )

    def _cut_by_comment(self, event: Any, value: str) -> None:
        """Warn when ' #' ended a plain sentence: YAML read the rest of the line as a comment,
        so `statement: PR #126 was merged` silently stores "PR"."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        end = event.end_mark
        rest = self._lines[end.line][end.column :] if end.line < len(self._lines) else ""
        if rest[:1].isspace() and rest.lstrip().startswith("#"):
            self.problems.append(
                Diagnostic(
                    Mark(self.path, end.line + 1, end.column + 1 + len(rest) - len(rest.lstrip())),
                    "cut-by-comment",
                    f"the value {excerpt(value)!r} ends where ' #' starts a YAML comment, "
                    "so the rest of the line is not part of it",
                    "put the whole value in quotes, or write it as a '>-' block",
                    Severity.WARNING,
                )
            )

    def node(self, event: Any, depth: int) -> tuple[Any, Place]:
        cls = event.__class__
        if cls is _ALIAS or event.anchor is not None:
            raise self._refuse(event)
        start = event.start_mark
        line, column = start.line + 1, start.column + 1
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise self._too_many(line, column)
        if depth > MAX_DEPTH:
            self.problems.append(
                Diagnostic(
                    Mark(self.path, line, column),
                    "too-deep",
                    f"nesting deeper than {MAX_DEPTH} levels",
                    "flatten the record",
                )
            )
            self.skip(event)
            return None, (line, column, None)
        if cls is _SCALAR:
            return self._scalar(event), (line, column, None)
        tag = event.tag
        if tag is not None and tag != "!" and tag not in _ALLOWED_TAGS:
            self._refused_tag(tag, None, line, column)
            self.skip(event)
            return None, (line, column, None)
        if cls is _SEQUENCE_START:
            return self._sequence(depth, line, column)
        return self._mapping(depth, line, column)

    def _scalar(self, event: Any) -> Any:
        """The value of a scalar event (its place is asked of the event only for a problem)."""
        value: str = event.value
        style = event.style
        tag = event.tag
        if tag is None or tag == "!":
            if style:  # quoted or block: a string, whatever it looks like
                if (style == '"' or self.has_bidi_control) and not value.isprintable():
                    self._control_character(value, event)
                return value
            tag = _plain_tag(value) if event.implicit[0] else _STR
        if tag not in _ALLOWED_TAGS:
            self._refused_tag(tag, value, *_place_of(event))
            return None
        if (style == '"' or self.has_bidi_control) and not value.isprintable():
            self._control_character(value, event)
        if style:
            return value
        built = value if tag == _STR else _typed(tag, value, self.problems, self.path, *_place_of(event))
        if " " in value and self.has_comment_mark:
            self._cut_by_comment(event, value)
        return built

    def _sequence(self, depth: int, line: int, column: int) -> tuple[Any, Place]:
        items: list[Any] = []
        places: list[Place] = []
        while True:
            event = self.next()
            cls = event.__class__
            if cls is _SEQUENCE_END:
                return items, (line, column, places)
            if cls is _SCALAR and event.anchor is None and depth < MAX_DEPTH:  # most items
                self.nodes += 1
                if self.nodes > self.max_nodes:
                    raise self._too_many(*_place_of(event))
                start = event.start_mark
                items.append(self._scalar(event))
                places.append((start.line + 1, start.column + 1, None))
                continue
            value, place = self.node(event, depth + 1)
            items.append(value)
            places.append(place)

    def _mapping(self, depth: int, line: int, column: int) -> tuple[Any, Place]:
        result: dict[str, Any] = {}
        places: dict[str, Place] = {}
        while True:
            key_event = self.next()
            cls = key_event.__class__
            if cls is _MAPPING_END:
                return result, (line, column, places)
            if cls is _ALIAS or key_event.anchor is not None:
                raise self._refuse(key_event)
            start = key_event.start_mark
            key_line, key_column = start.line + 1, start.column + 1
            if cls is not _SCALAR:
                self.problems.append(
                    Diagnostic(
                        Mark(self.path, key_line, key_column),
                        "bad-key",
                        "a mapping key must be a plain string",
                        "use a string key",
                    )
                )
                self.skip(key_event)
                self.skip(self.next())
                continue
            # One string for each key spelling, not one per record: 70,000 claims hold half
            # a million keys, and interning them saves a tenth of the memory they take.
            key: str = intern(key_event.value)
            tag = key_event.tag
            if tag is None or tag == "!":
                tag = _plain_tag(key) if key_event.implicit[0] else _STR
            if tag == _MERGE:
                self.problems.append(
                    Diagnostic(
                        Mark(self.path, key_line, key_column),
                        "yaml-alias",
                        "YAML merge keys ('<<') are not allowed in records",
                        "write the keys out in full",
                    )
                )
                self.skip(self.next())
                continue
            if tag not in _ALLOWED_TAGS:
                self._refused_tag(tag, key, key_line, key_column)
                self.skip(self.next())
                continue
            value_event = self.next()
            if key in result:
                where = f" (first at line {places[key][0]})"
                self.problems.append(
                    Diagnostic(
                        Mark(self.path, key_line, key_column),
                        "duplicate-key",
                        f"key '{excerpt(key)}' appears twice in one mapping{where}",
                        "keep one of them; YAML would silently use the last",
                    )
                )
                self.skip(value_event)
                continue
            if value_event.__class__ is _SCALAR and value_event.anchor is None and depth < MAX_DEPTH:
                # Most values, read here rather than through node(): an entry is placed at
                # its key, so the value's own place is not needed.
                self.nodes += 1
                if self.nodes > self.max_nodes:
                    raise self._too_many(*_place_of(value_event))
                result[key] = self._scalar(value_event)
                places[key] = (key_line, key_column, None)
                continue
            value, place = self.node(value_event, depth + 1)
            result[key] = value
            places[key] = (key_line, key_column, place[2])

    def skip(self, event: Any) -> None:
        """Consume the rest of the node that `event` starts (refusing anchors in it too)."""
        open_nodes = 0
        while True:
            cls = event.__class__
            if cls is yaml.AliasEvent or (
                cls in _NODE_EVENTS and event.anchor is not None
            ):
                raise self._refuse(event)
            if cls is yaml.SequenceStartEvent or cls is yaml.MappingStartEvent:
                open_nodes += 1
            elif cls is yaml.SequenceEndEvent or cls is yaml.MappingEndEvent:
                open_nodes -= 1
            if open_nodes == 0:
                return
            event = self.next()

    def _control_character(self, value: str, event: Any) -> None:
        """Report a control character in `value`, if it holds one (tab and line break are
        not printable, and are text)."""
        found = _CONTROL.search(value)
        if found is None:
            return
        self.problems.append(
            Diagnostic(
                Mark(self.path, *_place_of(event)),
                "control-character",
                f"the text holds the control character U+{ord(found.group()):04X} "
                f"in \"{excerpt(value)}\"",
                "delete it; record text is printable (a terminal would obey an escape, and a "
                "bidirectional override makes text read otherwise than it says)",
            )
        )

    def _refused_tag(self, tag: str, value: str | None, line: int, column: int) -> None:
        """Report an explicit tag outside plain YAML types. Checked on every node,
        collections and quoted strings too: `!!python/object/apply` on a list is how an
        unsafe loader is made to run code, and `!include "x"` on a quoted string would
        otherwise pass as text."""
        mark = Mark(self.path, line, column)
        if value in ("=", "<<"):
            # YAML 1.1 gives these two plain values a tag of their own, unasked.
            self.problems.append(
                Diagnostic(mark, "yaml-tag", f"the unquoted value '{value}' has a special "
                           "meaning in YAML", f"put it in quotes: '{value}'")
            )
            return
        shown = excerpt(tag.replace("tag:yaml.org,2002:", "!!"))
        self.problems.append(
            Diagnostic(
                mark,
                "yaml-tag",
                f"the YAML tag '{shown}' is not allowed in records",
                "remove the tag; records hold plain strings, numbers, lists and mappings",
            )
        )


def excerpt(text: str, limit: int = 60) -> str:
    """Text to echo in a message: control characters escaped, so that a diagnostic stays on
    one line, and cut short, so that one hostile value cannot flood the output."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[: limit * 2])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _typed(tag: str, value: str, problems: list[Diagnostic], path: str, line: int, column: int) -> Any:
    """The value of a plain scalar that YAML 1.1 reads as other than a string."""
    if tag == _STR:
        return value
    if tag == _INT:
        try:
            return int(value.replace("_", ""), 0)
        except ValueError:
            return value
    if tag == _FLOAT:
        try:
            number = float(value.replace("_", ""))
        except ValueError:
            return value
        if not math.isfinite(number):  # e.g. 1.0e+400: JSON has no infinity
            problems.append(
                Diagnostic(
                    Mark(path, line, column),
                    "not-json",
                    f"the number {excerpt(value)} is too large to store as JSON",
                    "write a smaller number, or quote the value to keep it as text",
                )
            )
            return value
        return number
    if tag == _BOOL:
        return value.lower() in ("true", "yes", "on")
    if tag == _NULL:
        return None
    return value  # timestamps stay text: the validator decides whether they are dates
