"""1861 10.1: a route "may not reach or pass through any small or large city ... more
than once" and "may not use any segment of track more than once"; passing a hex twice
on separate track is neither. Gray Dünaburg (C5) holds a town on one line (sides
towards B4 and D6) and a separate through-track (sides towards D4 and C7).

The position (seed 3601 game 7 of the differential check): a company's station in St.
Petersburg's city towards D2 (E1), track E1-D2-D4, over Dünaburg's through-track to C7
and D6, back into Dünaburg's town and on to Riga (B4). The route St. Petersburg -
Dünaburg - Riga passes C5 first on the through-track, then stops at its town.

The export writes a route as the site's chains from node to node: the first chain ends
where the route stops at the town, not where it first enters C5 (the site refused
"[E1 D2 D4 C5] [C5 C7 D6 C5 B4]": "Route must contain token", no chain of its track
fitting those hexes).
"""

from __future__ import annotations

from scenarios_1861 import new_game
from test_optimizer import lay

from engine import routes
from engine.actions import Route, RunRoutes
from engine.game import Game
from engine.records import connections, walk_hexes
from engine.records.runs import node_places
from engine.state import Train
from engine.walks import Walk

THE_WAY = ("E1", "D2", "D4", "C5", "C7", "D6", "C5", "B4")


def dunaburg_loop() -> Game:
    g = new_game()
    state = g.state
    state.phase_index = [p.name for p in state.title.phases].index("4")
    lay(g.rules, state, *THE_WAY)
    state.board.tokens.setdefault("E1", {})[0] = ["SP-W"]  # the city towards D2
    state.corporations["SP-W"].trains = [Train("4", "4-0")]
    return g


def the_walk(g: Game) -> Walk:
    """The route declared from St. Petersburg (the search finds it from Riga)."""
    corp = g.state.corporations["SP-W"]
    walk = routes.check_run(g.rules, g.state, corp,
                            RunRoutes((Route("4", THE_WAY),))).runs[0].walk
    assert walk.hexes == THE_WAY
    return walk


def test_10_1_a_route_may_pass_a_hex_twice_on_separate_track() -> None:
    g = dunaburg_loop()
    assert [str(s) for s in the_walk(g).stops] == ["E1.c0", "C5.t0", "B4.c0"]
    graph = routes.route_track(g.rules, g.state)
    found = [w.hexes for w in routes.all_walks(g.state, graph, "SP-W", 4)
             if len(w.stops) == 3 and w.hexes.count("C5") == 2]
    assert found == [tuple(reversed(THE_WAY))]


def test_the_sites_chains_end_at_the_town_not_where_the_route_first_enters_its_hex() -> None:
    g = dunaburg_loop()
    walk = the_walk(g)
    nodes = node_places(walk, (), g.state)
    assert nodes == [0, 6, 7]
    chains = connections(walk, nodes)
    assert chains == [["E1", "D2", "D4", "C5", "C7", "D6", "C5"], ["C5", "B4"]]
    assert walk_hexes(chains) == THE_WAY


def test_the_other_way_round_the_town_is_the_first_c5() -> None:
    g = dunaburg_loop()
    way = tuple(reversed(THE_WAY))
    corp = g.state.corporations["SP-W"]
    walk = routes.check_run(g.rules, g.state, corp, RunRoutes((Route("4", way),))).runs[0].walk
    assert connections(walk, node_places(walk, (), g.state)) == \
        [["B4", "C5"], ["C5", "D6", "C7", "C5", "D4", "D2", "E1"]]
