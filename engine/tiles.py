"""Tile geometry and upgrade legality, independent of any map position.

These functions answer "may tile B replace what is on this hex, and at which
rotations?" from the tiles alone: colour order, labels, city/town kinds and the
preservation of every existing track connection. Whether an exit runs off the map,
into an impassable side or the blank side of a red or gray hex, and whether the
new track connects to the company's stations, depend on the map and the game state;
the engine's map module adds those checks using ``exits``.

Rotation r turns a tile r x 60 degrees clockwise: edge e becomes (e + r) % 6.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import replace

from engine.title import (
    COLOR_ORDER,
    CitySpec,
    HexSpec,
    PathSpec,
    Revenue,
    TileSpec,
    endpoint_index,
    endpoint_kind,
)

EMPTY_HEX_TILE = TileSpec(name="", color="white")
"""What a blank map hex holds: nothing, colour white."""

StopMapping = Mapping[str, str]
"""Old stop -> new stop ("c1" -> "c0"): where each city's or town's stations and
track go when a tile is upgraded."""


def _rotate_endpoint(endpoint: str, rotation: int) -> str:
    if endpoint_kind(endpoint) == "e":
        return f"e{(endpoint_index(endpoint) + rotation) % 6}"
    return endpoint


def rotated_paths(tile: TileSpec, rotation: int) -> tuple[PathSpec, ...]:
    """The tile's paths with every edge turned by ``rotation``."""
    r = rotation % 6
    if r == 0:
        return tile.paths
    return tuple(
        PathSpec(
            _rotate_endpoint(p.a, r),
            _rotate_endpoint(p.b, r),
            terminal=p.terminal,
            lanes=p.lanes,
            a_lane=p.a_lane,
            b_lane=p.b_lane,
        )
        for p in tile.paths
    )


def exits(tile: TileSpec, rotation: int = 0) -> frozenset[int]:
    """Hex sides with track once the tile is laid at ``rotation``."""
    return frozenset((e + rotation) % 6 for e in tile.exits)


def stop_edges(tile: TileSpec, rotation: int, stop: str) -> frozenset[int]:
    """Sides joined directly to ``stop`` ("c0", "t1") at ``rotation``."""
    out: set[int] = set()
    for p in rotated_paths(tile, rotation):
        a, b = p.endpoints
        if a == stop and endpoint_kind(b) == "e":
            out.add(endpoint_index(b))
        if b == stop and endpoint_kind(a) == "e":
            out.add(endpoint_index(a))
    return frozenset(out)


# --------------------------------------------------------------------------- single rules


def next_color(color: str) -> str | None:
    """The colour that may replace ``color`` (white -> yellow -> green -> brown -> gray);
    None when nothing may (gray, red, blue)."""
    if color not in COLOR_ORDER or color == COLOR_ORDER[-1]:
        return None
    return COLOR_ORDER[COLOR_ORDER.index(color) + 1]


def color_step_ok(old_color: str, new_color: str) -> bool:
    """Upgrades go one colour at a time; no colour may be skipped."""
    return next_color(old_color) == new_color


def label_ok(required: str | None, new_tile: TileSpec) -> bool:
    """The tile's label must be exactly what the hex asks for (none for none)."""
    return new_tile.label == required


def stops_compatible(old: TileSpec, new: TileSpec, *, merge_towns: bool = False) -> bool:
    """City hexes take city tiles and town hexes town tiles.

    Cities may merge (Chicago, Kiev, Moscow, St. Petersburg, 1851's Louisville become
    one city in a later colour) but never multiply or vanish; towns keep their
    number unless ``merge_towns``. A plain hex never gains a city or town this way.
    """
    oc, nc = len(old.cities), len(new.cities)
    ot, nt = len(old.towns), len(new.towns)
    cities_ok = (oc == 0 and nc == 0) or (oc > 0 and 1 <= nc <= oc)
    towns_ok = (ot == nt) or (merge_towns and ot > 0 and 1 <= nt <= ot)
    return cities_ok and towns_ok and not new.offboards and not old.offboards


def _maps(new_n: int, candidates: list[set[int]]) -> Iterator[tuple[int, ...]]:
    """Assignments old index -> new index drawn from each old stop's candidates in
    which every new stop receives at least one old stop (a bijection when the counts
    are equal): stops may merge, never vanish."""
    for combo in itertools.product(*(sorted(c) for c in candidates)):
        if len(set(combo)) == new_n:
            yield combo


