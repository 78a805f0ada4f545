"""Map pictures: the board of a game as a PNG, drawn with Pillow alone.

``render_map(title, board, ...)`` needs only the title data and the board (laid tiles
and station tokens), plus the current phase for phase-dependent values, so any title
can be drawn (even one whose rules are not implemented yet) and the mail reports can
call it without the rules. It returns PNG bytes and does no I/O besides reading the
fonts shipped in ``moderator/reports/fonts``, which makes a picture the same on every machine.

Geometry follows the reference SCHEMA: hex ids in doubled coordinates, edges numbered
0..5 clockwise (pointy: 0 SW .. 5 SE; flat: 0 S .. 5 SE), rotation r turns edge e into
(e + r) % 6. Everything inside a hex is laid out in *unit* coordinates (the hex's
centre at 0,0, its corners at distance 1, y downwards) by ``hex_drawing`` (track,
cities, towns) and ``text_layout`` (names, values, labels); ``MapGeometry`` turns hex
ids and unit points into pixels. Tests use the same functions to know where a city or
a track must appear. Both layouts are cached, so a report drawn again after a few
moves only lays out the hexes that changed.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from PIL import Image, ImageChops, ImageColor, ImageDraw, ImageFont
from zlib_ng import zlib_ng

from engine.geometry import parse_hex_id
from engine.state import PlacedTile
from engine.tiles import rotated_paths
from engine.title import (
    FrozenDict,
    HexSpec,
    LaneSpec,
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
HIGHLIGHT = "#e0119d"  # magenta: no tile, track or company colour is near it
BORDER = "#1f5fb4"  # impassable sides are the broad rivers of the printed maps
MOUNTAIN = "#8b5a2b"
WATER = "#2a7bc8"
INK = "#111111"
COORDINATE_INK = "#444444"

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
    # colours (the "Dixie Line" was the NC&StL's nickname).
    ("1851", "GM&O"): "#d81e1e",
    ("1851", "IC"): "#1d8a2a",
    ("1851", "L&N"): "#1f4fd1",
    ("1851", "Dixie"): "#f28c12",
    ("1851", "SR"): "#f1d500",
    ("1851", "TC"): "#111111",
}
"""Token colours by (title, company sym). The 1861 minors share colours as they do
on 18xx.games; every token also carries its symbol."""

_FALLBACK_COLOURS = ("#7a3d9a", "#2e8b8b", "#b03060", "#556b2f", "#4682b4", "#cd853f")


#: Titles seen lately, by id (each kept, so its id is not another's), with the one
#: Title of the same content that stands for it (`same_title`).
_titles_seen: OrderedDict[int, tuple[Title, Title]] = OrderedDict()
_titles_by_name: dict[str, list[Title]] = {}
_titles_lock = threading.Lock()
TITLES_SEEN = 64  # a few games' loaded states at a time
#: Titles of one name kept to compare with: its variants in play (options), and the
#: cut-down ones `show HEX` draws; the least lately asked for goes first.
TITLES_PER_NAME = 16


def same_title(title: Title) -> Title:
    """The one Title of TITLE's content that the pictures' caches and plates key on.

    A Title compares by identity, and a game with options (1861's unlimited trains,
    1825's units and the site's figures) makes its own each time it is loaded: keyed
    on those, every map of such a game missed the layout caches and was never drawn
    from the plate before it (issue 33: 1861 79 ms, 1825 51 ms a plate against 18TN's
    28), and the unbounded caches kept every loaded game's Title."""
    seen = _titles_seen.get(id(title))
    if seen is not None and seen[0] is title:
        return seen[1]
    with _titles_lock:
        known = _titles_by_name.setdefault(title.name, [])
        same = next((k for k in known if k is title or all(
            getattr(k, f.name) == getattr(title, f.name) for f in fields(k))), None)
        if same is None:
            same = title
        else:
            known.remove(same)
        known.append(same)
        del known[:-TITLES_PER_NAME]
        _titles_seen[id(title)] = (title, same)
        _titles_seen.move_to_end(id(title))
        while len(_titles_seen) > TITLES_SEEN:
            _titles_seen.popitem(last=False)
    return same


C = TypeVar("C", bound=Callable[..., Any])


