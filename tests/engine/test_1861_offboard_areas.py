"""1861 10.1: a red off-board area of several hexes is reached once.

"It may not reach or pass through any small or large city or red off-board area more
than once. ... If a route visits a red off-board area, it must terminate there." The
Caucasus (I21, J20, K21) is one red area drawn over three hexes: a route from one of
its hexes through Rostov (I19) to another reaches it twice. The differential found
ours accepting and even proposing (run auto) V's 3-train I21-I19-J20 (seed 3501, games
169, 172-174, 179, 180, 188), which 18xx.games refuses ("Cannot use group Caucasus more
than once").

The position: Rostov holds tile 5 joining I21 and J20, the V's station and a 3-train,
phase 2 (Caucasus R10, Rostov R20).
"""

from __future__ import annotations

import pytest
from scenarios_1861 import new_game

from engine import routes
from engine.actions import Route, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.optimizer import Clock, compress, grow_routes, optimize, run_for
from engine.state import PlacedTile, Train
from engine.track import Node
from engine.walks import Walk

CAUCASUS = ("I21", "J20", "K21")


def rostov_between_two_caucasus_hexes() -> Game:
    g = new_game()
    state = g.state
    state.board.tiles["I19"] = PlacedTile("5", 5)  # exits to I21 (edge 0), J20 (edge 5)
    state.board.tokens.setdefault("I19", {})[0] = ["V"]
    state.corporations["V"].trains = [Train("3", "3-0")]
    return g


def test_the_caucasus_is_one_area_in_the_data() -> None:
    g = new_game()
    assert {h for h, spec in g.state.title.hexes.items()
            if spec.offboard_group == "Caucasus"} == set(CAUCASUS)
    assert {routes.area_of(g.state, Node(h, "o", 0)) for h in CAUCASUS} == {"Caucasus"}
    assert routes.area_of(g.state, Node("I19", "c", 0)) is None


def test_10_1_a_declared_route_reaching_the_caucasus_twice_is_refused() -> None:
    g = rostov_between_two_caucasus_hexes()
    v = g.state.corporations["V"]
    for hexes in (("I21", "I19", "J20"), ("J20", "I19", "I21")):
        with pytest.raises(GameError, match=r"Caucasus twice.*more than once.*\(10\.1\)"):
            routes.check_run(g.rules, g.state, v, RunRoutes((Route("3", hexes),)))


def test_10_1_a_route_ending_at_one_hex_of_the_area_is_fine() -> None:
    g = rostov_between_two_caucasus_hexes()
    v = g.state.corporations["V"]
    for hexes in (("I21", "I19"), ("I19", "J20")):
        run = routes.check_run(g.rules, g.state, v, RunRoutes((Route("3", hexes),)))
        assert run.revenue == 30  # Rostov R20 + the Caucasus R10


def test_10_1_run_auto_and_the_best_run_reach_the_area_once() -> None:
    """Both hexes would earn R40 (10 + 20 + 10); the best route is R30."""
    g = rostov_between_two_caucasus_hexes()
    state, v = g.state, g.state.corporations["V"]
    found = optimize(g.rules, state, v, budget=None)
    exhaustive = routes.best_run(g.rules, state, v)
    assert found.proven and found.total == exhaustive.revenue == 30
    for run in (found.run, exhaustive):
        (only,) = run.runs
        assert len([s for s in only.walk.stops if s.hex in CAUCASUS]) == 1
    # What `run auto` is given is what the check accepts.
    assert routes.check_run(g.rules, state, v, found.action()).revenue == 30
    assert run_for(g.rules, state, v, RunRoutes((), auto=True)).revenue == 30


def test_10_1_no_walk_and_no_grown_route_holds_two_hexes_of_the_area() -> None:
    """Each search on its own: the walks of `engine.routes` and the optimizer's routes
    grown on the compressed network (its visited stops cover the whole area)."""
    g = rostov_between_two_caucasus_hexes()
    state = g.state
    graph = routes.route_track(g.rules, state)
    walks = routes.all_walks(state, graph, "V", 3)
    assert walks and all(sum(s.hex in CAUCASUS for s in w.stops) <= 1 for w in walks)
    from_the_area = routes.walks_from(state, graph, "V", Node("I21", "o", 0), 3)
    assert [tuple(s.hex for s in w.stops) for w in from_the_area] == [("I21", "I19")]

    net = compress(state, graph, "V", lambda n: routes.stop_value(g.rules, state, n))
    area = [v for v, n in enumerate(net.stops) if n.hex in CAUCASUS]
    assert len(area) == 2  # I21 and J20 (K21 has no track to Rostov)
    both = (1 << area[0]) | (1 << area[1])
    assert all(net.areas[v] == both for v in area)
    grown: list[tuple[str, ...]] = []
    grow_routes(net, 3, 0, lambda chain, _value, _mask: grown.append(
        tuple(s.hex for s in chain.walk(net).stops)), lambda *_: False, Clock(None))
    assert sorted(grown) == [("I19", "I21"), ("I19", "J20")]


def test_10_1_the_title_refuses_a_walk_through_two_hexes_of_an_area() -> None:
    """The title's own judgement of a walk (declared runs) and its value of a set of
    stops (the optimizer's `route_revenue_by_stops`) say the same."""
    g = rostov_between_two_caucasus_hexes()
    state, v = g.state, g.state.corporations["V"]
    train = v.trains[0]
    twice = Walk((Node("I21", "o", 0), Node("I19", "c", 0), Node("J20", "o", 0)),
                        frozenset(), ("I21", "I19", "J20"))
    once = Walk(twice.stops[:2], frozenset(), ("I21", "I19"))
    why = g.rules.why_not_walk(state, v, train, twice)
    assert why is not None and "Caucasus" in why and "(10.1)" in why
    assert g.rules.why_not_walk(state, v, train, once) is None
    assert g.rules.route_revenue(state, v, train, twice, [10, 20, 10]) < 0
    assert g.rules.route_revenue(state, v, train, once, [10, 20]) == 30


def test_10_1_a_refusal_names_the_area_as_the_map_prints_it() -> None:
    """Central Asia (Q11, Q13) is `CentralAsia` in the data: the refusal of a declared
    route and the title's judgement of a walk name it as the map prints it."""
    g = rostov_between_two_caucasus_hexes()
    state, v = g.state, g.state.corporations["V"]
    assert routes.area_name(state, "CentralAsia") == "Central Asia"
    assert routes.area_name(state, "Caucasus") == "Caucasus"
    with pytest.raises(GameError, match=r"red off-board area Central Asia twice"):
        routes.check_run(g.rules, state, v, RunRoutes((Route("3", ("Q11", "P12", "Q13")),)))
    walk = Walk((Node("Q11", "o", 0), Node("P12", "c", 0), Node("Q13", "o", 0)),
                       frozenset(), ("Q11", "P12", "Q13"))
    why = g.rules.why_not_walk(state, v, v.trains[0], walk)
    assert why is not None and "area Central Asia twice" in why
