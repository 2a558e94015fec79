"""The load and validate stages: the strict YAML reader, the typed records, the knowledge
base they make up, and the rules that must hold across records.

May import: the top-level modules (errors, diagnostics, layout, project, output, facts, commit,
cache: dossier anchors are read from the fetched copy) and `a2a_kb.schemas`.
"""
