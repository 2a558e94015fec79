"""Renderers: pure functions from `SiteData` to page text.

Each module renders one family of pages and returns `(src_uri, content)` pairs; the
registry in `a2a_kb.site.pages` calls them all.
"""
