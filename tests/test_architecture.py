"""The layout of docs/architecture.md, checked on the source: arrows only downward, no
import cycle, small files in ``tables/``, and game names compared only inside ``games/``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from playtable import games

PACKAGE = Path(__file__).resolve().parent.parent / "playtable"

#: Which rooms each room may import from (besides itself). ``cli`` and ``web`` sit on top.
ALLOWED: dict[str, set[str]] = {
    "games": set(),
    "ai": {"games"},
    "pictures": {"games"},
    "store": {"games", "settings"},
    "bus": {"games", "aio", "outages"},
    "tables": {"games", "ai", "store", "bus", "aio", "outages", "settings", "worker_process"},
    "web": {"games", "ai", "store", "bus", "tables", "pictures", "aio", "logs", "settings"}
    | {"worker_process"},
    "cli": {"games", "ai", "store", "bus", "tables", "web", "pictures", "access_log", "aio"}
    | {"logs", "preflight", "settings"},
    "settings": set(),  # the PLAYTABLE_* variables, read with one-line errors
    "outages": set(),  # an outage logged when it begins and when it ends
    "preflight": {"store", "logs", "settings"},  # what `serve` checks before it starts
    "access_log": set(),  # the server's log filter, beside cli.py
    "logs": {"access_log"},  # how the server logs (its format, its levels), beside cli.py
    "worker_process": set(),  # a spawned worker's first act: the standard library only
    "aio": set(),  # stopping background tasks for certain (Python 3.11's lost cancellations)
    "i18n": set(),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, name: str) -> Iterator[str]:
    """Every ``playtable`` module that the file imports, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target
            for alias in node.names:
                yield f"{target}.{alias.name}"


def room(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = {t for t in imports_of(path, name) if t in known and t != name}
        # Importing a submodule imports its packages: the package's __init__ is a dependency
        # only where it is named itself, so drop the parents of deeper imports.
        edges[name] = targets
    return edges


def test_every_import_points_downward() -> None:
    wrong = []
    for name, targets in graph().items():
        source = room(name)
        for target in targets:
            goal = room(target)
            if goal and goal != source and goal not in ALLOWED.get(source, set()):
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_no_import_cycle() -> None:
    edges = graph()
    # Package __init__ modules re-export their submodules; an edge from a package to its own
    # submodule is the package's face, not a dependency that could close a cycle.
    for name, targets in edges.items():
        edges[name] = {t for t in targets if not t.startswith(name + ".")}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert cycles == []


def test_the_table_service_files_stay_small() -> None:
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in (PACKAGE / "tables").glob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 450} == {}


@pytest.mark.parametrize("folder", ["ai", "pictures", "tables", "web", "store", "bus"])
def test_no_game_name_is_compared_as_a_string_outside_the_games(folder: str) -> None:
    names = set(games.registry())
    found = []
    for path in (PACKAGE / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for operand in [node.left, *node.comparators]:
                    if isinstance(operand, ast.Constant) and operand.value in names:
                        found.append(f"{path.name}:{node.lineno}")
    assert found == []
