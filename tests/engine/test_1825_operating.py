"""1825 Unit 1, 5 (Operating Rounds): privates' revenue and the round that ends at
once (5.1.1), formation with full company credit and the base (5.1.2), the fixed order
(5.1.3), two non-adjacent lays or one promotion (5.2.1), bases at £40 then £100 (5.4),
routes between large stations (5.5.2), dividends of 10% a share or withheld (5.5.9),
trains between companies at multiples of £10 and no forced purchase (5.6), phases
(5.7)."""

from __future__ import annotations

import pytest
from scenarios_1825 import (
    all_pass,
    buy,
    company_turn,
    first_round,
    lays_at,
    lnwr_first_turn,
    new_game,
    now,
    pass_company,
)

from engine.actions import (
    Accept,
    BuyShares,
    BuyTrain,
    Dividend,
    Done,
    LayTile,
    Pass,
    Route,
    RunRoutes,
    SellShares,
)
from engine.errors import GameError
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import POOL


def test_5_1_1_privates_pay_and_the_round_ends_when_no_company_forms() -> None:
    g = new_game()
    all_pass(g)
    # Operating Round 1.1 paid the privates and ended: nobody can form yet.
    assert isinstance(g.round, StockRound) and g.round.number == 2
    assert "S&M pays £5 to Ann" in g.state.log
    assert {s: p.cash for s, p in g.state.players.items()} == {
        "Ann": 605, "Bob": 567, "Cy": 520, "Di": 450}


def test_5_1_2_six_new_shares_form_a_company_with_full_credit_and_its_base() -> None:
    g = new_game()
    for i in range(9):
        buy(g, ("Ann", "Bob", "Cy", "Di")[i % 4], "LNWR")
    for seat in ("Bob", "Cy", "Di", "Ann"):  # the GWR: five new shares only
        buy(g, seat, "GWR")
    all_pass(g)
    state = g.state
    lnwr, gwr = state.corporations["LNWR"], state.corporations["GWR"]
    assert lnwr.floated and lnwr.cash == 1000  # ten shares' worth, all of them sold
    assert state.board.tokens["T16"] == {0: ["LNWR"]}
    assert state.market.price("LNWR") == 100
    assert not gwr.floated and gwr.cash == 0 and "V14" not in state.board.tokens
    # Company credit is not the bank's money: the bank holds what players paid.
    assert state.bank_cash == 6000 - sum(p.cash for p in state.players.values())
    pass_company(g)
    assert isinstance(g.round, StockRound)  # the LNWR alone operated
    g.apply(now(g), BuyShares("GWR"))  # Bob: the sixth new share
    all_pass(g)
    assert g.state.corporations["GWR"].floated
    assert g.state.corporations["GWR"].cash == 900  # though four shares are unsold


def test_5_1_3_companies_operate_by_face_value_then_order_of_formation() -> None:
    g = new_game()
    first_round(g)
    assert company_turn(g) == "LNWR"
    pass_company(g)
    assert company_turn(g) == "GWR"
    pass_company(g)
    # Share Dealing Round 2 (the players given £1000 each to buy faster): the LSWR
    # sells six new shares before the GER does, though the GER's director came first.
    for player in g.state.players.values():
        player.cash += 1000
    for cert in g.state.corporations["GWR"].certificates_of("ipo"):
        cert.owner = "Di"
    order = ["Cy", "Di", "Ann", "Bob"]
    buys = ["GER", "LSWR", "LSWR", "LSWR", "LSWR", "LSWR", "GER", "GER", "GER", "GER"]
    for i, corp in enumerate(buys):
        seat = order[i % 4]
        g.apply(seat, BuyShares(corp))
        g.apply(seat, Done())
    all_pass(g)
    seen = []
    while isinstance(g.round, OperatingRound):
        seen.append(company_turn(g))
        pass_company(g)
    assert seen == ["LNWR", "GWR", "LSWR", "GER"]


def test_5_2_1_two_lays_not_adjacent_to_each_other() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    # S15 is next to T14: no lay there this turn.
    assert lays_at(g, "S15") == []
    with pytest.raises(GameError, match=r"next to T14.*\(5.2.1\)"):
        g.apply("Ann", LayTile("3", "S15", 0))
    assert lays_at(g, "U17")  # not adjacent: a second lay
    g.apply("Ann", lays_at(g, "U17")[0])
    assert g.state.board.tiles.keys() >= {"T14", "U17"}
    assert not [a for a in g.legal() if a.startswith("lay")]  # two lays, no more


def test_5_2_a_first_tile_on_a_hex_without_track_is_a_lay() -> None:
    g = new_game()
    rules, state = g.rules, g.state
    # The preprinted yellow OO hexes carry no track: their green tile is a lay (5.2).
    assert rules.tile_lay_kind(state, "R12", "upgrade") == "yellow"
    assert rules.tile_lay_kind(state, "T14", "yellow") == "yellow"
    # Bristol's preprinted green track takes a promotion.
    assert rules.tile_lay_kind(state, "V10", "upgrade") == "upgrade"