def title_keyed(cached: C) -> C:
    """CACHED (a function cached on its first argument, a Title) asked for `same_title`
    of the title it is given, so titles of one content share its entries."""
    def keyed(title: Title, *args: Any, **kwargs: Any) -> Any:
        return cached(same_title(title), *args, **kwargs)
    functools.update_wrapper(keyed, cached)
    keyed.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return cast(C, keyed)


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
    """A "#rrggbb" colour as a tuple, for comparing pixels."""
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = rgb(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


# --------------------------------------------------------------------------- fonts

FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
_MEASURE = 200  # text is measured at this size and scaled: widths in hex radii


@functools.cache
def _font_bytes(bold: bool) -> bytes:
    return resources.files("moderator.reports.fonts").joinpath(FONT_FILES[bold]).read_bytes()


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans at ``size`` pixels (never a system font)."""
    return _GlyphCachedFont(io.BytesIO(_font_bytes(bold)), max(1, size))


#: Rendered texts kept (`_GlyphCachedFont`), over all sizes: a board's names, values
#: and coordinates, a few thousand.
GLYPH_CACHE_SIZE = 4096
_glyphs: OrderedDict[tuple[object, ...], tuple[Any, tuple[int, int]]] = OrderedDict()


class _GlyphCachedFont(ImageFont.FreeTypeFont):
    """A FreeType font that renders each text once for each way it is asked for: a map
    drawn again round a change (`map_plate`'s BASE) draws the same names and values
    at the same places, and FreeType's rendering was a tenth of a move's processing
    (issue 14). The mask depends only on the arguments (the text, its anchor, stroke,
    and the fraction of a pixel it starts at), so the picture is the same, pixel for
    pixel, as without the cache."""

    def getmask2(self, text: str | bytes, mode: str = "", *args: Any,
                 **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        try:
            key = (id(self), text, mode, args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an unhashable argument (a list of features): not kept
            return super().getmask2(text, mode, *args, **kwargs)
        found = _glyphs.get(key)
        if found is None:
            found = super().getmask2(text, mode, *args, **kwargs)
            _glyphs[key] = found
            while len(_glyphs) > GLYPH_CACHE_SIZE:
                _glyphs.popitem(last=False)
        else:
            _glyphs.move_to_end(key)
        return found


@functools.lru_cache(maxsize=4096)
def text_units(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` at ``size`` (both in hex radii)."""
    return font(_MEASURE, bold).getlength(text) / _MEASURE * size


# --------------------------------------------------------------------------- geometry


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


def _polar(angle: float, distance: float) -> Point:
    a = math.radians(angle)
    return (distance * math.cos(a), distance * math.sin(a))


def edge_point(layout: str, edge: int, lane: LaneSpec | None = None) -> Point:
    """Midpoint of ``edge`` in unit coordinates; for one lane of a double-track side,
    that lane's point on the side.

    Lane 0 is the clockwise end of the side and the others follow it counterclockwise,
    as 18xx.games draws the lanes the data copies (1850's B1: the track to the E side
    takes lane 0 of the NE side, the track to the SE side lane 1, and they do not
    cross)."""
    mid = _polar(edge_angle(layout, edge), APOTHEM)
    if lane is None or lane.width <= 1:
        return mid
    along = _polar(edge_angle(layout, edge) + 90.0, 1.0)  # clockwise along the side
    shift = ((lane.width - 1) / 2 - lane.index) * LANE_GAP
    return (mid[0] + along[0] * shift, mid[1] + along[1] * shift)


def hex_corners(layout: str, scale: float = 1.0) -> list[Point]:
    """The corners in unit coordinates; corner k lies between edges k and k+1."""
    return [_polar(edge_angle(layout, e) + 30.0, scale) for e in range(6)]


# --------------------------------------------------------------------------- board input


class BoardLike(Protocol):
    """What the renderer reads of a board (``engine.state.Board`` has both)."""

    @property
    def tiles(self) -> Mapping[str, PlacedTile]: ...

    @property
    def tokens(self) -> Mapping[str, Mapping[int, Sequence[str]]]: ...

    @property
    def markers(self) -> Mapping[str, Sequence[str]]: ...


@dataclass(frozen=True, slots=True)
class BoardView:
    """A board given by its parts, for a position no GameState holds: the empty
    starting map of a title whose rules are not implemented yet, or a test."""

    tiles: Mapping[str, PlacedTile]
    tokens: Mapping[str, Mapping[int, Sequence[str]]]
    # companies' tokens on a hex outside its cities (1850's edge and Mesabi tokens)
    markers: Mapping[str, Sequence[str]] = FrozenDict()


EMPTY_BOARD = BoardView(FrozenDict(), FrozenDict())


def changed_hexes(before: BoardLike, after: BoardLike) -> frozenset[str]:
    """Hexes whose tile or station tokens differ between two positions: what a
    player's report highlights as new since the last one."""
    out = {h for h in set(before.tiles) | set(after.tiles)
           if before.tiles.get(h) != after.tiles.get(h)}
    for hex_id in set(before.tokens) | set(after.tokens):
        old = {c: list(s) for c, s in before.tokens.get(hex_id, {}).items() if s}
        new = {c: list(s) for c, s in after.tokens.get(hex_id, {}).items() if s}
        if old != new:
            out.add(hex_id)
    out |= {h for h in set(before.markers) | set(after.markers)
            if list(before.markers.get(h, ())) != list(after.markers.get(h, ()))}
    return frozenset(out)


# --------------------------------------------------------------------------- hex content


@dataclass(frozen=True, slots=True)
class CityMark:
    """A city drawn in a hex: its centre (unit coordinates), station spaces, value."""

    index: int
    centre: Point
    slots: int
    revenue: Revenue
    slot_radius: float = SLOT_RADIUS

    def slot_centre(self, slot: int) -> Point:
        dx, dy = slot_offsets(self.slots, self.slot_radius)[slot]
        return (self.centre[0] + dx, self.centre[1] + dy)

    @property
    def extent(self) -> float:
        """Distance from the centre to the far side of the station circles."""
        offsets = slot_offsets(self.slots, self.slot_radius)
        return max(math.hypot(dx, dy) for dx, dy in offsets) + self.slot_radius


@dataclass(frozen=True, slots=True)
class TownMark:
    """A town: a bar across its track (``bar_angle``, degrees) or a dot (None)."""

    index: int
    centre: Point
    bar_angle: float | None
    revenue: Revenue


@dataclass(frozen=True, slots=True)
class Track:
    """One track segment as a polyline in unit coordinates; ``arrow``: it runs into an
    off-board area and ends in a point, as on the printed maps."""

    points: tuple[Point, ...]
    arrow: bool = False


@dataclass(frozen=True, slots=True)
class HexDrawing:
    """Everything drawn in one hex apart from its texts, in unit coordinates."""

    hex_id: str
    fill: str
    tile_name: str | None  # the laid tile's number, printed small in a corner
    tracks: tuple[Track, ...]
    cities: tuple[CityMark, ...]
    towns: tuple[TownMark, ...]
    offboard: Revenue | None
    label: str | None


def slot_offsets(slots: int, r: float = SLOT_RADIUS) -> tuple[Point, ...]:
    """Centres of a city's station circles round the city's centre: one circle, two
    side by side, three in a triangle, four in a square (as on the printed tiles)."""
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


def _scale(p: Point, k: float) -> Point:
    return (p[0] * k, p[1] * k)


def _arc(centre: Point, radius: float, start: float, end: float, steps: int) -> list[Point]:
    sweep = (end - start + 180.0) % 360.0 - 180.0  # the short way round
    return [(centre[0] + x, centre[1] + y)
            for x, y in (_polar(start + sweep * i / steps, radius) for i in range(steps + 1))]


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
        centre = _polar(edge_angle(layout, a if diff == 1 else b) + 30.0, 1.0)
        radius = 0.5
    else:
        centre = _polar(edge_angle(layout, a + 1 if diff == 2 else a - 1), SQRT3)
        radius = 1.5
    start = math.degrees(math.atan2(ma[1] - centre[1], ma[0] - centre[0]))
    end = math.degrees(math.atan2(mb[1] - centre[1], mb[0] - centre[0]))
    return tuple(_arc(centre, radius, start, end, 12))


def _along(points: Sequence[Point], t: float) -> tuple[Point, Point]:
    """The point at fraction ``t`` of a polyline's length, and the direction there."""
    segments = list(itertools.pairwise(points))
    lengths = [_norm(_sub(q, p)) for p, q in segments]
    goal = t * sum(lengths)
    for (p, q), seg in zip(segments, lengths, strict=True):
        if goal <= seg:
            f = goal / seg if seg else 0.0
            return (p[0] + f * (q[0] - p[0]), p[1] + f * (q[1] - p[1])), _unit(_sub(q, p))
        goal -= seg
    return points[-1], _unit(_sub(points[-1], points[-2]))


def _shift_ends(points: tuple[Point, ...], start: Point, end: Point) -> tuple[Point, ...]:
    """A curve moved so it begins at ``start`` and ends at ``end`` (a lane beside the
    side's midpoint), the shift fading out along it so it stays smooth."""
    n = len(points) - 1
    ds, de = _sub(start, points[0]), _sub(end, points[-1])
    return tuple((x + ds[0] * (1 - i / n) + de[0] * i / n,
                  y + ds[1] * (1 - i / n) + de[1] * i / n)
                 for i, (x, y) in enumerate(points))


def content_of(title: Title, hex_id: str,
               placed: PlacedTile | None) -> tuple[TileSpec | None, int, str]:
    """The tile in effect on a hex (laid, or the printed content), its rotation and its
    colour."""
    if placed is not None:
        tile = title.tile(placed.name)
        return tile, placed.rotation % 6, tile.color
    spec = title.hexes[hex_id]
    return spec.tile, 0, spec.color


@title_keyed
@functools.lru_cache(maxsize=8192)
def hex_drawing(title: Title, hex_id: str, placed: PlacedTile | None) -> HexDrawing:
    """Lay out one hex: where its track, cities and towns go (unit coordinates).

    A lone city or town sits in the middle with straight track out to its sides (moved
    aside if other track runs through the middle); the cities of a multi-city tile sit
    toward their own sides; a town on a line through the hex is a bar across that line
    at its middle, any other town a dot.
    """
    spec = title.hexes[hex_id]
    tile, rotation, colour = content_of(title, hex_id, placed)
    label = tile.label if tile is not None and placed is not None else spec.label
    tile_name = placed.name if placed is not None else None
    if tile is None:
        return HexDrawing(hex_id, colour, tile_name, (), (), (), None, label)
    layout = title.layout
    paths = rotated_paths(tile, rotation)

    def edges_of(stop: str) -> list[int]:
        return [endpoint_index(p.b if p.a == stop else p.a) for p in paths
                if stop in (p.a, p.b) and endpoint_kind(p.b if p.a == stop else p.a) == "e"]

    def ends_of(stop: str) -> list[str]:
        return [p.b if p.a == stop else p.a for p in paths if stop in (p.a, p.b)]

    tracks: list[Track] = []
    towns: list[TownMark] = []
    positions: dict[str, Point] = {}

    # Towns on a line through the hex: a bar across the line's middle.
    through: dict[int, tuple[Point, ...]] = {}
    for k in range(len(tile.towns)):
        sides = edges_of(f"t{k}")
        if len(sides) == 2 and len(ends_of(f"t{k}")) == 2:
            through[k] = edge_to_edge(layout, sides[0], sides[1])
    for n, (k, line) in enumerate(through.items()):
        centre, direction = _along(line, 0.5)
        if any(_norm(_sub(centre, t.centre)) < 0.3 for t in towns):
            # Two lines crossing in the middle (tile 55): this bar moves along its
            # line so the two towns stay apart, as on the printed tile.
            centre, direction = _along(line, 0.25 if n % 2 else 0.75)
        tracks.append(Track(line))
        angle = math.degrees(math.atan2(direction[1], direction[0])) + 90.0
        towns.append(TownMark(k, centre, angle, tile.towns[k].revenue))

    bypass = []
    for p in paths:
        if endpoint_kind(p.a) == "e" and endpoint_kind(p.b) == "e":
            a, b = endpoint_index(p.a), endpoint_index(p.b)
            line = edge_to_edge(layout, a, b)
            if p.a_lane is not None or p.b_lane is not None:
                line = _shift_ends(line, edge_point(layout, a, p.a_lane),
                                   edge_point(layout, b, p.b_lane))
            bypass.append(line)
    tracks.extend(Track(line) for line in bypass)

    # Every other stop: cities and dot towns.
    stops = [f"c{k}" for k in range(len(tile.cities))]
    stops += [f"t{k}" for k in range(len(tile.towns)) if k not in through]
    slot_radius = CROWDED_SLOT_RADIUS if len(tile.cities) >= 4 else SLOT_RADIUS
    extents = {f"c{k}": CityMark(k, (0.0, 0.0), c.slots, c.revenue, slot_radius).extent
               for k, c in enumerate(tile.cities)}
    lone = len(stops) == 1 and not through
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
        positions[stop] = _spot_for(layout, edges_of(stop), list(positions.values()),
                                    extents.get(stop, TOWN_DOT))
    positions.update({f"t{t.index}": t.centre for t in towns})
    for p in paths:
        for stop in (p.a, p.b):
            if endpoint_kind(stop) in "oj":
                positions.setdefault(stop, (0.0, 0.0))

    for p in paths:
        kinds = endpoint_kind(p.a), endpoint_kind(p.b)
        if kinds == ("e", "e") or any(
                kind == "t" and endpoint_index(stop) in through
                for kind, stop in zip(kinds, (p.a, p.b), strict=True)):
            continue
        start = edge_point(layout, endpoint_index(p.a), p.a_lane) if kinds[0] == "e" \
            else positions[p.a]
        end = edge_point(layout, endpoint_index(p.b), p.b_lane) if kinds[1] == "e" \
            else positions[p.b]
        if kinds[1] == "e":
            start, end = end, start  # the side first, so an off-board arrow points inward
        if "o" in kinds:
            # Off-board track stops short of the middle, where the values are printed.
            end = (start[0] + (end[0] - start[0]) * 0.45, start[1] + (end[1] - start[1]) * 0.45)
        tracks.extend(Track(line, arrow="o" in kinds) for line in _lanes(start, end, p.lanes))

    cities = tuple(CityMark(k, positions[f"c{k}"], c.slots, c.revenue, slot_radius)
                   for k, c in enumerate(tile.cities))
    towns += [TownMark(k, positions[f"t{k}"], None, town.revenue)
              for k, town in enumerate(tile.towns) if k not in through]
    towns.sort(key=lambda t: t.index)
    offboard: Revenue | None = None
    if tile.offboards:
        offboard = spec.offboard if spec.offboard is not None else tile.offboards[0].revenue
    return HexDrawing(hex_id, colour, tile_name, tuple(tracks), cities, tuple(towns),
                      offboard, label)


def _lanes(a: Point, b: Point, lanes: int) -> list[tuple[Point, ...]]:
    """``lanes`` parallel straight tracks from a to b (1850's double track)."""
    d = _unit(_sub(b, a))
    normal = (-d[1], d[0])
    out: list[tuple[Point, ...]] = []
    for i in range(max(1, lanes)):
        off = (i - (lanes - 1) / 2) * LANE_GAP if lanes > 1 else 0.0
        out.append(((a[0] + normal[0] * off, a[1] + normal[1] * off),
                    (b[0] + normal[0] * off, b[1] + normal[1] * off)))
    return out


def _clear_of(lines: Sequence[Sequence[Point]], extent: float) -> Point:
    """Where a hex's only city goes: the middle, unless track bypassing it (18TN's
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


def _spot_for(layout: str, sides: Sequence[int], taken: Sequence[Point],
              extent: float) -> Point:
    """A place for a stop of a multi-stop hex that no side pulls one way: on its
    straight line if it has one (tiles 66, 67), else anywhere (the printed OO cities,
    twin towns); as far from the others as the hex allows, west-east first."""
    if len(sides) == 2 and (sides[0] - sides[1]) % 6 == 3:
        end = edge_point(layout, sides[0])
        candidates = [_scale(end, f) for f in (0.0, 0.4, -0.4)]
    else:
        reach = min(CITY_OFFSET, APOTHEM - extent - 0.06)
        candidates = [_polar(a, reach) for a in (180.0, 0.0, 270.0, 90.0, 240.0, 300.0,
                                                 120.0, 60.0, 210.0, 330.0, 150.0, 30.0)]
    if not taken:
        return candidates[0]
    return max(candidates, key=lambda c: min(_norm(_sub(c, t)) for t in taken))


# --------------------------------------------------------------------------- text layout


@dataclass(frozen=True, slots=True)
class NameLayout:
    """A place name: its lines, their size and the centre of the first line."""

    lines: tuple[str, ...]
    size: float
    first: Point


#: The radius of a company's token outside a city (unit coordinates).
MARKER_RADIUS = 0.17


@dataclass(frozen=True, slots=True)
class TextLayout:
    """Where the texts of one hex go, in unit coordinates.

    strips: rows of phase values (centre, values, box size); revenues: value circles;
    terrain: the cost sign of an empty hex; label: centre and size; tile_name: where
    the laid tile's number is printed; markers: where companies' tokens outside the
    cities go (kept free of the name where the title has places for them).
    """

    name: NameLayout | None
    strips: tuple[tuple[Point, Revenue, float], ...]
    revenues: tuple[tuple[Point, int], ...]
    terrain: Point | None
    label: tuple[Point, float] | None
    tile_name: Point | None
    markers: tuple[Point, ...] = ()  # the places of tokens outside the cities


class _Room:
    """Free space in one hex: what is drawn there as circles (x, y, radius), and how
    close a new item may come. Candidate spots are scored once against the fixed
    track and cities; only the few items placed later are checked again."""

    def __init__(self, layout: str, fixed: list[tuple[float, float, float]]) -> None:
        self.layout = layout
        self.fixed = fixed
        self.added: list[tuple[float, float, float]] = []
        self.spots = _spot_candidates(layout)
        self.spot_room = [self._room(c, fixed) for c in self.spots]

    @staticmethod
    def _room(at: Point, circles: Sequence[tuple[float, float, float]]) -> float:
        if not circles:
            return 2.0
        x, y = at
        hypot = math.hypot
        # A list, not a generator: a map's first drawing asks this some 100,000 times.
        return min([hypot(x - ox, y - oy) - r for ox, oy, r in circles])

    def clearance(self, at: Point, radius: float = 0.0) -> float:
        return min(self._room(at, self.fixed), self._room(at, self.added)) - radius

    def add(self, at: Point, radius: float) -> None:
        self.added.append((at[0], at[1], radius))

    def choose(self, radius: float, near: Point | None = None) -> tuple[Point, float]:
        """The spot with the most room for a round item (enough room counts; beyond
        that, nearer ``near``), inside the hex; and the room it has."""
        best: tuple[float, int] | None = None
        inside = _spot_insides(self.layout)
        for i, c in enumerate(self.spots):
            room = min(self.spot_room[i], self._room(c, self.added)) - radius
            room = min(room, inside[i] - radius * 0.8)
            score = min(room, 0.06)
            if near is not None:
                score -= 0.12 * _norm(_sub(c, near))
            if best is None or score > best[0] + 1e-9:
                best = (score, i)
        assert best is not None
        spot = self.spots[best[1]]
        return spot, min(self.clearance(spot, radius), inside[best[1]] - radius * 0.8)


@functools.cache
def _spot_candidates(layout: str) -> tuple[Point, ...]:
    # Rings at several distances in 12 directions, corners before sides, so that
    # among equally good places the roomy corners win; the middle last (London).
    out: list[Point] = []
    for distance in (0.6, 0.45, 0.72, 0.3):
        out += [_polar(edge_angle(layout, e) + 30.0, distance) for e in range(6)]
        out += [_polar(edge_angle(layout, e), distance * 0.92) for e in range(6)]
    out.append((0.0, 0.0))
    return tuple(out)


@functools.cache
def _spot_insides(layout: str) -> tuple[float, ...]:
    """How far each candidate spot lies inside the hex."""
    normals = [_polar(edge_angle(layout, e), 1.0) for e in range(6)]
    return tuple(min(APOTHEM - (x * n[0] + y * n[1]) for n in normals)
                 for x, y in _spot_candidates(layout))


def _fixed_circles(d: HexDrawing) -> list[tuple[float, float, float]]:
    out = []
    for track in d.tracks:
        for a, b in itertools.pairwise(track.points):
            steps = max(1, math.ceil(_norm(_sub(b, a)) / 0.12))
            out += [(a[0] + (b[0] - a[0]) * i / steps, a[1] + (b[1] - a[1]) * i / steps,
                     TRACK_WIDTH / 2 + 0.02) for i in range(steps + 1)]
    for city in d.cities:
        out += [(*city.slot_centre(k), city.slot_radius + 0.02) for k in range(city.slots)]
        out.append((*city.centre, city.slot_radius))
    for town in d.towns:
        out.append((*town.centre, 0.2 if town.bar_angle is not None else TOWN_DOT))
    return out


def _city_revenues(d: HexDrawing) -> list[tuple[Point, Revenue]]:
    """One value per city, or one for a tile whose cities all pay the same (the printed
    OO and multi-city tiles show it once); then each town's."""
    out: list[tuple[Point, Revenue]] = []
    values = [c.revenue for c in d.cities]
    if len(values) > 1 and all(v == values[0] for v in values):
        out.append(((sum(c.centre[0] for c in d.cities) / len(values),
                     sum(c.centre[1] for c in d.cities) / len(values)), values[0]))
    else:
        out.extend((c.centre, c.revenue) for c in d.cities)
    out.extend((t.centre, t.revenue) for t in d.towns)
    return out


def _strip_circles(centre: Point, boxes: int, size: float) -> list[tuple[Point, float]]:
    width = size * 1.9 * boxes
    return [((centre[0] - width / 2 + width * (i + 0.5) / boxes, centre[1]), size * 0.95)
            for i in range(boxes)]


def _strip_spot(room: _Room, near: Point, boxes: int, size: float, town: bool) -> Point:
    """A row of value boxes, centred across the hex, at the height nearest where it
    belongs (an off-board's middle, just under its town) with nothing running
    through it."""
    want = near[1] + 0.3 if town else 0.0
    best: tuple[float, Point] | None = None
    for y in (0.0, 0.33, -0.33, 0.18, -0.18, 0.45, -0.45):
        free = min(room.clearance(at, r * 0.8) for at, r in _strip_circles((0.0, y), boxes,
                                                                           size))
        score = min(free, 0.02) - 0.05 * abs(y - want)
        if best is None or score > best[0] + 1e-9:
            best = (score, (0.0, y))
    assert best is not None
    return best[1]


def _wrap_name(name: str) -> tuple[str, ...]:
    """A long place name on two lines, broken at the space nearest its middle."""
    words = name.split(" ")
    if len(name) <= 12 or len(words) < 2:
        return (name,)
    cut = min(range(1, len(words)),
              key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return (" ".join(words[:cut]), " ".join(words[cut:]))


def _place_name(name: str, room: _Room) -> NameLayout:
    """A place name across the top or the bottom of its hex, on one line or two,
    wherever least is in the way."""
    choices: list[tuple[float, int, NameLayout, float, float]] = []
    normals = [_polar(edge_angle(room.layout, e), 1.0) for e in range(6)]
    for lines, smaller in itertools.product(dict.fromkeys([(name,), _wrap_name(name)]),
                                            (1.0, 0.8)):
        size = NAME_SIZE * smaller
        widest = max(text_units(line, size) for line in lines)
        if widest > NAME_WIDTH:
            size *= NAME_WIDTH / widest
            widest = NAME_WIDTH
        block = size * 1.15 * len(lines)
        usual = 0.62 if len(lines) == 1 else 0.55
        for mid in (-usual, usual, -usual - 0.13, usual + 0.13, -usual + 0.14, usual - 0.14):
            probes = [(x * widest / 2, mid + dy * block / 2)
                      for x in (-1.0, -0.5, 0.0, 0.5, 1.0) for dy in (-0.5, 0.5)]
            free = min(room.clearance(q) for q in probes)
            out = max(0.0, max(q[0] * n[0] + q[1] * n[1] - APOTHEM
                               for q in probes for n in normals))
            # Room enough wins; then staying inside the hex, the usual place, the top
            # before the bottom, bigger letters, two lines before one shrunk to fit.
            score = (min(free, 0.04) - 0.3 * out - 0.1 * abs(abs(mid) - usual)
                     + (0.005 if mid < 0 else 0.0) + 0.1 * size / NAME_SIZE)
            first = (0.0, mid - block / 2 + size * 0.575)
            choices.append((score, -len(choices), NameLayout(lines, size, first), mid,
                            widest))
    _, _, layout, mid, widest = max(choices)
    block = layout.size * 1.15 * len(layout.lines)
    for x in (-1.0, -0.5, 0.0, 0.5, 1.0):
        room.add((x * widest / 2, mid), block / 2 + 0.02)
    return layout


@title_keyed
@functools.lru_cache(maxsize=8192)
def text_layout(title: Title, hex_id: str, placed: PlacedTile | None) -> TextLayout:
    """Where the texts of one hex go: fixed items first (rows of phase values), then
    the name, the value circles near their cities, the terrain sign, the label and
    the tile number, each where it has the most room."""
    d = hex_drawing(title, hex_id, placed)
    spec = title.hexes[hex_id]
    room = _Room(title.layout, _fixed_circles(d))
    strips: list[tuple[Point, Revenue, float]] = []
    wanted: list[tuple[Point, Revenue, float, bool]] = []
    if d.offboard is not None:
        wanted.append(((0.0, 0.0), d.offboard, 0.22, False))
    # A phase-valued town (Birmingham, Mesabi Range) gets its row of boxes under it.
    wanted += [(at, rev, 0.17, True) for at, rev in _city_revenues(d)
               if isinstance(rev, FrozenDict)]
    for near, revenue, size, town in wanted:
        boxes = len(revenue) if isinstance(revenue, FrozenDict) else 1
        centre = _strip_spot(room, near, boxes, size, town)
        strips.append((centre, revenue, size))
        for at, r in _strip_circles(centre, boxes, size):
            room.add(at, r)

    name = _place_name(spec.name, room) if spec.name else None
    # Room for every token the hex may get outside its cities, one by one where there
    # is most (a crowded hex has no free row), after the name.
    markers: list[Point] = []
    for _ in range(marker_places(title).get(hex_id, 0)):
        spot, _ = room.choose(MARKER_RADIUS + 0.01, near=(0.0, -0.45))
        room.add(spot, MARKER_RADIUS + 0.01)
        markers.append(spot)


    revenues = []
    for at, revenue in _city_revenues(d):
        if isinstance(revenue, FrozenDict) or revenue == 0:
            continue  # phase values are in the strips; a blank printed city shows none
        spot, _ = room.choose(BUBBLE + 0.01, near=at)
        room.add(spot, BUBBLE + 0.01)
        revenues.append((spot, revenue))

    terrain = None
    if d.tile_name is None and spec.terrain_cost and spec.buildable:
        plain = not d.cities and not d.towns and name is None
        terrain = (0.0, 0.0) if plain else room.choose(0.22)[0]
        room.add(terrain, 0.22)

    label = None
    if d.label:
        spot, free = room.choose(0.15)
        size = LABEL_SIZE
        if free < -0.05:
            # A crowded hex (London's six cities): a smaller label in the best gap.
            spot, _ = room.choose(0.1)
            size = 0.2
        room.add(spot, size * 0.55)
        label = (spot, size)

    tile_name = room.choose(0.1)[0] if d.tile_name is not None else None
    return TextLayout(name, tuple(strips), tuple(revenues), terrain, label, tile_name,
                      tuple(sorted(markers)))


@title_keyed
@functools.cache
def marker_places(title: Title) -> Mapping[str, int]:
    """How many companies' tokens outside its cities each hex may get: the edge
    tokens of the companies that have one (1850 7.4), and the title's own places
    (title_specific marker_places: 1850's four Mesabi tokens, 6.5.1)."""
    out: dict[str, int] = {}
    for corp in title.corporations:
        if corp.edge_token is not None:
            out[corp.edge_token.hex] = out.get(corp.edge_token.hex, 0) + 1
    extra = cast("Mapping[str, int]", title.title_specific.get("marker_places", {}))
    for hex_id, places in extra.items():
        out[hex_id] = out.get(hex_id, 0) + int(places)
    return out


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


def token_radius(geometry: MapGeometry, title: Title, board: BoardLike, hex_id: str,
                 city: int) -> float:
    """Pixel radius of a station token in that city."""
    drawing = hex_drawing(title, hex_id, board.tiles.get(hex_id))
    return drawing.cities[city].slot_radius * geometry.radius * 0.88


def current_phase_key(title: Title, revenue: Revenue, phase: str | None) -> str | None:
    """Which printed value of a phase-dependent revenue is in force: the latest one
    whose phase key has been reached (None for a plain number; the first before any
    phase is known)."""
    if not isinstance(revenue, FrozenDict):
        return None
    order = [k for k in title.phase_keys if k in revenue] or list(revenue)
    key = _phase_key(title, phase)
    if key is None or key not in title.phase_keys:
        return order[0]
    position = title.phase_keys.index(key)
    reached = [k for k in order if k in title.phase_keys
               and title.phase_keys.index(k) <= position]
    return reached[-1] if reached else order[0]


def _phase_key(title: Title, phase: str | None) -> str | None:
    """The phase key in force: ``phase`` names a phase, or is a phase key itself."""
    if phase is None:
        return None
    if any(p.name == phase for p in title.phases):
        return title.phase(phase).offboard_key
    if phase in title.phase_keys:
        return phase
    raise ValueError(f"{title.name} has no phase or phase key {phase!r}")


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
class _Words:
    """A text to draw once the shapes are reduced to the final size."""

    at: Point
    text: str
    size: float
    bold: bool
    fill: str
    halo: str | None
    halo_width: float
    anchor: str


class _Painter:
    """Draws unit-coordinate shapes of a hex onto the supersampled canvas.

    Texts are kept and drawn after the reduction, at the final size: FreeType smooths
    them by itself, small letters come out crisper with hinting at their real size,
    and rendering them at a quarter of the pixels is most of the time saved. Only
    names are drawn at once, as cities and tokens must cover them.
    """

    def __init__(self, image: Image.Image, geometry: MapGeometry) -> None:
        self.draw = ImageDraw.Draw(image)
        self.g = geometry
        self.r = geometry.radius
        self.later: list[_Words] = []

    def px(self, hex_id: str, p: Point) -> Point:
        return self.g.to_pixels(hex_id, p)

    def width(self, units: float, least: int = 1) -> int:
        return max(least, round(units * self.r))

    def circle(self, centre: Point, radius: float, fill: str | None, outline: str | None,
               width: int = 0) -> None:
        x, y = centre
        self.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill,
                          outline=outline, width=width)

    def text(self, at: Point, text: str, size: float, *, bold: bool = False,
             fill: str = INK, halo: str | None = None, halo_width: float = 0.0,
             anchor: str = "mm", now: bool = False) -> None:
        """Text centred on ``at`` (or placed by ``anchor``); ``size`` in pixels; a halo
        in the background colour keeps it legible where it crosses track."""
        words = _Words(at, text, size, bold, fill, halo, halo_width, anchor)
        if now:
            _draw_words(self.draw, words, 1)
        else:
            self.later.append(words)

    def fit_text(self, centre: Point, text: str, room: float, size: float, *, fill: str,
                 bold: bool = False) -> None:
        for dy, line, px in fit_lines(text, room, size * self.r, bold):
            self.text((centre[0], centre[1] + dy), line, px, bold=bold, fill=fill)

    def finish(self, image: Image.Image, factor: int) -> None:
        """Draw the kept texts on ``image``, the canvas reduced by ``factor``."""
        draw = ImageDraw.Draw(image)
        for words in self.later:
            _draw_words(draw, words, factor)


def _draw_words(draw: ImageDraw.ImageDraw, w: _Words, factor: int,
                corner: tuple[int, int] = (0, 0)) -> None:
    """W on DRAW's picture, the canvas reduced by FACTOR; CORNER: where that picture's
    top left lies in the whole one (a piece of it)."""
    stroke = round(w.halo_width / factor) if w.halo is not None else 0
    draw.text((w.at[0] / factor - corner[0], w.at[1] / factor - corner[1]), w.text,
              font=font(round(w.size / factor), w.bold), fill=w.fill, anchor=w.anchor,
              stroke_width=stroke, stroke_fill=w.halo)


def fit_lines(text: str, room: float, size: float,
              bold: bool = False) -> list[tuple[float, str, float]]:
    """How ``text`` fits ``room`` pixels: shrunk from ``size`` pixels down to two thirds
    of it, then a longer symbol (NC&StL) goes on two lines rather than becoming
    unreadably small. Each line as (vertical offset, text, size)."""
    px = size
    while px > 0.67 * size and font(round(px), bold).getlength(text) > room:
        px *= 0.95
    if font(round(px), bold).getlength(text) <= room * 1.05 or len(text) < 4:
        return [(0.0, text, px)]
    # Break after "&" or "-" (NC& StL, M- NN), else in the middle.
    breaks = [i + 1 for i, ch in enumerate(text[1:-1], 1) if ch in "&-"]
    cut = min(breaks, key=lambda i: abs(2 * i - len(text))) if breaks else len(text) // 2
    top, bottom = text[:cut], text[cut:]
    px = size
    while px > 0.5 * size and max(font(round(px), bold).getlength(top),
                                   font(round(px), bold).getlength(bottom)) > room:
        px *= 0.95
    return [(-0.5 * px, top, px), (0.5 * px, bottom, px)]


def fit_text(draw: ImageDraw.ImageDraw, centre: Point, text: str, room: float, size: float,
             *, fill: str, bold: bool = False) -> None:
    """``text`` centred on ``centre``, fitted to ``room`` pixels (see ``fit_lines``)."""
    for dy, line, px in fit_lines(text, room, size, bold):
        draw.text((centre[0], centre[1] + dy), line, font=font(round(px), bold), fill=fill,
                  anchor="mm")


def render_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
               highlight: Collection[str] = frozenset(), caption: str | None = None,
               radius: float = DEFAULT_RADIUS) -> bytes:
    """The map of ``title`` with ``board``'s tiles and tokens, as PNG bytes.

    phase: the current phase's name (or its phase key, "yellow", "brown"...);
        off-board and other phase-dependent values show every printed value, the one
        in force framed and bold. None: the first phase's values are in force.
    highlight: hex ids to outline (what changed since the player's last report).
    caption: a line printed under the map (game, move, phase).
    """
    return encode_png(draw_map(title, board, phase=phase, highlight=highlight,
                               caption=caption, radius=radius))


def draw_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
             highlight: Collection[str] = frozenset(), caption: str | None = None,
             radius: float = DEFAULT_RADIUS) -> Image.Image:
    """``render_map``'s picture as a Pillow image (RGB), before encoding."""
    canvas = _draw_board(title, board, phase, highlight, radius, band=bool(caption))
    p, marked = canvas.painter, canvas.marked
    if canvas.band:
        _caption(p, caption, marked, canvas.height * SUPERSAMPLE, canvas.band * SUPERSAMPLE)
    final = canvas.image.reduce(SUPERSAMPLE)
    p.finish(final, SUPERSAMPLE)
    return final


