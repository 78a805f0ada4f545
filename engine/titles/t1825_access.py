"""1825 Unit 1, 5.2.4: which promotions a company may make.

A tile on a hex without track is all new track: the core's connection check is 5.2.4.a.
A promotion must either add new track a train of the company could reach from one of
its bases (5.2.4.a), or raise the value of a station on a route one of its trains could
run now (5.2.4.b; two 2-trains double-headed count as a 3-train, 5.5.5). A trainless
company therefore may only promote where the promotion adds track it reaches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import board, routes, track
from engine.title import TileSpec

if TYPE_CHECKING:
    from engine.rules import Rules
    from engine.state import Corporation, GameState


def why_not_promote(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
    old, _ = track.tile_on(state, hex_id)
    if old is None or not old.paths:
        return None  # a lay on a hex without track: all of it is new (5.2.4.a)
    # (walked back from the hex, not traced over a graph of the whole map built anew
    # for each promotion tried: tests/engine/test_speed_lay_connection.py)
    closed = rules.hexes_closed_to_routes(state, corp)
    if board.new_track_after(state, corp, hex_id, tile, rotation, closed):
        return None  # 5.2.4.a
    if raises_a_route(rules, state, corp, hex_id, tile):
        return None  # 5.2.4.b
    if not corp.trains:
        return (f"the promotion of {hex_id} adds no track {corp.sym} reaches (5.2.4.a), "
                f"and {corp.sym} has no train whose route it could raise (5.2.4.b)")
    return (f"the promotion of {hex_id} adds no track {corp.sym} reaches (5.2.4.a) and "
            f"raises no route {corp.sym}'s trains could run now (5.2.4.b)")


def _value(state: GameState, phase: str, tile: TileSpec, kind: str, index: int) -> int:
    stops = tile.cities if kind == "c" else tile.towns
    if index >= len(stops):
        return 0
    return state.title.revenue_in_phase(stops[index].revenue, phase)


def raises_a_route(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
                   tile: TileSpec) -> bool:
    """5.2.4.b: a station of the hex gains value, and a train of the company (or two
    2-trains double-headed) could run a route through it now."""
    if not corp.trains:
        return False
    old, _ = track.tile_on(state, hex_id)
    assert old is not None
    phase = rules.phase(state).name
    raised = {(kind, i) for kind, stops in (("c", old.cities), ("t", old.towns))
              for i in range(len(stops))
              if _value(state, phase, tile, kind, i) > _value(state, phase, old, kind, i)}
    if not raised:
        return False
    graph = routes.route_track(rules, state, corp)
    reach = max(routes.train_distance(state, t)
                for trains in rules.train_sets(state, corp) for t in trains)
    train = corp.trains[0]
    free = any(routes.free_towns(state, t) for t in corp.trains)  # R1's U3
    for start in track.token_nodes(state, corp.sym):
        # A route through the station with a base of the company on it has a part from
        # that base through the station to a large station: a shorter legal route.
        for walk in routes.walks_from(state, graph, corp.sym, start, reach,
                                      free_towns=free):
            if any(n.hex == hex_id and (n.kind, n.index) in raised for n in walk.stops) \
                    and rules.why_not_walk(state, corp, train, walk) is None:
                return True
    return False


__all__ = ["raises_a_route", "why_not_promote"]
