"""The package's folders are the pipeline's stages; each may import only what its
docstring says. This reads every import with ``ast`` and fails on one that crosses a line
the docstrings do not allow, so the layout cannot drift from what it claims."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tooling" / "a2a_kb"
TOP = {"errors", "diagnostics", "layout", "project", "output", "facts", "commit", "seal", "cache",
       "schemas", "a2a_kb"}

# stage → the stages (or single modules) it may import, besides itself and the top level.
ALLOWED: dict[str, set[str]] = {
    "records": set(),
    # watch, pin and add-version read live tag lists and branch heads with the git-refs
    # extractor: one reader of those answers, not a second one in the fetch stage.
    "sources": {"records", "extract"},
    "extract": {"records", "capture.transcript"},
    "knowledge": {"records", "sources", "extract"},
    "capture": set(),
    "site": {"records", "sources", "extract", "knowledge", "capture"},
}


def _imports(path: Path) -> list[tuple[int, str]]:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1]  # a module's package; for an __init__, the package itself
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
                names = [f"{module}.{a.name}" for a in node.names] if not node.module else [module]
            else:
                names = [node.module or ""]
            found += [(node.lineno, n) for n in names if n.startswith("a2a_kb")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("a2a_kb")]
    return found


def _allowed(stage: str, target: str) -> bool:
    parts = target.split(".")[1:]  # drop a2a_kb
    if stage in ("cli", "__init__"):  # the command line and the Python API use every stage
        return True
    if not parts or parts[0] in TOP or parts[0] == stage or parts[0].startswith("__"):
        return True
    if stage not in ALLOWED:  # a top-level module
        return False
    return any(target.startswith(f"a2a_kb.{a}") for a in ALLOWED[stage])


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_stage_imports_only_what_it_declares(path: Path) -> None:
    rel = path.relative_to(PACKAGE)
    stage = rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 else rel.stem
    bad = [f"{rel}:{line}: {target}" for line, target in _imports(path)
           if not _allowed(stage, target)]
    assert not bad, "imports across the stage lines:\n" + "\n".join(bad)


def test_top_level_modules_import_no_stage() -> None:
    for name in TOP - {"schemas", "a2a_kb"}:
        path = PACKAGE / f"{name}.py"
        stages = [t for _, t in _imports(path) if t.split(".")[1] in ALLOWED]
        assert not stages, f"{name}.py imports a stage: {stages}"


def test_every_stage_says_what_it_may_import() -> None:
    for stage in ALLOWED:
        doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text("utf-8")))
        assert doc and "May import" in doc, f"a2a_kb/{stage}/__init__.py does not say"
