"""Title data: the published facts of one 18xx title, loaded from ``engine.data``.

Each supported title has one JSON file (``data/<title>.json``) plus the shared tile
catalogue (``data/tiles.json``). ``load_title`` reads them into the frozen
dataclasses below, checking the cross-references as it goes, so the rest of the
engine works with typed, immutable facts and never with raw JSON.

Wording: a *stop* is a city, town or off-board revenue centre; a *phase key* is
what a phase's ``offboard_key`` names (a tile colour, or for 1851 a phase name)
and selects the value of every phase-dependent revenue.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, TypeVar, cast

from engine.geometry import Grid, Layout, is_grid_position, parse_hex_id

K = TypeVar("K")
V = TypeVar("V")

COLOR_ORDER: tuple[str, ...] = ("white", "yellow", "green", "brown", "gray")
"""Track colours in upgrade order; a hex's blank state counts as white."""

HEX_COLORS = frozenset({"white", "yellow", "green", "brown", "gray", "red", "blue"})
ENDPOINT_RE = re.compile(r"^(e[0-5]|[ctoj]\d+)$")


class Shared:
    """Immutable title data is shared, never copied: a game state that is deep-copied
    (to try an action, or to undo one) keeps pointing at the same specs."""

    __slots__ = ()

    def __copy__(self) -> Shared:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Shared:
        return self


