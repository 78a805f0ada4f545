"""The map picture's modules (moderator/reports/mapimage/) import one way, by layer of the
picture, and the service takes only the package's names, so the package may be
rearranged inside without touching its importers."""

from __future__ import annotations

import ast
from pathlib import Path

import moderator.reports.mapimage as mapimage

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "moderator" / "reports" / "mapimage"
NAME = "moderator.reports.mapimage"

#: Bottom first, as the package's docstring lists them: each imports only those before it.
ORDER = ("sametitle", "style", "geometry", "board", "painter", "png", "track", "stations",
         "hexes", "labels", "paint", "plate")


def _imported(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names) of every `from X import ...` and `import X` in PATH."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert not node.level, f"{path}: a relative import"
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
    return found


def test_every_module_has_its_place() -> None:
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert modules == sorted(ORDER)


def test_the_modules_import_only_those_below() -> None:
    wrong = []
    for place, module in enumerate(ORDER):
        for imported, names in _imported(PACKAGE / f"{module}.py"):
            if imported == NAME:
                wrong.append(f"{module} imports the package itself: {names}")
            elif imported.startswith(NAME + "."):
                other = imported.removeprefix(NAME + ".")
                if ORDER.index(other) >= place:
                    wrong.append(f"{module} imports {other}")
    assert wrong == []


def test_the_service_and_the_tools_take_the_packages_names() -> None:
    public = set(mapimage.__all__)
    assert {"render_map", "map_plate", "MapPlate", "changed_hexes"} <= public
    assert all(hasattr(mapimage, name) for name in public)
    paths = [*(ROOT / "moderator").rglob("*.py"), *(ROOT / "tools").rglob("*.py")]
    wrong = []
    for path in sorted(p for p in paths if PACKAGE not in p.parents):
        for imported, names in _imported(path):
            if imported == NAME:
                wrong += [f"{path.relative_to(ROOT)} takes {n}" for n in names
                          if n not in public]
            elif imported.startswith(NAME + "."):
                wrong.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert wrong == []
