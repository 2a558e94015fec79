"""The fetch stage: the one HTTP client, the content-addressed cache, fetching verified
copies of the pinned sources into it, and upstream as it is now: watch, pin, add-version.

May import: the top-level modules, :mod:`a2a_kb.records`, and :mod:`a2a_kb.extract` (watch,
pin and add-version read live tag lists and branch heads with the git-refs extractor).
"""
