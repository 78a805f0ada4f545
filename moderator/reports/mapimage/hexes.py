"""What one hex shows apart from its texts: its track, cities and towns laid out in unit
coordinates (`hex_drawing`), where a city of the board lands in pixels, and the hex's
outline and impassable sides."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.state import PlacedTile
from engine.tiles import rotated_paths
from engine.title import HexSpec, Revenue, TileSpec, Title, endpoint_index, endpoint_kind
from moderator.reports.mapimage.board import BoardLike
from moderator.reports.mapimage.geometry import (
    APOTHEM,
    CITY_OFFSET,
    CROWDED_SLOT_RADIUS,
    SLOT_RADIUS,
    TOWN_DOT,
    TRACK_WIDTH,
    MapGeometry,
    Point,
    edge_point,
    hex_corners,
    norm,
    polar,
    scale,
    sub,
    unit,
)
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.sametitle import title_keyed
from moderator.reports.mapimage.stations import CityMark, TownMark
from moderator.reports.mapimage.style import BORDER
from moderator.reports.mapimage.track import (
    Track,
    along,
    edge_to_edge,
    lanes_between,
    shift_ends,
)


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
        centre, direction = along(line, 0.5)
        if any(norm(sub(centre, t.centre)) < 0.3 for t in towns):
            # Two lines crossing in the middle (tile 55): this bar moves along its
            # line so the two towns stay apart, as on the printed tile.
            centre, direction = along(line, 0.25 if n % 2 else 0.75)
        tracks.append(Track(line))
        angle = math.degrees(math.atan2(direction[1], direction[0])) + 90.0
        towns.append(TownMark(k, centre, angle, tile.towns[k].revenue))

    bypass = []
    for p in paths:
        if endpoint_kind(p.a) == "e" and endpoint_kind(p.b) == "e":
            a, b = endpoint_index(p.a), endpoint_index(p.b)
            line = edge_to_edge(layout, a, b)
            if p.a_lane is not None or p.b_lane is not None:
                line = shift_ends(line, edge_point(layout, a, p.a_lane),
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
        elif sides and norm(pull) > 0.3:
            reach = min(CITY_OFFSET, APOTHEM - extents.get(stop, TOWN_DOT) - 0.06)
            positions[stop] = scale(unit(pull), reach)
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
        tracks.extend(Track(line, arrow="o" in kinds)
                      for line in lanes_between(start, end, p.lanes))

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


def _clear_of(lines: Sequence[Sequence[Point]], extent: float) -> Point:
    """Where a hex's only city goes: the middle, unless track bypassing it (18TN's
    Louisville) runs there; then far enough the other way that the two do not touch."""
    if not lines:
        return (0.0, 0.0)
    nearest = min((q for line in lines for q in line), key=norm)
    distance = norm(nearest)
    need = extent + TRACK_WIDTH
    if distance >= need:
        return (0.0, 0.0)
    away = scale(unit(nearest), -1.0) if distance > 1e-6 else (0.0, -1.0)
    return scale(away, min(need - distance, 0.35))


def _spot_for(layout: str, sides: Sequence[int], taken: Sequence[Point],
              extent: float) -> Point:
    """A place for a stop of a multi-stop hex that no side pulls one way: on its
    straight line if it has one (tiles 66, 67), else anywhere (the printed OO cities,
    twin towns); as far from the others as the hex allows, west-east first."""
    if len(sides) == 2 and (sides[0] - sides[1]) % 6 == 3:
        end = edge_point(layout, sides[0])
        candidates = [scale(end, f) for f in (0.0, 0.4, -0.4)]
    else:
        reach = min(CITY_OFFSET, APOTHEM - extent - 0.06)
        candidates = [polar(a, reach) for a in (180.0, 0.0, 270.0, 90.0, 240.0, 300.0,
                                                120.0, 60.0, 210.0, 330.0, 150.0, 30.0)]
    if not taken:
        return candidates[0]
    return max(candidates, key=lambda c: min(norm(sub(c, t)) for t in taken))


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


def paint_outline(p: Painter, corners: list[Point], colour: str, width: int) -> None:
    # A closed line rather than a polygon's outline: Pillow draws a wide polygon
    # outline through a mask as large as the whole picture, once per hex.
    p.draw.line([*corners, corners[0], corners[1]], fill=colour, width=width, joint="curve")


def paint_borders(p: Painter, spec: HexSpec, layout: str) -> None:
    corners = hex_corners(layout)
    for edge in spec.borders:
        # Edge e runs between corners e-1 and e.
        a = p.px(spec.id, corners[(edge - 1) % 6])
        b = p.px(spec.id, corners[edge % 6])
        p.draw.line([a, b], fill=BORDER, width=p.width(0.1))
