"""1825 R1: the Cambrian's U3 counts three cities; towns are free, and every town its
route visits scores (18xx.games g_1825/game.rb ALL_TRAINS 'U3': distance cities pay 3
visit 3, towns pay 99 visit 99; its routes may also begin and end at towns). Our data:
data/1825.json, the kit's U3 `free_towns` (`TrainSpec.free_towns`).

Played on the recorded R1 game's position at its 490th action, where the GER's track
joins Norwich (V20), Colchester (U23), a town at T24, Cambridge (R24) and a town at R20:
a U3 there counts the three cities and takes both towns.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scenarios_1825 import r1_record_prefix

from engine.actions import Route, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.optimizer import run_for
from engine.routes import best_run, check_run
from engine.state import Corporation, Train
from engine.title import load_title
from engine.titles import rules_for

RECORD = Path(__file__).resolve().parents[3] / "shared/fixtures/1825/1825_game_end_bank.json"
GER_U3 = ("V20", "V22", "U23", "T24", "S25", "R24", "R22", "R20")  # 3 cities, 2 towns


def _position() -> Game:
    game, _ = r1_record_prefix(490)
    return game


def _with(corp: Corporation, name: str) -> list[Train]:
    saved = list(corp.trains)
    corp.trains[:] = [Train(name, f"{name}-9")]
    return saved


def test_r1_u3_is_the_kit_s_free_towns_train() -> None:
    kit = rules_for("1825", frozenset({"r1"})).title
    assert kit.train("U3").free_towns and kit.train("U3").distance.stops == 3
    assert not kit.train("4T").free_towns and not kit.train("3").free_towns
    assert all(not t.free_towns for t in load_title("1825").trains)


@pytest.mark.skipif(not RECORD.exists(), reason="shared fixtures not present")
def test_r1_u3_counts_three_cities_and_scores_every_town() -> None:
    game = _position()
    state = game.state
    ger = state.corporations["GER"]
    saved = _with(ger, "U3")
    try:
        declared = check_run(game.rules, state, ger, RunRoutes((Route("U3", GER_U3),)))
        best = run_for(game.rules, state, ger, RunRoutes(auto=True))
        exhaustive = best_run(game.rules, state, ger)
    finally:
        ger.trains[:] = saved
    stops = [(n.hex, n.kind) for n in declared.runs[0].walk.stops]
    assert stops == [("V20", "c"), ("U23", "c"), ("T24", "t"), ("R24", "c"), ("R20", "t")]
    # Both towns score (the route ends at one, as the U3 may).
    assert declared.revenue == best.revenue == exhaustive.revenue == 160


@pytest.mark.skipif(not RECORD.exists(), reason="shared fixtures not present")
def test_r1_the_same_route_is_too_long_for_a_3_train() -> None:
    game = _position()
    state = game.state
    ger = state.corporations["GER"]
    saved = _with(ger, "3")
    try:
        with pytest.raises(GameError, match="at most 3 stops"):
            check_run(game.rules, state, ger, RunRoutes((Route("3", GER_U3),)))
        three = run_for(game.rules, state, ger, RunRoutes(auto=True)).revenue
    finally:
        ger.trains[:] = saved
    assert three == 120


@pytest.mark.skipif(not RECORD.exists(), reason="shared fixtures not present")
def test_r1_u3_still_counts_its_cities() -> None:
    """A fourth city is beyond the U3, towns or none (the refusal says towns are not
    counted)."""
    game = _position()
    state = game.state
    lnwr = state.corporations["LNWR"]
    saved = _with(lnwr, "U3")
    try:
        with pytest.raises(GameError, match=r"at most 3 stops \(towns not counted\)"):
            check_run(game.rules, state, lnwr, RunRoutes((Route(
                "U3", ("X14", "X16", "Y17", "X18", "W19", "V20")),)))
    finally:
        lnwr.trains[:] = saved