def test_5_2_a_reserved_hex_is_its_company_s_until_it_builds_there() -> None:
    g = new_game()
    first_round(g)
    lay = next(a for a in lays_at(g, "U17"))  # the LNWR's own hex
    g.apply("Ann", lay)
    g.apply("Ann", Done())
    pass_company(g)
    all_pass(g)
    # V18 is the GWR's until it lays a tile there.
    assert lays_at(g, "V18") == []
    with pytest.raises(GameError, match="reserved for GWR"):
        g.apply("Ann", LayTile("9", "V18", 0))


def test_5_4_bases_cost_40_then_100() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    assert "token HEX (costs £40)" in g.legal()
    lnwr_cash = g.state.corporations["LNWR"].cash
    from engine.actions import PlaceToken

    g.apply("Ann", PlaceToken("S13", None))
    assert g.state.corporations["LNWR"].cash == lnwr_cash - 40
    assert g.state.board.tokens["S13"] == {2: ["LNWR"]}
    assert g.state.corporations["LNWR"].token_costs[0] == 100


def second_operating_round():  # type: ignore[no-untyped-def]
    """Operating Round 2.1 at the LNWR's turn: in SDR 2 Cy sold an LNWR share to the
    pool (Cy holds the Priority Deal and sells first)."""
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    pass_company(g)  # GWR
    g.apply("Cy", SellShares("LNWR"))
    g.apply("Cy", Done())
    all_pass(g)
    assert company_turn(g) == "LNWR"
    return g


def test_5_5_2_a_route_begins_and_ends_at_large_stations() -> None:
    g = second_operating_round()
    # Northampton (S15), a town next to Wolverton, joined to it by tile 3.
    lay = next(a for a in lays_at(g, "S15") if a.tile in ("3", "4"))
    g.apply("Ann", lay)
    g.apply("Ann", Pass())  # no base this turn
    with pytest.raises(GameError, match=r"begin and end at a large station \(5.5.2\)"):
        g.apply("Ann", RunRoutes((Route("2", ("T16", "S15")),)))
    g.apply("Ann", RunRoutes((Route("2", ("T16", "S13")),)))
    assert g.round.current is not None and g.round.current.revenue == 50  # type: ignore[attr-defined]


def test_5_5_9_dividends_are_10_percent_a_share_the_pool_s_share_earns_nothing() -> None:
    g = second_operating_round()
    state = g.state
    before = {s: p.cash for s, p in state.players.items()}
    bank, lnwr_cash = state.bank_cash, state.corporations["LNWR"].cash
    assert state.corporations["LNWR"].percent_held_by(POOL) == 10
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    state = g.state
    paid = {s: p.cash - before[s] for s, p in state.players.items()}
    # £50: £5 a share. Ann 40%, Bob 20%, Cy 10% (sold one), Di 20%; the pool nothing.
    assert paid == {"Ann": 20, "Bob": 10, "Cy": 5, "Di": 10}
    assert state.bank_cash == bank - 45
    assert state.corporations["LNWR"].cash == lnwr_cash


def test_5_5_9_withheld_income_is_company_credit() -> None:
    g = second_operating_round()
    bank, lnwr_cash = g.state.bank_cash, g.state.corporations["LNWR"].cash
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("withhold"))
    assert g.state.corporations["LNWR"].cash == lnwr_cash + 50
    assert g.state.bank_cash == bank  # credit, not the bank's money
    assert g.state.market.price("LNWR") == 82  # withheld: one space down (6.3)


def test_5_6_no_company_is_forced_to_buy_a_train() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    from engine.actions import PlaceToken

    g.apply("Ann", PlaceToken("S13", None))
    # A route (T16-S13) and no train: the LNWR may still end its turn.
    g.apply("Ann", Done())
    assert company_turn(g) == "GWR"
    assert g.state.corporations["LNWR"].trains == []


def test_5_6_5_trains_change_companies_at_multiples_of_10() -> None:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    g.apply("Bob", Pass())
    g.apply("Bob", Pass())
    with pytest.raises(GameError, match=r"multiple of £10 \(5.6.5\)"):
        g.apply("Bob", BuyTrain("2", "LNWR", 15))
    g.apply("Bob", BuyTrain("2", "LNWR", 10))
    assert now(g) == "Ann"  # the LNWR's director agrees or not
    g.apply("Ann", Accept())
    state = g.state
    assert [t.name for t in state.corporations["GWR"].trains] == ["2"]
    assert state.corporations["GWR"].cash == 900 - 10
    assert state.corporations["LNWR"].cash == 780 + 10


def test_5_7_phases_two_and_three() -> None:
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    state = g.state
    # The 2-trains left in the bank are bought elsewhere: the 3-train is next.
    del state.trains_offered[:5]
    g.apply("Bob", BuyTrain("3"))
    state = g.state
    assert state.title.phases[state.phase_index].name == "2"
    assert "green" in g.rules.phase(state).tiles
    g.apply("Bob", Done())
    all_pass(g)
    assert state.operating_rounds_in_set == 2  # 5.7.2: two ORs a set
    # The 5-train next: phase 3 removes the 2-trains and limits companies to three.
    while state.trains_offered[0].name != "5":
        state.trains_offered.pop(0)
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    g.apply("Ann", BuyTrain("5"))
    state = g.state
    assert state.title.phases[state.phase_index].name == "3"
    assert [t.name for t in state.corporations["LNWR"].trains] == ["5"]
    assert g.rules.phase(state).train_limit_for("major") == 3
