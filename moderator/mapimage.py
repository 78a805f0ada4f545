"""Map pictures: the board of a game as a PNG, drawn with Pillow alone.

``render_map(title, board, ...)`` needs only the title data and the board (laid tiles
and station tokens), plus the current phase for phase-dependent values, so any title
can be drawn (even one whose rules are not implemented yet) and the mail reports can
call it without the rules. It returns PNG bytes and does no I/O besides reading the
fonts shipped in ``moderator/fonts``, which makes a picture identical on every machine.

Geometry follows the reference SCHEMA: hex ids in doubled coordinates, edges numbered
0..5 clockwise (pointy: 0 SW .. 5 SE; flat: 0 S .. 5 SE), rotation r turns edge e into
(e + r) % 6. Everything inside a hex is laid out in *unit* coordinates (the hex's
centre at 0,0 and its corners at distance 1, y downwards) by ``hex_drawing``; the
``MapGeometry`` turns hex ids and unit points into pixels. Tests use the same two
functions to know where a city or a track must appear.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Protocol

from PIL import Image, ImageDraw, ImageFont

from engine.geometry import parse_hex_id
from engine.state import PlacedTile
from engine.tiles import rotated_paths
from engine.title import (
    FrozenDict,
    HexSpec,
    Revenue,
    TileSpec,
    Title,
    endpoint_index,
    endpoint_kind,
)

if TYPE_CHECKING:
    from engine.game import Game

Point = tuple[float, float]
RGB = tuple[int, int, int]

SQRT3 = math.sqrt(3.0)
APOTHEM = SQRT3 / 2  # centre to edge midpoint, in units of the centre-to-corner radius

DEFAULT_RADIUS = 56
"""Centre-to-corner size of a hex in output pixels: city names at about 11 px and a
late 1861 map at about 1500 x 1200 pixels, which stays well under 300 KB."""

SUPERSAMPLE = 2
"""Pillow draws lines, arcs and circles without anti-aliasing; drawing at twice the
size and reducing gives smooth track for a fraction of the time of any other way."""

# --------------------------------------------------------------------------- colours

HEX_FILL: dict[str, str] = {
    "white": "#f3efdc",  # the printed map's paper
    "yellow": "#f6dc3c",
    "green": "#74bb52",
    "brown": "#c4864e",
    "gray": "#b9b9b9",
    "red": "#d9372e",
    "blue": "#8fc3e8",
}
"""Hex and tile colours, close to the printed maps' so a player recognises them."""

PHASE_COLOUR: dict[str, str] = {**HEX_FILL, "white": "#ffffff"}
BACKGROUND = "#ffffff"
TRACK = "#1b1b1b"
OUTLINE = "#6b6b6b"
HIGHLIGHT = "#e0119d"  # magenta: no tile, track or company uses it
BORDER = "#1f5fb4"  # impassable sides are the broad rivers of the printed maps
MOUNTAIN = "#8b5a2b"
WATER = "#2a7bc8"
INK = "#111111"

COMPANY_COLOURS: dict[tuple[str, str], str] = {
    # 18TN, 1850, 1861 and 1825: the colours of the public 18xx.games data.
    ("18TN", "SR"): "#f1d500",
    ("18TN", "GMO"): "#d81e1e",
    ("18TN", "L&N"): "#1f4fd1",
    ("18TN", "IC"): "#1d8a2a",
    ("18TN", "NC&StL"): "#f28c12",
    ("18TN", "TC"): "#111111",
    ("1850", "CBQ"): "#8c8c7e",
    ("1850", "MILW"): "#c45114",
    ("1850", "RI"): "#881319",
    ("1850", "GN"): "#6fb3c4",
    ("1850", "KATY"): "#006521",
    ("1850", "MP"): "#181d62",
    ("1850", "NP"): "#1c1a17",
    ("1850", "SOO"): "#c40017",
    ("1850", "UP"): "#b6ad14",
    ("1825", "LNWR"): "#000000",
    ("1825", "GWR"): "#004225",
    ("1825", "GER"): "#191970",
    ("1825", "LSWR"): "#d0f0c0",
    ("1825", "SECR"): "#ffef00",
    ("1825", "LBSC"): "#ffa500",
    ("1861", "NW"): "#000080",
    ("1861", "SW"): "#d75500",
    ("1861", "SE"): "#772282",
    ("1861", "MVR"): "#808000",
    ("1861", "MK"): "#7b352a",
    ("1861", "GRR"): "#ef4223",
    ("1861", "MKN"): "#0189d1",
    ("1861", "MKV"): "#3c7b5c",
    ("1861", "R-O"): "#009595",
    ("1861", "K-B"): "#4cb5d2",
    ("1861", "O-K"): "#0097df",
    ("1861", "K-K"): "#0097df",
    ("1861", "SP-W"): "#0189d1",
    ("1861", "M-B"): "#000080",
    ("1861", "K-R"): "#772282",
    ("1861", "N"): "#d30869",
    ("1861", "D"): "#f3716d",
    ("1861", "M-K"): "#d75500",
    ("1861", "M-NN"): "#ef4223",
    ("1861", "M-V"): "#b7274c",
    ("1861", "V"): "#7c7b8c",
    ("1861", "T-R"): "#7c7b8c",
    ("1861", "S-V"): "#7c7b8c",
    ("1861", "E"): "#000080",
    ("1861", "RSR"): "#fffdd0",
    # 1851 is not on 18xx.games: its companies that also run in 18TN keep their 18TN
    # colours (the Dixie Line is the NC&StL's nickname).
    ("1851", "GM&O"): "#d81e1e",
    ("1851", "IC"): "#1d8a2a",
    ("1851", "L&N"): "#1f4fd1",
    ("1851", "Dixie"): "#f28c12",
    ("1851", "SR"): "#f1d500",
    ("1851", "TC"): "#111111",
}

_FALLBACK_COLOURS = ("#7a3d9a", "#2e8b8b", "#b03060", "#556b2f", "#4682b4", "#cd853f")


