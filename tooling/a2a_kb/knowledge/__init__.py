"""The check stage and what answers questions from its facts: verdicts, state tables,
diffs, queries, the lifecycle model and the conflict register.

May import: :mod:`a2a_kb.records`, :mod:`a2a_kb.sources`, :mod:`a2a_kb.extract` and the
top-level modules. Kept empty: ``a2a-kb query`` imports :mod:`.query` on its fast path.
"""
