"""Laying tiles and placing station tokens on the map (18TN 4.2.1, 4.2.2).

The tile-only checks (colour, label, kept track) are `engine.tiles`; this module adds
what depends on the map and the game: the phase's colours, the supply, exits that
would run off the map or into a blank side, terrain costs, and the connection to the
company's stations.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from engine import tiles, track
from engine.citations import WORDS
from engine.errors import GameError, require
from engine.geometry import neighbour, opposite
from engine.state import BANK, Corporation, GameState, PlacedTile, money
from engine.title import HexSpec, TileSpec

if TYPE_CHECKING:
    from engine.rules import Rules


def hex_spec(state: GameState, hex_id: str) -> HexSpec:
    require(hex_id in state.title.hexes, f"{hex_id} is not on the {state.title.name} map")
    return state.title.hexes[hex_id]


def current(state: GameState, hex_id: str) -> tuple[TileSpec | HexSpec, int, str]:
    """What a tile laid on `hex_id` replaces: the laid tile or the printed hex, its
    rotation, and its colour."""
    placed = state.board.tiles.get(hex_id)
    spec = hex_spec(state, hex_id)
    if placed is not None:
        tile = state.title.tile(placed.name)
        return tile, placed.rotation, tile.color
    return spec, 0, spec.color


def lay_kind(rules: Rules, state: GameState, hex_id: str, tile_name: str) -> str:
    """"yellow" for a first tile on a blank hex, else "upgrade" (18TN 4.2.1(c) note)."""
    require(tile_name in state.title.tiles, f"there is no tile {tile_name} in "
            f"{state.title.name}")
    _, _, colour = current(state, hex_id)
    return "yellow" if colour == "white" else "upgrade"


def exit_problem(state: GameState, hex_id: str, edge: int) -> str | None:
    """18TN 4.2.1(i): no track off the grid, across an impassable side, or into the
    blank side of a red off-board area (or a gray hex)."""
    spec = state.title.hexes[hex_id]
    if edge in spec.borders:
        return f"edge {edge} of {hex_id} is impassable"
    other_id = neighbour(state.title.grid, hex_id, edge)
    other = state.title.hexes.get(other_id)
    if other is None:
        return f"track on edge {edge} of {hex_id} would run off the map"
    if edge_blocked_from(other, opposite(edge)):
        return f"track on edge {edge} of {hex_id} would run into the blank side of {other_id}"
    if opposite(edge) in other.borders:
        return f"edge {edge} of {hex_id} is impassable"
    return None


def edge_blocked_from(other: HexSpec, edge: int) -> bool:
    """Red and gray hexes take track only where their printed track meets the side."""
    if other.color not in ("red", "gray"):
        return False
    if other.tile is None:
        return True
    return edge not in other.tile.exits


def check_lay(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
              tile_name: str, rotation: int, *, need_connection: bool = True,
              budget: int | None = None) -> int:
    """Everything a tile lay must satisfy; returns the terrain cost to pay. BUDGET is
    what the company may spend on it (its cash unless given: a listing counts the
    loans a lay would take, 1861 10.2)."""
    title = state.title
    spec = hex_spec(state, hex_id)
    require(tile_name in title.tiles, f"there is no tile {tile_name} in {title.name}")
    require(0 <= rotation <= 5, "rotation is 0 to 5")
    require(spec.buildable, f"no tile may be laid on {hex_id} ({spec.color} hex)")
    tile = title.tile(tile_name)
    phase = rules.phase(state)
    require(tile.color in phase.tiles,
            f"{tile.color} tiles are not available in phase {phase.name}")
    left = state.board.supply.get(tile_name, 0)
    require(left is None or left > 0, f"no tile {tile_name} is left in the supply")
    old, old_rotation, _ = current(state, hex_id)
    problems = tiles.upgrade_problems(old, old_rotation, tile, rotation, on_hex=spec)
    if problems:
        options = legal_rotations(rules, state, hex_id, tile_name)
        hint = (f"; tile {tile_name} fits {hex_id} at rotation "
                f"{', '.join(map(str, options))}") if options else ""
        raise GameError(f"tile {tile_name} cannot go on {hex_id} at rotation {rotation}: "
                        f"{problems[0]}{hint}",
                        tuple(f"lay {tile_name} at {hex_id} rot {r}" for r in options))
    for edge in tiles.exits(tile, rotation):
        why = exit_problem(state, hex_id, edge)
        if why:
            raise GameError(why)
    why_not = rules.why_not_lay(state, corp, hex_id, tile, rotation)
    if why_not:
        raise GameError(why_not)
    cost = terrain_cost(rules, state, hex_id) + rules.upgrade_cost(state, hex_id, tile)
    require((corp.cash if budget is None else budget) >= cost,
            f"{corp.sym} has {money(state, corp.cash)}; building in "
            f"{hex_id} costs {money(state, cost)}")
    if need_connection:
        why_not = rules.why_not_reached(state, corp, hex_id, tile, rotation)
        if why_not:
            raise GameError(why_not)
        require(connected_after(state, corp, hex_id, tile, rotation,
                                rules.hexes_closed_to_routes(state, corp)),
                rules.cite("track_connects", hex=hex_id, corp=corp.sym))
    return cost


def terrain_cost(rules: Rules, state: GameState, hex_id: str) -> int:
    """18TN 4.2.1(f): terrain is paid the first time a tile is laid on the hex."""
    if hex_id in state.board.laid_once:
        return 0
    return state.title.hexes[hex_id].terrain_cost


def connected_after(state: GameState, corp: Corporation, hex_id: str, tile: TileSpec,
                    rotation: int, closed: frozenset[str] = frozenset()) -> bool:
    """Whether new track or a city of the new tile connects to a station of `corp`: is
    part of a route of it, so not through `closed` hexes, whose track no route may use
    yet (1851: "the track on the tile must extend a route of the Corporation").

    Walked back from the hex (`track.lay_reached`), not traced over the whole map:
    `connected_after_traced` is the definition it answers as."""
    with _tile_tried(state, hex_id, tile, rotation) as old_points:
        return track.lay_reached(state, corp.sym, hex_id, old_points, closed)


def new_track_after(state: GameState, corp: Corporation, hex_id: str, tile: TileSpec,
                    rotation: int, closed: frozenset[str] = frozenset()) -> bool:
    """Whether a train of `corp` reaches track the new tile adds to the hex (a path not
    on it before; its cities aside), not through `closed` hexes (1825 5.2.4.a: a
    promotion adding track the company reaches). Walked back from the hex as
    `connected_after` is; `new_track_after_traced` is the definition."""
    with _tile_tried(state, hex_id, tile, rotation) as old_points:
        return track.lay_reached(state, corp.sym, hex_id, old_points, closed,
                                 cities=False)


def new_track_after_traced(state: GameState, corp: Corporation, hex_id: str,
                           tile: TileSpec, rotation: int,
                           closed: frozenset[str] = frozenset()) -> bool:
    """`new_track_after` by its definition: the whole map with the new tile on it,
    traced from `corp`'s stations (kept for the tests)."""
    with _tile_tried(state, hex_id, tile, rotation) as old_points:
        graph = track.build_track(state, closed)
        _, segments = track.reachable(state, graph, corp.sym)
    return any(graph.segments[s].hex == hex_id and frozenset(
        (graph.segments[s].a, graph.segments[s].b)) not in old_points for s in segments)