def company_colour(title: Title, sym: str) -> str:
    """The colour of company ``sym``'s tokens (any of its abbreviations)."""
    try:
        spec = title.corporation(sym)
    except KeyError:
        return _FALLBACK_COLOURS[0]
    colour = COMPANY_COLOURS.get((title.name, spec.sym))
    if colour is not None:
        return colour
    # A title added later still gets distinct colours until the table names them.
    return _FALLBACK_COLOURS[title.corporations.index(spec) % len(_FALLBACK_COLOURS)]


def rgb(colour: str) -> RGB:
    """"#rrggbb" as a tuple, for comparing pixels."""
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = rgb(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


# --------------------------------------------------------------------------- fonts

FONT_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}


@functools.cache
def _font_bytes(weight: str) -> bytes:
    return resources.files("moderator").joinpath("fonts", FONT_FILES[weight]).read_bytes()


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans at ``size`` pixels (never a system font)."""
    return ImageFont.truetype(io.BytesIO(_font_bytes("bold" if bold else "regular")),
                              max(1, size))


# --------------------------------------------------------------------------- geometry


@dataclass(frozen=True, slots=True)
class MapGeometry:
    """Where each hex of a title's map lands in the picture, in pixels.

    radius: centre-to-corner size of a hex; margin: the band around the grid that
    holds the printed coordinates; rows/cols: the grid's extent in doubled coordinates
    (letters are rows in a pointy layout, columns in a flat one).
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
        """Width and height of the map area (the caption band is added below it)."""
        w = 2 * self.margin + (self.max_col - self.min_col) * self.col_step + 2 * self.half_width
        h = 2 * self.margin + (self.max_row - self.min_row) * self.row_step + 2 * self.half_height
        return math.ceil(w), math.ceil(h)

    def row_col(self, hex_id: str) -> tuple[int, int]:
        return grid_position(self.letters, hex_id)

    def col_x(self, col: int) -> float:
        return self.margin + self.half_width + (col - self.min_col) * self.col_step

    def row_y(self, row: int) -> float:
        return self.margin + self.half_height + (row - self.min_row) * self.row_step

    def centre(self, hex_id: str) -> Point:
        row, col = self.row_col(hex_id)
        return (self.col_x(col), self.row_y(row))

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


def grid_position(letters: str, hex_id: str) -> tuple[int, int]:
    """(row, column) of a hex id in doubled coordinates; "@" is the row before "A"."""
    canonical = parse_hex_id(hex_id)
    letter, number = ord(canonical[0]) - ord("A"), int(canonical[1:])
    return (letter, number) if letters == "rows" else (number, letter)


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


def _polar(angle: float, distance: float) -> Point:
    a = math.radians(angle)
    return (distance * math.cos(a), distance * math.sin(a))


def edge_point(layout: str, edge: int) -> Point:
    """Midpoint of ``edge`` in unit coordinates."""
    return _polar(edge_angle(layout, edge), APOTHEM)


def hex_corners(layout: str, scale: float = 1.0) -> list[Point]:
    return [_polar(edge_angle(layout, e) + 30.0, scale) for e in range(6)]


# --------------------------------------------------------------------------- board input


class BoardLike(Protocol):
    """What the renderer reads of a board (``engine.state.Board`` has both)."""

    @property
    def tiles(self) -> Mapping[str, PlacedTile]: ...

    @property
    def tokens(self) -> Mapping[str, Mapping[int, Sequence[str]]]: ...


@dataclass(frozen=True, slots=True)
class BoardView:
    """A board given by its parts, for a position that no GameState holds (an empty
    starting map of a title without rules, or a test)."""

    tiles: Mapping[str, PlacedTile]
    tokens: Mapping[str, Mapping[int, Sequence[str]]]


EMPTY_BOARD = BoardView(FrozenDict(), FrozenDict())


def changed_hexes(before: BoardLike, after: BoardLike) -> frozenset[str]:
    """Hexes whose tile or station tokens differ between two positions: what a
    player's report highlights as new since the last one."""
    out = set()
    for hex_id in set(before.tiles) | set(after.tiles):
        if before.tiles.get(hex_id) != after.tiles.get(hex_id):
            out.add(hex_id)
    for hex_id in set(before.tokens) | set(after.tokens):
        old = {c: list(s) for c, s in before.tokens.get(hex_id, {}).items() if s}
        new = {c: list(s) for c, s in after.tokens.get(hex_id, {}).items() if s}
        if old != new:
            out.add(hex_id)
    return frozenset(out)


# --------------------------------------------------------------------------- hex content

SLOT_RADIUS = 0.25
"""A station circle, in hex radii: a token must hold a three-letter symbol."""
TRACK_WIDTH = 0.12
TOWN_DOT = 0.13
CITY_OFFSET = 0.5  # a city of a multi-city tile sits this far out toward its track


@dataclass(frozen=True, slots=True)
class CityMark:
    """A city drawn in a hex: its centre (unit coordinates), station spaces, value."""

    index: int
    centre: Point
    slots: int
    revenue: Revenue

    def slot_centre(self, slot: int) -> Point:
        dx, dy = slot_offsets(self.slots)[slot]
        return (self.centre[0] + dx, self.centre[1] + dy)

    @property
    def extent(self) -> float:
        """Distance from the centre to the far side of the station circles."""
        return max(math.hypot(dx, dy) for dx, dy in slot_offsets(self.slots)) + SLOT_RADIUS


@dataclass(frozen=True, slots=True)
class TownMark:
    """A town: a bar across its track (``bar_angle``, degrees) or a dot (None)."""

    index: int
    centre: Point
    bar_angle: float | None
    revenue: Revenue


@dataclass(frozen=True, slots=True)
class Track:
    """One track segment as a polyline in unit coordinates; ``arrow``: it ends in an
    off-board area and is drawn as the printed maps' tapered arrow."""

    points: tuple[Point, ...]
    arrow: bool = False


@dataclass(frozen=True, slots=True)
class HexDrawing:
    """Everything drawn in one hex, in unit coordinates."""

    hex_id: str
    fill: str
    tile_name: str | None  # the laid tile's number, printed small in a corner
    tracks: tuple[Track, ...]
    cities: tuple[CityMark, ...]
    towns: tuple[TownMark, ...]
    offboard: Revenue | None
    label: str | None


