"""Renderers: pure functions from :class:`~a2a_kb.site.data.SiteData` to page text.

Each module renders one family of pages and returns ``(src_uri, content)`` pairs; the
registry in :mod:`a2a_kb.site.pages` calls them all.
"""
