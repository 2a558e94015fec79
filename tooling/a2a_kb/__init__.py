"""a2a-kb: a source-anchored knowledge base about the A2A protocol's task lifecycle.

The Python API mirrors the command line::

    import a2a_kb
    kb = a2a_kb.load()              # validated records; kb.problems lists what is wrong
    result = a2a_kb.verdicts(kb)    # a verdict, message and evidence for every claim
    table = a2a_kb.state_table(kb, "1.0.0")
    changes = a2a_kb.compare(kb, "0.3.0", "1.0.0")

The names differ from the submodules (check, states, diff) on purpose. Imports are
deferred so that light commands (`a2a-kb query`) start fast.
"""

from __future__ import annotations

from .version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .knowledge.check import CheckResult
    from .knowledge.diff import DiffResult
    from .records.kb import KnowledgeBase


def load(root: str | Path | None = None) -> KnowledgeBase:
    """Load and validate the knowledge base at `root` (default: found from the cwd).

    Problems in the records do not raise: they are in `kb.problems` as diagnostics.
    """
    from pathlib import Path

    from .project import Project
    from .records.validate import validate

    return validate(Project.find(Path(root) if root else None))


def verdicts(kb: KnowledgeBase, *, strict: bool = False) -> CheckResult:
    """Compute every claim's verdict against the cached sources (see
    [`a2a_kb.knowledge.check`][a2a_kb.knowledge.check])."""
    from .knowledge.check import check as run

    return run(kb, strict=strict)


def state_table(kb: KnowledgeBase, version: str = "latest") -> dict[str, Any]:
    """The TaskState table of `version`: numbers, spellings per binding, class per source."""
    from .knowledge.states import state_table as table

    return table(kb, version)


def compare(kb: KnowledgeBase, old: str, new: str) -> DiffResult:
    """Every lifecycle change between two versions (see [`a2a_kb.knowledge.diff`][a2a_kb.knowledge.diff])."""
    from .knowledge.diff import diff as run

    return run(kb, old, new)


__all__ = ["__version__", "compare", "load", "state_table", "verdicts"]