def slot_offsets(slots: int) -> tuple[Point, ...]:
    """Centres of a city's station circles around the city's centre: one circle, two
    side by side, three in a triangle, four in a square (as printed on the tiles)."""
    r = SLOT_RADIUS
    if slots <= 1:
        return ((0.0, 0.0),)
    if slots == 2:
        return ((-r, 0.0), (r, 0.0))
    if slots == 3:
        return ((0.0, -2 * r / SQRT3), (-r, r / SQRT3), (r, r / SQRT3))
    if slots == 4:
        return ((-r, -r), (r, -r), (-r, r), (r, r))
    ring = r / math.sin(math.pi / slots)
    return tuple(_polar(-90.0 + 360.0 * k / slots, ring) for k in range(slots))


def _sub(a: Point, b: Point) -> Point:
    return (a[0] - b[0], a[1] - b[1])


def _norm(p: Point) -> float:
    return math.hypot(p[0], p[1])


def _unit(p: Point) -> Point:
    n = _norm(p)
    return (p[0] / n, p[1] / n) if n > 1e-9 else (0.0, 0.0)


def _arc(centre: Point, radius: float, start: float, end: float, steps: int) -> list[Point]:
    # The short way round from start to end (both in degrees).
    sweep = (end - start + 180.0) % 360.0 - 180.0
    return [(centre[0] + radius * math.cos(math.radians(start + sweep * i / steps)),
             centre[1] + radius * math.sin(math.radians(start + sweep * i / steps)))
            for i in range(steps + 1)]


def edge_to_edge(layout: str, a: int, b: int) -> tuple[Point, ...]:
    """Track between two sides as on the printed tiles: straight across for opposite
    sides, a gentle curve (radius 1.5, centred on the hex beyond the side between
    them) for sides two apart, a sharp curve (radius 0.5, centred on their shared
    corner) for adjacent sides. Each meets its side square on, so track runs on
    smoothly into the next hex."""
    ma, mb = edge_point(layout, a), edge_point(layout, b)
    diff = (b - a) % 6
    if diff == 3:
        return (ma, mb)
    if diff in (1, 5):
        first = a if diff == 1 else b
        centre = _polar(edge_angle(layout, first) + 30.0, 1.0)
        radius, steps = 0.5, 10
    else:
        middle = a + 1 if diff == 2 else a - 1
        centre = _polar(edge_angle(layout, middle), SQRT3)
        radius, steps = 1.5, 10
    start = math.degrees(math.atan2(ma[1] - centre[1], ma[0] - centre[0]))
    end = math.degrees(math.atan2(mb[1] - centre[1], mb[0] - centre[0]))
    return tuple(_arc(centre, radius, start, end, steps))


def _along(points: Sequence[Point], t: float) -> tuple[Point, Point]:
    """The point at fraction ``t`` of a polyline's length, and the direction there."""
    lengths = [_norm(_sub(q, p)) for p, q in zip(points, points[1:], strict=False)]
    goal = t * sum(lengths)
    for (p, q), seg in zip(zip(points, points[1:], strict=False), lengths, strict=True):
        if goal <= seg or seg == lengths[-1]:
            f = goal / seg if seg else 0.0
            return (p[0] + f * (q[0] - p[0]), p[1] + f * (q[1] - p[1])), _unit(_sub(q, p))
        goal -= seg
    return points[-1], _unit(_sub(points[-1], points[-2]))


def content_of(title: Title, hex_id: str, placed: PlacedTile | None) -> tuple[TileSpec | None,
                                                                              int, str]:
    """The tile in effect on a hex (laid, or the printed content), its rotation and its
    colour."""
    spec = title.hexes[hex_id]
    if placed is not None:
        tile = title.tile(placed.name)
        return tile, placed.rotation % 6, tile.color
    return spec.tile, 0, spec.color


