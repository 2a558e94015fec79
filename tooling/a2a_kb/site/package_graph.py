"""The a2a_kb package's own imports, read with `ast`: the floors it is built in, the imports
that go against them, the cycles among modules of one folder, and the modules that run long.

The floors are those of the import-linter contract in pyproject.toml ([tool.importlinter],
`id = "floors"`); tests/test_layering.py holds `FLOORS` to that contract and this
module's counts to import-linter's own verdict, so the drawing on Quality > Structure cannot
say "0" while the oracle says otherwise. Like import-linter, an import inside a function
counts (it is still a dependency) and one under `if TYPE_CHECKING:` does not.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = "a2a_kb"
# Top floor first. A floor's rooms may import each other unless the floor is independent
# ("|" in the contract); the package root (the Python API) shares the top floor with the CLI.
FLOORS: tuple[tuple[tuple[str, ...], bool], ...] = (
    ((ROOT, "cli"), False),
    (("site",), False),
    (("knowledge",), False),
    (("sources",), False),
    (("extract",), False),
    (("capture", "records"), True),
    (("cache", "commit", "diagnostics", "errors", "facts", "layout", "output", "project",
      "schemas", "seal", "version"), False),
)
LONG = 400  # lines; a module over this says why in a docstring paragraph starting "Why it is long:"
WHY_LONG = "Why it is long:"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted
    line: int


@dataclass
class Room:
    name: str  # a top-level module or package of a2a_kb, or a2a_kb itself for the root
    modules: int = 0
    lines: int = 0
    imports_from: dict[str, int] = field(default_factory=dict)  # room → imports


@dataclass
class Drawing:
    floors: list[tuple[list[Room], bool]]
    against: list[Import]  # imports that go up a floor or across an independent one
    cycles: list[list[str]]  # each a set of sibling modules or packages that import round
    long: list[tuple[str, int, str]]  # (module, lines, why) for modules over LONG lines
    modules: int
    imports: int


def package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def _module_names(root: Path) -> dict[str, Path]:
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [ROOT, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import of a2a_kb's own modules by one module, resolved to a module name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in _walk(ast.parse(path.read_text("utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:  # `from . import paths` imports a module, not a name
                sub = f"{module}.{alias.name}"
                targets.append(sub if sub in modules else module)
        else:
            targets = [alias.name for alias in node.names]
        found += [Import(name, t, node.lineno) for t in dict.fromkeys(targets)
                  if (t == ROOT or t.startswith(ROOT + ".")) and t in modules and t != name]
    return found


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _cycles(edges: list[Import], modules: dict[str, Path]) -> list[list[str]]:
    """Strongly connected groups of siblings, in every package: an import from anywhere under
    sibling A to anywhere under sibling B is an edge A → B, as in acyclic_siblings."""
    packages = [m for m, p in modules.items() if p.name == "__init__.py"]
    found = []
    for package in packages:
        depth = package.count(".") + 1
        graph: dict[str, set[str]] = defaultdict(set)
        for edge in edges:
            a, b = edge.module.split("."), edge.target.split(".")
            if len(a) <= depth or len(b) <= depth or ".".join(a[:depth]) != package \
                    or ".".join(b[:depth]) != package or a[depth] == b[depth]:
                continue
            graph[a[depth]].add(b[depth])
        found += [[f"{package}.{n}" for n in sorted(group)] for group in _strong(graph) if len(group) > 1]
    return sorted(found)


def _strong(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def why_long(path: Path) -> str:
    """The module docstring's paragraph that says why it runs past `LONG` lines."""
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
    for paragraph in doc.split("\n\n"):
        if paragraph.strip().startswith(WHY_LONG):
            return " ".join(paragraph.strip().removeprefix(WHY_LONG).split())
    return ""


def draw(root: Path | None = None) -> Drawing:
    """The package's floors and rooms, with what goes against them."""
    root = root or package_dir()
    modules = _module_names(root)
    edges = [i for name, path in modules.items() for i in imports_of(name, path, modules)]
    floor_of = {room: n for n, (rooms, _) in enumerate(FLOORS) for room in rooms}
    independent = {n for n, (_, alone) in enumerate(FLOORS) if alone}
    rooms = {room: Room(room) for rooms, _ in FLOORS for room in rooms}
    for name, path in modules.items():
        room = rooms.setdefault(_room(name), Room(_room(name)))
        room.modules += 1
        room.lines += len(path.read_text("utf-8").splitlines())
    against = []
    for edge in edges:
        a, b = _room(edge.module), _room(edge.target)
        if a == b:
            continue
        rooms[a].imports_from[b] = rooms[a].imports_from.get(b, 0) + 1
        fa, fb = floor_of.get(a, -1), floor_of.get(b, -1)
        if fa < 0 or fb < 0 or fb < fa or (fa == fb and fa in independent):
            against.append(edge)
    unplaced = [r for r in rooms.values() if r.name not in floor_of]
    floors = [([rooms[r] for r in names], alone) for names, alone in FLOORS]
    if unplaced:  # a new top-level module nobody gave a floor: shown, and counted against
        floors.append((unplaced, False))
    long = [(name, n, why_long(path)) for name, path in modules.items()
            if (n := len(path.read_text("utf-8").splitlines())) > LONG]
    return Drawing(floors, against, _cycles(edges, modules), sorted(long, key=lambda x: -x[1]),
                   len(modules), len(edges))
