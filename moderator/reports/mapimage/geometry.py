"""Where things go: hex ids and a hex's unit coordinates (its centre at 0,0, its corners
at distance 1, y downwards) turned into pixels (`MapGeometry`), a hex's sides and
corners, the sizes of what a hex holds (in hex radii), and the few vector sums the
layouts share."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from engine.geometry import parse_hex_id
from engine.title import LaneSpec, Title
from moderator.reports.mapimage.sametitle import title_keyed

Point = tuple[float, float]

SQRT3 = math.sqrt(3.0)
APOTHEM = SQRT3 / 2  # centre to edge midpoint, in units of the centre-to-corner radius

DEFAULT_RADIUS = 56
"""Centre-to-corner size of a hex in output pixels: place names come out at about
11 px, three-letter company symbols fit a token, and the largest map (1861) is about
1500 x 1200 pixels."""

SUPERSAMPLE = 2
"""Pillow draws lines, arcs and circles without anti-aliasing; drawing at twice the
size and reducing gives smooth track for a fraction of the cost of anything else."""

# Sizes inside a hex, in hex radii.
SLOT_RADIUS = 0.25  # a station circle: a token must hold a three-letter symbol
CROWDED_SLOT_RADIUS = 0.2  # in a hex of four or more cities (1825's London)
TRACK_WIDTH = 0.12
LANE_GAP = 0.19  # between the parallel tracks of a double-track side (1850's A2)
TOWN_DOT = 0.13
CITY_OFFSET = 0.5  # a city of a multi-city tile sits this far out toward its track
NAME_SIZE = 0.2
NAME_WIDTH = 1.55  # the widest a place name may be before it is shrunk
LABEL_SIZE = 0.28
BUBBLE = 0.15  # a revenue circle


@dataclass(frozen=True, slots=True)
class MapGeometry:
    """Where each hex of a title's map lands in the picture, in pixels.

    radius: centre-to-corner size of a hex; margin: the band round the grid holding
    the printed coordinates; rows/cols: the grid's extent in doubled coordinates
    (letters name rows in a pointy layout, columns in a flat one).
    """

    layout: str
    letters: str
    radius: float
    margin: float
    min_row: int
    max_row: int
    min_col: int
    max_col: int

    @property
    def col_step(self) -> float:
        return APOTHEM * self.radius if self.layout == "pointy" else 1.5 * self.radius

    @property
    def row_step(self) -> float:
        return 1.5 * self.radius if self.layout == "pointy" else APOTHEM * self.radius

    @property
    def half_width(self) -> float:
        return APOTHEM * self.radius if self.layout == "pointy" else self.radius

    @property
    def half_height(self) -> float:
        return self.radius if self.layout == "pointy" else APOTHEM * self.radius

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the map area (a caption band goes below it)."""
        w = 2 * (self.margin + self.half_width) + (self.max_col - self.min_col) * self.col_step
        h = 2 * (self.margin + self.half_height) + (self.max_row - self.min_row) * self.row_step
        return math.ceil(w), math.ceil(h)

    def row_col(self, hex_id: str) -> tuple[int, int]:
        return grid_position(self.letters, hex_id)

    def col_x(self, col: int) -> float:
        return self.margin + self.half_width + (col - self.min_col) * self.col_step

    def row_y(self, row: int) -> float:
        return self.margin + self.half_height + (row - self.min_row) * self.row_step

    def centre(self, hex_id: str) -> Point:
        return _centre(self, hex_id)

    def to_pixels(self, hex_id: str, unit: Point) -> Point:
        """A point given in the hex's unit coordinates, in pixels."""
        cx, cy = self.centre(hex_id)
        return (cx + unit[0] * self.radius, cy + unit[1] * self.radius)

    def edge_midpoint(self, hex_id: str, edge: int) -> Point:
        return self.to_pixels(hex_id, edge_point(self.layout, edge))

    def corners(self, hex_id: str, inset: float = 0.0) -> list[Point]:
        return [self.to_pixels(hex_id, p) for p in hex_corners(self.layout, 1.0 - inset)]

    def scaled(self, factor: float) -> MapGeometry:
        return MapGeometry(self.layout, self.letters, self.radius * factor,
                           self.margin * factor, self.min_row, self.max_row, self.min_col,
                           self.max_col)


@functools.lru_cache(maxsize=4096)
def _centre(geometry: MapGeometry, hex_id: str) -> Point:
    # Cached: every shape of a hex asks for its centre, and parsing the id is not free.
    row, col = geometry.row_col(hex_id)
    return (geometry.col_x(col), geometry.row_y(row))


def grid_position(letters: str, hex_id: str) -> tuple[int, int]:
    """(row, column) of a hex id in doubled coordinates; "@" is the row before "A"."""
    canonical = parse_hex_id(hex_id)
    letter, number = ord(canonical[0]) - ord("A"), int(canonical[1:])
    return (letter, number) if letters == "rows" else (number, letter)


@title_keyed
@functools.cache
def map_geometry(title: Title, radius: float = DEFAULT_RADIUS) -> MapGeometry:
    """The geometry ``render_map`` uses for ``title`` at ``radius`` pixels per hex."""
    positions = [grid_position(title.grid.letters, h) for h in title.hexes]
    rows = [r for r, _ in positions]
    cols = [c for _, c in positions]
    return MapGeometry(title.layout, title.grid.letters, float(radius), 0.5 * radius,
                       min(rows), max(rows), min(cols), max(cols))


def edge_angle(layout: str, edge: int) -> float:
    """Direction from a hex's centre to the midpoint of ``edge``, in degrees clockwise
    from east (screen coordinates, y downwards)."""
    return (120.0 if layout == "pointy" else 90.0) + 60.0 * (edge % 6)


def polar(angle: float, distance: float) -> Point:
    a = math.radians(angle)
    return (distance * math.cos(a), distance * math.sin(a))


def edge_point(layout: str, edge: int, lane: LaneSpec | None = None) -> Point:
    """Midpoint of ``edge`` in unit coordinates; for one lane of a double-track side,
    that lane's point on the side.

    Lane 0 is the clockwise end of the side and the others follow it counterclockwise,
    as 18xx.games draws the lanes the data copies (1850's B1: the track to the E side
    takes lane 0 of the NE side, the track to the SE side lane 1, and they do not
    cross)."""
    mid = polar(edge_angle(layout, edge), APOTHEM)
    if lane is None or lane.width <= 1:
        return mid
    along = polar(edge_angle(layout, edge) + 90.0, 1.0)  # clockwise along the side
    shift = ((lane.width - 1) / 2 - lane.index) * LANE_GAP
    return (mid[0] + along[0] * shift, mid[1] + along[1] * shift)


def hex_corners(layout: str, scale: float = 1.0) -> list[Point]:
    """The corners in unit coordinates; corner k lies between edges k and k+1."""
    return [polar(edge_angle(layout, e) + 30.0, scale) for e in range(6)]


# Sums of unit-coordinate vectors, shared by the track, station and text layouts.


def sub(a: Point, b: Point) -> Point:
    return (a[0] - b[0], a[1] - b[1])


def norm(p: Point) -> float:
    return math.hypot(p[0], p[1])


def unit(p: Point) -> Point:
    n = norm(p)
    return (p[0] / n, p[1] / n) if n > 1e-9 else (0.0, 0.0)


def scale(p: Point, k: float) -> Point:
    return (p[0] * k, p[1] * k)
