"""What the moderator does for a late 1861 player (engine.defaults): pass an auction,
no merger, keep a trainless public, buy the train a trainless company must have
(10.10), and place the home a started public must have (9.3)."""

from __future__ import annotations

from scenarios_1861 import first_operating_round, new_game, record_game

from engine.actions import Bid, BuyTrain, Keep, Pass, PlaceToken
from engine.defaults import conservative_action, sole_action


def test_9_4_and_9_2_a_late_bidder_passes() -> None:
    g = new_game()
    assert conservative_action(g) == Pass()  # the opening auction of TSR
    g.apply("Ann", Bid(20, "TSR"))
    assert conservative_action(g) == Pass()  # drops out of the bidding


def test_10_10_the_cheapest_train_a_trainless_company_must_buy() -> None:
    g = first_operating_round()
    assert conservative_action(g) == BuyTrain("2", "bank")
    assert sole_action(g) is None


def test_12_no_conversion_or_merger_by_default() -> None:
    g = record_game(315)  # K-R may convert
    assert conservative_action(g) == Pass()


def test_11_a_trainless_public_is_kept_by_default() -> None:
    g = record_game(583)
    assert conservative_action(g) == Keep("MKN")


def test_9_3_a_started_public_gets_a_home_by_default() -> None:
    g = record_game(602)  # Player 2 has started GRR and must place its home
    action = conservative_action(g)
    assert isinstance(action, PlaceToken)
    g.apply(g.turn().seat, action)  # type: ignore[union-attr]
    assert any("GRR" in corps for cities in g.state.board.tokens.values()
               for corps in cities.values())
