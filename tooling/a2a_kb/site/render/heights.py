"""How tall a claim is on a phone before the browser has laid it out.

A claims file's page shows every claim of the file in full, up to sixty of them; a phone
that lays them all out at load blocks its main thread for half a second. So each article is
skipped until it comes near the screen (CSS `content-visibility: auto`) and stands in with
a placeholder height until then. Too small a placeholder, and a skipped claim's contents
spill over the next one (a pointer, or an accessibility checker, then finds links lying on
top of each other); too large, and the scroll bar misleads. `claim_height` gives an
upper bound for the narrowest phone the site is looked at (360 CSS px), read from the
article's own HTML: each block's text wrapped line by line with the advance widths of the
fonts the browsers there use (Arial's metrics, which Liberation Sans shares; a monospace
font at 0.6 em). tests/test_browser_site.py measures every article against it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html.parser import HTMLParser

# Advance widths in em of the printable ASCII characters, space to tilde (Arial's metrics).
_ASCII = (
    "0.278 0.278 0.355 0.556 0.556 0.889 0.667 0.191 0.333 0.333 0.389 0.584 0.278 0.333 0.278 0.278 "
    "0.556 0.556 0.556 0.556 0.556 0.556 0.556 0.556 0.556 0.556 0.278 0.278 0.584 0.584 0.584 0.556 "
    "1.015 0.667 0.667 0.722 0.722 0.667 0.611 0.778 0.722 0.278 0.5 0.667 0.556 0.833 0.722 0.778 "
    "0.667 0.778 0.722 0.667 0.611 0.722 0.667 0.944 0.667 0.667 0.611 0.278 0.278 0.278 0.469 0.556 "
    "0.333 0.556 0.556 0.5 0.556 0.556 0.278 0.556 0.556 0.222 0.222 0.5 0.222 0.833 0.556 0.556 "
    "0.556 0.556 0.333 0.5 0.278 0.556 0.5 0.722 0.5 0.5 0.5 0.334 0.26 0.334 0.584"
)
_WIDTH = dict(zip(map(chr, range(32, 127)), map(float, _ASCII.split()), strict=True))
_OTHER = 1.0  # any other character: as wide as the widest letter, so the bound holds
_MONO = 0.602
BOLD = 1.1  # bold type is this much wider, at most

# The phone: its column, in px, for each block of an article (360 px wide screen), and
# the sizes of type (px) the theme and kb.css set there.
STATEMENT_WIDTH = 297.0
QUOTE_WIDTH = 270.0
FACT_WIDTH = 216.0
SUMMARY_WIDTH = 219.0
TEXT, FACT, BADGE = 16.0, 14.4, 14.0
CODE = 0.85  # inline code, relative to the text around it
LINE = 1.6  # line height, relative to the type size
HEADER_LINE = 27.5
CHROME = 62.0  # the article's border, padding and margin, and the gaps between its blocks
QUOTE_CHROME = 26.0
SUMMARY_CHROME = 16.0
EM = 16.0  # what the placeholder's em is, in px (the article's own font size)


@dataclass
class _Block:
    runs: list[tuple[str, bool]] = field(default_factory=list)  # (text, is code)

    def add(self, text: str, code: bool) -> None:
        if text:
            self.runs.append((text, code))


@dataclass
class _Article:
    header: list[_Block] = field(default_factory=list)  # one block per flex item
    statement: _Block = field(default_factory=_Block)
    quote: _Block | None = None
    facts: list[tuple[_Block, _Block]] = field(default_factory=list)  # (dt, dd)
    summary: _Block = field(default_factory=_Block)


class _Reader(HTMLParser):
    """Collects the text of an article's blocks; what is inside the closed <details> below
    its summary is not shown, and not read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.article = _Article()
        self.stack: list[str] = []
        self.block: _Block | None = None
        self.code = 0
        self.in_details = False
        self.in_summary = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        depth = len(self.stack)
        self.stack.append(tag)
        a = self.article
        if tag == "code":
            self.code += 1
        if tag == "details":
            self.in_details = True
        elif tag == "summary" and self.in_details:
            self.in_summary = True
            self.block = a.summary
        elif self.in_details:
            return
        elif depth == 1 and tag == "p" and "kb-statement" in classes:
            self.block = a.statement
        elif depth == 1 and tag == "blockquote":
            self.block = a.quote = _Block()
        elif depth == 2 and self.stack[1] == "header" and tag in ("a", "span"):
            self.block = _Block()
            a.header.append(self.block)
        elif depth == 2 and self.stack[1] == "dl" and tag == "dt":
            self.block = _Block()
            a.facts.append((self.block, _Block()))
        elif depth == 2 and self.stack[1] == "dl" and tag == "dd" and a.facts:
            self.block = a.facts[-1][1]

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop() == tag:
                break
        if tag == "code":
            self.code = max(0, self.code - 1)
        if tag == "summary":
            self.in_summary = False
            self.block = None
        elif tag == "details":
            self.in_details = False
        elif len(self.stack) <= 1 or (len(self.stack) == 2 and self.stack[1] == "header"
                                      and tag in ("a", "span")):
            self.block = None

    def handle_data(self, data: str) -> None:
        if self.block is not None and (not self.in_details or self.in_summary):
            self.block.add(data, self.code > 0)