def _old_points(state: GameState, hex_id: str) -> set[frozenset[track.Point]]:
    """The paths on `hex_id` before the lay, each as the set of its two ends."""
    old_tile, old_rotation = track.tile_on(state, hex_id)
    if old_tile is None:
        return set()
    return {frozenset(p) for p in track.rotated_paths(old_tile, old_rotation, hex_id)}


@contextlib.contextmanager
def _tile_tried(state: GameState, hex_id: str, tile: TileSpec, rotation: int
                ) -> Iterator[set[frozenset[track.Point]]]:
    """The map with `tile` on `hex_id` for the while, then as it was; gives the hex's
    paths before it (the connection checks ask what the new tile adds)."""
    old_points = _old_points(state, hex_id)
    saved = state.board.tiles.get(hex_id)
    state.board.tiles[hex_id] = PlacedTile(tile.name, rotation)
    try:
        yield old_points
    finally:
        if saved is None:
            del state.board.tiles[hex_id]
        else:
            state.board.tiles[hex_id] = saved


def connected_after_traced(state: GameState, corp: Corporation, hex_id: str,
                           tile: TileSpec, rotation: int,
                           closed: frozenset[str] = frozenset()) -> bool:
    """`connected_after` by its definition: the graph of the whole map with the new
    tile on it, what `corp`'s routes reach there (`track.reaches_hex`; kept for the tests
    that check the walk back against it)."""
    with _tile_tried(state, hex_id, tile, rotation) as old_points:
        graph = track.build_track(state, closed)
        return track.reaches_hex(state, graph, corp.sym, hex_id, old_points)