@functools.cache
def hex_drawing(title: Title, hex_id: str, placed: PlacedTile | None) -> HexDrawing:
    """Lay out one hex: where its track, cities and towns go (unit coordinates).

    A lone city or town sits in the middle with straight track out to its sides; the
    cities of a multi-city tile sit toward their own sides; a town on a line through
    the hex is a bar across that line at its middle, any other town a dot.
    """
    spec = title.hexes[hex_id]
    tile, rotation, colour = content_of(title, hex_id, placed)
    label = tile.label if tile is not None and placed is not None else spec.label
    if tile is None:
        return HexDrawing(hex_id, colour, None, (), (), (), None, label)
    layout = title.layout
    paths = rotated_paths(tile, rotation)

    def edges_of(stop: str) -> list[int]:
        out = []
        for p in paths:
            if p.a == stop and endpoint_kind(p.b) == "e":
                out.append(endpoint_index(p.b))
            elif p.b == stop and endpoint_kind(p.a) == "e":
                out.append(endpoint_index(p.a))
        return out

    def other_ends(stop: str) -> list[str]:
        return [p.b if p.a == stop else p.a for p in paths if stop in (p.a, p.b)]

    tracks: list[Track] = []
    towns: list[TownMark] = []
    positions: dict[str, Point] = {}

    # Towns on a line through the hex: a bar on the line's middle.
    through: list[tuple[int, tuple[Point, ...]]] = []
    for k, _town in enumerate(tile.towns):
        stop = f"t{k}"
        ends = other_ends(stop)
        sides = edges_of(stop)
        if len(ends) == 2 and len(sides) == 2:
            through.append((k, edge_to_edge(layout, sides[0], sides[1])))
    bar_spots: list[Point] = []
    for n, (k, line) in enumerate(through):
        t = 0.5
        centre, direction = _along(line, t)
        if any(_norm(_sub(centre, other)) < 0.3 for other in bar_spots):
            # Two lines crossing in the middle (tiles 55, 1): move this bar along its
            # line so the two towns stay apart, as the printed tiles do.
            t = 0.25 if n % 2 else 0.75
            centre, direction = _along(line, t)
        bar_spots.append(centre)
        tracks.append(Track(line))
        angle = math.degrees(math.atan2(direction[1], direction[0])) + 90.0
        towns.append(TownMark(k, centre, angle, tile.towns[k].revenue))
        positions[f"t{k}"] = centre
    through_towns = {k for k, _ in through}

    edge_paths = [p for p in paths if endpoint_kind(p.a) == "e" and endpoint_kind(p.b) == "e"]
    bypass = [edge_to_edge(layout, endpoint_index(p.a), endpoint_index(p.b))
              for p in edge_paths]
    tracks.extend(Track(line) for line in bypass)

    # Every other stop: cities, dot towns, the off-board centre, junctions.
    stops = [f"c{k}" for k in range(len(tile.cities))]
    stops += [f"t{k}" for k in range(len(tile.towns)) if k not in through_towns]
    extents = {f"c{k}": CityMark(k, (0.0, 0.0), c.slots, c.revenue).extent
               for k, c in enumerate(tile.cities)}
    lone = len(stops) == 1 and not through_towns
    unplaced: list[str] = []
    for stop in stops:
        sides = edges_of(stop)
        pull = (sum(edge_point(layout, e)[0] for e in sides),
                sum(edge_point(layout, e)[1] for e in sides))
        if lone:
            positions[stop] = _clear_of(bypass, extents.get(stop, TOWN_DOT))
        elif sides and _norm(pull) > 0.3:
            reach = min(CITY_OFFSET, APOTHEM - extents.get(stop, TOWN_DOT) - 0.06)
            positions[stop] = _scale(_unit(pull), reach)
        else:
            unplaced.append(stop)
    for stop in unplaced:
        positions[stop] = _free_spot(list(positions.values()),
                                     extents.get(stop, TOWN_DOT))
    for k in range(len(tile.offboards)):
        positions[f"o{k}"] = (0.0, 0.0)
    for p in paths:
        for end in (p.a, p.b):
            if endpoint_kind(end) == "j":
                positions.setdefault(end, (0.0, 0.0))

    for p in paths:
        kinds = endpoint_kind(p.a), endpoint_kind(p.b)
        if kinds == ("e", "e"):
            continue
        if any(k == "t" and endpoint_index(end) in through_towns
               for k, end in zip(kinds, (p.a, p.b), strict=True)):
            continue
        a = edge_point(layout, endpoint_index(p.a)) if kinds[0] == "e" else positions[p.a]
        b = edge_point(layout, endpoint_index(p.b)) if kinds[1] == "e" else positions[p.b]
        if kinds[0] != "e" and kinds[1] == "e":
            a, b = b, a  # edge first, so an arrow points inward
        if "o" in kinds:
            # Off-board track stops short of the middle, where the values are printed.
            b = (a[0] + (b[0] - a[0]) * 0.55, a[1] + (b[1] - a[1]) * 0.55)
            tracks.append(Track(_lanes(a, b, p.lanes)[0], arrow=True))
            for extra in _lanes(a, b, p.lanes)[1:]:
                tracks.append(Track(extra, arrow=True))
        else:
            tracks.extend(Track(line) for line in _lanes(a, b, p.lanes))

    cities = tuple(CityMark(k, positions[f"c{k}"], c.slots, c.revenue)
                   for k, c in enumerate(tile.cities))
    for k, town in enumerate(tile.towns):
        if k not in through_towns:
            towns.append(TownMark(k, positions[f"t{k}"], None, town.revenue))
    towns.sort(key=lambda t: t.index)
    offboard = spec.offboard if tile.offboards else None
    if offboard is None and tile.offboards:
        offboard = tile.offboards[0].revenue
    return HexDrawing(hex_id, colour, placed.name if placed else None, tuple(tracks),
                      cities, tuple(towns), offboard, label)


def _scale(p: Point, k: float) -> Point:
    return (p[0] * k, p[1] * k)


def _lanes(a: Point, b: Point, lanes: int) -> list[tuple[Point, ...]]:
    """``lanes`` parallel straight tracks from a to b (1850's double track)."""
    if lanes <= 1:
        return [(a, b)]
    d = _unit(_sub(b, a))
    normal = (-d[1], d[0])
    gap = TRACK_WIDTH * 1.6
    out = []
    for i in range(lanes):
        off = (i - (lanes - 1) / 2) * gap
        out.append(((a[0] + normal[0] * off, a[1] + normal[1] * off),
                    (b[0] + normal[0] * off, b[1] + normal[1] * off)))
    return out


def _clear_of(lines: Sequence[Sequence[Point]], extent: float) -> Point:
    """Where a hex's only city goes: the middle, unless track that bypasses it (18TN's
    Louisville) runs there; then far enough the other way that the two do not touch."""
    if not lines:
        return (0.0, 0.0)
    nearest = min((q for line in lines for q in line), key=_norm)
    distance = _norm(nearest)
    need = extent + TRACK_WIDTH
    if distance >= need:
        return (0.0, 0.0)
    away = _scale(_unit(nearest), -1.0) if distance > 1e-6 else (0.0, -1.0)
    return _scale(away, min(need - distance, 0.35))


def _free_spot(taken: Sequence[Point], extent: float) -> Point:
    """A place for a city or town with no track of its own (the printed OO cities,
    twin towns): as far from the others as the hex allows, west-east first."""
    reach = min(CITY_OFFSET, APOTHEM - extent - 0.06)
    candidates = [_polar(a, reach) for a in (180.0, 0.0, 270.0, 90.0, 240.0, 300.0,
                                             120.0, 60.0, 210.0, 330.0, 150.0, 30.0)]
    if not taken:
        return candidates[0]
    return max(candidates, key=lambda c: min(_norm(_sub(c, t)) for t in taken))


# --------------------------------------------------------------------------- public helpers


def city_centre(geometry: MapGeometry, title: Title, board: BoardLike, hex_id: str,
                city: int) -> Point:
    """Pixel centre of city ``city`` of a hex, as ``render_map`` draws it."""
    drawing = hex_drawing(title, hex_id, board.tiles.get(hex_id))
    return geometry.to_pixels(hex_id, drawing.cities[city].centre)