@dataclass(slots=True)
class _Canvas:
    image: Image.Image  # supersampled
    painter: _Painter
    height: int  # of the map above the caption band, in output pixels
    band: int  # the caption band's height (0: none)
    marked: bool


def _draw_board(title: Title, board: BoardLike, phase: str | None,
                highlight: Collection[str], radius: float, *, band: bool) -> _Canvas:
    """The map on the supersampled canvas, its texts kept for after the reduction; a
    caption band left blank below it if BAND (or anything is outlined)."""
    geometry = map_geometry(title, radius)
    width, height = geometry.size
    marked = {parse_hex_id(h) for h in highlight} & set(title.hexes)
    band_height = round(0.6 * radius) if band or marked else 0
    image = Image.new("RGB", (width * SUPERSAMPLE, (height + band_height) * SUPERSAMPLE),
                      BACKGROUND)
    p = _Painter(image, geometry.scaled(SUPERSAMPLE))
    _paint(p, title, board, phase, title.hexes, marked)
    return _Canvas(image, p, height, band_height, bool(marked))


def _paint(p: _Painter, title: Title, board: BoardLike, phase: str | None,
           among: Collection[str], marked: Collection[str]) -> None:
    """The hexes AMONG (all of them, or those round a change) and the coordinates, layer
    by layer, in the same order whichever hexes are drawn: a part of the map drawn
    again with every hex that reaches into it is the same as drawn the first time."""
    big = p.g
    hexes = sorted(among, key=big.row_col)
    drawings = {h: hex_drawing(title, h, board.tiles.get(h)) for h in hexes}
    texts = {h: text_layout(title, h, board.tiles.get(h)) for h in hexes}

    # Layer by layer over the whole map, so that nothing of one hex (a long name, a
    # curve's end) is painted over by its neighbour's background.
    for h in hexes:
        p.draw.polygon(big.corners(h), fill=HEX_FILL.get(drawings[h].fill, HEX_FILL["white"]))
    for h in hexes:
        _tracks(p, drawings[h])
    for h in hexes:
        _outline(p, big.corners(h), OUTLINE, p.width(0.025))
    for h in hexes:
        _borders(p, title.hexes[h], title.layout)
    for h in sorted(set(marked) & set(hexes), key=big.row_col):
        _outline(p, big.corners(h, inset=0.07), HIGHLIGHT, p.width(0.075, 2))
    for h in hexes:
        # Names go under cities and tokens: where one cannot avoid a city, the city
        # covers the name rather than the name a company's token.
        _name(p, drawings[h], texts[h])
    for h in hexes:
        _stops(p, title, drawings[h], board.tokens.get(h, {}))
    for h in hexes:
        _markers(p, title, h, texts[h].markers, board.markers.get(h, ()))
    for h in hexes:
        _texts(p, title, drawings[h], texts[h], phase)
    _coordinates(p, title, big)


