"""The fast checks of a declared route and of a tile lay's connection give the plain
answers, and a record with an illegal route or lay is still refused.

`routes.walks_matching` follows only the declared hexes when the list can be read in
no other way (a declared hex without a stop, the list ending elsewhere than it
begins); `board.connected_after` stops tracing at the first new track or city of the
hex a train reaches (18TN 4.2.1(j)). Both are compared here with the plain way: every
walk `walks_from` finds from the stops of the first hex, and the whole tracing of a
freshly built graph. Positions are those of the recorded games 115810 (1850) and
7818 (18TN), where the 18xx.games engine accepted every run and lay.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import board, optimizer, routes, track
from engine.actions import LayTile, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.records import RecordError, folded_actions, import_record
from engine.rounds.operating import OperatingRound
from engine.state import GameState, PlacedTile
from engine.title import TileSpec
from engine.walks import Walk

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
RECORDS = ("1850/115810.json", "18TN/7818.json")


@functools.cache
def record(name: str) -> dict[str, Any]:
    path = FIXTURES / name
    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def positions(name: str, kind: type) -> Iterator[tuple[Game, Any]]:
    """The game just before each recorded action of `kind`, with the action (one game,
    advanced in place)."""
    recorded = import_record(record(name)).game
    game = Game(recorded.setup)
    for move in recorded.log:
        if isinstance(move.action, kind):
            yield game, move.action
        game.apply(move.seat, move.action)


def plain_walks_matching(state: GameState, graph: track.Track, corp: str,
                         hexes: tuple[str, ...], max_stops: int) -> list[Walk]:
    """Every walk `walks_from` finds from a stop of the first hex, either direction,
    kept when it fits the list and touches a station."""
    tokens = set(track.token_nodes(state, corp))
    out: list[Walk] = []
    for declared in (hexes, tuple(reversed(hexes))):
        for node in graph.nodes():
            if node.is_stop and node.hex == declared[0]:
                out += [w for w in routes.walks_from(state, graph, corp, node, max_stops,
                                                     declared)
                        if routes.matches(w, hexes) and tokens.intersection(w.stops)]
    return out


def variants(hexes: tuple[str, ...], stops: tuple[str, ...]) -> list[tuple[str, ...]]:
    """A declared list, its other forms, and lists that are wrong in small ways."""
    out = [hexes, tuple(reversed(hexes)), stops, tuple(reversed(stops))]
    if len(hexes) > 2:
        out.append(hexes[:1] + hexes[2:])  # a hex left out
        out.append(hexes[:-1])  # stopping short
        out.append((hexes[1], hexes[0], *hexes[2:]))  # two hexes swapped
        out.append((*hexes, hexes[-2]))  # turning back
    return out


@pytest.mark.parametrize("name", RECORDS)
def test_declared_routes_find_the_walks_of_the_plain_search(name: str) -> None:
    """At every recorded run: the recorded routes, their stops-only and reversed forms,
    and spoilt copies find the same walks, in the same order, as the plain search."""
    compared = 0
    for game, _ in positions(name, RunRoutes):
        rnd = game.round
        assert isinstance(rnd, OperatingRound)
        corp = rnd.company()
        state = game.state
        graph = routes.route_track(game.rules, state, corp)
        run = optimizer.run_for(game.rules, state, corp, RunRoutes(auto=True))
        for train_run in run.runs:
            dist = state.title.train(train_run.train).distance.stops
            walk = train_run.walk
            for hexes in variants(walk.hexes, tuple(n.hex for n in walk.stops)):
                fast = routes.walks_matching(state, graph, corp.sym, hexes, dist)
                assert fast == plain_walks_matching(state, graph, corp.sym, hexes, dist), \
                    hexes
                compared += 1
    assert compared > 100


def plain_connected_after(state: GameState, corp: str, hex_id: str, tile: TileSpec,
                          rotation: int, closed: frozenset[str]) -> bool:
    """4.2.1(j) the plain way: lay the tile, trace the whole map afresh, and look for
    new track or a city of the hex among what the company's trains reach."""
    old_tile, old_rotation = track.tile_on(state, hex_id)
    old = set() if old_tile is None else {
        frozenset(p) for p in track.rotated_paths(old_tile, old_rotation, hex_id)}
    saved = state.board.tiles.get(hex_id)
    state.board.tiles[hex_id] = PlacedTile(tile.name, rotation)
    try:
        graph = track.trace_map(state, closed)
        nodes, segments = track.trace_reach(state, graph, corp)
    finally:
        if saved is None:
            del state.board.tiles[hex_id]
        else:
            state.board.tiles[hex_id] = saved
    return any(graph.segments[s].hex == hex_id and
               frozenset((graph.segments[s].a, graph.segments[s].b)) not in old
               for s in segments) or any(n.hex == hex_id and n.kind == "c" for n in nodes)