def slot_centre(geometry: MapGeometry, title: Title, board: BoardLike, hex_id: str,
                city: int, slot: int) -> Point:
    """Pixel centre of station space ``slot`` of a city: where a token is drawn."""
    drawing = hex_drawing(title, hex_id, board.tiles.get(hex_id))
    return geometry.to_pixels(hex_id, drawing.cities[city].slot_centre(slot))


def current_phase_key(title: Title, revenue: Revenue, phase: str | None) -> str | None:
    """Which printed value of a phase-dependent revenue is in force (None before any
    phase is known: the first one)."""
    if not isinstance(revenue, FrozenDict):
        return None
    order = [k for k in title.phase_keys if k in revenue] or list(revenue)
    if phase is None:
        return order[0]
    key = title.phase(phase).offboard_key
    if key is None or key not in title.phase_keys:
        return order[0]
    position = title.phase_keys.index(key)
    reached = [k for k in order if k in title.phase_keys
               and title.phase_keys.index(k) <= position]
    return reached[-1] if reached else order[0]


def _key_colour(title: Title, key: str) -> str:
    """The colour of a phase key's value box: the key itself when it is a tile colour,
    else (1851's phase names) the newest tile colour of the first phase using it."""
    if key in PHASE_COLOUR:
        return PHASE_COLOUR[key]
    for phase in title.phases:
        if phase.offboard_key == key and phase.tiles:
            return PHASE_COLOUR.get(phase.tiles[-1], "#ffffff")
    return "#ffffff"


# --------------------------------------------------------------------------- drawing


@dataclass(frozen=True, slots=True)
class _Obstacle:
    at: Point
    radius: float


class _Painter:
    """Draws unit-coordinate shapes of one hex at a time onto the supersampled canvas."""

    def __init__(self, image: Image.Image, geometry: MapGeometry) -> None:
        self.draw = ImageDraw.Draw(image)
        self.g = geometry
        self.r = geometry.radius

    def px(self, hex_id: str, p: Point) -> Point:
        return self.g.to_pixels(hex_id, p)

    def size(self, units: float) -> int:
        return max(1, round(units * self.r))

    def circle(self, centre: Point, radius: float, fill: str | None, outline: str | None,
               width: float = 0.0) -> None:
        x, y = centre
        self.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill,
                          outline=outline, width=max(0, round(width)))

    def text(self, at: Point, text: str, size: float, *, bold: bool = False,
             fill: str = INK, halo: str | None = None, halo_width: float = 0.0) -> None:
        stroke = round(halo_width) if halo is not None else 0
        self.draw.text(at, text, font=font(round(size), bold), fill=fill, anchor="mm",
                       stroke_width=stroke, stroke_fill=halo)

    def text_width(self, text: str, size: float, bold: bool = False) -> float:
        return font(round(size), bold).getlength(text)


def render_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
               highlight: Collection[str] = frozenset(), caption: str | None = None,
               radius: float = DEFAULT_RADIUS) -> bytes:
    """The map of ``title`` with ``board``'s tiles and tokens, as PNG bytes.

    phase: the current phase's name; off-board and other phase-dependent values show
        the value in force (boxed), with the others beside it, as printed.
    highlight: hex ids to outline (what changed since the player's last report).
    caption: a line printed under the map (game, move, phase).
    """
    image = draw_map(title, board, phase=phase, highlight=highlight, caption=caption,
                     radius=radius)
    return encode_png(image)


def draw_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
             highlight: Collection[str] = frozenset(), caption: str | None = None,
             radius: float = DEFAULT_RADIUS) -> Image.Image:
    """``render_map``'s picture as a Pillow image (RGB), before encoding."""
    geometry = map_geometry(title, radius)
    big = geometry.scaled(SUPERSAMPLE)
    width, height = geometry.size
    band = round(0.6 * radius) if caption or highlight else 0
    image = Image.new("RGB", (width * SUPERSAMPLE, (height + band) * SUPERSAMPLE), BACKGROUND)
    painter = _Painter(image, big)
    hexes = sorted(title.hexes, key=lambda h: geometry.row_col(h))
    drawings = {h: hex_drawing(title, h, board.tiles.get(h)) for h in hexes}
    marked = {parse_hex_id(h) for h in highlight} & set(hexes)

    for h in hexes:
        _fill(painter, drawings[h])
    for h in hexes:
        _tracks(painter, drawings[h], title.layout)
    for h in hexes:
        painter.draw.polygon(big.corners(h), outline=OUTLINE,
                             width=max(1, round(0.025 * big.radius)))
    for h in hexes:
        _borders(painter, title.hexes[h], title.layout)
    for h in sorted(marked, key=geometry.row_col):
        painter.draw.polygon(big.corners(h, inset=0.07), outline=HIGHLIGHT,
                             width=max(2, round(0.09 * big.radius)))
    for h in hexes:
        _stops(painter, title, drawings[h], board.tokens.get(h, {}))
    for h in hexes:
        _texts(painter, title, drawings[h], board, phase)
    _coordinates(painter, title, big)
    if band:
        _caption(painter, caption, bool(marked), height * SUPERSAMPLE, band * SUPERSAMPLE)
    return image.reduce(SUPERSAMPLE)


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a picture, reduced to a 256-colour palette: flat map colours and
    their anti-aliased edges survive it, and the file shrinks about threefold."""
    quantized = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                               dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, format="PNG", optimize=False, compress_level=9)
    return out.getvalue()


def _fill(p: _Painter, d: HexDrawing) -> None:
    p.draw.polygon(p.g.corners(d.hex_id), fill=HEX_FILL.get(d.fill, HEX_FILL["white"]))


def _tracks(p: _Painter, d: HexDrawing, layout: str) -> None:
    width = p.size(TRACK_WIDTH)
    for track in d.tracks:
        points = [p.px(d.hex_id, q) for q in track.points]
        if track.arrow:
            _arrow(p, points[0], points[-1], width)
            continue
        p.draw.line(points, fill=TRACK, width=width, joint="curve")


def _arrow(p: _Painter, start: Point, end: Point, width: int) -> None:
    """Off-board track: a line that narrows to a point, like the printed maps'."""
    d = _unit(_sub(end, start))
    n = (-d[1], d[0])
    half = width * 0.75
    shaft_end = (end[0] - d[0] * width * 1.4, end[1] - d[1] * width * 1.4)
    p.draw.line([start, shaft_end], fill=TRACK, width=width)
    p.draw.polygon([(shaft_end[0] + n[0] * half * 1.6, shaft_end[1] + n[1] * half * 1.6),
                    (shaft_end[0] - n[0] * half * 1.6, shaft_end[1] - n[1] * half * 1.6),
                    end], fill=TRACK)


