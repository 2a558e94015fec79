"""Where each member of a JSON document sits in its text.

The json module parses values but forgets positions, and a permalink needs exact lines.
`locate` walks the same text once more and records, for every JSON pointer (a tuple
of keys and array indexes), the line of its key (or of the value itself for array items
and the root) and the line where its value ends. Call it only on text that `json.loads`
accepted: it checks no more of the grammar than it needs to find its way.
"""

from __future__ import annotations

import bisect
import json
import re

Pointer = tuple[str | int, ...]
Span = tuple[int, int]

_SPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


class _Walk:
    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.spans: dict[Pointer, Span] = {}

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def skip(self, offset: int) -> int:
        match = _SPACE.match(self.text, offset)
        return match.end() if match else offset

    def expect(self, offset: int, char: str) -> int:
        if self.text[offset : offset + 1] != char:
            raise ValueError(f"expected {char!r} at line {self.line(offset)}")
        return offset + 1

    def string(self, offset: int) -> tuple[str, int]:
        """The string starting at `offset` (decoded) and the offset just after it."""
        match = _STRING.match(self.text, offset)
        if not match:
            raise ValueError(f"expected a string at line {self.line(offset)}")
        literal = match.group(0)
        # Without an escape, a JSON string's text is its value (json.loads accepted it, so
        # it holds no raw control character): most keys, and far cheaper than decoding.
        value = literal[1:-1] if "\\" not in literal else str(json.loads(literal))
        return value, match.end()

    def value(self, offset: int, pointer: Pointer, first_line: int) -> int:
        """Record the span of the value at `offset`; return the offset just after it."""
        char = self.text[offset : offset + 1]
        if char == "{":
            end = self.members(offset + 1, pointer)
        elif char == "[":
            end = self.items(offset + 1, pointer)
        elif char == '"':
            end = self.string(offset)[1]
        else:
            match = _SCALAR.match(self.text, offset)
            if not match:
                raise ValueError(f"unexpected {char!r} at line {self.line(offset)}")
            end = match.end()
        self.spans[pointer] = (first_line, self.line(end - 1))
        return end

    def members(self, offset: int, pointer: Pointer) -> int:
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "}":
            return offset + 1
        while True:
            key_line = self.line(offset)
            if self.text[offset : offset + 1] != '"':
                raise ValueError(f"expected a key at line {key_line}")
            key, offset = self.string(offset)
            offset = self.skip(self.expect(self.skip(offset), ":"))
            offset = self.skip(self.value(offset, (*pointer, key), key_line))
            if self.text[offset : offset + 1] == ",":
                offset = self.skip(offset + 1)
                continue
            return self.expect(offset, "}")

    def items(self, offset: int, pointer: Pointer) -> int:
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "]":
            return offset + 1
        index = 0
        while True:
            offset = self.skip(self.value(offset, (*pointer, index), self.line(offset)))
            index += 1
            if self.text[offset : offset + 1] == ",":
                offset = self.skip(offset + 1)
                continue
            return self.expect(offset, "]")


def locate(text: str) -> dict[Pointer, Span]:
    """Every pointer of the JSON document in `text` → (first line, last line), 1-based.

    Examples:
        >>> spans = locate('{\\n  "a": [\\n    1,\\n    2\\n  ]\\n}')
        >>> spans[("a",)], spans[("a", 1)], spans[()]
        ((2, 5), (4, 4), (1, 6))
    """
    walk = _Walk(text)
    start = walk.skip(0)
    walk.value(start, (), walk.line(start))
    return walk.spans