#: How far beyond its own hexagon's bounding box anything of a hex may be drawn, in hex
#: radii (a halo, a wide line's end, a row of phase values). `test_map_repaint` checks
#: every hex of the recorded games' boards against it.
REACH = 0.25


def hex_box(geometry: MapGeometry, hex_id: str, reach: float = REACH
            ) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom, in pixels of GEOMETRY) holding everything
    drawn for HEX_ID."""
    x, y = geometry.centre(hex_id)
    w = geometry.half_width + reach * geometry.radius
    h = geometry.half_height + reach * geometry.radius
    return (x - w, y - h, x + w, y + h)


@title_keyed
@functools.lru_cache(maxsize=16)
def _hex_boxes(title: Title, geometry: MapGeometry) -> dict[str, tuple[float, float, float, float]]:
    """`hex_box` of every hex of TITLE's board, in the board's order (found once: each
    repaint looks for the hexes that reach into its part)."""
    return {h: hex_box(geometry, h) for h in title.hexes}


def _meets(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
           ) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _words_box(w: _Words, factor: int) -> tuple[float, float, float, float]:
    """Where `_draw_words` paints W, on the picture reduced by FACTOR (a pixel over)."""
    stroke = round(w.halo_width / factor) if w.halo is not None else 0
    x, y = w.at[0] / factor, w.at[1] / factor
    left, top, right, bottom = font(round(w.size / factor), w.bold).getbbox(
        w.text, anchor=w.anchor, stroke_width=stroke)
    return (x + left - 2, y + top - 2, x + right + 2, y + bottom + 2)


class MapPlate:
    """A map drawn once for one board, phase and outline, its caption band blank and
    its colours reduced to a palette; `png` adds a caption. A report after a move that
    changed no hex (a share bought, a train run) so draws only its caption anew.

    The caption band is the picture's last rows, so the PNG's compressed rows above it
    are made once too (`_PngStream`), and each caption only compresses its own rows.

    It keeps what it was drawn from and its picture before the palette (`rgb`), so the
    next board's plate can be drawn from it (`map_plate`'s BASE): drawn again only round
    the hexes that changed, that part given the same palette where the palette holds
    its colours, and only the PNG rows that part covers compressed again."""

    __slots__ = ("_last_caption", "_stream", "band", "board", "geometry", "height", "image",
                 "marked", "outlined", "phase", "repainted", "rgb", "title")

    def __init__(self, image: Image.Image, geometry: MapGeometry, height: int, band: int,
                 marked: bool, *, rgb: Image.Image | None = None, title: Title | None = None,
                 board: BoardView | None = None, phase: str | None = None,
                 outlined: frozenset[str] = frozenset(), repainted: bool = False,
                 stream: _PngStream | None = None) -> None:
        self.image = image  # "P": the palette picture, the caption band blank
        self.geometry = geometry  # the supersampled one the caption is laid out by
        self.height = height  # of the map above the caption band, in output pixels
        self.band = band
        self.marked = marked
        self.rgb = rgb  # the picture before the palette (None: not kept)
        self.title = title
        self.board = board
        self.phase = phase
        self.outlined = outlined  # the hexes outlined
        self.repainted = repainted  # drawn from another plate, only round what changed
        self._stream = stream if stream is not None else _PngStream(image, height)
        self._last_caption: tuple[str, Image.Image] | None = None

    def png(self, caption: str) -> bytes:
        """The PNG with CAPTION under the map (and the key to the outline, if any)."""
        return self._stream.png(self._caption(caption))

    def captioned(self, caption: str) -> Image.Image:
        """The palette picture `png` encodes for CAPTION: parts of the map reaching
        into the caption band are cut from it, not from the PNG decoded (issue 33)."""
        image = self.image.copy()
        image.paste(self._caption(caption), (0, self.height))
        return image

    def _caption(self, caption: str) -> Image.Image:
        """The caption band with CAPTION, in the map's palette (the last one kept: a
        map's PNG and its picture are asked for together)."""
        if self._last_caption is not None and self._last_caption[0] == caption:
            return self._last_caption[1]
        strip = Image.new("RGB", (self.image.width * SUPERSAMPLE, self.band * SUPERSAMPLE),
                          BACKGROUND)
        p = _Painter(strip, self.geometry)
        _caption(p, caption, self.marked, 0, self.band * SUPERSAMPLE)
        final = strip.reduce(SUPERSAMPLE)
        p.finish(final, SUPERSAMPLE)
        # The caption's colours mapped to the map's palette (ink, paper, the outline's
        # red are all in it): the strip is not quantized on its own.
        band = final.quantize(palette=self.image, dither=Image.Dither.NONE)
        self._last_caption = (caption, band)
        return band


