"""1861 10.1: "For cities such as the St. Petersburg green hex, which have two or more
separate disconnected spaces, a route may not include two or more such spaces."

Judged where routes are judged: a declared run (`routes.check_run`) and the best run
(`run auto`, the optimizer, and the exhaustive search), not only by the title's hooks
(tests/engine/test_1861_operating.py). The position: green Moscow (637: three separate
cities) in H8, a loop of track from its city towards I9 through Tula (H10, a town) back
into its city towards H10; N's station in that city, a 3-train, phase 3.
"""

from __future__ import annotations

import pytest
from scenarios_1861 import new_game
from test_optimizer import lay

from engine import routes
from engine.actions import Route, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.optimizer import optimize, run_for
from engine.state import PlacedTile, Train


def moscow_loop() -> Game:
    g = new_game()
    state = g.state
    state.phase_index = [p.name for p in state.title.phases].index("3")
    state.board.tiles["H8"] = PlacedTile("637", 0)  # e0-c0-e1, e2-c1-e3, e4-c2-e5
    lay(g.rules, state, "H8", "I9", "H10", "H8")  # (I9 and H10; H8 as it must stay:)
    state.board.tiles["H8"] = PlacedTile("637", 0)
    state.board.tokens.setdefault("H8", {})[0] = ["N"]
    state.corporations["N"].trains = [Train("3", "3-0")]
    return g


def test_10_1_the_loop_joins_two_cities_of_moscow() -> None:
    g = moscow_loop()
    graph = routes.route_track(g.rules, g.state)
    walks = routes.all_walks(g.state, graph, "N", 3)
    assert any([s.hex for s in w.stops] == ["H8", "H10", "H8"] for w in walks)


def test_10_1_a_declared_route_through_two_cities_of_one_hex_is_refused() -> None:
    g = moscow_loop()
    n = g.state.corporations["N"]
    for hexes in (("H8", "I9", "H10", "H8"), ("H8", "H10", "I9", "H8")):
        with pytest.raises(GameError, match=r"two separate cities of one hex \(10\.1\)"):
            routes.check_run(g.rules, g.state, n, RunRoutes((Route("3", hexes),)))
    # One city of Moscow and Tula: R50 + R10.
    assert routes.check_run(g.rules, g.state, n,
                            RunRoutes((Route("3", ("H8", "H10")),))).revenue == 60


def test_10_1_the_best_run_never_takes_two_cities_of_one_hex() -> None:
    """Both cities and Tula would earn R110; the best route is R60."""
    g = moscow_loop()
    state, n = g.state, g.state.corporations["N"]
    found = optimize(g.rules, state, n, budget=None)
    exhaustive = routes.best_run(g.rules, state, n)
    assert found.proven and found.total == exhaustive.revenue == 60
    assert run_for(g.rules, state, n, RunRoutes((), auto=True)).revenue == 60
