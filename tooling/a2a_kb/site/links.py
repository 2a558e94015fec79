"""Links between pages of the site, written relative so the site works from any base URL.

Generated pages put links in raw HTML, which MkDocs does not rewrite, so the URL of each
page is computed here the way MkDocs computes it (`use_directory_urls`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass


def page_url(src_uri: str, use_directory_urls: bool = True) -> str:
    """The URL path (relative to the site root) MkDocs gives the page `src_uri`."""
    stem, _ = posixpath.splitext(src_uri)
    if not use_directory_urls:
        return stem + ".html"
    if posixpath.basename(stem) in ("index", "README"):
        parent = posixpath.dirname(stem)
        return f"{parent}/" if parent else ""
    return stem + "/"


def asset_url(src_uri: str) -> str:
    """The URL path of a file that is copied as is (JSON, scripts)."""
    return src_uri


@dataclass(frozen=True)
class Linker:
    """Relative links from one page to other pages and files of the site."""

    here: str  # src_uri of the page being rendered, e.g. "states/1.0.0.md"
    use_directory_urls: bool = True

    def _base(self) -> str:
        url = page_url(self.here, self.use_directory_urls)
        return url if url.endswith("/") or not url else posixpath.dirname(url) + "/"

    def _relative(self, target: str) -> str:
        base = self._base().rstrip("/") or "."
        target_path = target.rstrip("/") or "."
        rel = posixpath.relpath(target_path, base)
        if target.endswith("/") or target == "":
            rel = "./" if rel == "." else rel + "/"
        return rel

    def page(self, src_uri: str, anchor: str = "") -> str:
        """A link to the page `src_uri` (`.md` path), optionally to an anchor on it."""
        if src_uri == self.here:
            return f"#{anchor}" if anchor else "./"
        rel = self._relative(page_url(src_uri, self.use_directory_urls))
        return f"{rel}#{anchor}" if anchor else rel

    def file(self, path: str) -> str:
        """A link to a file copied as is, e.g. `api/v1/claims.json`."""
        return self._relative(asset_url(path))

    def markdown_page(self, src_uri: str, anchor: str = "") -> str:
        """A link for Markdown text: MkDocs resolves (and checks) `.md` paths itself."""
        here_dir = posixpath.dirname(self.here) or "."
        rel = posixpath.relpath(src_uri, here_dir)
        return f"{rel}#{anchor}" if anchor else rel
