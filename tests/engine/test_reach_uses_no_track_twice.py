"""What a company reaches is what a *route* of it reaches: no track used twice.

1861 10.1: a route "may not use any segment of track more than once, not even the small
section of track at the junctions on some non-city tiles"; 10.4: new track "must
constitute an extension of a route of the Company"; 10.5: a station goes where a route
of the company reaches. Ours traced the map forgetting what a way had used, so a loop
could be ridden round and left again over the side it was entered by. The differential
(seed 3601, game 27) found it: ours accepted an upgrade of I7 and then a GRR station in
Moscow that only such a way reaches (K7-J6-K5, round K5-J4-K3-K5, back through J6).

The positions are those of that game (our own export), set on the map directly:
J6's straight (tile 9, later 27) is the only track between I7 and K5, and K5's tile 29
forks at its J6 side into the loop K5-K3-J4-K5.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scenarios_1861 import new_game

from engine import board, track
from engine.errors import GameError
from engine.game import Game
from engine.records.reading import import_record
from engine.state import GameState, PlacedTile
from engine.track import Node, Side

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"

# The loop: J6's straight joins I7 and K5; K5 forks at that side towards K3 and J4.
LOOP = {"J6": PlacedTile("9", 1), "K5": PlacedTile("29", 1),
        "K3": PlacedTile("7", 0), "J4": PlacedTile("7", 4)}


def moscow_with_the_loop_beyond_i7() -> Game:
    """Game 27 before M-NN's upgrade of I7 (action 1979): M-NN's station in Moscow
    (H8, city 2), I7's tile 24 joining Moscow to J6 and to I7's other side."""
    g = new_game()
    tiles = g.state.board.tiles
    tiles.update(LOOP)
    tiles["H8"] = PlacedTile("637", 1)
    tiles["I7"] = PlacedTile("24", 1)
    g.state.board.tokens["H8"] = {0: ["RSR"], 1: ["M-NN"], 2: ["M-K"]}
    g.state.phase_index = 4  # phase 6, as then: I7's upgrade to 47 is on sale
    return g


def grr_at_k7_before_its_moscow_station() -> Game:
    """Game 27 at action 2470: GRR's only station in K7; I7 upgraded to 47, J6 to 27;
    Moscow's city 2 free, reached from K7 only round the loop."""
    g = new_game()
    tiles = g.state.board.tiles
    tiles.update(LOOP)
    tiles.update({"J6": PlacedTile("27", 4), "K7": PlacedTile("622", 5),
                  "H8": PlacedTile("637", 1), "I7": PlacedTile("47", 0),
                  "H6": PlacedTile("7", 0), "I9": PlacedTile("7", 3)})
    g.state.board.tokens["H8"] = {0: ["RSR"], 1: [], 2: []}
    g.state.board.tokens["K7"] = {0: ["GRR"]}
    for sym in ("N", "M-K", "M-NN"):  # Moscow's own companies, closed by then
        g.state.corporations[sym].closed = True
    return g


def plain_reach(state: GameState, corp: str) -> set[Any]:
    """What the tracing that forgets what it used reaches (ours before the fix)."""
    graph = track.build_track(state)
    traced = track._plain_trace(state, graph, corp, track.token_nodes(state, corp))
    return track._outcomes(traced)


def test_10_4_an_upgrade_reached_only_by_using_j6_twice_is_refused() -> None:
    g = moscow_with_the_loop_beyond_i7()
    state, m_nn = g.state, g.state.corporation("M-NN")
    tile = state.title.tile("47")
    # At rotation 0 the new track runs from I7's J6 side (edge 4) to edge 0: a train
    # comes to that side only from J6, and J6 only from I7: round the loop, back over
    # J6's straight.
    assert not board.connected_after(state, m_nn, "I7", tile, 0)
    assert not board.connected_after_traced(state, m_nn, "I7", tile, 0)
    state.board.tiles["I7"] = PlacedTile("47", 0)
    new = [s.id for s in track.build_track(state).segments
           if s.hex == "I7" and {s.a, s.b} == {Side("I7", 4), Side("I7", 0)}]
    assert len(new) == 1
    assert new[0] in plain_reach(state, "M-NN")  # the old tracing took it
    _, segments = track.reachable(state, track.build_track(state), "M-NN")
    assert new[0] not in segments


def test_10_4_the_refusal_says_why_in_1861s_words() -> None:
    g = moscow_with_the_loop_beyond_i7()
    state, m_nn = g.state, g.state.corporation("M-NN")
    with pytest.raises(GameError, match=r"the track on I7 must extend a route of M-NN "
                                        r"\(10\.4\)"):
        board.check_lay(g.rules, state, m_nn, "I7", "47", 0)
    assert "I7" not in state.board.tiles or state.board.tiles["I7"].name == "24"