def _mapped_path(
    p: PathSpec, city_map: tuple[int, ...], town_map: tuple[int, ...]
) -> frozenset[str] | None:
    ends: list[str] = []
    for ep in p.endpoints:
        kind = endpoint_kind(ep)
        if kind == "c":
            ends.append(f"c{city_map[endpoint_index(ep)]}")
        elif kind == "t":
            ends.append(f"t{town_map[endpoint_index(ep)]}")
        else:
            ends.append(ep)
    if ends[0] == ends[1]:
        return None  # two merged cities: the link between them is now inside one city
    return frozenset(ends)


def stop_mappings(
    old: TileSpec,
    old_rotation: int,
    new: TileSpec,
    rotation: int,
    *,
    merge_towns: bool = False,
) -> list[dict[str, str]]:
    """Every way of carrying the old tile's stops onto the new one that keeps all old
    track: each old path (edge-edge, edge-stop, stop-stop) must exist on the new tile
    between the corresponding points, and each new city must hold the stations of
    the old cities mapped to it. Empty list: the new tile does not preserve the track.
    """
    old_paths = rotated_paths(old, old_rotation)
    new_paths = {frozenset(p.endpoints) for p in rotated_paths(new, rotation)}
    oc, nc = len(old.cities), len(new.cities)
    ot, nt = len(old.towns), len(new.towns)
    if (oc == 0) != (nc == 0) or (ot == 0) != (nt == 0):
        return []
    if nc > oc or nt > ot or (nt != ot and not merge_towns):
        return []

    def candidates(kind: str, old_n: int, new_n: int) -> list[set[int]]:
        out = []
        for i in range(old_n):
            need = stop_edges(old, old_rotation, f"{kind}{i}")
            out.append({j for j in range(new_n) if need <= stop_edges(new, rotation, f"{kind}{j}")})
        return out

    city_cands = candidates("c", oc, nc)
    town_cands = candidates("t", ot, nt)
    if any(not c for c in city_cands) or any(not c for c in town_cands):
        return []
    results: list[dict[str, str]] = []
    for cmap in _maps(nc, city_cands):
        # the old cities' station spaces must all fit in the city they move to
        load = [0] * nc
        for i, j in enumerate(cmap):
            load[j] += old.cities[i].slots
        if any(load[j] > new.cities[j].slots for j in range(nc)):
            continue
        for tmap in _maps(nt, town_cands):
            if all(
                (mp := _mapped_path(p, cmap, tmap)) is None or mp in new_paths for p in old_paths
            ):
                mapping = {f"c{i}": f"c{j}" for i, j in enumerate(cmap)}
                mapping.update({f"t{i}": f"t{j}" for i, j in enumerate(tmap)})
                results.append(mapping)
    return results


def preserves_track(
    old: TileSpec, old_rotation: int, new: TileSpec, rotation: int, *, merge_towns: bool = False
) -> bool:
    """Whether the new tile at ``rotation`` keeps every connection of the old one."""
    return bool(stop_mappings(old, old_rotation, new, rotation, merge_towns=merge_towns))


# --------------------------------------------------------------------------- symmetry


def _stop_signature(tile: TileSpec, rotation: int, stop: str) -> tuple[object, ...]:
    kind, idx = endpoint_kind(stop), endpoint_index(stop)
    revenue: Revenue | None = None
    slots = 0
    if kind == "c":
        revenue, slots = tile.cities[idx].revenue, tile.cities[idx].slots
    elif kind == "t":
        revenue = tile.towns[idx].revenue
    elif kind == "o":
        revenue = tile.offboards[idx].revenue
    return (kind, revenue, slots, tuple(sorted(stop_edges(tile, rotation, stop))))


def placement_key(tile: TileSpec, rotation: int) -> frozenset[object]:
    """What a laid tile looks like, ignoring which stop is numbered first: two
    rotations with the same key are the same placement."""
    out: set[object] = set()
    for p in rotated_paths(tile, rotation):
        ends = []
        for ep in p.endpoints:
            ends.append(ep if endpoint_kind(ep) == "e" else _stop_signature(tile, rotation, ep))
        out.add((frozenset(map(repr, ends)), p.terminal, p.lanes))
    for kind, n in (("c", len(tile.cities)), ("t", len(tile.towns))):
        for i in range(n):  # stops without track still count
            out.add(repr(_stop_signature(tile, rotation, f"{kind}{i}")))
    return frozenset(out)


