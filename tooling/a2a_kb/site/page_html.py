"""Last touches to each page's HTML, after the theme wrote it: what the theme leaves out.

* **Diagrams.** A `mermaid` fence becomes `<div class="kb-diagram">` holding the
  diagram's source as text (`diagram_fence`, named in mkdocs.yml), not the theme's
  `pre.mermaid`, which would load Mermaid at once on every page. A page holding one gets
  `DIAGRAMS_JS`, deferred, told where the vendored Mermaid is
  relative to the page; it draws each diagram as it comes into view.
* **The search dialog** gets a name, so that a screen reader announces what opened.
* **The search worker** named in the theme's configuration is
  `SEARCH_WORKER`, which loads the theme's worker and gives it the
  index's documents when a reader first searches (see `kb-search.js`): a page's load
  handles only the index's configuration.
* **Navigation sections** with an index page: the theme labels each section's list by its
  expand button, which holds only an icon, so every such list had the same empty name; the
  button gets its section's name as text for screen readers.

Pure: a page's HTML in, the same HTML with those tags out.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from markupsafe import escape

from . import paths

DIAGRAM_BLOCK = '<div class="kb-diagram">'
SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
NAMED_SEARCH_DIALOG = SEARCH_DIALOG.replace('role="dialog"', 'role="dialog" aria-label="Search the site"')


# The theme's worker in the page's configuration: `"search": "../assets/…/search.<hash>.min.js"`
# (`/a2a-kb/assets/…` on the 404 page, which may be served at any depth).
# The site's worker lives beside it.
_THEME_WORKER = re.compile(r'("search": ")([^"]*?)' + re.escape(posixpath.dirname(paths.SEARCH_WORKER))
                           + r'/(search\.[0-9a-f]+\.min\.js)"')


def _kb_worker(m: re.Match[str]) -> str:
    return f'{m.group(1)}{m.group(2)}{paths.SEARCH_WORKER}?theme={m.group(3)}"'


# The link to a section's index page, then the button that expands the section; the
# section's title is text the theme has escaped already.
_SECTION_BUTTON = re.compile(
    r'(<a href="[^"]*" class="md-nav__link[^"]*">\s*<span class="md-ellipsis">\s*)([^<]*?)(\s*</span>\s*</a>'
    r'\s*<label class="md-nav__link[^"]*" for="(__nav_[0-9_]+)" id="\4_label" tabindex="0">)')


def _named_section(m: re.Match[str]) -> str:
    title = " ".join(m.group(2).split())
    return f'{m.group(1)}{m.group(2)}{m.group(3)}<span class="kb-sr-only">{title}: pages</span>'


def diagram_fence(source: str, language: str, css_class: str, options: Any, md: Any, **kwargs: Any) -> str:
    """pymdownx.superfences' format for `mermaid` fences: the source, escaped, as text."""
    return f'{DIAGRAM_BLOCK}{escape(source)}</div>'


def _relative(target: str, page_url: str) -> str:
    """`target` (a path in the site) as a link from the page at `page_url`."""
    base = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url) + "/"
    return posixpath.relpath(target, base.rstrip("/") or ".")


def loader_tag(page_url: str) -> str:
    script = _relative(paths.DIAGRAMS_JS, page_url)
    mermaid = _relative(paths.MERMAID_JS, page_url)
    return f'<script src="{script}" data-mermaid="{mermaid}" defer></script>'


def with_loader(html: str, page_url: str) -> str:
    """`html` with the diagram loader before `</head>` if it holds a diagram, else as is
    (a page replayed from the previous build has it already)."""
    tag = loader_tag(page_url)
    if DIAGRAM_BLOCK not in html or "</head>" not in html or tag in html:
        return html
    return html.replace("</head>", tag + "\n</head>", 1)


def finish(html: str, page_url: str, diagrams: bool = True) -> str:
    """Every last touch: the named search dialog and section buttons, the site's search
    worker, and the diagram loader where it is needed."""
    html = html.replace(SEARCH_DIALOG, NAMED_SEARCH_DIALOG, 1)
    html = _THEME_WORKER.sub(_kb_worker, html, count=1)
    html = _SECTION_BUTTON.sub(_named_section, html)
    return with_loader(html, page_url) if diagrams else html