def test_10_5_a_station_reached_only_round_the_loop_is_refused() -> None:
    g = grr_at_k7_before_its_moscow_station()
    state, grr = g.state, g.state.corporation("GRR")
    moscow = Node("H8", "c", 1)
    assert moscow in plain_reach(state, "GRR")  # the old tracing went round the loop
    nodes, _ = track.reachable(state, track.build_track(state), "GRR")
    assert moscow not in nodes
    assert board.token_refused(g.rules, state, grr, "H8", 1)
    with pytest.raises(GameError, match=r"H8 is not part of a route of GRR.*10\.5"):
        board.place_token(g.rules, state, grr, "H8", 1)


def test_10_5_with_a_way_that_uses_no_track_twice_the_station_is_accepted() -> None:
    g = grr_at_k7_before_its_moscow_station()
    state, grr = g.state, g.state.corporation("GRR")
    # J6 joining K7's side straight to I7's (a yellow 8): Moscow is on a route.
    state.board.tiles["J6"] = PlacedTile("8", 5)
    nodes, _ = track.reachable(state, track.build_track(state), "GRR")
    assert Node("H8", "c", 1) in nodes
    assert not board.token_refused(g.rules, state, grr, "H8", 1)


def test_a_search_that_gives_up_counts_what_the_plain_tracing_reaches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounded for a hostile or freak map: past its budget the search answers as the
    # plain tracing did (never less than the walk reaches).
    monkeypatch.setattr(track, "_EVERY_ROUTE_STEPS", 1)
    monkeypatch.setattr(track, "_SEARCH_STEPS", 1)
    g = grr_at_k7_before_its_moscow_station()
    nodes, _ = track.trace_reach(g.state, track.trace_map(g.state), "GRR")
    assert Node("H8", "c", 1) in nodes


# --- exact against every route, on the recorded games -------------------------------------

def every_route_step(state: GameState, graph: track.Track, corp: str, limit: int
                     ) -> tuple[set[Any], set[int]] | None:
    """The steps and segments of every route from `corp`'s stations, found by trying
    each route on its own (no memory across routes); None past `limit` steps."""
    steps: set[Any] = set()
    passed: set[int] = set()
    count = 0

    def extend(point: track.Point, came_by: int | None, used: frozenset[Any]) -> None:
        nonlocal count
        if isinstance(point, Side):
            other = graph.across.get(point)
            if other is None:
                return
            used = used | {graph.crossing[point]}
            onwards = track.ends(graph, other)
        else:
            onwards = [s for s in track.ends(graph, point) if s[0] != came_by]
        for seg, nxt in onwards:
            count += 1
            if count > limit:
                raise OverflowError
            stop = isinstance(nxt, Node) and nxt.is_stop
            if seg in used or (stop and nxt in used):
                continue
            if isinstance(nxt, Side) and graph.crossing.get(nxt) in used:
                passed.add(seg)  # a dead end: the edge was crossed before
                continue
            steps.add((seg, nxt))
            if isinstance(nxt, Node) and (graph.segments[seg].terminal or nxt.kind == "o"
                                          or track.blocked_for(state, nxt, corp)):
                continue
            extend(nxt, seg, used | {seg} | ({nxt} if stop else set()))

    try:
        for start in track.token_nodes(state, corp):
            extend(start, None, frozenset((start,)))
    except OverflowError:
        return None
    return steps, passed | {seg for seg, _ in steps}


def recorded_positions() -> Iterator[tuple[str, GameState]]:
    """Every tenth position of the recorded games with track (each title)."""
    for path in sorted(FIXTURES.glob("*/*.json"))[:6]:
        replay = import_record(json.loads(path.read_text()))
        game = replay.game
        states = []
        probe = Game(game.setup)
        for i, move in enumerate(game.log):
            probe.apply(move.seat, move.action)
            if i % 10 == 0 and probe.state.board.tiles:
                states.append(probe.state)
                probe = probe.clone()
        for state in states:
            yield path.stem, state


@pytest.mark.slow
def test_the_reach_is_what_every_route_reaches_on_the_recorded_games() -> None:
    compared = differ = 0
    for name, state in recorded_positions():
        graph = track.build_track(state)
        for corp in sorted({c for cities in state.board.tokens.values()
                            for corps in cities.values() for c in corps}):
            full = every_route_step(state, graph, corp, 200_000)
            if full is None:
                continue  # too many routes to try them all
            reach = track.reach_of(state, graph, corp)
            # What callers read: the points reached (with the stations), the segments.
            homes = set(track.token_nodes(state, corp))
            assert {p for _, p in reach.steps} | homes == {p for _, p in full[0]} | homes
            assert set(reach.segments) == full[1], (name, corp)
            compared += 1
            traced = track._plain_trace(state, graph, corp, track.token_nodes(state, corp))
            differ += set(traced) != reach.steps
    # Enough positions, and among them some where forgetting what was used would err.
    assert compared > 300
    assert differ > 10
