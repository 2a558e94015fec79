"""The fetch stage: the one HTTP client, fetching verified copies of the pinned sources into
the content-addressed cache (`a2a_kb.cache`, a top-level module: every stage reads
it), and upstream as it is now: watch, pin, add-version.

May import: the top-level modules, `a2a_kb.records`, and `a2a_kb.extract` (watch,
pin and add-version read live tag lists and branch heads with the git-refs extractor).
"""
