"""The texts of a hex: where its name, values, terrain cost, label and tile number go
(`text_layout`) and drawing them; the coordinates round the map and the caption."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.state import PlacedTile
from engine.title import FrozenDict, HexSpec, Revenue, Title
from moderator.reports.mapimage.geometry import (
    APOTHEM,
    BUBBLE,
    LABEL_SIZE,
    NAME_SIZE,
    NAME_WIDTH,
    TOWN_DOT,
    TRACK_WIDTH,
    MapGeometry,
    Point,
    edge_angle,
    norm,
    polar,
    sub,
)
from moderator.reports.mapimage.hexes import HexDrawing, hex_drawing
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.sametitle import title_keyed
from moderator.reports.mapimage.stations import MARKER_RADIUS, marker_places
from moderator.reports.mapimage.style import (
    COORDINATE_INK,
    HEX_FILL,
    HIGHLIGHT,
    INK,
    MOUNTAIN,
    TRACK,
    WATER,
    current_phase_key,
    font,
    ink_on,
    key_colour,
    text_units,
)


@dataclass(frozen=True, slots=True)
class NameLayout:
    """A place name: its lines, their size and the centre of the first line."""

    lines: tuple[str, ...]
    size: float
    first: Point


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
                score -= 0.12 * norm(sub(c, near))
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
        out += [polar(edge_angle(layout, e) + 30.0, distance) for e in range(6)]
        out += [polar(edge_angle(layout, e), distance * 0.92) for e in range(6)]
    out.append((0.0, 0.0))
    return tuple(out)


@functools.cache
def _spot_insides(layout: str) -> tuple[float, ...]:
    """How far each candidate spot lies inside the hex."""
    normals = [polar(edge_angle(layout, e), 1.0) for e in range(6)]
    return tuple(min(APOTHEM - (x * n[0] + y * n[1]) for n in normals)
                 for x, y in _spot_candidates(layout))


def _fixed_circles(d: HexDrawing) -> list[tuple[float, float, float]]:
    out = []
    for track in d.tracks:
        for a, b in itertools.pairwise(track.points):
            steps = max(1, math.ceil(norm(sub(b, a)) / 0.12))
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
    normals = [polar(edge_angle(room.layout, e), 1.0) for e in range(6)]
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


def paint_name(p: Painter, d: HexDrawing, t: TextLayout) -> None:
    if t.name is None:
        return
    halo = HEX_FILL.get(d.fill, HEX_FILL["white"])
    x, y = t.name.first
    for i, line in enumerate(t.name.lines):
        at = p.px(d.hex_id, (x, y + i * t.name.size * 1.15))
        p.text(at, line, t.name.size * p.r, fill=INK, halo=halo, halo_width=0.03 * p.r,
               now=True)


def paint_texts(p: Painter, title: Title, d: HexDrawing, t: TextLayout,
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


def _value_strip(p: Painter, title: Title, hex_id: str, centre: Point, revenue: Revenue,
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
        colour = key_colour(title, key) if key else "#ffffff"
        p.draw.rectangle((a[0], a[1], b[0], b[1]), fill=colour, outline=TRACK,
                         width=p.width(0.015))
        p.text(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), str(values[key]), size * 0.95 * p.r,
               bold=key == current, fill=ink_on(colour))
    if current in keys:
        i, pad = keys.index(current), 0.035
        a = p.px(hex_id, (x0 + i * box_w - pad, centre[1] - box_h / 2 - pad))
        b = p.px(hex_id, (x0 + (i + 1) * box_w + pad, centre[1] + box_h / 2 + pad))
        p.draw.rectangle((a[0], a[1], b[0], b[1]), outline="#000000", width=p.width(0.05, 2))


def _terrain(p: Painter, hex_id: str, spot: Point, spec: HexSpec, currency: str,
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


def paint_coordinates(p: Painter, title: Title, g: MapGeometry) -> None:
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


def paint_caption(p: Painter, caption: str | None, marked: bool, top: float,
                  band: float) -> None:
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