#: Rows of a plate compressed together (`_PngStream`): few enough that a change in one
#: hex compresses a sixth of the picture again, many enough to cost the PNG little.
SEGMENT_ROWS = 32


class _PngStream:
    """A palette picture's PNG, its rows from TOP on given anew for each picture.

    Written here rather than by Pillow so the compressed rows are kept. The rows above
    TOP are compressed in segments of SEGMENT_ROWS rows, each on its own (raw deflate
    ended by a full flush, which a decoder reads as one stream): a picture with the same
    palette that differs from another only in some rows (SAME: the other's stream and
    the spans of rows, first to stop, that differ) compresses only the segments those
    rows fall in, and sums (Adler-32) only their rows. Rows are unfiltered, as Pillow
    writes palette pictures; the result is a plain PNG (8-bit palette, no interlace)."""

    def __init__(self, image: Image.Image, top: int,
                 same: tuple[_PngStream, tuple[tuple[int, int], ...]] | None = None) -> None:
        width, height = image.size
        self.width, self.height, self.top = width, height, top
        self.palette = bytes(image.getpalette() or ())
        header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
        self.head = PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"PLTE", self.palette)
        other, spans = same if same is not None else (None, ())
        if other is not None and (other.palette, other.width, other.top) != (
                self.palette, width, top):
            other = None
        self.segments: list[bytes] = []
        self.sums: list[tuple[int, int]] = []  # each segment's rows' Adler-32 and length
        for index, row in enumerate(range(0, top, SEGMENT_ROWS)):
            end = min(top, row + SEGMENT_ROWS)
            if other is not None and not any(row < stop and first < end
                                              for first, stop in spans):
                self.segments.append(other.segments[index])
                self.sums.append(other.sums[index])
                continue
            data = _rows(image.crop((0, row, width, end)))
            compressor = zlib_ng.compressobj(PNG_COMPRESS_LEVEL, zlib_ng.DEFLATED, -15)
            self.segments.append(compressor.compress(data) + compressor.flush(zlib_ng.Z_FULL_FLUSH))
            self.sums.append((zlib.adler32(data), len(data)))
        self.above = b"".join(self.segments)
        self.adler = functools.reduce(_adler_joined, self.sums, (1, 0))[0]

    def png(self, below: Image.Image) -> bytes:
        """The PNG with BELOW (a palette picture of the same palette) as the rows from
        TOP to the end."""
        assert below.size == (self.width, self.height - self.top) and below.mode == "P"
        rows = _rows(below)
        compressor = zlib_ng.compressobj(PNG_COMPRESS_LEVEL, zlib_ng.DEFLATED, -15)
        data = (ZLIB_HEADER + self.above + compressor.compress(rows) + compressor.flush()
                + struct.pack(">I", zlib.adler32(rows, self.adler)))
        return self.head + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


