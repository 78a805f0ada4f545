"""Cities, towns and companies' tokens: where a city's station spaces and the tokens
outside the cities go, and drawing the stops and the tokens."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from engine.title import HexSpec, Revenue, Title
from moderator.reports.mapimage.geometry import SLOT_RADIUS, SQRT3, TOWN_DOT, Point, polar
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.sametitle import title_keyed
from moderator.reports.mapimage.style import TRACK, company_colour, ink_on


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
    return tuple(polar(-90.0 + 360.0 * k / slots, ring) for k in range(slots))


#: The radius of a company's token outside a city (unit coordinates).
MARKER_RADIUS = 0.17


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


def paint_stops(p: Painter, title: Title, hex_id: str, towns: Sequence[TownMark],
                cities: Sequence[CityMark], tokens: Mapping[int, Sequence[str]]) -> None:
    """A hex's TOWNS and CITIES (its `HexDrawing`'s), the cities with their TOKENS."""
    for town in towns:
        centre = p.px(hex_id, town.centre)
        if town.bar_angle is None:
            # A thin light ring keeps the dot visible where several tracks meet in it.
            p.circle(centre, TOWN_DOT * p.r, fill=TRACK, outline="#ffffff",
                     width=p.width(0.025))
            continue
        u = polar(town.bar_angle, 0.19 * p.r)  # along the bar
        v = polar(town.bar_angle + 90.0, 0.06 * p.r)  # across it
        p.draw.polygon([(centre[0] + su * u[0] + sv * v[0], centre[1] + su * u[1] + sv * v[1])
                        for su, sv in ((1, 1), (1, -1), (-1, -1), (-1, 1))], fill=TRACK)
    spec = title.hexes[hex_id]
    for city in cities:
        _city(p, title, spec, hex_id, city, tokens.get(city.index, ()), len(cities))


def _city(p: Painter, title: Title, spec: HexSpec, hex_id: str, city: CityMark,
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


def paint_markers(p: Painter, title: Title, hex_id: str, places: Sequence[Point],
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