def connected_after_plainly(state: GameState, corp: Corporation, hex_id: str,
                            tile: TileSpec, rotation: int,
                            closed: frozenset[str] = frozenset()) -> bool:
    """`connected_after_traced` by the plain tracing (`track.plainly_reaches_hex`): a
    way that may use track twice, as 18xx.games's looser check lets it."""
    with _tile_tried(state, hex_id, tile, rotation) as old_points:
        graph = track.build_track(state, closed)
        return track.plainly_reaches_hex(state, graph, corp.sym, hex_id, old_points)


def lay_tile(rules: Rules, state: GameState, corp: Corporation, hex_id: str, tile_name: str,
             rotation: int, *, need_connection: bool = True, free: bool = False) -> None:
    """Lay or upgrade a tile after every check; moves tokens onto the new tile."""
    cost = check_lay(rules, state, corp, hex_id, tile_name, rotation,
                     need_connection=need_connection)
    if free:
        cost = 0
    old, old_rotation, _ = current(state, hex_id)
    tile = state.title.tile(tile_name)
    spec = state.title.hexes[hex_id]
    old_tile = old if isinstance(old, TileSpec) else (old.tile or tiles.EMPTY_HEX_TILE)
    mapping = tiles.stop_mappings(old_tile, old_rotation, tile, rotation)
    placed = state.board.tiles.get(hex_id)
    if placed is not None:
        count = state.board.supply.get(placed.name)
        if count is not None:
            state.board.supply[placed.name] = count + 1
    left = state.board.supply.get(tile_name)
    if left is not None:
        state.board.supply[tile_name] = left - 1
    state.board.tiles[hex_id] = PlacedTile(tile_name, rotation)
    if mapping and hex_id in state.board.tokens:
        moved: dict[int, list[str]] = {}
        for old_city, corps in state.board.tokens[hex_id].items():
            new_city = int(mapping[0].get(f"c{old_city}", f"c{old_city}")[1:])
            moved.setdefault(new_city, []).extend(corps)
        state.board.tokens[hex_id] = moved
    if cost:
        state.transfer_cash(corp.sym, BANK, cost)
    state.board.laid_once.add(hex_id)
    name = f" ({spec.name})" if spec.name else ""
    state.say(f"{corp.sym} lays tile {tile_name} on {hex_id}{name} at rotation {rotation}"
              + (f", paying {money(state, cost)} terrain" if cost else ""))


def legal_rotations(rules: Rules, state: GameState, hex_id: str, tile_name: str) -> list[int]:
    """Rotations at which `tile_name` may go on `hex_id`, map checks included
    (connection aside)."""
    spec = state.title.hexes.get(hex_id)
    if spec is None or tile_name not in state.title.tiles:
        return []
    tile = state.title.tile(tile_name)
    old, old_rotation, _ = current(state, hex_id)
    out = []
    for r in tiles.legal_rotations(old, old_rotation, tile, on_hex=spec):
        if all(exit_problem(state, hex_id, e) is None for e in tiles.exits(tile, r)):
            out.append(r)
    return out


# --- station tokens ----------------------------------------------------------------------


def city_count(state: GameState, hex_id: str) -> int:
    tile, _ = track.tile_on(state, hex_id)
    return len(tile.cities) if tile is not None else 0


def free_slots(state: GameState, hex_id: str, city: int) -> int:
    tile, _ = track.tile_on(state, hex_id)
    assert tile is not None
    return tile.cities[city].slots - len(state.board.tokens_in(hex_id, city))


