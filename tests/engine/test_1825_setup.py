"""1825 Unit 1, 3 (Setup): one card per player from the privates in ascending value,
then the LNWR director's certificate and LNWR shares; each player pays its face value
(as 18xx.games deals them); seating follows the cards, so the holder of the smallest
private is first and holds the Priority Deal."""

from __future__ import annotations

import pytest
from scenarios_1825 import new_game, now

from engine.actions import BuyPrivate, BuyShares
from engine.errors import GameError

SEATS = ("Ann", "Bob", "Cy", "Di", "Ed")
FACE = {"S&M": 30, "C&HP": 75, "C&W": 130, "L&M": 210}
CASH = {2: 1200, 3: 830, 4: 630, 5: 504}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_3_the_deck_dealt_by_player_count(players: int) -> None:
    g = new_game(SEATS[:players])

    dealt = ["S&M", "C&HP", "C&W", "L&M"][:players]
    for seat, sym in zip(SEATS, dealt, strict=False):
        assert g.state.privates[sym].owner == seat
        assert g.state.player(seat).cash == CASH[players] - FACE[sym]
    for sym in ["S&M", "C&HP", "C&W", "L&M"][players:]:
        assert g.state.privates[sym].owner is None  # the bank sells it first (4.1)
    lnwr = g.state.corporations["LNWR"]
    if players == 5:
        # The fifth card is the LNWR director's certificate, at £100 face value.
        assert lnwr.president == "Ed" and lnwr.percent_held_by("Ed") == 20
        assert g.state.player("Ed").cash == 504 - 200
        assert g.state.market.price("LNWR") == 100
    else:
        assert lnwr.president is None and lnwr.ipo_percent == 100
    assert g.state.priority == "Ann" and now(g) == "Ann"
    # The bank keeps what the players paid: £6000 less their cash.
    assert g.state.bank_cash == 6000 - sum(p.cash for p in g.state.players.values())


def test_3_with_two_players_the_bank_sells_the_other_privates_first() -> None:
    g = new_game(SEATS[:2])
    with pytest.raises(GameError, match="privates first"):
        g.apply("Ann", BuyShares("LNWR"))
    with pytest.raises(GameError, match="C&W first"):
        g.apply("Ann", BuyPrivate("L&M"))
    g.apply("Ann", BuyPrivate("C&W"))
    assert g.state.privates["C&W"].owner == "Ann"
    assert g.state.player("Ann").cash == 1200 - 30 - 130
