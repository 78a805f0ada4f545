"""One hex edge, one crossing: 18TN 4.2.3(b), (j); 1851 "ROUTES" and "RUN TRAIN(S)".

18TN 4.2.3(b): "The route may not use a single section of track more than once, no
matter how short. ... Note that there is at most one section of track crossing each
edge of any hex." (j): "no two trains may use a single section of track, no matter
how short." 1851: a route "may not use any segment of track more than once, not even
the small section of track at the junctions on some non-city tiles"; routes "may not
share any track segments".

Where two paths of a tile meet at one edge (tiles 23, 42, ...), the short piece of
track at that edge belongs to both: a route that crosses the edge twice, or two
trains that cross it once each, use it twice. The position is the recorded game 7818
before move 473 (OR 7.2, the L&N with one 8-train): C12 holds tile 42 (paths e0-e3,
e3-e5, e0-e5) and D13 tile 23 at rotation 2 (paths e2-e5, e2-e0), so three paths
meet at the C12/D13 edge. The 18xx.games engine refuses the route below ("cannot
reuse track on D13") and values the L&N's best run at 320, the run the players made.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest

from engine import routes
from engine.actions import Route, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.optimizer import optimize
from engine.records import import_record
from engine.rules import Rules
from engine.state import GameState, Train
from engine.track import tile_on

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"
# Louisville (C4) to Cincinnati (A16) through C12/D13 twice: 330 if it were legal.
TWICE = ("C4", "C6", "D7", "D9", "E10", "D11", "C12", "D13", "E14", "F13", "F11", "E12",
         "D13", "C12", "B13", "B15", "A16")


@functools.lru_cache(maxsize=1)
def before_move_473() -> tuple[Rules, GameState]:
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    replay = import_record(json.loads(RECORD.read_text()))
    game = Game(replay.game.setup)
    for move in replay.game.log[:473]:
        game.apply(move.seat, move.action)
    return game.rules, game.state


def position() -> tuple[Rules, GameState]:
    rules, state = before_move_473()
    return rules, copy.deepcopy(state)


def test_the_position_has_three_paths_meeting_at_one_edge() -> None:
    _rules, state = position()
    assert tile_on(state, "C12") == (state.title.tile("42"), 0)
    assert tile_on(state, "D13") == (state.title.tile("23"), 2)
    assert [t.name for t in state.corporations["L&N"].trains] == ["8"]


def test_4_2_3_b_a_route_crosses_each_hex_edge_once() -> None:
    rules, state = position()
    corp = state.corporations["L&N"]
    with pytest.raises(GameError, match="no legal route"):
        routes.check_run(rules, state, corp, RunRoutes((Route("8", TWICE),)))
    # The same stops without the second crossing are fine (the players' run: 320).
    recorded = ("H15", "G16", "F17", "F15", "F13", "F11", "E10", "D11", "C12", "B13", "B15",
                "A16")
    assert routes.check_run(rules, state, corp,
                            RunRoutes((Route("8", recorded),))).revenue == 320


def test_4_2_3_1_the_best_run_crosses_each_edge_once() -> None:
    """The optimizer and the exhaustive search both find 320, as 18xx.games does."""
    rules, state = position()
    corp = state.corporations["L&N"]
    found = optimize(rules, state, corp, budget=None)
    assert found.proven and found.total == 320
    assert routes.best_run(rules, state, corp).revenue == 320
    assert routes.check_run(rules, state, corp, found.action()).revenue == 320


def test_4_2_3_j_two_trains_may_not_cross_one_edge() -> None:
    """Two 8-trains: Chicamauga (B13) - C12 - D13 - E14 - Murfreesboro (F13) and
    Lebanon (D11) - C12 - D13 - E12 - Nashville (F11) use different paths of both
    tiles but the same C12/D13 edge."""
    rules, state = position()
    corp = state.corporations["L&N"]
    corp.trains = [Train("8", "8-0"), Train("8", "8-1")]
    first = Route("8", ("B13", "C12", "D13", "E14", "F13"))
    second = Route("8", ("D11", "C12", "D13", "E12", "F11"))
    for alone in (first, second):
        assert routes.check_run(rules, state, corp, RunRoutes((alone,))).revenue > 0
    with pytest.raises(GameError, match="share track"):
        routes.check_run(rules, state, corp, RunRoutes((first, second)))