def _borders(p: _Painter, spec: HexSpec, layout: str) -> None:
    corners = hex_corners(layout)
    for edge in spec.borders:
        # Corners k-1 and k bound edge k (corner k lies 30 degrees past edge k).
        a = p.px(spec.id, corners[(edge - 1) % 6])
        b = p.px(spec.id, corners[edge % 6])
        p.draw.line([a, b], fill=BORDER, width=p.size(0.1))


def _stops(p: _Painter, title: Title, d: HexDrawing,
           tokens: Mapping[int, Sequence[str]]) -> None:
    for town in d.towns:
        centre = p.px(d.hex_id, town.centre)
        if town.bar_angle is None:
            # A thin light ring keeps the dot visible where several tracks meet in it.
            p.circle(centre, TOWN_DOT * p.r, fill=TRACK, outline="#ffffff",
                     width=max(1, round(0.025 * p.r)))
            continue
        u = _polar(town.bar_angle, 1.0)
        v = (-u[1], u[0])
        half_len, half_w = 0.19 * p.r, 0.06 * p.r
        p.draw.polygon([(centre[0] + u[0] * half_len + v[0] * half_w,
                         centre[1] + u[1] * half_len + v[1] * half_w),
                        (centre[0] + u[0] * half_len - v[0] * half_w,
                         centre[1] + u[1] * half_len - v[1] * half_w),
                        (centre[0] - u[0] * half_len - v[0] * half_w,
                         centre[1] - u[1] * half_len - v[1] * half_w),
                        (centre[0] - u[0] * half_len + v[0] * half_w,
                         centre[1] - u[1] * half_len + v[1] * half_w)], fill=TRACK)
    spec = title.hexes[d.hex_id]
    for city in d.cities:
        _city(p, title, spec, d.hex_id, city, tokens.get(city.index, ()), len(d.cities))


def _city(p: _Painter, title: Title, spec: HexSpec, hex_id: str, city: CityMark,
          tokens: Sequence[str], cities_in_hex: int) -> None:
    r = SLOT_RADIUS * p.r
    line = max(1, round(0.03 * p.r))
    cx, cy = p.px(hex_id, city.centre)
    offsets = slot_offsets(city.slots)
    # The white backing that joins several station circles into one city.
    if city.slots == 2:
        p.draw.rounded_rectangle((cx - 2 * r, cy - r, cx + 2 * r, cy + r), radius=r,
                                 fill="#ffffff", outline=TRACK, width=line)
    elif city.slots == 4:
        p.draw.rounded_rectangle((cx - 2 * r, cy - 2 * r, cx + 2 * r, cy + 2 * r), radius=r,
                                 fill="#ffffff", outline=TRACK, width=line)
    elif city.slots >= 3:
        ring = max(math.hypot(dx, dy) for dx, dy in offsets) * p.r + r
        p.circle((cx, cy), ring, fill="#ffffff", outline=TRACK, width=line)
    reserved = [res.by for res in spec.reserved
                if res.kind in ("home", "national") and (res.city or 0) == city.index
                and (cities_in_hex == 1 or res.city is not None or city.index == 0)]
    placed = list(tokens)
    waiting = [sym for sym in dict.fromkeys(reserved)
               if not any(_same_company(title, sym, t) for t in placed)]
    for slot, (dx, dy) in enumerate(offsets):
        centre = (cx + dx * p.r, cy + dy * p.r)
        p.circle(centre, r, fill="#ffffff", outline=TRACK, width=line)
        if slot < len(placed):
            _token(p, title, centre, r - line, placed[slot])
        elif waiting and slot == len(placed):
            # A home station not yet placed: the company's symbol printed faintly in
            # the space kept for it, as on the printed map.
            sym = waiting.pop(0)
            colour = company_colour(title, sym)
            p.circle(centre, r - line * 1.5, fill=None, outline=colour,
                     width=max(1, round(0.035 * p.r)))
            _fit_text(p, centre, sym, 2 * (r - 2 * line), 0.17, fill="#707070")


def _same_company(title: Title, a: str, b: str) -> bool:
    try:
        return title.corporation(a).sym == title.corporation(b).sym
    except KeyError:
        return a == b


def _token(p: _Painter, title: Title, centre: Point, radius: float, sym: str) -> None:
    colour = company_colour(title, sym)
    p.circle(centre, radius, fill=colour, outline="#000000",
             width=max(1, round(0.015 * p.r)))
    _fit_text(p, centre, sym, 1.8 * radius, 0.2, fill=ink_on(colour), bold=True)


def _fit_text(p: _Painter, centre: Point, text: str, room: float, size: float, *,
              fill: str, bold: bool = False) -> None:
    """Text centred at ``centre``, shrunk to fit ``room`` pixels; a long symbol
    (NC&StL) goes on two lines rather than becoming unreadably small."""
    px = size * p.r
    minimum = 0.12 * p.r
    while px > minimum and p.text_width(text, px, bold) > room:
        px -= 0.01 * p.r
    if p.text_width(text, px, bold) <= room or len(text) < 4:
        p.text(centre, text, px, bold=bold, fill=fill)
        return
    cut = text.find("&") + 1 if "&" in text[1:-1] else len(text) // 2
    top, bottom = text[:cut], text[cut:]
    px = size * p.r
    while px > minimum and max(p.text_width(top, px, bold),
                               p.text_width(bottom, px, bold)) > room * 0.92:
        px -= 0.01 * p.r
    p.text((centre[0], centre[1] - 0.5 * px), top, px, bold=bold, fill=fill)
    p.text((centre[0], centre[1] + 0.5 * px), bottom, px, bold=bold, fill=fill)