@pytest.mark.parametrize("name", RECORDS)
def test_the_connection_of_a_lay_is_the_plain_tracing(name: str) -> None:
    """At every recorded lay: the recorded lay and random lays that fit the hex (most
    of them far from the company's track) connect exactly when the plain tracing says
    so, whether or not the company's tracing of the new map is kept already."""
    rng = random.Random(name)
    answers: set[bool] = set()
    for game, lay in positions(name, LayTile):
        rnd = game.round
        if not isinstance(rnd, OperatingRound) or rnd.current is None:
            continue
        state, rules = game.state, game.rules
        corp = rnd.company()
        closed = rules.hexes_closed_to_routes(state, corp)
        buildable = sorted(h for h, spec in state.title.hexes.items() if spec.buildable)
        lays = [(lay.hex, lay.tile, lay.rotation)]
        while len(lays) < 7:
            hex_id, name_ = rng.choice(buildable), rng.choice(sorted(state.title.tiles))
            rotations = board.legal_rotations(rules, state, hex_id, name_)
            if rotations:
                lays.append((hex_id, name_, rng.choice(rotations)))
        for hex_id, name_, rotation in lays:
            tile = state.title.tile(name_)
            want = plain_connected_after(state, corp.sym, hex_id, tile, rotation, closed)
            if (hex_id, name_, rotation) == lays[0]:
                assert want, lay  # the recorded lay connects
            # Traced as far as the answer, then from the company's kept tracing.
            assert board.connected_after(state, corp, hex_id, tile, rotation, closed) == want
            after = lay_on(state, hex_id, tile, rotation)
            track.reachable(after, track.build_track(after, closed), corp.sym)
            assert board.connected_after(state, corp, hex_id, tile, rotation, closed) == want
            answers.add(want)
    assert answers == {True, False}


def lay_on(state: GameState, hex_id: str, tile: TileSpec, rotation: int) -> GameState:
    out = copy.deepcopy(state)
    out.board.tiles[hex_id] = PlacedTile(tile.name, rotation)
    return out


# --- a record with an illegal route or lay is refused ---------------------------------


def spoilt(name: str, pick: str, change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record cut after the first action of type `pick` that `change` alters (it
    returns False to pass over one), and the same cut record unaltered."""
    altered = copy.deepcopy(record(name))
    actions = folded_actions(altered["actions"])
    for action in actions:
        if action.get("type") != pick or action.get("entity_type") != "corporation":
            continue
        cut = next(i for i, a in enumerate(altered["actions"]) if a is action)
        plain = copy.deepcopy(altered)
        plain["actions"] = plain["actions"][:cut + 1]
        if change(action, altered, cut):
            altered["actions"] = altered["actions"][:cut + 1]
            return altered, plain
    raise AssertionError(f"no {pick} to alter in {name}")


def test_a_record_running_a_route_off_the_track_is_refused() -> None:
    """4.2.3: a recorded route with a hex left out of its middle is no walk on the
    track; the same record as played is accepted."""
    def leave_out(action: dict[str, Any], _: dict[str, Any], __: int) -> bool:
        for route in action.get("routes") or []:
            for chain in route["connections"]:
                if len(chain) > 2:
                    del chain[1]
                    return True
        return False

    altered, plain = spoilt("1850/115810.json", "run_routes", leave_out)
    import_record(plain)
    with pytest.raises(RecordError, match="no legal route"):
        import_record(altered)


def test_a_record_laying_a_tile_away_from_the_company_is_refused() -> None:
    """1850 6: the recorded tile moved to a hex it fits but no route of the company
    reaches is refused for the connection alone, in 1850's words; the record as played
    is accepted."""
    def move_away(action: dict[str, Any], altered: dict[str, Any], cut: int) -> bool:
        before = copy.deepcopy(altered)
        before["actions"] = before["actions"][:cut]
        game = import_record(before).game
        rules, state = game.rules, game.state
        corp = state.corporations[str(action["entity"])]
        name = str(action["tile"]).rsplit("-", 1)[0]
        for hex_id in sorted(state.title.hexes):
            for rotation in board.legal_rotations(rules, state, hex_id, name):
                try:
                    board.check_lay(rules, state, corp, hex_id, name, rotation,
                                    need_connection=False)
                except GameError:
                    continue
                tile = state.title.tile(name)
                if not board.connected_after(state, corp, hex_id, tile, rotation,
                                             rules.hexes_closed_to_routes(state, corp)):
                    action["hex"], action["rotation"] = hex_id, rotation
                    return True
        return False

    altered, plain = spoilt("1850/115810.json", "lay_tile", move_away)
    import_record(plain)
    with pytest.raises(RecordError, match=r"cannot reach the new track on .* \(6\)"):
        import_record(altered)
