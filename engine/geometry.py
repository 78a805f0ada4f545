"""Hex-grid geometry: hex ids, edges, neighbours and rotation.

Pure functions over the conventions of the reference SCHEMA: a hex id is a letter
(or ``@``, the row above ``A`` on the 1851 map) followed by a number, laid out in
doubled coordinates, and edges are numbered 0..5 clockwise:

* pointy layout: 0 SW, 1 W, 2 NW, 3 NE, 4 E, 5 SE;
* flat layout:   0 S,  1 SW, 2 NW, 3 N, 4 NE, 5 SE.

Rotation ``r`` turns a tile ``r`` x 60 degrees clockwise, so edge ``e`` becomes
``(e + r) % 6``. Nothing here knows which hexes a title's map contains; callers
check membership themselves, which keeps "off the map" a map question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

Layout = Literal["pointy", "flat"]
Axis = Literal["rows", "columns"]

EDGES: tuple[int, ...] = (0, 1, 2, 3, 4, 5)

EDGE_NAMES: dict[str, tuple[str, ...]] = {
    "pointy": ("SW", "W", "NW", "NE", "E", "SE"),
    "flat": ("S", "SW", "NW", "N", "NE", "SE"),
}

# Offsets in doubled coordinates, as (row delta, column delta). In a pointy layout
# the column is the doubled axis (E/W neighbours are two columns apart); in a flat
# layout the row is (N/S neighbours are two rows apart).
_POINTY_DELTAS: tuple[tuple[int, int], ...] = (
    (1, -1),  # 0 SW
    (0, -2),  # 1 W
    (-1, -1),  # 2 NW
    (-1, 1),  # 3 NE
    (0, 2),  # 4 E
    (1, 1),  # 5 SE
)
_FLAT_DELTAS: tuple[tuple[int, int], ...] = (
    (2, 0),  # 0 S
    (1, -1),  # 1 SW
    (-1, -1),  # 2 NW
    (-2, 0),  # 3 N
    (-1, 1),  # 4 NE
    (1, 1),  # 5 SE
)

_ID_RE = re.compile(r"^\s*([@A-Za-z])\s*-?\s*(\d+)\s*$")
_OFF_GRID_RE = re.compile(r"^<(-?\d+),(-?\d+)>$")


@dataclass(frozen=True, slots=True)
class Grid:
    """How a title's hex ids map onto the hex grid.

    layout: "pointy" (a vertex at the top) or "flat" (an edge at the top).
    letters: which axis the letter of an id names, "rows" or "columns"; the number
        names the other axis.
    first_letter_index: the index given to "A" ("@" is one less); it only matters
        for the parity test of which ids exist.
    doubled: doubled coordinates, i.e. an id exists only where its letter index and
        its number have the same parity. Every supported title uses them.
    """

    layout: Layout = "pointy"
    letters: Axis = "rows"
    first_letter_index: int = 0
    doubled: bool = True


class HasGrid(Protocol):
    """Anything that carries a grid, such as a loaded Title."""

    @property
    def grid(self) -> Grid: ...


GridLike = Grid | HasGrid | Layout


def _as_grid(spec: GridLike) -> Grid:
    if isinstance(spec, Grid):
        return spec
    if spec == "pointy":
        return Grid("pointy", "rows")
    if spec == "flat":
        return Grid("flat", "columns")
    if isinstance(spec, str):
        raise ValueError(f"unknown layout {spec!r}; expected 'pointy' or 'flat'")
    return spec.grid


def parse_hex_id(text: str) -> str:
    """Return the canonical id ("H5") for a hex named as "H5", "H-5", "h5" or "H05".

    Players write ids the way the rules do ("H-5"); the engine keys hexes by the
    map's spelling, so every entry point normalises through here.
    """
    m = _ID_RE.match(text)
    if m is None:
        raise ValueError(f"not a hex id: {text!r} (expected a letter and a number, e.g. H5)")
    return f"{m.group(1).upper()}{int(m.group(2))}"


def _letter_index(letter: str) -> int:
    # "@" precedes "A" in ASCII, which is exactly 1851's row above A.
    return ord(letter) - ord("A")


def _position(hex_id: str) -> tuple[int, int]:
    """(letter index with A = 0, number) of a canonical or off-grid id."""
    off = _OFF_GRID_RE.match(hex_id)
    if off is not None:
        return int(off.group(1)), int(off.group(2))
    canonical = parse_hex_id(hex_id)
    return _letter_index(canonical[0]), int(canonical[1:])


def _name(letter_index: int, number: int) -> str:
    if -1 <= letter_index <= 25 and number >= 0:
        return f"{chr(ord('A') + letter_index)}{number}"
    # Not nameable with one letter and a non-negative number: still a distinct,
    # reversible id, and one no map can contain.
    return f"<{letter_index},{number}>"


def _row_col(grid: Grid, hex_id: str) -> tuple[int, int]:
    letter, number = _position(hex_id)
    return (letter, number) if grid.letters == "rows" else (number, letter)


def _from_row_col(grid: Grid, row: int, col: int) -> str:
    return _name(row, col) if grid.letters == "rows" else _name(col, row)


def _check_edge(edge: int) -> int:
    if not isinstance(edge, int) or isinstance(edge, bool) or not 0 <= edge <= 5:
        raise ValueError(f"edge must be an integer 0..5, not {edge!r}")
    return edge


def opposite(edge: int) -> int:
    """The edge number by which the neighbour across ``edge`` sees the shared side."""
    return (_check_edge(edge) + 3) % 6


def rotate_edge(edge: int, rotation: int) -> int:
    """Edge ``edge`` of a tile after turning it ``rotation`` x 60 degrees clockwise."""
    return (_check_edge(edge) + rotation) % 6


def neighbour(grid: GridLike, hex_id: str, edge: int) -> str:
    """The id of the hex across ``edge`` of ``hex_id``, whether or not it is on the map.

    ``grid`` is a Grid, anything with a ``grid`` attribute (a Title), or a bare
    layout name (pointy: letters are rows; flat: letters are columns). A position
    that cannot be written as one letter and a number comes back as "<letter,n>".
    """
    g = _as_grid(grid)
    row, col = _row_col(g, hex_id)
    deltas = _POINTY_DELTAS if g.layout == "pointy" else _FLAT_DELTAS
    dr, dc = deltas[_check_edge(edge)]
    return _from_row_col(g, row + dr, col + dc)


def neighbours(grid: GridLike, hex_id: str) -> tuple[str, ...]:
    """The six ids around ``hex_id``, indexed by edge."""
    return tuple(neighbour(grid, hex_id, e) for e in EDGES)


def edge_between(grid: GridLike, a: str, b: str) -> int | None:
    """The edge of ``a`` that it shares with ``b``, or None if they are not adjacent."""
    for e in EDGES:
        if neighbour(grid, a, e) == _canonical_or_off_grid(b):
            return e
    return None


def _canonical_or_off_grid(hex_id: str) -> str:
    return hex_id if _OFF_GRID_RE.match(hex_id) else parse_hex_id(hex_id)


def is_grid_position(grid: GridLike, hex_id: str) -> bool:
    """Whether ``hex_id`` names a cell of the grid (the doubled-coordinate parity)."""
    g = _as_grid(grid)
    letter, number = _position(hex_id)
    if not g.doubled:
        return True
    return (letter + g.first_letter_index - number) % 2 == 0


def distance(grid: GridLike, a: str, b: str) -> int:
    """Number of hex steps from ``a`` to ``b`` (1861 prices station markers by it)."""
    g = _as_grid(grid)
    ra, ca = _row_col(g, a)
    rb, cb = _row_col(g, b)
    if g.layout == "pointy":
        drow, dcol = abs(ra - rb), abs(ca - cb)
        return drow + max(0, (dcol - drow) // 2)
    # flat: the row is the doubled axis
    dcol, drow = abs(ca - cb), abs(ra - rb)
    return dcol + max(0, (drow - dcol) // 2)


def edge_name(grid: GridLike, edge: int) -> str:
    """Compass name of an edge ("SW", "N", ...) for messages to players."""
    return EDGE_NAMES[_as_grid(grid).layout][_check_edge(edge)]