ADLER_MODULUS = 65521


def _adler_joined(first: tuple[int, int], then: tuple[int, int]) -> tuple[int, int]:
    """The Adler-32 sum and length of two byte strings one after the other, from each
    one's. The sum is A + 65536 B, A one plus the bytes' sum and B the sum of A after
    each byte (both modulo 65521): the second string's A is raised by the first's A - 1,
    and its B by that for each of its bytes."""
    (sum1, length1), (sum2, length2) = first, then
    a1, b1, a2, b2 = sum1 & 0xFFFF, sum1 >> 16, sum2 & 0xFFFF, sum2 >> 16
    a = (a1 + a2 - 1) % ADLER_MODULUS
    b = (b1 + b2 + length2 * (a1 - 1)) % ADLER_MODULUS
    return a | b << 16, length1 + length2


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: zlib's level for a map's rows, deflated by zlib-ng: its level 5 is still a little
#: smaller than zlib's 6 (18TN 7818's board at moves 50, 300, 600: 0.6-1.8% smaller)
#: in 60% of the time (issue 33); a repaint compresses the segments of its rows again.
PNG_COMPRESS_LEVEL = 5
ZLIB_HEADER = b"\x78\x9c"  # deflate, 32 KB window, default level


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))


def palette_png(image: Image.Image, level: int) -> bytes:
    """A palette picture as a PNG (8-bit, rows unfiltered, as Pillow writes one), its
    rows deflated by zlib-ng at LEVEL: the same pixels as Pillow's PNG, a third to half
    quicker at no more bytes (a map's part: issue 33)."""
    width, height = image.size
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"PLTE", bytes(image.getpalette() or ()))
            + _chunk(b"IDAT", zlib_ng.compress(_rows(image), level)) + _chunk(b"IEND", b""))


def _rows(image: Image.Image) -> bytes:
    """The rows of a palette picture as PNG data: each after its filter byte (0)."""
    # The picture pasted one column in on a blank one: its bytes are the rows, each
    # after a 0 (a join of a slice per row took a millisecond a plate).
    # (Of one mode, pasting copies the palette's indices as they are.)
    width, height = image.size
    framed = Image.new(image.mode, (width + 1, height), 0)
    framed.paste(image, (1, 0))
    return framed.tobytes()


def map_plate(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
              highlight: Collection[str] = frozenset(),
              radius: float = DEFAULT_RADIUS, base: MapPlate | None = None) -> MapPlate:
    """The map of ``title`` with ``board`` as `render_map` draws it, without a caption
    yet (see `MapPlate.png`).

    BASE, a plate of another board of the same title (the position a move or two
    before): only the part of the map round the hexes whose tile, tokens or outline
    differ is drawn again, onto a copy of BASE's picture; the picture (before the
    palette) is the same, pixel for pixel, as one drawn whole. That part takes BASE's
    palette when it holds each of its colours within PALETTE_TOLERANCE (as close as a
    palette made anew comes); otherwise the whole picture gets a new palette."""
    title = same_title(title)
    marked = frozenset(parse_hex_id(h) for h in highlight) & frozenset(title.hexes)
    snapshot = _snapshot(board)
    geometry = map_geometry(title, radius)
    if base is not None and base.title is title and base.rgb is not None \
            and base.board is not None and base.phase == phase \
            and base.geometry == geometry.scaled(SUPERSAMPLE):
        dirty = changed_hexes(base.board, snapshot) | (marked ^ base.outlined)
        repainted = _repainted(base, title, snapshot, phase, marked, dirty)
        if repainted is not None:
            final, parts = repainted
            image, stream = _palette_of(base, final, parts)
            return MapPlate(image, base.geometry, base.height, base.band, bool(marked),
                            rgb=final, title=title, board=snapshot, phase=phase,
                            outlined=marked, repainted=True, stream=stream)
    canvas = _draw_board(title, board, phase, highlight, radius, band=True)
    final = canvas.image.reduce(SUPERSAMPLE)
    canvas.painter.finish(final, SUPERSAMPLE)
    return MapPlate(_quantized(final), canvas.painter.g, canvas.height, canvas.band,
                    canvas.marked, rgb=final, title=title, board=snapshot, phase=phase,
                    outlined=marked)


#: Beyond this share of the map's hexes changed, a plate is drawn whole.
REPAINT_SHARE = 0.3

#: How far (in any of red, green, blue) a colour of a part drawn again may be from
#: the nearest colour of the palette it is given: about what a palette made anew for
#: the whole picture allows itself for its rarest colours.
PALETTE_TOLERANCE = 48

Box = tuple[int, int, int, int]


def _palette_of(base: MapPlate, final: Image.Image, parts: tuple[Box, ...]
                ) -> tuple[Image.Image, _PngStream | None]:
    """FINAL (BASE's picture with PARTS drawn again; none: nothing) as a palette
    picture, and its PNG stream where it shares BASE's."""
    if not parts:
        return base.image, base._stream
    image = base.image.copy()
    for part in parts:
        patch = final.crop(part)
        mapped = patch.quantize(palette=base.image, dither=Image.Dither.NONE)
        extrema = ImageChops.difference(mapped.convert("RGB"), patch).getextrema()
        worst = max(int(band[1]) for band in extrema if isinstance(band, tuple))
        if worst > PALETTE_TOLERANCE:
            # A colour the palette lacks (a company's first token, a new tile colour).
            return _quantized(final), None
        image.paste(mapped, part[:2])
    return image, _PngStream(image, base.height,
                             (base._stream, tuple((part[1], part[3]) for part in parts)))


