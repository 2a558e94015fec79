"""Escaping of knowledge-base text for each place it lands: HTML, Markdown, JSON, Mermaid,
and the theme's own blocks.

Claims are proposed by anyone, so their text is hostile until escaped. Generated pages put
record text either in raw HTML blocks (which Markdown leaves alone: HTML escaping is enough)
or in Markdown (headings, link text), where Markdown syntax must be neutralised as well.

The theme (mkdocs-material) then writes page and navigation titles into every page, and
treats them as HTML: it prints them unescaped, and for `<title>` and some attributes it
first applies Jinja's `striptags`, which drops tags *and turns entities back into
characters*. A version titled `</title><img src=x onerror=…>` reached the heading escaped,
and came out of `striptags` as live markup in `<title>`. So the theme's Jinja gets
`theme_text` as its `striptags` (tags dropped, entities read, the text escaped
again), and the string fields of a page's metadata that the theme prints raw are escaped by
`theme_meta`: every piece of KB text reaches HTML through `html` in the end.
"""

from __future__ import annotations

import json
import re
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup, escape

# The characters Python-Markdown (with the tables extension mkdocs.yml enables) lets a
# backslash escape; escaping them all means no link, attribute list, emphasis or table
# cell can be built from record text. `<`, `>` and `&` are left to HTML escaping:
# a backslash before them would show, and their entities are not Markdown syntax.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def html(text: Any) -> Markup:
    """Text for an HTML context."""
    return escape("" if text is None else str(text))


def theme_text(value: Any) -> Markup:
    """The plain text of an HTML fragment, escaped: what the theme's `striptags` must give.

    Jinja's own filter returns the text with its entities decoded (`&lt;` becomes `<`),
    which the theme then prints raw; this one hands back the same text escaped once.
    """
    return html(Markup("" if value is None else str(value)).striptags())


# Page metadata the theme prints without escaping (base.html, header, nav), in text or in an
# attribute. Titles and descriptions come from generated pages' front matter and from
# plugins; none of them is markup.
THEME_META_FIELDS = ("title", "description", "author", "subtitle")


def theme_meta(meta: MutableMapping[str, Any]) -> None:
    """Escape, in place, the metadata fields the theme prints raw (once: a Markup value is
    already escaped and is left alone)."""
    for key in THEME_META_FIELDS:
        value = meta.get(key)
        if isinstance(value, str) and not isinstance(value, Markup):
            meta[key] = html(value)


def prose(text: Any) -> Markup:
    """Record prose for an HTML context, with its `code spans` shown as code.

    Every piece, inside a span or not, is HTML-escaped; only the `<code>` tags are ours.
    """
    source = "" if text is None else str(text)
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(source):
        out.append(str(escape(source[last:m.start()])))
        out.append(f"<code>{escape(m.group(1))}</code>")
        last = m.end()
    out.append(str(escape(source[last:])))
    return Markup("".join(out))


def markdown(text: Any) -> Markup:
    """Text for a Markdown context (a heading, a link's text): inert as Markdown and HTML.

    Outside code spans, Markdown escaping comes first: done after HTML escaping it would
    break the `#` of the numeric entities that escaping writes (`&#39;`). Inside a code
    span the text is left to Markdown, which shows it literally and escapes it itself.
    """
    flat = " ".join(("" if text is None else str(text)).split())
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(flat):
        out.append(str(escape(_MARKDOWN_SPECIAL.sub(r"\\\1", flat[last:m.start()]))))
        out.append(f"`{m.group(1)}`")
        last = m.end()
    out.append(str(escape(_MARKDOWN_SPECIAL.sub(r"\\\1", flat[last:]))))
    return Markup("".join(out))


def safe_url(url: Any) -> str:
    """`url` if it is an https address (or a link inside the site), else `""`.

    Relative links come only from the renderers themselves; record URLs are https by
    validation, and anything else (`javascript:`, `data:`) is dropped, not linked.
    """
    text = "" if url is None else str(url).strip()
    if not text:
        return ""
    if any(ch in text for ch in "\"'<>` \t\r\n\\"):
        return ""
    parts = urlsplit(text)
    if parts.scheme == "https" and parts.netloc:
        return text
    if not parts.scheme and not parts.netloc and not text.startswith("//"):
        return text
    return ""


def script_json(value: Any) -> Markup:
    """JSON safe to place inside `<script type="application/json">`.

    `<`, `>` and `&` become \\u escapes so that no string in the data can close the
    script element or open a comment; JSON.parse reads them back unchanged.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


_MERMAID_ID = re.compile(r"[^a-z0-9_]")


def mermaid_id(name: Any) -> str:
    """A Mermaid state id from a state name: lowercase letters, digits and underscores only.

    Nothing else reaches a diagram, so no directive (`%%{init}%%`), `click` or label
    markup can come in through a record.
    """
    ident = _MERMAID_ID.sub("_", str(name).lower().replace("-", "_"))
    return ident if ident and ident[0].isalpha() else f"s_{ident}"
