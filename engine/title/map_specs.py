"""The map's printed facts: hexes (`HexSpec`), tiles (`TileSpec`) and what is on them
-- paths and their endpoints, cities, towns, off-board areas, reserved spaces -- and the
track colours in upgrade order (`COLOR_ORDER`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.title.frozen import FrozenDict, Shared

COLOR_ORDER: tuple[str, ...] = ("white", "yellow", "green", "brown", "gray")
"""Track colours in upgrade order; a hex's blank state counts as white."""

HEX_COLORS = frozenset({"white", "yellow", "green", "brown", "gray", "red", "blue"})
ENDPOINT_RE = re.compile(r"^(e[0-5]|[ctoj]\d+)$")


Revenue = int | FrozenDict[str, int]
"""A printed value: a plain number, or one number per phase key."""


def endpoint_kind(endpoint: str) -> str:
    """The kind letter of a path endpoint: "e" edge, "c" city, "t" town, "o" off-board,
    "j" junction."""
    return endpoint[0]


def endpoint_index(endpoint: str) -> int:
    """The number of a path endpoint: the edge for "e3", the stop index for "c1"."""
    return int(endpoint[1:])


@dataclass(frozen=True, slots=True)
class LaneSpec(Shared):
    """Which of several parallel tracks meets an endpoint (1850's double track at A2/B1).

    width: how many parallel tracks share the endpoint; index: this track's place
    among them, counted clockwise from 0.
    """

    width: int
    index: int


@dataclass(frozen=True, slots=True)
class PathSpec(Shared):
    """One track segment printed on a tile or hex, joining two endpoints.

    a, b: "e0".."e5" for a hex side (at rotation 0), "cK" the tile's K-th city,
        "tK" its K-th town, "o0" an off-board revenue centre, "j0" a junction.
    terminal: a route may only end here, never run through (1850 off-boards).
    lanes: number of parallel tracks this segment stands for (1850's A2 SW side).
    a_lane, b_lane: the lane of a multi-lane side this segment uses, if any.
    """

    a: str
    b: str
    terminal: bool = False
    lanes: int = 1
    a_lane: LaneSpec | None = None
    b_lane: LaneSpec | None = None

    @property
    def endpoints(self) -> tuple[str, str]:
        return (self.a, self.b)

    @property
    def edges(self) -> tuple[int, ...]:
        """Hex sides this segment touches, at rotation 0."""
        return tuple(endpoint_index(p) for p in (self.a, self.b) if p[0] == "e")

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"


@dataclass(frozen=True, slots=True)
class CitySpec(Shared):
    """A large city (open circle): its printed revenue and number of station spaces."""

    revenue: Revenue
    slots: int


@dataclass(frozen=True, slots=True)
class TownSpec(Shared):
    """A small city / town (dot or bar): revenue only, never a station space."""

    revenue: Revenue


@dataclass(frozen=True, slots=True)
class OffboardSpec(Shared):
    """A red off-board area's revenue centre; ``group`` names a multi-hex area
    (1861's Poland) whose hexes count as one destination."""

    revenue: Revenue
    group: str | None = None


@dataclass(frozen=True, slots=True)
class TileSpec(Shared):
    """A track tile at rotation 0, or the preprinted content of a map hex.

    name: the tile number ("57"), or the hex id for preprinted content.
    color: "yellow", "green", "brown", "gray"; for preprinted content the hex colour
        ("white" for an empty city hex, "red" for an off-board).
    cities, towns, offboards: the revenue centres, indexed by the K of "cK"/"tK".
    paths: the track segments.
    label: the letter(s) printed on the tile ("Y", "OO", "P", "Chi"); a tile may only
        go where the hex asks for that label.
    upgrades_to: where the source restricts this tile's upgrades to named tiles;
        None means any tile the generic upgrade rules allow.
    promotes_to: tiles with cities this tile's towns may grow into (1825 1.10.1, "a
        single town may grow into a higher-value city", by the title's tile chart:
        the title's ``tile_promotions``).
    terrain_cost, terrain: a cost printed on the tile itself (1861's green Kiev pays
        R40 when it is upgraded).
    """

    name: str
    color: str
    cities: tuple[CitySpec, ...] = ()
    towns: tuple[TownSpec, ...] = ()
    offboards: tuple[OffboardSpec, ...] = ()
    paths: tuple[PathSpec, ...] = ()
    label: str | None = None
    upgrades_to: tuple[str, ...] | None = None
    terrain_cost: int = 0
    terrain: tuple[str, ...] = ()
    note: str | None = None
    promotes_to: tuple[str, ...] = ()

    @property
    def exits(self) -> frozenset[int]:
        """Hex sides with track, at rotation 0."""
        return frozenset(e for p in self.paths for e in p.edges)


@dataclass(frozen=True, slots=True)
class Reservation(Shared):
    """A claim on a hex: a company's home station ("home"; "national" for 1861's RSR)
    in city ``city``, or the right to build its track first ("track", city None)."""

    by: str
    city: int | None
    kind: str


@dataclass(frozen=True, slots=True)
class HexSpec(Shared):
    """One hex of the map as printed.

    color: "white" (empty, buildable), "yellow"/"green"/"brown"/"gray" (preprinted
        track or cities of that colour; gray cannot be upgraded), "red" (off-board).
    terrain_cost: the sum printed for difficult terrain, paid by the first company
        to build there; terrain: its kinds ("water", "mountain").
    tile: the preprinted content (cities, towns, off-board, track) as a tile at
        rotation 0, or None for a blank hex.
    label: the letter printed on the hex; future_labels: the label a tile of a given
        colour laid here must carry when it differs from ``label`` (18TN's Nashville
        takes a green "N", then brown and gray "P").
    borders: impassable sides (broad rivers): no track may cross them.
    reserved: home stations and track rights held here.
    offboard: an off-board area's revenue by phase key, or None.
    """

    id: str
    name: str | None
    color: str
    terrain_cost: int = 0
    terrain: tuple[str, ...] = ()
    tile: TileSpec | None = None
    label: str | None = None
    future_labels: FrozenDict[str, str] = field(default_factory=lambda: FrozenDict())
    borders: tuple[int, ...] = ()
    reserved: tuple[Reservation, ...] = ()
    offboard: Revenue | None = None
    offboard_group: str | None = None
    note: str | None = None

    def label_for(self, color: str) -> str | None:
        """The label a tile of ``color`` must carry to be laid on this hex."""
        return self.future_labels.get(color, self.label)

    @property
    def cities(self) -> tuple[CitySpec, ...]:
        return self.tile.cities if self.tile else ()

    @property
    def towns(self) -> tuple[TownSpec, ...]:
        return self.tile.towns if self.tile else ()

    @property
    def paths(self) -> tuple[PathSpec, ...]:
        return self.tile.paths if self.tile else ()

    @property
    def buildable(self) -> bool:
        """Whether tiles may ever be laid here (not gray, red or blue)."""
        return self.color in ("white", "yellow", "green", "brown")