def _areas(boxes: Sequence[tuple[float, float, float, float]], full: tuple[int, int]
           ) -> list[Box]:
    """The parts of the supersampled picture of size FULL to draw again for BOXES (of
    the hexes that changed): boxes that meet are one part, those apart are drawn
    apart (two changes at both ends of the board are two hexes' worth, not the board
    between them: issue 33); each on whole blocks of the reduction (even pixels)."""
    merged = [list(box) for box in boxes]
    joined = True
    while joined:
        joined = False
        for i, j in itertools.combinations(range(len(merged)), 2):
            a, b = merged[i], merged[j]
            if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                merged[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                             max(a[3], b[3])]
                del merged[j]
                joined = True
                break
    areas = []
    for left, top, right, bottom in merged:
        area = (max(0, 2 * math.floor(left / 2)), max(0, 2 * math.floor(top / 2)),
                min(full[0], 2 * math.ceil(right / 2)), min(full[1], 2 * math.ceil(bottom / 2)))
        if area[2] > area[0] and area[3] > area[1]:
            areas.append(area)
    return sorted(areas)


def _repainted(base: MapPlate, title: Title, board: BoardView, phase: str | None,
               marked: frozenset[str], dirty: frozenset[str]
               ) -> tuple[Image.Image, tuple[Box, ...]] | None:
    """BASE's picture (before the palette) with the parts round DIRTY drawn again for
    BOARD and MARKED, and those parts (in output pixels; none: nothing changed); None
    when so much changed that a whole drawing is as quick."""
    assert base.rgb is not None
    if not dirty:
        return base.rgb, ()
    if len(dirty) > REPAINT_SHARE * len(title.hexes):
        return None
    big = base.geometry
    full = (base.rgb.width * SUPERSAMPLE, base.rgb.height * SUPERSAMPLE)
    areas = _areas([hex_box(big, h) for h in sorted(dirty)], full)
    if not areas:
        return base.rgb, ()
    # Drawn again with everything that reaches into them: each hex whose own box meets
    # one; on a canvas of the whole map's size, so every shape falls on the pixels it
    # falls on in a whole drawing; only the parts are kept.
    among = [h for h, box in _hex_boxes(title, big).items()
             if any(_meets(box, area) for area in areas)]
    with _blank_canvas(full, areas) as canvas:
        p = _Painter(canvas, big)
        _paint(p, title, board, phase, among, marked)
        reduced = [canvas.crop(area).reduce(SUPERSAMPLE) for area in areas]
    final = base.rgb.copy()
    parts: list[Box] = []
    for area, patch in zip(areas, reduced, strict=True):
        small = (area[0] // SUPERSAMPLE, area[1] // SUPERSAMPLE, area[2] // SUPERSAMPLE,
                 area[3] // SUPERSAMPLE)
        words = [w for w in p.later
                 if _near(w, small) and _meets(_words_box(w, SUPERSAMPLE), small)]
        # The texts over the part drawn on a piece of the picture holding it, not on a
        # copy of the whole (a copy is a millisecond): moved by whole pixels and kept
        # at or right of and below its corner, each text falls on the same pixels.
        left = max(0, min([small[0], *(math.floor(w.at[0] / SUPERSAMPLE) for w in words)]))
        top = max(0, min([small[1], *(math.floor(w.at[1] / SUPERSAMPLE) for w in words)]))
        piece = final.crop((left, top, small[2], small[3]))
        piece.paste(patch, (small[0] - left, small[1] - top))
        draw = ImageDraw.Draw(piece)
        for words_ in words:
            _draw_words(draw, words_, SUPERSAMPLE, (left, top))
        final.paste(piece.crop((small[0] - left, small[1] - top, piece.width, piece.height)),
                    small[:2])
        parts.append(small)
    return final, tuple(parts)


_canvases: dict[tuple[int, int], Image.Image] = {}
_canvas_lock = threading.Lock()


@contextlib.contextmanager
def _blank_canvas(size: tuple[int, int], areas: Sequence[Box]) -> Iterator[Image.Image]:
    """A picture of SIZE blank in AREAS, to draw parts of the map again on: the last
    one of that size painted over there, not made anew. A new one is most of a
    page-faulting 13 MB for a supersampled 18TN map, three times as long as painting
    it blank (issue 14); only AREAS are blanked, as only they are read back (what is
    drawn on a pixel depends on that pixel alone; issue 33). One thread at a time uses
    it; another meanwhile gets a new one."""
    if not _canvas_lock.acquire(blocking=False):
        yield Image.new("RGB", size, BACKGROUND)
        return
    try:
        canvas = _canvases.get(size)
        if canvas is None:
            _canvases.clear()  # one size kept: the map being drawn
            canvas = _canvases[size] = Image.new("RGB", size, BACKGROUND)
        else:
            colour = ImageColor.getrgb(BACKGROUND)
            for area in areas:
                canvas.paste(colour, area)
        yield canvas
    finally:
        _canvas_lock.release()


def _near(w: _Words, box: Box) -> bool:
    """Whether W (drawn after the reduction) can reach BOX at all: a bound without
    laying the text out (no glyph is wider than its size, nor the halo more)."""
    x, y = w.at[0] / SUPERSAMPLE, w.at[1] / SUPERSAMPLE
    reach = (w.size * (len(w.text) + 1) + 2 * w.halo_width) / SUPERSAMPLE + 2
    return box[0] - reach < x < box[2] + reach and box[1] - reach < y < box[3] + reach


def _snapshot(board: BoardLike) -> BoardView:
    """BOARD's tiles and tokens as they are now (a game's board changes in place)."""
    return BoardView(FrozenDict(board.tiles),
                     FrozenDict({h: FrozenDict({c: tuple(s) for c, s in cities.items()})
                                 for h, cities in board.tokens.items()}),
                     FrozenDict({h: tuple(s) for h, s in board.markers.items()}))


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a picture reduced to a 256-colour palette: the flat map colours and
    their anti-aliased edges survive it, and the file is half the size."""
    return _png_bytes(_quantized(image))


def _quantized(image: Image.Image) -> Image.Image:
    return image.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                          dither=Image.Dither.NONE)


def _png_bytes(image: Image.Image) -> bytes:
    return palette_png(image, PNG_COMPRESS_LEVEL)


def _outline(p: _Painter, corners: list[Point], colour: str, width: int) -> None:
    # A closed line rather than a polygon's outline: Pillow draws a wide polygon
    # outline through a mask as large as the whole picture, once per hex.
    p.draw.line([*corners, corners[0], corners[1]], fill=colour, width=width, joint="curve")


def _tracks(p: _Painter, d: HexDrawing) -> None:
    width = p.width(TRACK_WIDTH)
    for track in d.tracks:
        points = [p.px(d.hex_id, q) for q in track.points]
        if track.arrow:
            _arrow(p, points[0], points[-1], width)
        else:
            p.draw.line(points, fill=TRACK, width=width, joint="curve")


def _arrow(p: _Painter, start: Point, end: Point, width: int) -> None:
    """Off-board track: a line ending in a point, like the printed maps'."""
    d = _unit(_sub(end, start))
    n = (-d[1], d[0])
    head = (end[0] - d[0] * width * 1.4, end[1] - d[1] * width * 1.4)
    p.draw.line([start, head], fill=TRACK, width=width)
    p.draw.polygon([(head[0] + n[0] * width * 1.2, head[1] + n[1] * width * 1.2),
                    (head[0] - n[0] * width * 1.2, head[1] - n[1] * width * 1.2),
                    end], fill=TRACK)


def _borders(p: _Painter, spec: HexSpec, layout: str) -> None:
    corners = hex_corners(layout)
    for edge in spec.borders:
        # Edge e runs between corners e-1 and e.
        a = p.px(spec.id, corners[(edge - 1) % 6])
        b = p.px(spec.id, corners[edge % 6])
        p.draw.line([a, b], fill=BORDER, width=p.width(0.1))


def _stops(p: _Painter, title: Title, d: HexDrawing,
           tokens: Mapping[int, Sequence[str]]) -> None:
    for town in d.towns:
        centre = p.px(d.hex_id, town.centre)
        if town.bar_angle is None:
            # A thin light ring keeps the dot visible where several tracks meet in it.
            p.circle(centre, TOWN_DOT * p.r, fill=TRACK, outline="#ffffff",
                     width=p.width(0.025))
            continue
        u = _polar(town.bar_angle, 0.19 * p.r)  # along the bar
        v = _polar(town.bar_angle + 90.0, 0.06 * p.r)  # across it
        p.draw.polygon([(centre[0] + su * u[0] + sv * v[0], centre[1] + su * u[1] + sv * v[1])
                        for su, sv in ((1, 1), (1, -1), (-1, -1), (-1, 1))], fill=TRACK)
    spec = title.hexes[d.hex_id]
    for city in d.cities:
        _city(p, title, spec, d.hex_id, city, tokens.get(city.index, ()), len(d.cities))


def _city(p: _Painter, title: Title, spec: HexSpec, hex_id: str, city: CityMark,
          tokens: Sequence[str], cities_in_hex: int) -> None:
    r = city.slot_radius * p.r
    line = p.width(0.03)
    cx, cy = p.px(hex_id, city.centre)
    offsets = slot_offsets(city.slots, city.slot_radius)
    # The white backing that joins several station circles into one city.
    if city.slots in (2, 4):
        half_h = r if city.slots == 2 else 2 * r
        p.draw.rounded_rectangle((cx - 2 * r, cy - half_h, cx + 2 * r, cy + half_h),
                                 radius=r, fill="#ffffff", outline=TRACK, width=line)
    elif city.slots >= 3:
        ring = max(math.hypot(dx, dy) for dx, dy in offsets) * p.r + r
        p.circle((cx, cy), ring, fill="#ffffff", outline=TRACK, width=line)
    # Home stations not yet placed: the company's symbol printed faintly in the space
    # kept for it, as on the printed map.
    homes = [res.by for res in spec.reserved if res.kind in ("home", "national")
             and ((res.city or 0) == city.index or cities_in_hex == 1)]
    waiting = [sym for sym in dict.fromkeys(homes)
               if not any(_same_company(title, sym, t) for t in tokens)]
    for slot, (dx, dy) in enumerate(offsets):
        centre = (cx + dx * p.r, cy + dy * p.r)
        p.circle(centre, r, fill="#ffffff", outline=TRACK, width=line)
        if slot < len(tokens):
            colour = company_colour(title, tokens[slot])
            p.circle(centre, r * 0.88, fill=colour, outline="#000000", width=p.width(0.012))
            p.fit_text(centre, tokens[slot], 1.55 * r, 0.2, fill=ink_on(colour), bold=True)
        elif slot - len(tokens) < len(waiting):
            sym = waiting[slot - len(tokens)]
            p.circle(centre, r * 0.8, fill=None, outline=company_colour(title, sym),
                     width=p.width(0.035))
            p.fit_text(centre, sym, 1.3 * r, 0.17, fill="#6a6a6a")


def _markers(p: _Painter, title: Title, hex_id: str, places: Sequence[Point],
             syms: Sequence[str]) -> None:
    """Companies' tokens on a hex outside its cities (an edge token on its red area, a
    Mesabi token) at the places its text layout kept for them: smaller than a station,
    as they are no station a route may start from."""
    r = MARKER_RADIUS * p.r
    for sym, at in zip(syms, places, strict=False):
        centre = p.px(hex_id, at)
        colour = company_colour(title, sym)
        p.circle(centre, r, fill=colour, outline="#000000", width=p.width(0.012))
        p.fit_text(centre, sym, 1.7 * r, 0.15, fill=ink_on(colour), bold=True)


def _same_company(title: Title, a: str, b: str) -> bool:
    try:
        return title.corporation(a).sym == title.corporation(b).sym
    except KeyError:
        return a == b


def _name(p: _Painter, d: HexDrawing, t: TextLayout) -> None:
    if t.name is None:
        return
    halo = HEX_FILL.get(d.fill, HEX_FILL["white"])
    x, y = t.name.first
    for i, line in enumerate(t.name.lines):
        at = p.px(d.hex_id, (x, y + i * t.name.size * 1.15))
        p.text(at, line, t.name.size * p.r, fill=INK, halo=halo, halo_width=0.03 * p.r,
               now=True)


def _texts(p: _Painter, title: Title, d: HexDrawing, t: TextLayout,
           phase: str | None) -> None:
    halo = HEX_FILL.get(d.fill, HEX_FILL["white"])
    for centre, revenue, size in t.strips:
        _value_strip(p, title, d.hex_id, centre, revenue, phase, size)
    for spot, value in t.revenues:
        at = p.px(d.hex_id, spot)
        p.circle(at, BUBBLE * p.r, fill="#ffffff", outline=TRACK, width=p.width(0.02))
        p.fit_text(at, str(value), 1.75 * BUBBLE * p.r, 0.2, fill=INK, bold=True)
    if t.terrain is not None:
        _terrain(p, d.hex_id, t.terrain, title.hexes[d.hex_id], title.currency, halo)
    if t.label is not None:
        spot, size = t.label
        p.text(p.px(d.hex_id, spot), d.label or "", size * p.r, bold=True, fill=INK,
               halo=halo, halo_width=0.025 * p.r)
    if t.tile_name is not None:
        p.text(p.px(d.hex_id, t.tile_name), d.tile_name or "", 0.14 * p.r, fill="#333333",
               halo=halo, halo_width=0.02 * p.r)


def _value_strip(p: _Painter, title: Title, hex_id: str, centre: Point, revenue: Revenue,
                 phase: str | None, size: float) -> None:
    """Phase values as the printed maps show them, one box per phase in its colour,
    the value in force framed and in bold."""
    values = revenue if isinstance(revenue, FrozenDict) else FrozenDict({"": revenue})
    keys = [k for k in title.phase_keys if k in values] + \
        [k for k in values if k not in title.phase_keys]
    current = current_phase_key(title, revenue, phase) if isinstance(revenue, FrozenDict) \
        else ""
    box_w, box_h = size * 1.9, size * 1.35
    x0 = centre[0] - box_w * len(keys) / 2
    for i, key in enumerate(keys):
        a = p.px(hex_id, (x0 + i * box_w, centre[1] - box_h / 2))
        b = p.px(hex_id, (x0 + (i + 1) * box_w, centre[1] + box_h / 2))
        colour = _key_colour(title, key) if key else "#ffffff"
        p.draw.rectangle((a[0], a[1], b[0], b[1]), fill=colour, outline=TRACK,
                         width=p.width(0.015))
        p.text(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), str(values[key]), size * 0.95 * p.r,
               bold=key == current, fill=ink_on(colour))
    if current in keys:
        i, pad = keys.index(current), 0.035
        a = p.px(hex_id, (x0 + i * box_w - pad, centre[1] - box_h / 2 - pad))
        b = p.px(hex_id, (x0 + (i + 1) * box_w + pad, centre[1] + box_h / 2 + pad))
        p.draw.rectangle((a[0], a[1], b[0], b[1]), outline="#000000", width=p.width(0.05, 2))


