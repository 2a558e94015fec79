"""The check stage and what answers questions from its facts: verdicts, state tables,
diffs, queries, the lifecycle model and the conflict register.

May import: `a2a_kb.records`, `a2a_kb.sources`, `a2a_kb.extract` and the
top-level modules. Kept empty: `a2a-kb query` imports [`query`][a2a_kb.knowledge.query] on its fast path.
"""
