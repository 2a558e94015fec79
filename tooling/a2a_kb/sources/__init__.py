"""The fetch stage: the one HTTP client, the content-addressed cache, and fetching
verified copies of the pinned sources into it.

May import: the top-level modules and :mod:`a2a_kb.records`.
"""
