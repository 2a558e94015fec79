"""The words a source uses when it classifies a state, taken from the lines of the fact.

A state table shows a class next to each source: `interrupted` for the v0.2.5
specification, say. That source's table never uses the word: its `Terminal?` column says
"No (Pause)". So next to the class the site quotes the source's own words, read here from
the very lines the class fact was read from, and a test holds each quote to those lines.

The words are, in this order of preference:

- a Markdown table row: its last cell (the `Terminal?` column: "Yes", "No", "No (Pause)");
- a sentence that classifies in so many words: "This is an interrupted state", "(Terminal
  state)", "(Task is paused)", "not an interrupted or terminal state";
- the few words around "terminal", "interrupted" or "paused" (a prose list such as "a task
  which has reached a terminal state (completed, canceled, …").

The quote is verbatim once whitespace is folded and comment markers (`//`, `*`, `#`)
are taken off the line starts; `quoted_in` is the test's side of that promise.
"""

from __future__ import annotations

import re

from ..facts import Fact

_COMMENT = re.compile(r"^\s*(?:///?|/\*\*?|\*+/?|#+)\s?")
_SAYS_SO = re.compile(
    r"(?i)(?:this is )?not an? (?:interrupted|terminal) or (?:interrupted|terminal) state"
    r"|not an? (?:interrupted|terminal) state"
    r"|this is an? (?:interrupted|terminal) state"
    r"|\((?:terminal state|task is paused)\)"
    r"|effectively a terminal state[^)]*"
    r"|effectively paused")
_KEYWORD = re.compile(r"(?i)\b(?:terminal|interrupted|paused?)\b")
_AROUND = 5  # words kept on each side of a keyword


def fold(text: str) -> str:
    """Whitespace folded to single spaces."""
    return " ".join(text.split())


def passage(lines: list[str], fact: Fact) -> str:
    """The fact's lines as one string, comment markers off, whitespace folded."""
    chosen = lines[max(fact.line_start - 1, 0):fact.line_end]
    return fold(" ".join(_COMMENT.sub("", line) for line in chosen))


def class_words(lines: list[str], fact: Fact) -> str:
    """The source's own words for the class `fact` gives, or "" when its lines hold none.

    Examples:
        >>> f = Fact("state-class", "TaskState.input-required", "interrupted", line_start=1, line_end=1)
        >>> class_words(["| `input-required` | The task is effectively paused. | No (Pause) |"], f)
        'No (Pause)'
        >>> class_words(["// Waiting on the client. This is an interrupted state."], f)
        'This is an interrupted state'
    """
    if fact.line_start < 1 or fact.line_start > len(lines):
        return ""
    first = lines[fact.line_start - 1].strip()
    if first.startswith("|") and fact.line_start == fact.line_end:
        cells = [c.strip() for c in first.strip("|").split("|")]
        return cells[-1] if cells and cells[-1] else ""
    text = passage(lines, fact)
    said = _SAYS_SO.search(text)
    if said is not None:
        return said.group(0).strip()
    keyword = _KEYWORD.search(text)
    if keyword is None:
        return ""
    before = text[:keyword.start()].split()
    after = text[keyword.start():].split()
    return " ".join(before[-_AROUND:] + after[:_AROUND])


def quoted_in(words: str, lines: list[str], fact: Fact) -> bool:
    """Whether `words` stand, verbatim up to folded whitespace, in the fact's lines."""
    return bool(words) and fold(words) in passage(lines, fact)