class FrozenDict(Shared, Mapping[K, V]):
    """An immutable, hashable mapping, so specs stay frozen all the way down."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


Revenue = int | FrozenDict[str, int]
"""A printed value: a plain number, or one number per phase key."""


def endpoint_kind(endpoint: str) -> str:
    """The kind letter of a path endpoint: "e" edge, "c" city, "t" town, "o" off-board,
    "j" junction."""
    return endpoint[0]


def endpoint_index(endpoint: str) -> int:
    """The number of a path endpoint: the edge for "e3", the stop index for "c1"."""
    return int(endpoint[1:])


# --------------------------------------------------------------------------- tiles


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


# --------------------------------------------------------------------------- map


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


# --------------------------------------------------------------------------- trains, phases

_DISTANCE_RE = re.compile(r"^(\d+)(?:\+(\d+))?(E)?$")


@dataclass(frozen=True, slots=True)
class Distance(Shared):
    """A train's reach as printed on the card.

    raw: the card's text ("4", "2+2", "5+5E").
    stops: how many cities/off-boards a route may count.
    plus: the number after "+" (its meaning is the title's: in 1861 an n+n train runs
        as an n-train and doubles the value, see ``TrainSpec.multiplier``).
    express: "E": the train may skip stops and counts only the ones it scores.
    """

    raw: str
    stops: int
    plus: int = 0
    express: bool = False

    @classmethod
    def parse(cls, raw: int | str) -> Distance:
        text = str(raw).strip()
        m = _DISTANCE_RE.match(text)
        if m is None:
            raise ValueError(f"unrecognised train distance {raw!r}")
        return cls(text, int(m.group(1)), int(m.group(2) or 0), m.group(3) is not None)


@dataclass(frozen=True, slots=True)
class TrainSpec(Shared):
    """A train type.

    count: how many the bank holds; None = unlimited.
    rusts_on: the phase whose start removes these trains at once (rusting or the
        rulebooks' "obsolete and eliminated"); obsolete_on: the phase after which
        they run once more and are then removed (18TN's 4-trains).
    multiplier: factor applied to the route value (1861's 2+2 and 5+5E double it).
    double_heads_as: two of these may run together as one train of that type
        (1825: two 2-trains as a 3-train).
    free_towns: towns do not count against its distance, and every town its route
        visits scores (1825 R1's U3: three cities, any number of towns).
    """

    name: str
    distance: Distance
    price: int
    count: int | None
    rusts_on: str | None = None
    obsolete_on: str | None = None
    multiplier: int = 1
    double_heads_as: str | None = None
    free_towns: bool = False
    note: str | None = None


TrainLimit = int | FrozenDict[str, int | None]


@dataclass(frozen=True, slots=True)
class PhaseSpec(Shared):
    """A game phase.

    starts_on: the train type whose purchase from the bank starts this phase (None
        for the phase the game starts in); starts_on_nth: it is the n-th such train.
    tiles: tile colours that may be laid.
    train_limit: trains a company may own; per company kind where kinds differ
        (1861). A kind missing from the mapping does not operate in this phase; a
        kind mapped to None has no limit.
    operating_rounds: operating rounds per stock round.
    offboard_key: the phase key selecting off-board (and other phase-valued)
        revenue; None where the title has none (1825 Unit 1).
    events: what happens when the phase starts, in the rulebook's words.
    """

    name: str
    starts_on: str | None
    starts_on_nth: int
    tiles: tuple[str, ...]
    train_limit: TrainLimit
    operating_rounds: int
    offboard_key: str | None
    events: tuple[str, ...] = ()

    def train_limit_for(self, kind: str = "major") -> int | None:
        """Train limit for a company of ``kind``; None means no limit.

        Raises LookupError if companies of that kind cannot operate in this phase.
        """
        if isinstance(self.train_limit, int):
            return self.train_limit
        if kind not in self.train_limit:
            raise LookupError(f"no {kind} companies operate in phase {self.name}")
        return self.train_limit[kind]


# --------------------------------------------------------------------------- market


@dataclass(frozen=True, slots=True)
class MarketCell(Shared):
    """One space of the stock market.

    row, col: position (row 0 at the top; a 1d market has one row).
    zone: the space's colour zone ("yellow", "green", "brown", "black", "closed",
        "end", ...) or None for a plain space; its meaning is in ``MarketSpec.notes``.
    can_par: a company may start here; par_for: the company kinds that may
        (empty = any kind).
    arrow: "up"/"down": a right/left move turns up/down here instead.
    ledges: "floor" (sales stop here), "soft_below", "soft_right" (1850's Soft Ledge).
    area: "upper"/"lower" side of 1850's Soft Ledge.
    convert, minor_ceiling: 1861's conversion column and minor price ceiling.
    endgame: reaching this space ends the game.
    """

    row: int
    col: int
    price: int
    zone: str | None = None
    can_par: bool = False
    par_for: tuple[str, ...] = ()
    arrow: str | None = None
    ledges: tuple[str, ...] = ()
    area: str | None = None
    convert: bool = False
    minor_ceiling: bool = False
    endgame: bool = False


@dataclass(frozen=True, slots=True)
class MarketSpec(Shared):
    """The stock market: "2d" grid or "1d" single row; ``None`` marks no space."""

    kind: str
    rows: tuple[tuple[MarketCell | None, ...], ...]
    notes: str | None = None

    def cell(self, row: int, col: int) -> MarketCell | None:
        """The space at (row, col), or None if there is none there."""
        if 0 <= row < len(self.rows) and 0 <= col < len(self.rows[row]):
            return self.rows[row][col]
        return None

    def cells(self) -> Iterator[MarketCell]:
        for r in self.rows:
            yield from (c for c in r if c is not None)

    def par_cells(self, kind: str | None = None) -> tuple[MarketCell, ...]:
        """Spaces a company (of ``kind``, if given) may start on, top row first."""
        return tuple(
            c
            for c in self.cells()
            if c.can_par and (kind is None or not c.par_for or kind in c.par_for)
        )


# --------------------------------------------------------------------------- companies


@dataclass(frozen=True, slots=True)
class PrivateSpec(Shared):
    """A private company.

    value: face value (price); revenue: income paid each operating round.
    ability: the special ability in the rulebook's words.
    hexes: hexes the ability (or the private's blocking) refers to on the map;
    rules_hexes: the hex the rulebook names where it differs (see decisions).
    tiles: tiles the ability may lay. region: a named area of ``title_specific``.
    number: the number or code printed on the certificate; min_bid: auction minimum.
    """

    sym: str
    name: str
    value: int
    revenue: int
    ability: str
    hexes: tuple[str, ...] = ()
    number: str | None = None
    tiles: tuple[str, ...] = ()
    rules_hexes: tuple[str, ...] = ()
    region: str | None = None
    min_bid: int | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class EdgeToken(Shared):
    """1850's extra station for a red area at the map edge: where, and its price."""

    hex: str
    cost: int


@dataclass(frozen=True, slots=True)
class CorporationSpec(Shared):
    """A company that issues shares or operates (major, minor, national).

    kind: "major" (public), "minor" or "national" (1861's RSR).
    home, home_city: home hex and the index of its city; None when it has no fixed
        home (1861's publics).
    token_costs: one entry per station marker: what placing it costs (1861: the
        multiplier per hex of distance).
    shares: certificate sizes in percent, president's first (empty for the RSR).
    float_percent: percentage sold for the company to float; None if it never floats.
    rules_sym / site_sym: the rulebook's / 18xx.games' abbreviation where they
        differ from ``sym``; lookups accept all three.
    par: fixed starting price (1825's face value).
    available_from_phase: first phase in which it may be started (1861's minors).
    home_choice: its director chooses which city of its home hex takes its home
        station, when it first operates (1825 R1's Taff Vale in V8); `home_city` is
        the default.
    """

    sym: str
    name: str | None
    kind: str
    home: str | None
    home_city: int | None
    token_costs: tuple[int, ...]
    shares: tuple[int, ...]
    float_percent: int | None
    rules_sym: str | None = None
    site_sym: str | None = None
    par: int | None = None
    edge_token: EdgeToken | None = None
    available_from_phase: str | None = None
    home_choice: bool = False
    note: str | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(s for s in (self.sym, self.rules_sym, self.site_sym) if s)


# --------------------------------------------------------------------------- title


@dataclass(frozen=True, slots=True, eq=False)
class Title(Shared):
    """Everything printed for one title, as the rules engine needs it.

    starting_cash, cert_limit: keyed by number of players.
    tile_manifest: tile name -> copies in the box; None = unlimited.
    tiles: every tile this title uses (catalogue tiles in its manifest, overridden
        by its own definitions).
    decisions: where the sources disagree, which way this data goes and why, as
        "id: ..." lines.
    title_specific: facts only one title's module reads (1861's loans, 1850's
        regions, ...), as frozen JSON.
    """

    name: str
    full_title: str
    layout: Layout
    grid: Grid
    currency: str
    bank: int
    players_min: int
    players_max: int
    starting_cash: FrozenDict[int, int]
    cert_limit: FrozenDict[int, int]
    market: MarketSpec
    par_values: tuple[int, ...]
    trains: tuple[TrainSpec, ...]
    phases: tuple[PhaseSpec, ...]
    privates: tuple[PrivateSpec, ...]
    corporations: tuple[CorporationSpec, ...]
    hexes: FrozenDict[str, HexSpec]
    tile_manifest: FrozenDict[str, int | None]
    tiles: FrozenDict[str, TileSpec]
    decisions: tuple[str, ...]
    title_specific: FrozenDict[str, object]
    source: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def corporation(self, sym: str) -> CorporationSpec:
        """The company called ``sym`` (its sym, rulebook or 18xx.games abbreviation,
        any case)."""
        wanted = sym.strip().upper()
        for c in self.corporations:
            if wanted in (a.upper() for a in c.aliases):
                return c
        known = ", ".join(c.sym for c in self.corporations)
        raise KeyError(f"{self.name} has no company {sym!r} (known: {known})")

    def private(self, sym: str) -> PrivateSpec:
        """The private company ``sym`` (case-insensitive)."""
        wanted = sym.strip().upper()
        for p in self.privates:
            if p.sym.upper() == wanted:
                return p
        known = ", ".join(p.sym for p in self.privates)
        raise KeyError(f"{self.name} has no private {sym!r} (known: {known})")

    def train(self, name: str) -> TrainSpec:
        for t in self.trains:
            if t.name == name.strip():
                return t
        raise KeyError(f"{self.name} has no train {name!r}")

    def phase(self, name: str) -> PhaseSpec:
        for p in self.phases:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no phase {name!r}")

    def phase_index(self, name: str) -> int:
        """Position of phase ``name`` in the game's order (0 = starting phase)."""
        return self.phases.index(self.phase(name))

    def hex(self, hex_id: str) -> HexSpec:
        """The map hex ``hex_id`` in any spelling ("H5", "H-5", "h5")."""
        canonical = parse_hex_id(hex_id)
        try:
            return self.hexes[canonical]
        except KeyError:
            raise KeyError(f"{canonical} is not on the {self.name} map") from None

    def tile(self, name: str) -> TileSpec:
        try:
            return self.tiles[name]
        except KeyError:
            raise KeyError(f"{self.name} has no tile {name!r}") from None

    def decision(self, decision_id: str) -> str:
        """The recorded decision ``decision_id`` ("id: ..." line)."""
        for d in self.decisions:
            if d.split(":", 1)[0] == decision_id:
                return d
        raise KeyError(f"{self.name} records no decision {decision_id!r}")

    @property
    def phase_keys(self) -> tuple[str, ...]:
        """Distinct phase keys in game order (what phase-valued revenues are keyed by)."""
        keys: list[str] = []
        for p in self.phases:
            if p.offboard_key is not None and p.offboard_key not in keys:
                keys.append(p.offboard_key)
        return tuple(keys)

    def revenue_in_phase(self, revenue: Revenue, phase: str) -> int:
        """The value of ``revenue`` while phase ``phase`` is current.

        A mapping without an entry for the phase's key pays its latest earlier value
        (1850's two-value off-boards keep their last value in the gray phases).
        """
        if isinstance(revenue, int):
            return revenue
        key = self.phase(phase).offboard_key
        if key is None:
            raise ValueError(f"{self.name} phase {phase} has no phase key for {revenue!r}")
        order = self.phase_keys
        for k in reversed(order[: order.index(key) + 1]):
            if k in revenue:
                return revenue[k]
        # Before the first printed value: the first one applies.
        return revenue[min(revenue, key=order.index)]


# --------------------------------------------------------------------------- loading

_ALIASES = {"1825-UNIT1": "1825", "1825 UNIT 1": "1825", "1825UNIT1": "1825"}


def _data_files() -> dict[str, str]:
    """Title name (upper case) -> file name, from the packaged data."""
    out: dict[str, str] = {}
    for entry in resources.files("engine.data").iterdir():
        name = entry.name
        if name.endswith(".json") and name != "tiles.json":
            out[name[: -len(".json")].upper()] = name
    return out


def available_titles() -> list[str]:
    """Names of the titles shipped with the program, e.g. ["1825", "1850", ...]."""
    return sorted(name[: -len(".json")] for name in _data_files().values())


def read_title_json(file_name: str) -> Any:
    """The raw contents of one of the program's data files (a title's, or tiles.json)."""
    text = resources.files("engine.data").joinpath(file_name).read_text(encoding="utf-8")
    return json.loads(text)


def load_title(name: str) -> Title:
    """Load a title by name ("18TN", "1851", "1850", "1861", "1825"; any case).

    The result is cached: every caller shares one immutable Title.
    """
    key = name.strip().upper()
    key = _ALIASES.get(key, key)
    files = _data_files()
    if key not in files:
        known = ", ".join(available_titles())
        raise ValueError(f"unknown title {name!r}; known titles: {known}")
    return _load_title_file(files[key])


@functools.cache
def load_tile_catalogue() -> FrozenDict[str, TileSpec]:
    """The standard tile catalogue (``data/tiles.json``), shared by every title."""
    raw = read_title_json("tiles.json")
    tiles = raw["tiles"]
    return FrozenDict((n, _tile(n, t, "tiles.json")) for n, t in tiles.items())


@functools.cache
def _load_title_file(file_name: str) -> Title:
    raw = read_title_json(file_name)
    return build_title(raw, file_name)


# ---- JSON -> specs


def freeze(value: object) -> object:
    """Deep-freeze parsed JSON: dicts become FrozenDicts, lists tuples."""
    if isinstance(value, dict):
        return FrozenDict((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def _revenue(value: object, where: str) -> Revenue:
    if isinstance(value, bool):
        raise ValueError(f"{where}: revenue must be a number or a mapping, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, int) for k, v in value.items()
    ):
        return FrozenDict(cast(dict[str, int], value))
    raise ValueError(f"{where}: revenue must be a number or a mapping, not {value!r}")


def _count(value: object, where: str) -> int | None:
    if value == "unlimited":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"{where}: count must be a number or 'unlimited', not {value!r}")


def _lane(value: object, where: str) -> LaneSpec | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return LaneSpec(int(value["width"]), int(value["index"]))
    raise ValueError(f"{where}: bad lane {value!r}")


def _path(value: object, where: str) -> PathSpec:
    attrs: dict[str, Any]
    if isinstance(value, str):
        text, attrs = value, {}
    elif isinstance(value, dict) and isinstance(value.get("path"), str):
        text, attrs = value["path"], value
    else:
        raise ValueError(f"{where}: bad path {value!r}")
    parts = text.split("-")
    if len(parts) != 2 or not all(ENDPOINT_RE.match(p) for p in parts):
        raise ValueError(f"{where}: bad path {text!r} (expected e.g. 'e0-c0')")
    unknown = set(attrs) - {"path", "terminal", "lanes", "a_lane", "b_lane"}
    if unknown:
        raise ValueError(f"{where}: unknown path attributes {sorted(unknown)}")
    return PathSpec(
        parts[0],
        parts[1],
        terminal=bool(attrs.get("terminal", False)),
        lanes=int(attrs.get("lanes", 1)),
        a_lane=_lane(attrs.get("a_lane"), where),
        b_lane=_lane(attrs.get("b_lane"), where),
    )


def _terrain(value: object, where: str) -> tuple[int, tuple[str, ...]]:
    if value is None:
        return 0, ()
    if isinstance(value, dict) and all(isinstance(v, int) for v in value.values()):
        return sum(value.values()), tuple(value)
    raise ValueError(f"{where}: terrain must map kind to cost, not {value!r}")


def _check_paths(
    paths: tuple[PathSpec, ...], cities: int, towns: int, offboards: int, where: str
) -> None:
    limits = {"c": cities, "t": towns, "o": offboards, "j": 1, "e": 6}
    for p in paths:
        for ep in p.endpoints:
            if endpoint_index(ep) >= limits[endpoint_kind(ep)]:
                raise ValueError(f"{where}: path {p} names a missing {ep}")


_TILE_KEYS = {
    "color", "cities", "towns", "paths", "label", "upgrades_to", "terrain", "note",
}


def _tile(name: str, raw: Mapping[str, Any], where: str) -> TileSpec:
    unknown = set(raw) - _TILE_KEYS
    if unknown:
        raise ValueError(f"{where}: tile {name}: unknown keys {sorted(unknown)}")
    here = f"{where}: tile {name}"
    cities = tuple(
        CitySpec(_revenue(c["revenue"], here), int(c["slots"])) for c in raw.get("cities", [])
    )
    towns = tuple(TownSpec(_revenue(t["revenue"], here)) for t in raw.get("towns", []))
    paths = tuple(_path(p, here) for p in raw.get("paths", []))
    _check_paths(paths, len(cities), len(towns), 0, here)
    cost, kinds = _terrain(raw.get("terrain"), here)
    up = raw.get("upgrades_to")
    color = raw["color"]
    if color not in COLOR_ORDER[1:]:
        raise ValueError(f"{here}: bad colour {color!r}")
    return TileSpec(
        name=name,
        color=color,
        cities=cities,
        towns=towns,
        paths=paths,
        label=raw.get("label"),
        upgrades_to=tuple(up) if up is not None else None,
        terrain_cost=cost,
        terrain=kinds,
        note=raw.get("note"),
    )


_HEX_KEYS = {
    "name", "color", "terrain", "cities", "towns", "offboard", "offboard_group", "paths",
    "label", "future_labels", "impassable", "reserved_track", "note",
}


def _hex(hex_id: str, raw: Mapping[str, Any], homes: list[Reservation], where: str) -> HexSpec:
    here = f"{where}: hex {hex_id}"
    unknown = set(raw) - _HEX_KEYS
    if unknown:
        raise ValueError(f"{here}: unknown keys {sorted(unknown)}")
    color = raw.get("color", "white")
    if color not in HEX_COLORS:
        raise ValueError(f"{here}: bad colour {color!r}")
    cost, kinds = _terrain(raw.get("terrain"), here)
    cities = tuple(
        CitySpec(_revenue(c["revenue"], here), int(c["slots"])) for c in raw.get("cities", [])
    )
    towns = tuple(TownSpec(_revenue(t["revenue"], here)) for t in raw.get("towns", []))
    offboard_raw = raw.get("offboard")
    offboard: Revenue | None = None
    offboards: tuple[OffboardSpec, ...] = ()
    group = raw.get("offboard_group")
    if offboard_raw is not None:
        offboard = _revenue(offboard_raw, here)
        offboards = (OffboardSpec(offboard, group),)
    paths = tuple(_path(p, here) for p in raw.get("paths", []))
    _check_paths(paths, len(cities), len(towns), len(offboards), here)
    label = raw.get("label")
    tile: TileSpec | None = None
    if cities or towns or offboards or paths:
        tile = TileSpec(
            name=hex_id,
            color=color,
            cities=cities,
            towns=towns,
            offboards=offboards,
            paths=paths,
            label=label,
        )
    track_rights = [Reservation(by, None, "track") for by in raw.get("reserved_track", [])]
    reserved = [*homes, *track_rights]
    for r in homes:
        if r.city is not None and r.city >= len(cities):
            raise ValueError(f"{here}: {r.by}'s home city {r.city} does not exist")
    borders = tuple(int(e) for e in raw.get("impassable", []))
    if any(not 0 <= e <= 5 for e in borders):
        raise ValueError(f"{here}: bad impassable edge in {borders}")
    return HexSpec(
        id=hex_id,
        name=raw.get("name"),
        color=color,
        terrain_cost=cost,
        terrain=kinds,
        tile=tile,
        label=label,
        future_labels=FrozenDict(raw.get("future_labels", {})),
        borders=borders,
        reserved=tuple(reserved),
        offboard=offboard,
        offboard_group=group,
        note=raw.get("note"),
    )


_MARKET_FLAGS = {"can_par", "convert", "minor_ceiling", "endgame"}
_MARKET_WORDS: dict[str, tuple[str, str]] = {
    "par": ("flag", "can_par"),
    "convert": ("flag", "convert"),
    "ceiling": ("flag", "minor_ceiling"),
    "endgame": ("flag", "endgame"),
    "up": ("arrow", "up"),
    "down": ("arrow", "down"),
    "floor": ("ledge", "floor"),
    "soft_below": ("ledge", "soft_below"),
    "soft_right": ("ledge", "soft_right"),
    "upper": ("area", "upper"),
    "lower": ("area", "lower"),
}
MARKET_ZONES = frozenset(
    {"white", "yellow", "green", "brown", "black", "red", "purple", "closed", "end", "none"}
)


def parse_market_cell(text: str, row: int, col: int, default_zone: str | None) -> MarketCell:
    """Read a compact market cell: the price, then words.

    Words: a zone colour ("yellow", ...; "none" for no zone), "par" or
    "par:minor+major", "up"/"down" (arrows), "floor"/"soft_below"/"soft_right"
    (ledges), "upper"/"lower" (area), "convert", "ceiling", "endgame".
    """
    words = text.split()
    if not words or not words[0].isdigit():
        raise ValueError(f"market cell ({row},{col}) {text!r}: must start with the price")
    zone = default_zone
    flags: dict[str, bool] = dict.fromkeys(_MARKET_FLAGS, False)
    arrow: str | None = None
    area: str | None = None
    ledges: list[str] = []
    par_for: tuple[str, ...] = ()
    for w in words[1:]:
        if w in MARKET_ZONES:
            zone = None if w == "none" else w
        elif w.startswith("par:"):
            flags["can_par"] = True
            par_for = tuple(w[4:].split("+"))
        elif w in _MARKET_WORDS:
            kind, value = _MARKET_WORDS[w]
            if kind == "flag":
                flags[value] = True
            elif kind == "arrow":
                arrow = value
            elif kind == "ledge":
                ledges.append(value)
            else:
                area = value
        else:
            raise ValueError(f"market cell ({row},{col}) {text!r}: unknown word {w!r}")
    return MarketCell(
        row=row,
        col=col,
        price=int(words[0]),
        zone=zone,
        can_par=flags["can_par"],
        par_for=par_for,
        arrow=arrow,
        ledges=tuple(ledges),
        area=area,
        convert=flags["convert"],
        minor_ceiling=flags["minor_ceiling"],
        endgame=flags["endgame"],
    )


def _market(raw: Mapping[str, Any]) -> MarketSpec:
    default_zone = raw.get("default_zone")
    rows = tuple(
        tuple(
            None if cell is None else parse_market_cell(cell, r, c, default_zone)
            for c, cell in enumerate(row)
        )
        for r, row in enumerate(raw["rows"])
    )
    kind = raw["kind"]
    if kind not in ("1d", "2d") or (kind == "1d" and len(rows) != 1):
        raise ValueError(f"bad market kind {kind!r} for {len(rows)} rows")
    return MarketSpec(kind=kind, rows=rows, notes=raw.get("notes"))


def _train_limit(value: object, where: str) -> TrainLimit:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return FrozenDict((k, _count(v, where)) for k, v in value.items())
    raise ValueError(f"{where}: bad train limit {value!r}")


def _decision_line(raw: Mapping[str, Any]) -> str:
    line = f"{raw['id']}: {raw['choice']} Reason: {raw['reason']}"
    if raw.get("site"):
        line += f" 18xx.games / record data: {raw['site']}"
    return line


def build_title(raw: Mapping[str, Any], where: str) -> Title:
    """A Title from raw data: a data file's contents, or those a game option widened
    (1825's R1 kit); `where` names it in the errors."""
    name = str(raw["title"])
    grid_raw = raw["grid"]
    layout = cast(Layout, raw["layout"])
    grid = Grid(
        layout=layout,
        letters=grid_raw["letters"],
        first_letter_index=int(grid_raw["first_letter_index"]),
        doubled=bool(grid_raw.get("doubled", True)),
    )

    trains = tuple(
        TrainSpec(
            name=str(t["name"]),
            distance=Distance.parse(t["distance"]),
            price=int(t["price"]),
            count=_count(t["count"], f"{where}: train {t['name']}"),
            rusts_on=t.get("rusts_on"),
            obsolete_on=t.get("obsolete_on"),
            multiplier=int(t.get("multiplier", 1)),
            double_heads_as=t.get("double_heads_as"),
            free_towns=bool(t.get("free_towns", False)),
            note=t.get("note"),
        )
        for t in raw["trains"]
    )
    phases = tuple(
        PhaseSpec(
            name=str(p["name"]),
            starts_on=p.get("starts_on"),
            starts_on_nth=int(p.get("starts_on_nth", 1)),
            tiles=tuple(p["tiles"]),
            train_limit=_train_limit(p["train_limit"], f"{where}: phase {p['name']}"),
            operating_rounds=int(p["operating_rounds"]),
            offboard_key=p.get("offboard_key"),
            events=tuple(p.get("events", [])),
        )
        for p in raw["phases"]
    )
    privates = tuple(
        PrivateSpec(
            sym=p["sym"],
            name=p["name"],
            value=int(p["value"]),
            revenue=int(p["revenue"]),
            ability=p["ability"],
            hexes=tuple(p.get("hexes", [])),
            number=None if p.get("number") is None else str(p["number"]),
            tiles=tuple(p.get("tiles", [])),
            rules_hexes=tuple(p.get("rules_hexes", [])),
            region=p.get("region"),
            min_bid=p.get("min_bid"),
            note=p.get("note"),
        )
        for p in raw["privates"]
    )
    corporations = tuple(
        CorporationSpec(
            sym=c["sym"],
            name=c.get("name"),
            kind=c["kind"],
            home=c.get("home"),
            home_city=c.get("home_city"),
            token_costs=tuple(int(x) for x in c["tokens"]),
            shares=tuple(int(x) for x in c["shares"]),
            float_percent=c.get("float_percent"),
            rules_sym=c.get("rules_sym"),
            site_sym=c.get("site_sym"),
            par=c.get("par"),
            edge_token=EdgeToken(c["edge_token"]["hex"], int(c["edge_token"]["cost"]))
            if c.get("edge_token")
            else None,
            available_from_phase=c.get("available_from_phase"),
            home_choice=bool(c.get("home_choice", False)),
            note=c.get("note"),
        )
        for c in raw["corporations"]
    )

    homes: dict[str, list[Reservation]] = {}
    for c in corporations:
        if c.home is not None:
            kind = "national" if c.kind == "national" else "home"
            homes.setdefault(c.home, []).append(Reservation(c.sym, c.home_city, kind))

    hexes: dict[str, HexSpec] = {}
    for hex_id, h in raw["hexes"].items():
        if parse_hex_id(hex_id) != hex_id or not is_grid_position(grid, hex_id):
            raise ValueError(f"{where}: {hex_id!r} is not a canonical id on this grid")
        hexes[hex_id] = _hex(hex_id, h, homes.pop(hex_id, []), where)
    if homes:
        raise ValueError(f"{where}: homes off the map: {sorted(homes)}")

    catalogue = load_tile_catalogue()
    custom = {n: _tile(n, t, where) for n, t in raw.get("tiles", {}).items()}
    manifest = {
        str(n): _count(v, f"{where}: manifest {n}") for n, v in raw["tile_manifest"].items()
    }
    tiles: dict[str, TileSpec] = {}
    for tile_name in manifest:
        spec = custom.get(tile_name) or catalogue.get(tile_name)
        if spec is None:
            raise ValueError(f"{where}: manifest tile {tile_name} is not defined")
        tiles[tile_name] = spec
    stray = sorted(set(custom) - set(manifest))
    if stray:
        raise ValueError(f"{where}: tiles outside the manifest: {stray}")
    for old_name, new_names in raw.get("tile_promotions", {}).items():
        if old_name in tiles:  # (a tile chart may name tiles of other units)
            tiles[old_name] = replace(tiles[old_name], promotes_to=tuple(
                n for n in new_names if n in tiles))

    players = raw["players"]
    title = Title(
        name=name,
        full_title=raw.get("full_title", name),
        layout=layout,
        grid=grid,
        currency=raw["currency"],
        bank=int(raw["bank"]),
        players_min=int(players["min"]),
        players_max=int(players["max"]),
        starting_cash=FrozenDict((int(k), int(v)) for k, v in raw["starting_cash"].items()),
        cert_limit=FrozenDict((int(k), int(v)) for k, v in raw["cert_limit"].items()),
        market=_market(raw["market"]),
        par_values=tuple(int(x) for x in raw["par_values"]),
        trains=trains,
        phases=phases,
        privates=privates,
        corporations=corporations,
        hexes=FrozenDict(hexes),
        tile_manifest=FrozenDict(manifest),
        tiles=FrozenDict(tiles),
        decisions=tuple(_decision_line(d) for d in raw.get("decisions", [])),
        title_specific=cast(FrozenDict[str, object], freeze(raw.get("title_specific", {}))),
        source=tuple(raw.get("source", [])),
        notes=tuple(raw.get("notes", [])),
    )
    _validate(title, where)
    return title


def _validate(t: Title, where: str) -> None:
    """Cross-reference checks: catch a typo in the data when it is loaded, not mid-game."""
    problems: list[str] = []
    phase_names = {p.name for p in t.phases}
    train_names = {tr.name for tr in t.trains}
    keys = set(t.phase_keys)
    for tr in t.trains:
        for named in (tr.rusts_on, tr.obsolete_on):
            if named is not None and named not in phase_names:
                problems.append(f"train {tr.name} names unknown phase {named}")
        if tr.double_heads_as is not None and tr.double_heads_as not in train_names:
            problems.append(f"train {tr.name} double-heads as unknown train")
    for i, ph in enumerate(t.phases):
        if ph.starts_on is None and i > 0:
            problems.append(f"phase {ph.name}: only the first phase may lack a starting train")
        if ph.starts_on is not None and ph.starts_on not in train_names:
            problems.append(f"phase {ph.name} starts on unknown train {ph.starts_on}")
        if any(c not in COLOR_ORDER[1:] for c in ph.tiles):
            problems.append(f"phase {ph.name}: bad tile colour in {ph.tiles}")

    def check_revenue(rev: Revenue, what: str) -> None:
        if isinstance(rev, FrozenDict) and not set(rev) <= keys:
            problems.append(f"{what}: revenue keys {sorted(rev)} not among phase keys")

    for h in t.hexes.values():
        if h.tile is not None:
            for city in h.tile.cities:
                check_revenue(city.revenue, f"hex {h.id}")
            for town in h.tile.towns:
                check_revenue(town.revenue, f"hex {h.id}")
            for ob in h.tile.offboards:
                check_revenue(ob.revenue, f"hex {h.id}")
        for color in h.future_labels:
            if color not in COLOR_ORDER[1:]:
                problems.append(f"hex {h.id}: future label for bad colour {color}")
    for p in t.privates:
        for hx in (*p.hexes, *p.rules_hexes):
            if hx not in t.hexes and hx not in p.rules_hexes:
                problems.append(f"private {p.sym} names hex {hx} off the map")
        for tn in p.tiles:
            if tn not in t.tiles:
                problems.append(f"private {p.sym} names unknown tile {tn}")
    for c in t.corporations:
        if c.available_from_phase is not None and c.available_from_phase not in phase_names:
            problems.append(f"company {c.sym} available from unknown phase")
        if c.edge_token is not None and c.edge_token.hex not in t.hexes:
            problems.append(f"company {c.sym} edge token off the map")
    for tile in t.tiles.values():
        for up in tile.upgrades_to or ():
            if up not in t.tiles:
                problems.append(f"tile {tile.name} upgrades to unknown tile {up}")
    syms = [a.upper() for c in t.corporations for a in c.aliases]
    if len(syms) != len(set(syms)):
        problems.append("company abbreviations are not unique")
    if problems:
        raise ValueError(f"{where}: " + "; ".join(problems))
