"""The package's folders are the pipeline's stages; each may import only what its
docstring says. This reads every import with ``ast`` and fails on one that crosses a line
the docstrings do not allow, so the layout cannot drift from what it claims."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from a2a_kb.site import package_graph

PACKAGE = Path(__file__).resolve().parents[1] / "tooling" / "a2a_kb"
TOP = {"errors", "diagnostics", "layout", "project", "output", "facts", "commit", "seal", "cache", "version",
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


# --- The floors: import-linter's contracts (pyproject.toml) are the oracle; the drawing on
# Quality > Structure (a2a_kb.site.package_graph) must agree with them, planted faults too.

REPO = PACKAGE.parents[1]
LINT_IMPORTS = REPO / ".cache" / "tools" / "import-linter" / "bin" / "lint-imports"


def _contracts(pyproject: Path) -> dict[str, dict]:
    config = tomllib.loads(pyproject.read_text("utf-8"))["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _lint_imports(repo: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS.exists(), "import-linter is not installed: run `make import-linter`"
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(repo / "tooling")}, timeout=120)


def test_the_drawing_has_the_floors_of_the_import_linter_contract() -> None:
    layers = _contracts(REPO / "pyproject.toml")["floors"]["layers"]
    drawn = [(" | " if alone else " : ").join(f"a2a_kb.{r}" for r in rooms)
             for rooms, alone in package_graph.FLOORS[1:]]
    assert layers == ["a2a_kb.cli", *drawn]
    assert package_graph.FLOORS[0][0] == ("a2a_kb", "cli")  # the package root: the Python API


def test_import_linter_and_the_drawing_both_find_nothing_against_the_floors() -> None:
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout
    drawing = package_graph.draw(PACKAGE)
    assert drawing.against == [] and drawing.cycles == []
    placed = {room.name for rooms, _ in drawing.floors for room in rooms}
    rooms = {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert placed == rooms - {"__init__"} | {"a2a_kb"}


def test_a_planted_upward_import_and_cycle_are_found_by_both(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE, tmp_path / "tooling" / "a2a_kb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    planted = tmp_path / "tooling" / "a2a_kb"  # records and capture share a floor, behind a wall
    with (planted / "records" / "urls.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef _planted() -> None:\n    from ..capture import transcript  # noqa: F401\n")
    with (planted / "layout.py").open("a", encoding="utf-8") as f:
        f.write("\nfrom . import output  # noqa: F401\n")
    with (planted / "output.py").open("a", encoding="utf-8") as f:
        f.write("\nfrom . import layout  # noqa: F401\n")
    drawing = package_graph.draw(planted)
    against = [(i.module, i.target) for i in drawing.against]
    assert against == [("a2a_kb.records.urls", "a2a_kb.capture.transcript")]
    assert drawing.cycles == [["a2a_kb.layout", "a2a_kb.output"]]
    result = _lint_imports(tmp_path)
    assert result.returncode == 1
    assert "2 broken" in result.stdout
    assert "a2a_kb.records.urls -> a2a_kb.capture.transcript" in result.stdout
    assert "- .output -> .layout (1 import)" in result.stdout


def test_every_module_over_the_limit_says_why_it_is_long() -> None:
    drawing = package_graph.draw(PACKAGE)
    silent = [f"{name} ({lines} lines)" for name, lines, why in drawing.long if not why]
    assert not silent, (f"over {package_graph.LONG} lines with no '{package_graph.WHY_LONG}' "
                        "paragraph in the module docstring (split it, or say why not):\n" + "\n".join(silent))
    assert all(len(why) > 60 for _, _, why in drawing.long)
