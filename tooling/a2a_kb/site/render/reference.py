"""The Python API reference: one mkdocstrings block per public module of the pipeline."""

from __future__ import annotations

# The modules a tool would import, in pipeline order (load → validate → check → render).
PUBLIC_MODULES = (
    ("a2a_kb.project", "Where a knowledge base lives"),
    ("a2a_kb.records.kb", "The knowledge base as typed records"),
    ("a2a_kb.records.model", "Record types"),
    ("a2a_kb.records.validate", "Load and validate"),
    ("a2a_kb.records.rules", "The cross-record rules of validation"),
    ("a2a_kb.facts", "Facts and their vocabulary"),
    ("a2a_kb.knowledge.check", "Verdicts"),
    ("a2a_kb.knowledge.states", "State tables"),
    ("a2a_kb.knowledge.diff", "Differences between versions"),
    ("a2a_kb.knowledge.lifecycle", "The lifecycle model"),
    ("a2a_kb.knowledge.conflicts", "The conflict register"),
    ("a2a_kb.knowledge.query", "Queries over claims"),
    ("a2a_kb.site.macros", "Citation macros"),
    ("a2a_kb.site.build", "Building the site"),
)


def page() -> str:
    out = [
        "# Python API",
        "",
        "The library behind the `a2a-kb` command works without it. A typical session:",
        "",
        "```python",
        "from a2a_kb.project import Project",
        "from a2a_kb.records.validate import validate",
        "from a2a_kb.knowledge.check import check",
        "from a2a_kb.knowledge import states",
        "",
        "kb = validate(Project.find())        # every record, with its problems",
        "result = check(kb)                    # a verdict per claim",
        "table = states.state_table(kb, \"latest\")",
        "```",
        "",
    ]
    for module, title in PUBLIC_MODULES:
        # The heading's id is the module's name: a docstring's [`facts`][a2a_kb.facts] lands here.
        out += [f"## {title} {{#{module}}}", "", f"::: {module}", ""]
    return "\n".join(out)