def reserved_slots(state: GameState, hex_id: str, city: int, corp: str) -> int:
    """Home spaces kept open for companies that have not yet placed their home station
    (18TN 4.2.2(c))."""
    count = 0
    for other in state.corporations.values():
        if other.sym == corp or other.spec.home != hex_id or other.closed:
            continue  # (a closed company places no home station)
        home_city = other.spec.home_city or 0
        if home_city != city and city_count(state, hex_id) > 1:
            continue
        if not has_token_in(state, other.sym, hex_id):
            count += 1
    return count


def has_token_in(state: GameState, corp: str, hex_id: str) -> bool:
    return any(corp in corps for corps in state.board.tokens.get(hex_id, {}).values())


def place_home_token(state: GameState, corp: Corporation, city: int | None = None, *,
                     word: str = WORDS["station"]) -> None:
    """4.2(a): the first station goes on the home city, free (`city`: the one its
    director chose, `CorporationSpec.home_choice`; `word`: the title's for a station,
    `Rules.word`)."""
    home = corp.spec.home
    if home is None or has_token_in(state, corp.sym, home):
        return
    if city is None:
        city = corp.spec.home_city or 0
    if city >= city_count(state, home):
        city = 0
    state.board.tokens.setdefault(home, {}).setdefault(city, []).append(corp.sym)
    corp.token_costs.pop(0)
    state.say(f"{corp.sym} places its home {word} in {home}"
              + (f" city {city + 1}" if corp.spec.home_choice else ""))


def place_token(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
                city: int | None) -> None:
    """4.2.2: a station in a connected city with a free slot, one per hex."""
    chosen, cost = _token_place(rules, state, corp, hex_id, city)
    corp.token_costs.pop(0)
    state.board.tokens.setdefault(hex_id, {}).setdefault(chosen, []).append(corp.sym)
    if cost:
        state.transfer_cash(corp.sym, BANK, cost)
    state.say(f"{corp.sym} places a {rules.word('station')} in {hex_id}"
              + (f" for {money(state, cost)}" if cost else ""))


def token_refused(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
                  city: int | None) -> bool:
    """Whether `place_token` refuses the station (its checks alone: it changes nothing
    before them)."""
    try:
        _token_place(rules, state, corp, hex_id, city)
    except GameError:
        return True
    return False


def _token_place(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
                 city: int | None) -> tuple[int, int]:
    """`place_token`'s checks: the city chosen and the price, or GameError."""
    hex_spec(state, hex_id)
    word = rules.word("station")
    require(bool(corp.token_costs), f"{corp.sym} has no {rules.word('token')}s left")
    cities = city_count(state, hex_id)
    require(cities > 0, f"{hex_id} has no city")
    require(not has_token_in(state, corp.sym, hex_id),
            rules.cite("station_once_per_hex", corp=corp.sym, hex=hex_id))
    # A station goes on a route of the company: not through track no route may use.
    graph = track.build_track(state, rules.hexes_closed_to_routes(state, corp))
    nodes, _ = track.reachable(state, graph, corp.sym)
    candidates = [c for c in range(cities) if city is None or c == city]
    require(bool(candidates), f"{hex_id} has no city {city}")
    usable = [c for c in candidates
              if free_slots(state, hex_id, c) - reserved_slots(state, hex_id, c, corp.sym) > 0]
    require(bool(usable), rules.cite("station_space_kept", hex=hex_id)
            if any(free_slots(state, hex_id, c) > 0 for c in candidates)
            else f"no free station space in {hex_id}")
    connected = [c for c in usable if track.Node(hex_id, "c", c) in nodes]
    require(bool(connected), rules.cite("station_connects", hex=hex_id, corp=corp.sym))
    require(city is not None or len(connected) == 1,
            f"{hex_id} has several cities; say which: "
            + ", ".join(f"token {hex_id} city {c + 1}" for c in connected))
    chosen = connected[0]
    cost = rules.token_cost(state, corp, hex_id)
    require(corp.cash >= cost, f"{corp.sym} has {money(state, corp.cash)}; the {word} "
            f"costs {money(state, cost)}")
    return chosen, cost
