"""Strict YAML reading that remembers where every value came from.

Records are read with libyaml's composer (the pure-Python one where libyaml is
missing) and built into plain Python values by hand, so that:

* every mapping entry and list item keeps its line and column (JSON pointer → mark);
* anchors and aliases are refused, which rules out "billion laughs" documents;
* duplicate keys, over-deep nesting, non-UTF-8 bytes, tabs, empty documents and
  oversized files are reported as diagnostics instead of being silently accepted;
* timestamps stay strings, so the validator can say that 2026-02-30 is no date.
"""

from __future__ import annotations

import codecs
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Diagnostic, Mark

try:  # libyaml is an order of magnitude faster; fall back when it is not built.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 32

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"
_KNOWN_SCALAR_TAGS = {_INT, _FLOAT, _BOOL, _NULL, _STR, "tag:yaml.org,2002:timestamp"}
_ALLOWED_TAGS = _KNOWN_SCALAR_TAGS | {"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"}

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


@dataclass
class Document:
    """A parsed YAML file: its value, and the mark of every node by JSON pointer."""

    path: str
    value: Any
    marks: dict[str, Mark] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)

    def mark(self, pointer: str) -> Mark:
        """The mark of ``pointer``, or of its nearest ancestor that has one."""
        while pointer:
            found = self.marks.get(pointer)
            if found is not None:
                return found
            pointer = pointer.rsplit("/", 1)[0]
        return self.marks.get("", Mark(self.path, 1, 1))


def pointer_escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _line_col_at(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def read(path: Path, display: str | None = None, max_bytes: int = MAX_BYTES) -> Document:
    """Read one YAML file. Problems are in ``Document.problems``; value is None then."""
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
    data = path.read_bytes()
    return parse(data, name)


def parse(data: bytes, name: str) -> Document:
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
    if "&" in text or "*" in text:
        found = _find_anchor(text, name)
        if found is not None:
            return Document(name, None, problems=[found])
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.reader.ReaderError as e:
        return _failed(name, *_reader_problem(e, text))
    except yaml.MarkedYAMLError as e:
        rule = "too-deep" if "maximum nesting depth" in (e.problem or "") else "yaml-syntax"
        return _failed(name, rule, _yaml_message(e, text), _yaml_tip(e, text), *_mark_of(e))
    except yaml.YAMLError as e:  # pragma: no cover - every libyaml error is marked
        return _failed(name, "yaml-syntax", " ".join(str(e).split()), "fix the YAML syntax")
    if len(nodes) != 1:
        return _failed(
            name,
            "multiple-documents",
            f"the file holds {len(nodes)} YAML documents; a record file holds one",
            "remove the extra '---' separators",
        )
    doc = Document(name, None)
    doc.value = _build(nodes[0], doc, "", 0)
    return doc


def _failed(name: str, rule: str, message: str, tip: str, line: int = 1, col: int = 1) -> Document:
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


def _build(node: yaml.Node, doc: Document, pointer: str, depth: int) -> Any:
    mark = Mark(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)
    doc.marks[pointer] = mark
    if depth > MAX_DEPTH:
        doc.problems.append(
            Diagnostic(
                mark, "too-deep", f"nesting deeper than {MAX_DEPTH} levels", "flatten the record"
            )
        )
        return None
    if _refused_tag(node, doc, mark):
        return None
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, doc, mark)
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, doc, f"{pointer}/{i}", depth + 1) for i, item in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key_mark = Mark(doc.path, key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if not isinstance(key_node, yaml.ScalarNode):
                doc.problems.append(
                    Diagnostic(
                        key_mark,
                        "bad-key",
                        "a mapping key must be a plain string",
                        "use a string key",
                    )
                )
                continue
            if key_node.tag != "tag:yaml.org,2002:merge" and _refused_tag(key_node, doc, key_mark):
                continue
            if key_node.tag == "tag:yaml.org,2002:merge":
                doc.problems.append(
                    Diagnostic(
                        key_mark,
                        "yaml-alias",
                        "YAML merge keys ('<<') are not allowed in records",
                        "write the keys out in full",
                    )
                )
                continue
            key = str(key_node.value)
            if key in result:
                first = doc.marks.get(f"{pointer}/{pointer_escape(key)}")
                where = f" (first at line {first.line})" if first else ""
                doc.problems.append(
                    Diagnostic(
                        key_mark,
                        "duplicate-key",
                        f"key '{_shorten(key)}' appears twice in one mapping{where}",
                        "keep one of them; YAML would silently use the last",
                    )
                )
                continue
            result[key] = _build(value_node, doc, f"{pointer}/{pointer_escape(key)}", depth + 1)
            doc.marks[f"{pointer}/{pointer_escape(key)}"] = key_mark
        return result
    return None  # pragma: no cover - yaml has no other node kind


def _shorten(text: str, limit: int = 60) -> str:
    """Text echoed in a message, cut so that one hostile value cannot flood the output."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _refused_tag(node: yaml.Node, doc: Document, mark: Mark) -> bool:
    """Report an explicit tag outside plain YAML types. Checked on every node, collections
    and quoted strings too: `!!python/object/apply` on a list is how an unsafe loader is
    made to run code, and `!include "x"` on a quoted string would otherwise pass as text."""
    if node.tag in _ALLOWED_TAGS:
        return False
    if isinstance(node, yaml.ScalarNode) and node.value in ("=", "<<"):
        # YAML 1.1 gives these two plain values a tag of their own, unasked.
        doc.problems.append(
            Diagnostic(mark, "yaml-tag", f"the unquoted value '{node.value}' has a special "
                       "meaning in YAML", f"put it in quotes: '{node.value}'")
        )
        return True
    tag = _shorten(node.tag.replace("tag:yaml.org,2002:", "!!"))
    doc.problems.append(
        Diagnostic(
            mark,
            "yaml-tag",
            f"the YAML tag '{tag}' is not allowed in records",
            "remove the tag; records hold plain strings, numbers, lists and mappings",
        )
    )
    return True


def _scalar(node: yaml.ScalarNode, doc: Document, mark: Mark) -> Any:
    tag, value = node.tag, node.value
    if node.style:  # quoted or block scalars are always strings
        return value
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
            doc.problems.append(
                Diagnostic(
                    mark,
                    "not-json",
                    f"the number {_shorten(value)} is too large to store as JSON",
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