def distinct_rotations(tile: TileSpec) -> list[int]:
    """Rotations giving different placements (a straight track has three, #63 one)."""
    seen: set[frozenset[object]] = set()
    out: list[int] = []
    for r in range(6):
        key = placement_key(tile, r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


# --------------------------------------------------------------------------- upgrades


def replaced(
    old: TileSpec | HexSpec, on_hex: HexSpec | None
) -> tuple[TileSpec, HexSpec | None]:
    if isinstance(old, HexSpec):
        tile = old.tile if old.tile is not None else EMPTY_HEX_TILE
        if old.tile is None and old.color != "white":
            tile = TileSpec(name=old.id, color=old.color)
        return tile, old
    return old, on_hex


def promoted(old: TileSpec, new: TileSpec) -> TileSpec:
    """What `new` replaces, as the upgrade checks read it: where the title's tile chart
    lets `old`'s towns grow into `new`'s cities (1825 1.10.1), the towns count as cities
    without station spaces, so that they may merge into one city and keep their track;
    otherwise `old` itself."""
    if new.name not in old.promotes_to or not old.towns or new.towns or not new.cities:
        return old
    first = len(old.cities)

    def city(end: str) -> str:
        return f"c{first + endpoint_index(end)}" if endpoint_kind(end) == "t" else end

    return replace(
        old,
        cities=old.cities + tuple(CitySpec(t.revenue, 0) for t in old.towns),
        towns=(),
        paths=tuple(replace(p, a=city(p.a), b=city(p.b)) for p in old.paths),
    )


def upgrade_problems(
    old: TileSpec | HexSpec,
    old_rotation: int,
    new: TileSpec,
    rotation: int | None = None,
    *,
    on_hex: HexSpec | None = None,
    merge_towns: bool = False,
) -> list[str]:
    """Why ``new`` may not replace ``old`` (empty list: it may).

    ``old`` is a map hex (its preprinted content, or blank) or the tile laid on it at
    ``old_rotation``. Pass ``on_hex`` with a laid tile so the hex's label for the new
    colour applies (18TN's Nashville wants "N" in green, "P" in brown). With
    ``rotation`` None the track check passes if any rotation keeps the old track.
    """
    old_tile, hex_spec = replaced(old, on_hex)
    old_tile = promoted(old_tile, new)
    problems: list[str] = []
    if not color_step_ok(old_tile.color, new.color):
        want = next_color(old_tile.color)
        problems.append(
            f"{old_tile.color} cannot be upgraded"
            if want is None
            else f"a {old_tile.color} hex takes a {want} tile, not {new.color}"
        )
    required = hex_spec.label_for(new.color) if hex_spec is not None else old_tile.label
    if not label_ok(required, new):
        need = f"label {required}" if required else "no label"
        has = f"label {new.label}" if new.label else "no label"
        problems.append(f"this hex needs a tile with {need}; tile {new.name} has {has}")
    if old_tile.upgrades_to is not None and new.name not in old_tile.upgrades_to:
        problems.append(
            f"tile {old_tile.name} upgrades only to {', '.join(old_tile.upgrades_to)}"
        )
    if not stops_compatible(old_tile, new, merge_towns=merge_towns):
        problems.append(
            f"tile {new.name} has {len(new.cities)} cities and {len(new.towns)} towns;"
            f" the hex has {len(old_tile.cities)} and {len(old_tile.towns)}"
        )
    else:
        rotations = [rotation % 6] if rotation is not None else list(range(6))
        if not any(
            preserves_track(old_tile, old_rotation, new, r, merge_towns=merge_towns)
            for r in rotations
        ):
            where = f"at rotation {rotation}" if rotation is not None else "at any rotation"
            problems.append(f"tile {new.name} {where} does not keep all existing track")
    return problems


def can_upgrade(
    old: TileSpec | HexSpec,
    old_rotation: int,
    new: TileSpec,
    rotation: int,
    *,
    on_hex: HexSpec | None = None,
    merge_towns: bool = False,
) -> bool:
    """Whether ``new`` at ``rotation`` may replace ``old`` (map checks aside)."""
    return not upgrade_problems(
        old, old_rotation, new, rotation, on_hex=on_hex, merge_towns=merge_towns
    )


def legal_rotations(
    old: TileSpec | HexSpec,
    old_rotation: int,
    new: TileSpec,
    *,
    on_hex: HexSpec | None = None,
    merge_towns: bool = False,
) -> list[int]:
    """Rotations at which ``new`` may replace ``old``, one per distinct placement.

    Map-dependent checks (exits off the map or into impassable sides, connection to
    the company's stations) are the map module's; it can filter with ``exits``.
    """
    if upgrade_problems(old, old_rotation, new, None, on_hex=on_hex, merge_towns=merge_towns):
        return []
    old_tile = promoted(replaced(old, on_hex)[0], new)
    return [
        r
        for r in distinct_rotations(new)
        if preserves_track(old_tile, old_rotation, new, r, merge_towns=merge_towns)
    ]
