"""18TN rules the 18xx.games engine (the differential check, DEVELOPERS.md) found our
engine reading wrongly, each played out on a real game."""

from __future__ import annotations

import pytest

from engine.actions import Bid, BuyPrivate, Pass
from engine.errors import GameError
from engine.game import Game, Setup

SEATS = ("Ann", "Bob", "Cy", "Di")


def _fifth_stock_round() -> Game:
    """Nobody buys anything in stock rounds 1 to 4: Tennessee Copper is still unsold."""
    g = Game(Setup("18TN", SEATS, seed=7, priority="Ann"))
    for _ in range(4 * len(SEATS)):
        turn = g.turn()
        assert turn is not None
        g.apply(turn.seat, Pass())
    assert g.round_name == "Stock Round 5"
    return g


def test_3_1_2_priority_holder_must_accept_tennessee_copper_not_bid_elsewhere() -> None:
    """3.1.2: "in the first turn of the fifth stock round, the player with the Priority
    Deal card must accept the Tennessee Copper Company for free ... it uses up that
    player's stock turn". A bid on another private is not accepting it."""
    g = _fifth_stock_round()
    turn = g.turn()
    assert turn is not None
    seat = turn.seat
    with pytest.raises(GameError, match="must accept TCC"):
        g.apply(seat, Bid(45, "ETWCR"))
    g.apply(seat, BuyPrivate("TCC"))
    assert g.state.privates["TCC"].owner == seat
    assert g.state.players[seat].cash == 450  # for free
    after = g.turn()
    assert after is not None and after.seat != seat  # his stock turn is used up
