"""The layers of the code import one way, with no cycles and no reaching into another
module's private names (docs/architecture.md draws the same picture).

Every import counts, including those inside functions and under TYPE_CHECKING: a
cycle hidden in a function is still a cycle a reader has to untangle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "grammar", "moderator")

# What each layer may import (besides itself and the standard library or third parties).
# The service's layers from the top: cli > service > desk > reports > mail > base.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "grammar": {"engine"},
    "moderator.base": {"engine"},  # config, store, crash
    "moderator.mail": {"moderator.base"},
    "moderator.reports": {"engine", "moderator.base", "moderator.mail"},
    "moderator.desk": {"engine", "grammar", "moderator.base", "moderator.mail",
                       "moderator.reports"},
    "moderator.service": {"engine", "grammar", "moderator.base", "moderator.mail",
                          "moderator.desk"},
    "moderator.cli": {"engine", "grammar", "moderator.base", "moderator.mail",
                      "moderator.reports", "moderator.desk", "moderator.service"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for top in PACKAGES for p in (ROOT / top).rglob("*.py")}


def _imports(path: Path, name: str, modules: dict[str, Path]
             ) -> list[tuple[str, tuple[str, ...]]]:
    """(imported module, names taken from it) for every import of the project's own."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:  # `from moderator.desk import timekeeper`
                    found.append((sub, ()))
                else:
                    found.append((base, (alias.name,)))
    return [(m, names) for m, names in found if m.split(".")[0] in PACKAGES]


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "moderator":
        return parts[0]
    if len(parts) == 1 or parts[1] in ("config", "store", "crash"):
        return "moderator.base"
    return f"moderator.{parts[1]}"


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {m for m, _ in _imports(path, name, modules) if m in modules}
    return graph


#: Where cycles and private imports are checked. The engine's rules modules still import
#: each other both ways (rules <-> board, rounds); untangling them is engine work.
CHECKED = ("grammar", "moderator")


def test_no_import_cycles() -> None:
    graph = {name: {m for m in imports if m.startswith(CHECKED)}
             for name, imports in _graph().items() if name.startswith(CHECKED)}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    # A package's __init__ importing its own modules is not a cycle of concepts.
    cycles = [c for c in cycles if not all(m.startswith(c[0] + ".") or m == c[0]
                                           for m in c)]
    assert cycles == []


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_one_way(layer: str) -> None:
    modules = _modules()
    wrong = []
    for name, path in modules.items():
        if _layer(name) != layer:
            continue
        for imported, _ in _imports(path, name, modules):
            other = _layer(imported)
            if other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{name} imports {imported}")
    assert wrong == []


def test_no_module_takes_another_modules_private_names() -> None:
    modules = _modules()
    wrong = [f"{name} takes {imported}.{n}"
             for name, path in modules.items() if name.startswith(CHECKED)
             for imported, names in _imports(path, name, modules)
             for n in names if n.startswith("_") and imported != name]
    assert wrong == []


def test_the_engine_core_asks_the_rules_and_knows_no_title() -> None:
    """Only the registry (`engine.titles`) names a title module; the core asks `Rules`."""
    modules = _modules()
    wrong = [f"{name} imports {imported}"
             for name, path in modules.items()
             if name.startswith("engine") and not name.startswith("engine.titles")
             for imported, _ in _imports(path, name, modules)
             if imported.startswith("engine.titles.")]
    assert wrong == []