def _words(block: _Block, size: float, bold: bool = False) -> list[tuple[float, float]]:
    """Each piece of `block` a line may end after, as (its width, the width of what comes
    before it on the same line: a space, or nothing after a hyphen), in px."""
    words: list[tuple[float, float]] = []
    current, before = 0.0, 0.0
    space = _WIDTH[" "] * size * (BOLD if bold else 1.0)
    for text, code in block.runs:
        scale = (size * CODE if code else size) * (BOLD if bold and not code else 1.0)
        pad = 0.6 * scale if code else 0.0  # a code span's padding, on each line it is on
        for ch in text:
            if not current:
                current = pad
            if ch.isspace():
                if current > pad:
                    words.append((current, before))
                current, before = 0.0, space
                continue
            current += (_MONO if code else _WIDTH.get(ch, _OTHER)) * scale
            if ch == "-":  # a line may break after it
                words.append((current, before))
                current, before = 0.0, 0.0
        if current == pad:
            current = 0.0
    if current:
        words.append((current, before))
    return words


def lines(block: _Block, width: float, size: float, bold: bool = False) -> int:
    """How many lines `block` takes wrapped at `width` px. A piece too long for a line
    is broken anywhere (kb.css sets `overflow-wrap: anywhere` where such words occur); its
    last line is counted as full, since where it breaks depends on the font."""
    count, used = 0, 0.0
    for word, before in _words(block, size, bold):
        if count and used + before + word <= width:
            used += before + word
            continue
        if word > width:
            count += math.ceil(word / width)
            used = width
        else:
            count += 1
            used = word
    return max(count, 1)


def _header_lines(items: list[_Block]) -> int:
    """The header is a wrapping flex row: the claim's id, then its badges."""
    count, used = 1, 0.0
    gap = 0.4 * TEXT
    for i, item in enumerate(items):
        text = "".join(t for t, _ in item.runs).strip()
        if not text:
            continue
        if i == 0:
            width = sum(w + before for w, before in _words(item, TEXT)) + 4
        else:
            width = sum(_WIDTH.get(ch, _OTHER) for ch in text) * BADGE + 0.8 * BADGE + 2
        if used and used + gap + width > STATEMENT_WIDTH:
            count += 1
            used = 0.0
        if width > STATEMENT_WIDTH:  # the id breaks at its hyphens: its last line counts as full
            count += math.ceil(width / STATEMENT_WIDTH) - 1
            width = STATEMENT_WIDTH
        used += (gap if used else 0.0) + width
    return count


def claim_height(article_html: str) -> int:
    """An upper bound, in ems, of the height of one claim's article (its checks closed) on a
    360 px phone, read from the article's HTML."""
    reader = _Reader()
    reader.feed(article_html)
    reader.close()
    a = reader.article
    px = CHROME + _header_lines(a.header) * HEADER_LINE
    px += lines(a.statement, STATEMENT_WIDTH, TEXT) * TEXT * LINE
    if a.quote is not None:
        px += QUOTE_CHROME + lines(a.quote, QUOTE_WIDTH, 0.75 * 20) * 0.75 * 20 * LINE
    for dt, dd in a.facts:
        px += max(lines(dt, FACT_WIDTH, FACT), lines(dd, FACT_WIDTH, FACT)) * FACT * LINE + 1.5
    px += SUMMARY_CHROME + lines(a.summary, SUMMARY_WIDTH, FACT, bold=True) * FACT * LINE
    return math.ceil(px * 1.04 / EM)
