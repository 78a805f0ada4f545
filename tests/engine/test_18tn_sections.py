"""18TN rule sections no other test names (issue 35, item 8; docs/rule-coverage.md),
played out from tn_scenarios' positions against shared/rules/18TN.md."""

from __future__ import annotations

from tn_scenarios import (
    pass_stock_round,
    play_operating_round,
    president,
    three_company_opening,
)

from engine.actions import BuyShares, Pass


def test_1_1_stock_and_operating_rounds_alternate_each_company_one_turn() -> None:
    # "In a Stock Round ... The round ends when all players consecutively pass. In an
    # Operating Round, companies operate. Each company gets one turn. At the beginning of
    # the game, the two types of rounds simply alternate."
    g = three_company_opening()
    assert g.round_name == "Operating Round 1.1"
    order = play_operating_round(g)
    assert sorted(order) == ["L&N", "SR", "TC"]  # one turn each
    assert g.round_name == "Stock Round 2"
    seat = president(g)
    g.apply(seat, Pass())
    assert g.round_name == "Stock Round 2"  # one pass does not end it
    pass_stock_round(g)
    assert g.round_name == "Operating Round 2.1"


def test_1_5_the_par_value_stays_fixed_while_the_market_value_moves() -> None:
    # "The major company's Par Value is then fixed for the rest of the game. The Par Value
    # determines the price per share of all purchases of certificates from the Initial
    # Offering area ... A major company's Market Value begins equal to its Par Value ...
    # the Market Value will change throughout the game"
    g = three_company_opening()
    tc = g.state.corporations["TC"]
    assert tc.par_price == 90 and g.state.market.price("TC") == 90
    play_operating_round(g)  # TC has no train: it earns nothing and withholds
    tc = g.state.corporations["TC"]  # (a refused move inside leaves a fresh state)
    market = g.state.market.price("TC")
    assert market != 90 and tc.par_price == 90
    while president(g) != "Di":
        g.apply(president(g), Pass())
    cash = g.state.players["Di"].cash
    assert tc.ipo_percent > 0
    g.apply("Di", BuyShares("TC"))
    assert g.state.players["Di"].cash == cash - 90  # at par, not at the market value