# --- text placement


def _obstacles(d: HexDrawing) -> list[_Obstacle]:
    out = []
    for track in d.tracks:
        pts = track.points
        for a, b in zip(pts, pts[1:], strict=False):
            steps = max(1, math.ceil(_norm(_sub(b, a)) / 0.08))
            for i in range(steps + 1):
                out.append(_Obstacle((a[0] + (b[0] - a[0]) * i / steps,
                                      a[1] + (b[1] - a[1]) * i / steps), TRACK_WIDTH / 2))
    for city in d.cities:
        for k in range(city.slots):
            out.append(_Obstacle(city.slot_centre(k), SLOT_RADIUS + 0.02))
        out.append(_Obstacle(city.centre, SLOT_RADIUS))
    for town in d.towns:
        out.append(_Obstacle(town.centre, 0.2 if town.bar_angle is not None else TOWN_DOT))
    return out


def _clearance(at: Point, radius: float, obstacles: Sequence[_Obstacle]) -> float:
    if not obstacles:
        return 1.0
    return min(_norm(_sub(at, o.at)) - o.radius for o in obstacles) - radius


def _spot_candidates(layout: str, distance: float) -> list[Point]:
    corners = [_polar(edge_angle(layout, e) + 30.0, distance) for e in range(6)]
    sides = [_polar(edge_angle(layout, e), distance * 0.92) for e in range(6)]
    return corners + sides


def _choose_spot(layout: str, radius: float, obstacles: list[_Obstacle],
                 near: Point | None = None, distance: float = 0.6) -> Point:
    best: tuple[float, Point] | None = None
    for c in _spot_candidates(layout, distance):
        # Enough room counts; beyond that, nearer its city is better.
        score = min(_clearance(c, radius, obstacles), 0.1)
        if near is not None:
            score -= 0.1 * _norm(_sub(c, near))
        if best is None or score > best[0] + 1e-9:
            best = (score, c)
    assert best is not None
    return best[1]