def _terrain(p: _Painter, hex_id: str, spot: Point, spec: HexSpec, currency: str,
             halo: str) -> None:
    """A mountain or water sign above the cost the first company to build there pays."""
    x, y = spot[0], spot[1] - 0.08
    if "water" in spec.terrain:
        for dy in (-0.05, 0.04):
            wave = [p.px(hex_id, (x + u, y + dy + 0.035 * math.sin(u * 28)))
                    for u in (i * 0.03 - 0.15 for i in range(11))]
            p.draw.line(wave, fill=WATER, width=p.width(0.04), joint="curve")
    else:
        p.draw.polygon([p.px(hex_id, (x - 0.15, y + 0.09)), p.px(hex_id, (x + 0.15, y + 0.09)),
                        p.px(hex_id, (x, y - 0.12))], fill=MOUNTAIN)
    p.text(p.px(hex_id, (spot[0], spot[1] + 0.12)), f"{currency}{spec.terrain_cost}",
           0.17 * p.r, bold=True, fill=INK, halo=halo, halo_width=0.02 * p.r)


def _coordinates(p: _Painter, title: Title, g: MapGeometry) -> None:
    """The printed coordinates round the map: row names at both sides, column names
    at top and bottom, for every row and column that has hexes."""
    positions = [g.row_col(h) for h in title.hexes]
    width, height = g.size
    size = 0.26 * g.radius

    def name(index: int, axis: str) -> str:
        return chr(ord("A") + index) if title.grid.letters == axis else str(index)

    for row in sorted({r for r, _ in positions}):
        for x in (g.margin * 0.5, width - g.margin * 0.5):
            p.text((x, g.row_y(row)), name(row, "rows"), size, bold=True, fill=COORDINATE_INK)
    for col in sorted({c for _, c in positions}):
        for y in (g.margin * 0.5, height - g.margin * 0.5):
            p.text((g.col_x(col), y), name(col, "columns"), size, bold=True,
                   fill=COORDINATE_INK)


def _caption(p: _Painter, caption: str | None, marked: bool, top: float, band: float) -> None:
    """The caption line under the map, and the key to the highlight when there is one."""
    y, x = top + band / 2, p.g.margin
    size = 0.26 * p.g.radius
    if caption:
        p.text((x, y), caption, size, anchor="lm")
        x += font(round(size)).getlength(caption) + p.g.radius
    if marked:
        s = 0.22 * p.g.radius
        p.draw.rectangle((x, y - s, x + 2 * s, y + s), outline=HIGHLIGHT,
                         width=p.width(0.075, 2))
        p.text((x + 2 * s + 0.2 * p.g.radius, y), "changed since your last report", size,
               anchor="lm")


# --------------------------------------------------------------------------- games


def render_game_map(game: Game, *, highlight: Collection[str] = frozenset(),
                    caption: str | None = None) -> bytes:
    """The map of a game in its current position (for the mail reports)."""
    state = game.state
    return render_map(state.title, state.board, phase=game.rules.phase(state).name,
                      highlight=highlight, caption=caption)
