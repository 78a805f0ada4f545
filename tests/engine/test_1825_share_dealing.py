"""1825 Unit 1, 4 (Share Dealing Rounds), 1.9 and 1.11: the bank's order of new
shares, new shares at face value and second-hand ones at market price, the pool,
privates sold to the pool at face value less £30, the restrictions of 4.3, the round's
end and the Priority Deal, and certificates below £50 outside the limit."""

from __future__ import annotations

import pytest
from scenarios_1825 import buy, first_round, new_game, now, pass_company

from engine.actions import BuyPrivate, BuyShares, Done, Pass, SellPrivate, SellShares
from engine.errors import GameError
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.shares import certificate_count
from engine.state import IPO, POOL


def second_round():  # type: ignore[no-untyped-def]
    """Share Dealing Round 2 after an operating round in which the LNWR and the GWR
    earned nothing: their prices fell one space each (6.3), LNWR £100 -> £90, GWR
    £90 -> £82. Cash: Ann £115, Bob £97, Cy £230, Di £160; Cy holds the Priority Deal."""
    g = new_game()
    first_round(g)
    pass_company(g)  # LNWR
    pass_company(g)  # GWR
    assert isinstance(g.round, StockRound) and now(g) == "Cy"
    assert g.state.market.price("LNWR") == 90 and g.state.market.price("GWR") == 82
    return g


def test_4_no_selling_in_the_first_share_dealing_round() -> None:
    g = new_game()
    buy(g, "Ann", "LNWR")
    for seat in ("Bob", "Cy", "Di"):
        buy(g, seat, "LNWR")
    with pytest.raises(GameError, match="first stock round"):
        g.apply("Ann", SellShares("LNWR"))
    with pytest.raises(GameError, match="first share dealing round"):
        g.apply("Ann", SellPrivate("S&M", "bank"))


def test_4_1_the_bank_sells_new_shares_by_face_value() -> None:
    g = new_game()

    with pytest.raises(GameError, match="until LNWR is fully subscribed"):
        g.apply("Ann", BuyShares("GWR"))
    # The LNWR's director's certificate comes first, at its face value of £100.
    buy(g, "Ann", "LNWR")
    assert g.state.corporations["LNWR"].president == "Ann"
    assert g.state.player("Ann").cash == 600 - 200
    assert now(g) == "Bob"
    # Every LNWR share sold: the GWR (£90) is next; GER and LSWR (£76) wait for it.
    for cert in g.state.corporations["LNWR"].certificates_of(IPO):
        cert.owner = "Cy"
    with pytest.raises(GameError, match="until GWR is fully subscribed"):
        g.apply("Bob", BuyShares("GER"))
    for cert in g.state.corporations["GWR"].certificates:
        cert.owner = "Di"
    # The GER and the LSWR at equal face value are sold together.
    g.apply("Bob", BuyShares("LSWR"))
    assert g.state.corporations["LSWR"].president == "Bob"
    g.apply("Bob", Done())
    with pytest.raises(GameError, match="until GER, LSWR are fully subscribed"):
        g.apply("Cy", BuyShares("SECR"))
    # Once either is fully subscribed, the SECR and LBSC (£67) are on sale too.
    for cert in g.state.corporations["GER"].certificates:
        cert.owner = "Ann"
    for cert in g.state.corporations["LNWR"].certificates_of("Cy"):
        cert.owner = "Ann"  # (Cy keeps within the certificate limit)
    g.apply("Cy", BuyShares("LBSC"))
    assert g.state.corporations["LBSC"].president == "Cy"
    assert g.state.player("Cy").cash == 500 - 134
    g.apply("Cy", Done())
    g.apply("Di", BuyShares("LSWR"))  # the other £76 company is still on sale
    assert g.state.corporations["LSWR"].percent_held_by("Di") == 10


def test_1_11_new_shares_at_face_value_second_hand_at_market_price() -> None:
    g = second_round()

    g.apply("Cy", SellShares("LNWR"))  # a second-hand share: the market price, £90
    assert g.state.player("Cy").cash == 230 + 90
    assert g.state.corporations["LNWR"].percent_held_by(POOL) == 10
    assert g.state.market.price("LNWR") == 90  # selling does not move the price
    g.apply("Cy", Done())
    # A new GWR share costs its face value, £90, though the GWR stands at £82.
    g.apply("Di", BuyShares("GWR"))
    assert g.state.player("Di").cash == 160 - 90
    g.apply("Di", Done())
    # The pool's LNWR share costs the market price.
    g.apply("Ann", BuyShares("LNWR", 1, "pool"))
    assert g.state.player("Ann").cash == 115 - 90


def test_4_2_privates_go_to_the_pool_at_face_value_less_30_and_back_at_face() -> None:
    g = second_round()

    g.apply("Cy", Pass())
    g.apply("Di", SellPrivate("L&M", "bank"))
    assert g.state.player("Di").cash == 160 + 210 - 30
    assert g.state.privates["L&M"].owner == POOL
    with pytest.raises(GameError, match="may not buy it back"):
        g.apply("Di", BuyPrivate("L&M"))
    g.apply("Di", Done())
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    assert isinstance(g.round, OperatingRound)  # the sale did not prolong the round
    assert g.state.priority == "Cy"  # nobody bought: the Priority Deal stays
    assert "L&M pays" not in " ".join(g.state.log[-8:])  # a private in the pool pays nobody
    pass_company(g)
    pass_company(g)
    assert now(g) == "Cy"
    g.apply("Cy", BuyPrivate("L&M"))
    assert g.state.privates["L&M"].owner == "Cy"
    assert g.state.player("Cy").cash == 250 - 210


def test_4_selling_does_not_prolong_the_round_and_priority_follows_the_last_buyer() -> None:
    g = second_round()

    g.apply("Cy", BuyShares("GWR"))  # Cy buys: the round goes on
    g.apply("Cy", Done())
    g.apply("Di", SellShares("LNWR"))  # Di only sells
    g.apply("Di", Done())
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    assert isinstance(g.round, StockRound)  # Cy has not passed since buying
    g.apply("Cy", Pass())
    assert isinstance(g.round, OperatingRound)
    assert g.state.priority == "Di"  # left of Cy, the last to buy, not of Di who sold


def test_4_3_no_buying_and_selling_one_company_in_a_turn_nor_buying_back() -> None:
    g = second_round()

    g.apply("Cy", BuyShares("GWR"))
    with pytest.raises(GameError, match=r"bought GWR this turn .*\(4.3\)"):
        g.apply("Cy", SellShares("GWR"))
    g.apply("Cy", SellShares("LNWR"))  # another company: sales after the purchase
    g.apply("Cy", Done())
    g.apply("Di", Pass())
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    g.apply("Cy", SellShares("GWR"))  # a later turn of the same round
    with pytest.raises(GameError, match=r"sold LNWR this round .*\(4.3\)"):
        g.apply("Cy", BuyShares("LNWR", 1, "pool"))
    assert g.state.corporations["GWR"].percent_held_by("Cy") == 10


def test_1_9_certificates_below_50_do_not_count_toward_the_limit() -> None:
    g = second_round()

    rules = g.rules
    # Ann: S&M, the LNWR director's certificate and two shares, a GWR share.
    assert certificate_count(rules, g.state, "Ann") == 5
    # The LNWR's token moved to £49 (the yellow area of the index).
    g.state.market.move("LNWR", (0, 7))
    assert g.state.market.price("LNWR") == 49
    assert certificate_count(rules, g.state, "Ann") == 2
    g.state.market.move("LNWR", (0, 8))  # £55 counts again
    assert certificate_count(rules, g.state, "Ann") == 5
