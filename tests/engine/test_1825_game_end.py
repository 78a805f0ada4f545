"""1825 Unit 1, 2 (General Procedures): the game ends when the bank breaks, at the end
of the current operating round, or after one more when it breaks in a share dealing
round; or when a share price reaches the top of the index, at the end of the current
operating round. Scores: cash, shares at market price, privates at face value."""

from __future__ import annotations

from scenarios_1825 import all_pass, company_turn, first_round, lnwr_first_turn, new_game

from engine.actions import Dividend, Done, Pass, RunRoutes, SellShares
from engine.game import Game


def lnwr_runs_in_round_2() -> Game:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    g.apply("Bob", Done())
    all_pass(g)
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    return g


def test_2_the_bank_breaking_in_an_operating_round_ends_it_after_that_round() -> None:
    g = lnwr_runs_in_round_2()
    g.state.bank_cash = 30
    g.apply("Ann", Dividend("payout"))  # £50 paid to players: the bank breaks
    assert g.state.end_triggered == "bank" and not g.state.game_over
    g.apply("Ann", Done())
    assert company_turn(g) == "GWR"  # the round is played out
    g.apply("Bob", Done())
    assert g.state.game_over and g.state.end_reason == "bank"
    state = g.state
    # 2: cash, shares at market value, privates at face value.
    lnwr = state.market.price("LNWR")
    gwr = state.market.price("GWR")
    assert g.scores()["Ann"] == state.player("Ann").cash + 4 * lnwr + gwr + 30


def test_2_the_bank_breaking_in_a_share_dealing_round_ends_it_after_one_more_round() -> None:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    g.apply("Bob", Done())
    g.state.bank_cash = 50
    g.apply("Cy", SellShares("LNWR"))  # £90 from the bank
    assert g.state.end_triggered == "bank"
    g.apply("Cy", Done())
    all_pass(g)
    assert company_turn(g) == "LNWR" and not g.state.game_over
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("withhold"))
    g.apply("Ann", Done())
    g.apply("Bob", Done())
    assert g.state.game_over and g.state.end_reason == "bank"


def test_2_the_top_of_the_index_ends_the_game_after_the_operating_round() -> None:
    g = lnwr_runs_in_round_2()
    g.state.market.move("LNWR", (0, 26))  # £320; £50 is not above half of it
    g.rules.pay_dividend(g.state, g.state.corporations["LNWR"], 200, "payout", g.round)
    assert g.state.market.price("LNWR") == 340
    assert g.state.end_triggered == "market" and not g.state.game_over
