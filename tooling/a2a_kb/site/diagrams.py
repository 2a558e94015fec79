"""Which pages load the diagram script: those with a diagram, and no other.

A ``mermaid`` fence becomes ``<pre class="kb-diagram">`` (mkdocs.yml); a page holding one
gets :data:`~a2a_kb.site.paths.DIAGRAMS_JS`, deferred, told where the vendored Mermaid is
relative to the page. Pure: a page's HTML in, the same HTML (plus one tag) out.
"""

from __future__ import annotations

import posixpath

from . import paths

DIAGRAM_BLOCK = '<pre class="kb-diagram">'


def _relative(target: str, page_url: str) -> str:
    """``target`` (a path in the site) as a link from the page at ``page_url``."""
    base = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url) + "/"
    return posixpath.relpath(target, base.rstrip("/") or ".")


def loader_tag(page_url: str) -> str:
    script = _relative(paths.DIAGRAMS_JS, page_url)
    mermaid = _relative(paths.MERMAID_JS, page_url)
    return f'<script src="{script}" data-mermaid="{mermaid}" defer></script>'


def with_loader(html: str, page_url: str) -> str:
    """``html`` with the diagram loader before ``</head>`` if it holds a diagram, else as is
    (a page replayed from the previous build has it already)."""
    tag = loader_tag(page_url)
    if DIAGRAM_BLOCK not in html or "</head>" not in html or tag in html:
        return html
    return html.replace("</head>", tag + "\n</head>", 1)
