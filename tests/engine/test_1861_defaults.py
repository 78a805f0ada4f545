"""What the moderator does for a late 1861 player (engine.defaults): pass an auction,
no merger, no agreement to another's merger, no share of a new company, keep a
trainless public, buy the train a trainless company must have
(10.10), and place the home a started public must have (9.3)."""

from __future__ import annotations

from scenarios_1861 import first_operating_round, new_game, record_game

from engine.actions import Bid, BuyTrain, Keep, Merge, Pass, PlaceToken
from engine.defaults import conservative_action, sole_action
from engine.rounds.merger import MergerRound


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


def test_12_1_a_late_owner_does_not_agree_to_a_merger() -> None:
    """12.1: every party must agree; the owner asked who misses the deadline does not,
    so nothing merges and the proposing minor is asked again."""
    g = record_game(328)
    g.apply("Player 3", Merge(("M-NN", "M-K"), "MKN"))  # M-K is Player 4's
    assert g.turn().seat == "Player 4"  # type: ignore[union-attr]
    action = conservative_action(g)
    assert action == Pass()
    g.apply("Player 4", action)
    state = g.state
    assert not state.corporations["MKN"].floated
    assert not state.corporations["M-NN"].closed and not state.corporations["M-K"].closed
    rnd = g.round
    assert isinstance(rnd, MergerRound) and rnd.proposal is None and rnd.current == "M-NN"


def test_12_4_a_late_shareholder_buys_no_share_of_the_new_company() -> None:
    """12.4: the shares of a company just formed are offered; a late player buys none."""
    g = record_game(328)
    g.apply("Player 3", Merge(("M-NN", "K-K"), "MKN"))  # both his: nobody to ask
    rnd = g.round
    assert isinstance(rnd, MergerRound) and rnd.dealing is not None
    cash = g.state.players["Player 3"].cash
    action = conservative_action(g)
    assert action == Pass()
    g.apply("Player 3", action)
    assert g.state.players["Player 3"].cash == cash
    assert g.state.corporations["MKN"].percent_held_by("Player 3") == 20


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
