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


#: Where cycles and private imports are checked: everywhere.
CHECKED = ("engine", "grammar", "moderator")

#: The engine's layers, bottom first (docs/architecture.md draws the same picture). A
#: module is in the layer of its longest matching entry (`engine.rounds.base` is "rules",
#: `engine.rounds.stock` "rounds"); it may import its own layer and those below.
ENGINE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("data", ("engine.errors", "engine.geometry", "engine.title", "engine.tiles",
              "engine.actions", "engine.citations", "engine.market", "engine.state")),
    ("state", ("engine.track", "engine.prices", "engine.walks")),
    ("rules", ("engine.rules", "engine.rounds.base")),
    ("mechanics", ("engine.shares", "engine.trains", "engine.board", "engine.loans",
                   "engine.routes", "engine.optimizer", "engine.national",
                   "engine.dividends")),
    ("rounds", ("engine.rounds",)),
    ("family", ("engine.family",)),
    ("titles", ("engine.titles",)),
    ("game", ("engine.game", "engine.legal", "engine.views", "engine.defaults")),
    # The 18xx.games records in and out, above everything they read and write.
    ("records", ("engine.records",)),
)
LAYER_NAMES = tuple(name for name, _ in ENGINE_LAYERS)

#: Package `__init__`s that hold only a docstring, in no layer.
ENGINE_UNLAYERED = ("engine", "engine.rounds")

def _engine_layer(module: str) -> str | None:
    """The layer of an engine module (its longest matching entry), or None."""
    best: tuple[int, str] | None = None
    for layer, prefixes in ENGINE_LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[0]):
                best = (len(prefix), layer)
    return best[1] if best else None


def _engine_imports() -> dict[tuple[str, str], None]:
    """Every (importer, imported) pair between engine modules, in file order."""
    modules = _modules()
    return {(name, imported): None
            for name, path in sorted(modules.items()) if name.startswith("engine")
            for imported, _ in _imports(path, name, modules)
            if imported in modules and imported != name and imported.startswith("engine")}


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


def _private_attributes(path: Path, modules: dict[str, Path]) -> list[str]:
    """`module._name` read off a project module the file imported whole (`from engine
    import legal`, `import engine.legal as legal`): a private name taken by attribute."""
    tree = ast.parse(path.read_text(), str(path))
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {alias.asname: alias.name for alias in node.names
                      if alias.asname and alias.name in modules}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            bound |= {alias.asname or alias.name: f"{node.module}.{alias.name}"
                      for alias in node.names if f"{node.module}.{alias.name}" in modules}
    return [f"{path.relative_to(ROOT)}:{node.lineno} takes {bound[node.value.id]}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in bound and node.attr.startswith("_")
            and not node.attr.startswith("__")]


def test_no_module_takes_another_modules_private_names_by_attribute() -> None:
    # The differential tools under tools/ too: they use the engine's public names only.
    modules = _modules()
    paths = [*(p for name, p in modules.items() if name.startswith(CHECKED)),
             *(ROOT / "tools").rglob("*.py")]
    wrong = [found for path in sorted(paths) for found in _private_attributes(path, modules)]
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


# --- the engine's layers ------------------------------------------------------------------

def test_every_engine_module_has_a_layer() -> None:
    # A new module is placed on purpose, not by a default.
    unplaced = [name for name in _modules() if name.startswith("engine")
                and name not in ENGINE_UNLAYERED and _engine_layer(name) is None]
    assert unplaced == []


def test_the_unlayered_packages_hold_only_a_docstring() -> None:
    modules = _modules()
    for name in ENGINE_UNLAYERED:
        body = ast.parse(modules[name].read_text()).body
        assert len(body) == 1 and isinstance(body[0], ast.Expr), name


@pytest.mark.parametrize("layer", LAYER_NAMES)
def test_the_engine_imports_downward(layer: str) -> None:
    wrong = []
    for name, imported in _engine_imports():
        if _engine_layer(name) != layer or name in ENGINE_UNLAYERED:
            continue
        other = _engine_layer(imported)
        assert other is not None, imported
        if LAYER_NAMES.index(other) > LAYER_NAMES.index(layer):
            wrong.append(f"{name} imports {imported} ({other} > {layer})")
    assert wrong == []


def test_the_rules_stand_on_data_and_state() -> None:
    # The rule a newcomer looks for, said once: `Rules` (the title's settings and hooks)
    # sits below every mechanic and round that asks it.
    below = {"data", "state"}
    wrong = [imported for name, imported in _engine_imports()
             if name == "engine.rules"
             and _engine_layer(imported) not in below and imported != "engine.rounds.base"]
    assert wrong == []


#: The interop's modules a tool or the service may name besides the package itself: the
#: site's forms of a title, asked by the differential tools about the site's engine.
RECORDS_PUBLIC_MODULES = ("engine.records.forms_1825", "engine.records.forms_1861")


def _records_public_names() -> set[str]:
    tree = ast.parse(_modules()["engine.records"].read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {ast.literal_eval(e) for e in node.value.elts}
    raise AssertionError("engine/records/__init__.py has no __all__")


def test_the_interop_stands_apart() -> None:
    """The 18xx.games records in and out: no other engine module imports them, and the
    service and the tools take only the package's public names (and the per-title forms
    modules), so the package may be rearranged inside without touching them."""
    modules = _modules()
    public = _records_public_names()
    assert public
    inward = [f"{name} imports {imported}" for name, imported in _engine_imports()
              if imported.startswith("engine.records")
              and not (name == "engine.records" or name.startswith("engine.records."))]
    assert inward == []
    users = [*((name, path) for name, path in modules.items() if not name.startswith("engine")),
             *((_module_name(path), path) for path in (ROOT / "tools").rglob("*.py"))]
    wrong = []
    for name, path in sorted(users):
        for imported, names in _imports(path, name, modules):
            if imported == "engine.records":
                wrong += [f"{name} takes engine.records.{n}" for n in names if n not in public]
            elif imported.startswith("engine.records.") and imported not in RECORDS_PUBLIC_MODULES:
                wrong.append(f"{name} imports {imported}")
    assert wrong == []
