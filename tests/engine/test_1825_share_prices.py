"""1825 Unit 1, 6.3 (Share price changes): withheld or no income one space down;
income not above half the price no move; above it one space up, two, three or four at
twice, three and four times the price, never more; below £5 the company is bankrupt,
and no director may make it so by withholding income."""

from __future__ import annotations

import pytest
from scenarios_1825 import all_pass, company_turn, first_round, lnwr_first_turn, new_game

from engine.actions import Dividend, Done, Pass, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.state import CLOSED

INDEX = [0, 5, 10, 16, 24, 34, 42, 49, 55, 61, 67, 71, 76, 82, 90, 100, 112, 126, 142,
         160, 180, 205, 230, 255, 280, 300, 320, 340]


def at_price(g: Game, corp: str, price: int) -> None:
    g.state.market.move(corp, (0, INDEX.index(price)))


@pytest.mark.parametrize(("income", "after"), [
    (50, 100),  # not greater than half of £100: no move
    (51, 112),  # above half: one space
    (199, 112),
    (200, 126),  # twice the price: two spaces
    (300, 142),  # three times: three
    (400, 160),  # four times: four
    (1000, 160),  # never more than four
])
def test_6_3_a_paid_dividend_moves_the_price_by_income_against_price(income: int,
                                                                     after: int) -> None:
    g = new_game()
    first_round(g)
    at_price(g, "LNWR", 100)
    g.rules.pay_dividend(g.state, g.state.corporations["LNWR"], income, "payout", g.round)
    assert g.state.market.price("LNWR") == after


def test_6_3_no_income_moves_the_price_one_space_down() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", Done())
    assert g.state.market.price("LNWR") == 90


def test_6_3_below_5_the_company_is_bankrupt() -> None:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    at_price(g, "GWR", 5)
    g.apply("Bob", Done())  # no income: £5 -> £0
    state = g.state
    gwr = state.corporations["GWR"]
    assert gwr.closed and "GWR" not in state.market.positions
    assert all(c.owner == CLOSED for c in gwr.certificates)
    assert "GWR" not in [s for cities in state.board.tokens.values()
                         for holders in cities.values() for s in holders]
    # Bob's GWR director's certificate is worth nothing now.
    scores = g.scores()
    assert scores["Bob"] == state.player("Bob").cash + 75 + 2 * state.market.price("LNWR")
    all_pass(g)
    assert company_turn(g) == "LNWR"
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    g.apply("Ann", Done())
    assert g.round_name.startswith("Stock Round")  # the GWR operates no more


def test_6_3_no_director_withholds_a_company_into_bankruptcy() -> None:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    g.apply("Bob", Done())
    all_pass(g)
    at_price(g, "LNWR", 5)
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    with pytest.raises(GameError, match=r"bankrupt; a director may not do that \(6.3\)"):
        g.apply("Ann", Dividend("withhold"))
    g.apply("Ann", Dividend("payout"))  # £50 against £5: four spaces up
    assert g.state.market.price("LNWR") == 34
