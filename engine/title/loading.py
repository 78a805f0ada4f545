"""Loading a title: its JSON file (``data/<title>.json``) and the shared tile catalogue
(``data/tiles.json``) read from ``engine.data`` into the frozen specs of this package,
each cross-reference checked as it goes (``load_title``, ``build_title``).

Wording: a *stop* is a city, town or off-board revenue centre; a *phase key* is
what a phase's ``offboard_key`` names (a tile colour, or for 1851 a phase name)
and selects the value of every phase-dependent revenue.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from importlib import resources
from typing import Any, cast

from engine.geometry import Grid, Layout, is_grid_position, parse_hex_id
from engine.title.companies import CorporationSpec, EdgeToken, PrivateSpec
from engine.title.frozen import FrozenDict, freeze
from engine.title.map_specs import (
    COLOR_ORDER,
    ENDPOINT_RE,
    HEX_COLORS,
    CitySpec,
    HexSpec,
    LaneSpec,
    OffboardSpec,
    PathSpec,
    Reservation,
    Revenue,
    TileSpec,
    TownSpec,
    endpoint_index,
    endpoint_kind,
)
from engine.title.market_specs import read_market
from engine.title.rolling_stock import Distance, PhaseSpec, TrainLimit, TrainSpec
from engine.title.spec import Title

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


# A title changed for a game's options (1825's site figures, 1861's trains, 1850's
# diesels) is built once per loaded title and variant, as a loaded title is: every game
# with those options shares it, and with it what the engine keeps per title by identity
# (track pieces, tile shapes, neighbours). A new title per game made those caches start
# cold at every replay, and grow with every game.
_DERIVED: dict[tuple[int, str], tuple[Title, Title]] = {}


def derived_title(title: Title, variant: str, make: Callable[[Title], Title]) -> Title:
    """`make(title)`, made once per `title` and `variant` (a name for what `make` does):
    `make` must depend on nothing else."""
    key = (id(title), variant)
    found = _DERIVED.get(key)
    if found is None or found[0] is not title:
        found = _DERIVED[key] = (title, make(title))  # (the base kept: its id stays its)
    return found[1]


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
        market=read_market(raw["market"]),
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
