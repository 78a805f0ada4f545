"""1861's optional rules (14) as game options, each played out; 14.2 and 14.4 are
tested with the trains and the game end (test_1861_rsr_and_game_end.py for 14.4)."""

from __future__ import annotations

from scenarios_1861 import SEATS, new_game, now, privates_at_minimum, win_lot

from engine import national
from engine.actions import Bid, StartAuction
from engine.titles import title_options
from engine.titles.t1861 import (
    LONG_GAME,
    PROPOSER_ORDER,
    RSR_IN_ST_PETERSBURG,
    TWO_PLUS_TWO,
    UNLIMITED_TRAINS,
)


def test_14_the_options_are_offered_by_name() -> None:
    assert set(title_options("1861")) == {TWO_PLUS_TWO, UNLIMITED_TRAINS,
                                          RSR_IN_ST_PETERSBURG, LONG_GAME, PROPOSER_ORDER}


def _two_plus_twos(options: frozenset[str]) -> int:
    g = new_game(SEATS, options)
    return sum(1 for t in g.state.trains_offered if t.name == "2+2")


def test_14_1_two_2_plus_2_trains() -> None:
    assert _two_plus_twos(frozenset()) == 0  # Table 2: none in the standard game
    assert _two_plus_twos(frozenset({TWO_PLUS_TWO})) == 2


def test_14_3_the_rsr_stands_in_st_petersburg_from_the_start() -> None:
    g = new_game(SEATS, frozenset({RSR_IN_ST_PETERSBURG}))
    state = g.state
    assert "RSR" in state.board.tokens["E1"][1]
    assert all("RSR" not in c for c in new_game().state.board.tokens.get("E1", {}).values())
    privates_at_minimum(g)
    g.apply(now(g), StartAuction("N", 100))
    win_lot(g)
    g.apply(now(g), StartAuction("SP-W", 100))
    win_lot(g)
    assert "SP-W" in state.board.tokens["E1"][0]
    left = len(state.corporations["RSR"].token_costs)
    # 14.3: SP-W nationalised: its station is simply removed.
    national.nationalise(g.rules, state, state.corporations["SP-W"])
    assert state.board.tokens["E1"] == {0: [], 1: ["RSR"]}
    assert len(state.corporations["RSR"].token_costs) == left


def _after_auction(options: frozenset[str]) -> str:
    """Bob proposes N at R100, Cy raises to R105 and wins: whose turn is next?"""
    g = new_game(SEATS, options)
    privates_at_minimum(g)
    assert now(g) == "Bob"
    g.apply("Bob", StartAuction("N", 100))
    g.apply("Cy", Bid(105))
    win_lot(g)
    assert g.state.corporations["N"].president == "Cy"
    return now(g)


def test_14_5_after_an_auction_the_player_left_of_the_proposer_goes_next() -> None:
    assert _after_auction(frozenset()) == "Dee"  # 9.2: left of the winner
    assert _after_auction(frozenset({PROPOSER_ORDER})) == "Cy"  # 14.5: left of Bob