def _wrap_name(name: str) -> list[str]:
    """A long place name on two lines, broken at "&" or the space nearest the middle."""
    if len(name) <= 12 or " " not in name:
        return [name]
    words = name.split(" ")
    best = min(range(1, len(words)),
               key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return [" ".join(words[:best]), " ".join(words[best:])]


def _texts(p: _Painter, title: Title, d: HexDrawing, board: BoardLike,
           phase: str | None) -> None:
    spec = title.hexes[d.hex_id]
    layout = title.layout
    obstacles = _obstacles(d)
    fill = HEX_FILL.get(d.fill, HEX_FILL["white"])
    name_size = 0.2

    if spec.name:
        lines = _wrap_name(spec.name)
        size = name_size
        widest = max(p.text_width(line, size * p.r) for line in lines) / p.r
        if widest > 1.55:
            size *= 1.55 / widest
            widest = 1.55
        block = size * 1.15 * len(lines)
        options = []
        for sign in (-1.0, 1.0):
            mid = sign * (0.62 if len(lines) == 1 else 0.55)
            probes = [_Obstacle((x * widest / 2, mid + dy * block / 2), 0.0)
                      for x in (-1.0, -0.5, 0.0, 0.5, 1.0) for dy in (-0.5, 0.5)]
            score = min(_clearance(q.at, 0.0, obstacles) for q in probes)
            options.append((score + (0.02 if sign < 0 else 0.0), mid))
        _, mid = max(options)
        top = mid - block / 2 + size * 0.575
        for i, line in enumerate(lines):
            at = p.px(d.hex_id, (0.0, top + i * size * 1.15))
            p.text(at, line, size * p.r, fill=INK, halo=fill, halo_width=0.03 * p.r)
        for x in (-1.0, -0.5, 0.0, 0.5, 1.0):
            obstacles.append(_Obstacle((x * widest / 2, mid), block / 2 + 0.02))

    if d.offboard is not None:
        _value_strip(p, title, d.hex_id, (0.0, 0.0), d.offboard, phase, 0.22)

    revenues = _city_revenues(d)
    for at, revenue in revenues:
        if isinstance(revenue, FrozenDict):
            continue
        if revenue == 0:
            continue  # a blank printed city: its value comes with its tile
        spot = _choose_spot(layout, 0.15, obstacles, near=at, distance=0.55)
        obstacles.append(_Obstacle(spot, 0.16))
        _revenue_bubble(p, p.px(d.hex_id, spot), str(revenue))
    for at, revenue in revenues:
        if isinstance(revenue, FrozenDict):
            below = (at[0], at[1] + 0.35 if at[1] <= 0.1 else at[1] - 0.35)
            _value_strip(p, title, d.hex_id, below, revenue, phase, 0.17)

    if d.label:
        spot = _choose_spot(layout, 0.14, obstacles, distance=0.62)
        obstacles.append(_Obstacle(spot, 0.16))
        p.text(p.px(d.hex_id, spot), d.label, 0.28 * p.r, bold=True, fill=INK, halo=fill,
               halo_width=0.025 * p.r)

    if d.tile_name is None and spec.terrain_cost and spec.buildable:
        spot = (0.0, 0.0) if not d.cities and not d.towns and not spec.name else \
            _choose_spot(layout, 0.17, obstacles, distance=0.55)
        obstacles.append(_Obstacle(spot, 0.2))
        _terrain(p, d.hex_id, spot, spec, title.currency, fill)

    if d.tile_name is not None:
        spot = _choose_spot(layout, 0.1, obstacles, distance=0.7)
        p.text(p.px(d.hex_id, spot), d.tile_name, 0.14 * p.r, fill="#333333", halo=fill,
               halo_width=0.02 * p.r)


def _city_revenues(d: HexDrawing) -> list[tuple[Point, Revenue]]:
    """One value per city, or a single one for a tile whose cities all pay the same
    (the printed OO and multi-city tiles show it once)."""
    out: list[tuple[Point, Revenue]] = []
    values = [c.revenue for c in d.cities]
    if len(values) > 1 and all(v == values[0] for v in values):
        centre = (sum(c.centre[0] for c in d.cities) / len(values),
                  sum(c.centre[1] for c in d.cities) / len(values))
        out.append((centre, values[0]))
    else:
        out.extend((c.centre, c.revenue) for c in d.cities)
    out.extend((t.centre, t.revenue) for t in d.towns)
    return out


def _revenue_bubble(p: _Painter, at: Point, text: str) -> None:
    radius = 0.15 * p.r
    p.circle(at, radius, fill="#ffffff", outline=TRACK, width=max(1, round(0.02 * p.r)))
    _fit_text(p, at, text, 1.7 * radius, 0.2, fill=INK, bold=True)


def _value_strip(p: _Painter, title: Title, hex_id: str, centre: Point, revenue: Revenue,
                 phase: str | None, size: float) -> None:
    """Phase values as the printed maps show them, one coloured box per phase, with
    the value now in force framed and in bold."""
    if not isinstance(revenue, FrozenDict):
        _revenue_bubble(p, p.px(hex_id, centre), str(revenue))
        return
    keys = [k for k in title.phase_keys if k in revenue] + \
        [k for k in revenue if k not in title.phase_keys]
    current = current_phase_key(title, revenue, phase)
    box_w = size * 1.9
    box_h = size * 1.35
    total = box_w * len(keys)
    x0 = centre[0] - total / 2
    for i, key in enumerate(keys):
        left = x0 + i * box_w
        a = p.px(hex_id, (left, centre[1] - box_h / 2))
        b = p.px(hex_id, (left + box_w, centre[1] + box_h / 2))
        colour = _key_colour(title, key)
        p.draw.rectangle((a[0], a[1], b[0], b[1]), fill=colour, outline=TRACK,
                         width=max(1, round(0.015 * p.r)))
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        p.text(mid, str(revenue[key]), size * 0.95 * p.r, bold=key == current,
               fill=ink_on(colour))
    if current in keys:
        i = keys.index(current)
        pad = 0.035
        a = p.px(hex_id, (x0 + i * box_w - pad, centre[1] - box_h / 2 - pad))
        b = p.px(hex_id, (x0 + (i + 1) * box_w + pad, centre[1] + box_h / 2 + pad))
        p.draw.rectangle((a[0], a[1], b[0], b[1]), outline="#000000",
                         width=max(2, round(0.05 * p.r)))


def _terrain(p: _Painter, hex_id: str, spot: Point, spec: HexSpec, currency: str,
             halo: str) -> None:
    """A mountain or water sign above the cost a company pays to build there."""
    kind = spec.terrain[0] if spec.terrain else "mountain"
    icon_c = (spot[0], spot[1] - 0.08)
    if kind == "water":
        for dy in (-0.05, 0.04):
            pts = [p.px(hex_id, (icon_c[0] + x, icon_c[1] + dy + 0.035 * math.sin(x * 28)))
                   for x in [i * 0.03 - 0.15 for i in range(11)]]
            p.draw.line(pts, fill=WATER, width=max(1, round(0.04 * p.r)), joint="curve")
    else:
        p.draw.polygon([p.px(hex_id, (icon_c[0] - 0.15, icon_c[1] + 0.09)),
                        p.px(hex_id, (icon_c[0] + 0.15, icon_c[1] + 0.09)),
                        p.px(hex_id, (icon_c[0], icon_c[1] - 0.12))], fill=MOUNTAIN)
    p.text(p.px(hex_id, (spot[0], spot[1] + 0.12)), f"{currency}{spec.terrain_cost}",
           0.17 * p.r, bold=True, fill=INK, halo=halo, halo_width=0.02 * p.r)


def _coordinates(p: _Painter, title: Title, g: MapGeometry) -> None:
    """The printed coordinates round the map: row names at both sides, column names
    at top and bottom, each where the map has hexes in that row or column."""
    positions = [g.row_col(h) for h in title.hexes]
    rows = sorted({r for r, _ in positions})
    cols = sorted({c for _, c in positions})
    width, height = g.size
    size = 0.26 * g.radius

    def name(index: int, axis: str) -> str:
        return chr(ord("A") + index) if title.grid.letters == axis else str(index)

    for row in rows:
        y = g.row_y(row)
        text = name(row, "rows")
        p.text((g.margin * 0.5, y), text, size, bold=True, fill="#444444")
        p.text((width - g.margin * 0.5, y), text, size, bold=True, fill="#444444")
    for col in cols:
        x = g.col_x(col)
        text = name(col, "columns")
        p.text((x, g.margin * 0.5), text, size, bold=True, fill="#444444")
        p.text((x, height - g.margin * 0.5), text, size, bold=True, fill="#444444")


def _caption(p: _Painter, caption: str | None, marked: bool, top: float, band: float) -> None:
    y = top + band / 2
    x = p.g.margin
    size = 0.26 * p.g.radius / SUPERSAMPLE * SUPERSAMPLE
    if caption:
        f = font(round(size))
        p.draw.text((x, y), caption, font=f, fill=INK, anchor="lm")
        x += f.getlength(caption) + 1.0 * p.g.radius
    if marked:
        s = 0.22 * p.g.radius
        p.draw.rectangle((x, y - s, x + 2 * s, y + s), outline=HIGHLIGHT,
                         width=max(2, round(0.09 * p.g.radius)))
        p.draw.text((x + 2 * s + 0.2 * p.g.radius, y), "changed since your last report",
                    font=font(round(size)), fill=INK, anchor="lm")


# --------------------------------------------------------------------------- games


def render_game_map(game: Game, *, highlight: Collection[str] = frozenset(),
                    caption: str | None = None) -> bytes:
    """The map of a game in its current position (for the mail reports)."""
    state = game.state
    return render_map(state.title, state.board, phase=game.rules.phase(state).name,
                      highlight=highlight, caption=caption)
