"""1850 stock rounds, played out: the initial private sale (5.7), starting and floating
companies (5.6), the market (5.8), share price protection (5.9), redemption (5.10) and
reissue (5.11). Section numbers are those of shared/rules/1850.md."""

from __future__ import annotations

import pytest
from scenarios_1850 import (
    companies_started,
    finish_operating_round,
    new_game,
    now,
    pass_round,
    play,
    privates_sold,
)

from engine.actions import (
    Accept,
    Bid,
    BuyPrivate,
    BuyShares,
    Decline,
    DeclineProtection,
    Done,
    Par,
    Pass,
    Protect,
    RedeemShares,
    ReissueShares,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game
from engine.rounds.stock import StockRound
from engine.shares import certificate_count
from engine.state import IPO, POOL, TREASURY
from engine.titles.t1850 import reissue_par


def cash(g: Game) -> dict[str, int]:
    return {seat: p.cash for seat, p in g.state.players.items()}


def price(g: Game, sym: str) -> int:
    return g.state.market.price(sym)


def to_second_stock_round(g: Game) -> None:
    """Privates sold, CB&Q and GN started, one operating round in which neither runs."""
    privates_sold(g)
    companies_started(g)
    pass_round(g)
    finish_operating_round(g)
    assert isinstance(g.round, StockRound) and g.state.stock_round_number == 2


# --- 3 and 5.7: set-up and the initial stock round ---------------------------------------

def test_3_3_each_player_starts_with_2100_divided_by_the_players() -> None:
    for seats in (("A", "B"), ("A", "B", "C"), ("A", "B", "C", "D", "E", "F")):
        g = new_game(seats)
        assert {p.cash for p in g.state.players.values()} == {2100 // len(seats)}
        assert g.state.total_cash() == 12_000


def test_5_7_only_the_cheapest_private_is_bought_others_are_bid_on() -> None:
    g = new_game()
    with pytest.raises(GameError, match="cheapest"):
        g.apply("Ann", BuyPrivate("CM"))
    play(g, ("Ann", BuyPrivate("GRSC")))
    assert g.state.privates["GRSC"].owner == "Ann" and cash(g)["Ann"] == 680


def test_5_7_an_auction_starts_left_of_the_high_bidder_and_a_pass_is_final() -> None:
    """5.7: "If two or more players have bid on the next company being offered, an
    auction is held starting with the bidding player to the left of the player with the
    highest bid. Only players who initially bid on the company for auction may
    participate. The company for auction goes to the player with the highest bid after
    all other participating players have passed." (Not 18TN 3.1.1, where "A player who
    has passed may bid later".) So Ann, who passed, never has the turn again; Cy takes
    the private when Bob passes, and play resumes to the left of Ann, who bought P1."""
    g = new_game()
    play(g, ("Ann", Bid(45, "CM")), ("Bob", Bid(50, "CM")), ("Cy", Bid(55, "CM")),
         ("Ann", BuyPrivate("GRSC")))
    rnd = g.round
    assert isinstance(rnd, StockRound) and rnd.s.auction is not None
    assert now(g) == "Ann"  # to the left of Cy, the highest bidder
    play(g, ("Ann", Pass()), ("Bob", Bid(60)), ("Cy", Bid(65)))
    assert now(g) == "Bob"  # Ann, who passed, is out of the auction
    with pytest.raises(GameError):
        g.apply("Ann", Bid(70))
    play(g, ("Bob", Pass()))
    assert g.state.privates["CM"].owner == "Cy" and cash(g)["Cy"] == 700 - 65
    assert cash(g)["Bob"] == 700 and cash(g)["Ann"] == 700 - 20
    rnd = g.round
    assert isinstance(rnd, StockRound) and rnd.s.auction is None and now(g) == "Bob"


def test_5_7_p7_comes_with_a_share_of_the_rock_island() -> None:
    g = new_game()
    privates_sold(g)
    assert g.state.privates["MMR"].owner == "Ann"
    assert g.state.corporations["RI"].percent_held_by("Ann") == 10


def test_5_7_all_pass_before_the_privates_are_sold_p1_costs_5_less_and_at_0_is_forced() -> None:
    g = new_game()
    pass_round(g)  # nobody buys: one operating round of privates only, none owned
    assert "Operating Round 1.1 begins" in g.state.log
    finish_operating_round(g)
    rnd = g.round
    assert isinstance(rnd, StockRound) and rnd.number == 2
    p1 = g.state.privates["GRSC"]
    rules = g.rules
    assert rules.private_price(g.state, p1, rnd.number) == 15
    for expected in (10, 5, 0):
        pass_round(g)
        finish_operating_round(g)
        rnd = g.round
        assert isinstance(rnd, StockRound)
        assert rules.private_price(g.state, p1, rnd.number) == expected
    # At $0 the priority holder must take P1 as his only action.
    holder = now(g)
    assert holder == g.state.priority
    with pytest.raises(GameError, match="must accept"):
        g.apply(holder, Pass())
    play(g, (holder, BuyPrivate("GRSC")))
    assert g.state.privates["GRSC"].owner == holder  # (a refusal restores a copy)


def test_5_7_no_certificate_bought_in_the_initial_stock_round_may_be_sold() -> None:
    g = new_game()
    privates_sold(g)
    companies_started(g)
    assert not any(a.startswith("sell") for a in g.legal())
    with pytest.raises(GameError, match="first stock round"):
        g.apply(now(g), SellShares("CBQ", 1))


# --- 5.6: starting a company ----------------------------------------------------------

def test_5_6_par_values_are_the_six_red_outlined_squares() -> None:
    g = new_game()
    privates_sold(g)
    with pytest.raises(GameError, match="par values"):
        g.apply("Bob", Par("CBQ", 110))
    play(g, ("Bob", Par("CBQ", 82)))
    assert g.state.market.positions["CBQ"] == (2, 6)


def test_5_6_4_capital_is_paid_at_the_end_of_the_stock_round_of_the_sixth_share() -> None:
    g = new_game()
    privates_sold(g)
    companies_started(g)
    cbq = g.state.corporations["CBQ"]
    assert cbq.floated and cbq.cash == 0  # six shares sold, but the round goes on
    pass_round(g)
    assert cbq.cash == 680 and g.state.corporations["GN"].cash == 760


# --- 5.8: the market --------------------------------------------------------------------

def placed(g: Game, sym: str, pos: tuple[int, int]) -> None:
    g.state.market.place(sym, pos)


@pytest.mark.parametrize(("start", "shares", "end"), [
    ((1, 16), 1, (1, 16)),  # $275 above the Soft Ledge: one share stops on it
    ((1, 16), 2, (3, 16)),  # two shares cross it: two spaces
    ((0, 16), 2, (1, 16)),  # reaching the ledge with exactly one more share left
    ((3, 16), 3, (3, 16)),  # $225 on the lower ledge: sales do not lower it
    ((2, 6), 3, (5, 6)),    # no ledge: one space per share
])
def test_5_8_1_down_stops_at_the_soft_ledge_for_one_share_and_at_the_lower_ledge(
        start: tuple[int, int], shares: int, end: tuple[int, int]) -> None:
    g = new_game()
    cbq = g.state.corporations["CBQ"]
    placed(g, "CBQ", start)
    g.rules.move_price_after_sale(g.state, cbq, shares)
    assert g.state.market.positions["CBQ"] == end


def test_5_8_1_up_from_the_top_row_moves_right_and_down_and_400_stays() -> None:
    g = new_game()
    cbq = g.state.corporations["CBQ"]
    placed(g, "CBQ", (0, 6))
    g.rules.move_price(g.state, cbq, "up")
    assert g.state.market.positions["CBQ"] == (1, 7)
    placed(g, "CBQ", (0, 20))
    g.rules.move_price(g.state, cbq, "up")
    g.rules.move_price(g.state, cbq, "right")
    assert price(g, "CBQ") == 400


def test_5_8_3_right_against_the_soft_ledge_turns_up() -> None:
    g = new_game()
    cbq = g.state.corporations["CBQ"]
    placed(g, "CBQ", (2, 15))  # $225, the Soft Ledge on its right
    g.rules.move_price(g.state, cbq, "right")
    assert g.state.market.positions["CBQ"] == (1, 15)


def test_5_8_4_a_token_moving_into_an_occupied_box_goes_underneath() -> None:
    g = new_game()
    privates_sold(g)
    companies_started(g)
    pass_round(g)
    market = g.state.market
    market.place("GN", (2, 6))
    market.place("CBQ", (2, 5))
    g.rules.move_price(g.state, g.state.corporations["CBQ"], "right")
    assert market.stacks[(2, 6)] == ["GN", "CBQ"]


def test_5_2_3_all_sold_companies_move_up_at_the_end_of_the_stock_round() -> None:
    g = new_game()
    privates_sold(g)
    companies_started(g)
    play(g, ("Bob", BuyShares("CBQ")), ("Cy", Pass()), ("Ann", BuyShares("CBQ")),
         ("Bob", BuyShares("CBQ")), ("Cy", Pass()), ("Ann", BuyShares("CBQ")))
    assert g.state.corporations["CBQ"].ipo_percent == 0
    pass_round(g)
    assert price(g, "CBQ") == 72 and price(g, "GN") == 76


# --- 5.3.3, 5.9: selling and share price protection --------------------------------------

def test_5_3_3_shares_of_one_company_are_sold_in_one_block() -> None:
    g = new_game()
    to_second_stock_round(g)
    seller = now(g)
    held = g.state.corporations["CBQ"].percent_held_by(seller)
    assert held >= 20, seller
    play(g, (seller, SellShares("CBQ", 1)))
    with pytest.raises(GameError, match="one block"):
        g.apply(seller, SellShares("CBQ", 1))


def test_5_9_a_sale_waits_for_the_president_who_protects_it_and_the_price_stays() -> None:
    g = new_game()
    to_second_stock_round(g)
    # Ann (20% of CBQ) sells 10%; Bob, CB&Q's president, protects it.
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    before = price(g, "CBQ")
    bob = cash(g)["Bob"]
    play(g, ("Ann", SellShares("CBQ", 1)), ("Ann", Pass()))
    turn = g.turn()
    assert turn is not None and turn.seat == "Bob" and turn.step.startswith("protect CBQ")
    assert price(g, "CBQ") == before  # 5.9.2: decided after the seller's turn
    play(g, ("Bob", Protect("CBQ")))
    cbq = g.state.corporations["CBQ"]
    assert price(g, "CBQ") == before
    assert cbq.percent_held_by("Bob") == 50 and cbq.pool_percent == 0
    assert cash(g)["Bob"] == bob - before
    # 5.9.6: play resumes to the left of the protecting president: Cy.
    assert now(g) == "Cy"


def test_5_9_a_declined_protection_lets_the_price_fall_and_play_goes_on() -> None:
    g = new_game()
    to_second_stock_round(g)
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    before = g.state.market.positions["GN"]
    play(g, ("Ann", SellShares("GN", 2)), ("Ann", Pass()), ("Cy", DeclineProtection()))
    assert g.state.market.positions["GN"] == (before[0] + 2, before[1])
    assert now(g) == "Bob"  # left of the seller


def test_5_9_a_president_who_sells_his_presidency_away_cannot_protect_it() -> None:
    """The president of the sale decides; he is the seller, so the price falls (the
    site's reading too: its fixture pres_transfer_price_drop)."""
    g = new_game()
    to_second_stock_round(g)
    while now(g) != "Cy":
        g.apply(now(g), Pass())
    before = g.state.market.positions["GN"]
    # Cy holds 40% of GN, Ann 20%: Cy sells 30% -> Ann (20%) would lead Cy (10%).
    play(g, ("Cy", SellShares("GN", 3)))
    assert g.state.corporations["GN"].president == "Ann"
    play(g, ("Cy", Pass()))
    assert g.state.market.positions["GN"] == (before[0] + 3, before[1])


# --- 5.10, 5.11: redemption and reissue -------------------------------------------------

def operated_position() -> Game:
    """Second stock round after both companies have operated once."""
    g = new_game()
    to_second_stock_round(g)
    for corp in g.state.corporations.values():
        if corp.floated:
            corp.operated = True
    return g


def test_5_10_8_a_company_that_has_not_operated_may_not_redeem() -> None:
    g = operated_position()
    gn = g.state.corporations["GN"]
    gn.operated = False  # floated, no operating turn yet
    for cert in gn.certificates[5:9]:
        cert.owner = "Bob"
    while now(g) != "Cy":
        g.apply(now(g), Pass())
    assert not any(a.startswith("redeem GN") for a in g.legal())
    with pytest.raises(GameError, match="has not operated"):
        g.apply("Cy", RedeemShares(company="GN", holder="Bob"))


def test_5_10_redemption_from_a_player_needs_his_consent() -> None:
    g = operated_position()
    while now(g) != "Bob":
        g.apply(now(g), Pass())
    cbq = g.state.corporations["CBQ"]
    # CBQ: Bob 40%, Ann 20%, IPO 40%: redeeming one leaves 50% outside the IPO < 60%.
    with pytest.raises(GameError, match="60%"):
        g.apply("Bob", RedeemShares(company="CBQ", holder="Ann"))
    cbq = g.state.corporations["CBQ"]  # a refusal restores a copy of the state
    cbq.certificates[6].owner = "Cy"  # one more share sold: 70% outside
    cbq.certificates[7].owner = "Cy"
    ann = cash(g)["Ann"]
    play(g, ("Bob", RedeemShares(company="CBQ", holder="Ann")))
    turn = g.turn()
    assert turn is not None and turn.seat == "Ann"
    play(g, ("Ann", Decline()))
    assert cbq.percent_held_by(TREASURY) == 0 and now(g) == "Bob"
    play(g, ("Bob", RedeemShares(company="CBQ", holder="Cy")), ("Cy", Accept()))
    assert cbq.percent_held_by(TREASURY) == 10 and cbq.percent_held_by("Cy") == 10
    assert cash(g)["Ann"] == ann and cbq.cash == 680 - price(g, "CBQ")
    assert now(g) == "Cy"  # the redemption was Bob's whole turn (5.10.6)


def test_5_10_3_a_share_in_the_open_market_is_redeemed_first() -> None:
    g = operated_position()
    gn = g.state.corporations["GN"]
    for cert in gn.certificates[5:9]:
        cert.owner = "Bob"  # 100% outside the IPO
    gn.certificates[8].owner = POOL
    while now(g) != "Cy":
        g.apply(now(g), Pass())
    with pytest.raises(GameError, match="Open Market first"):
        g.apply("Cy", RedeemShares(company="GN", holder="Bob"))
    gn = g.state.corporations["GN"]  # a refusal restores a copy of the state
    play(g, ("Cy", RedeemShares(company="GN")))
    assert gn.percent_held_by(TREASURY) == 10 and gn.pool_percent == 0


def test_5_10_9_redeemed_shares_are_not_for_sale_until_reissued() -> None:
    """5.10.9 and 5.11: a redeemed share lies on the company's charter; players buy it
    only once the company reissues it to the Initial Offering (found by the differential
    check: ours sold it from the treasury, the site refused)."""
    g = operated_position()
    gn = g.state.corporations["GN"]
    for cert in gn.certificates[5:9]:
        cert.owner = "Bob"
    gn.certificates[8].owner = POOL
    while now(g) != "Cy":
        g.apply(now(g), Pass())
    play(g, ("Cy", RedeemShares(company="GN")))
    assert gn.percent_held_by(TREASURY) == 10
    buyer = now(g)
    assert not any("from treasury" in option for option in g.legal())
    with pytest.raises(GameError, match="not for sale until it reissues"):
        g.apply(buyer, BuyShares("GN", 1, "treasury"))


def test_5_11_reissue_price_is_75_percent_of_market_to_the_nearest_par_box() -> None:
    g = operated_position()
    gn = g.state.corporations["GN"]
    for market_price, pos, expected in ((160, (0, 10), 120), (250, (0, 14), 180),
                                        (82, (1, 5), 76)):
        assert g.state.market.spec.rows[pos[0]][pos[1]].price == market_price  # type: ignore[union-attr]
        g.state.market.place("GN", pos)
        assert reissue_par(g.state, gn) == expected


def test_5_11_reissued_shares_sell_at_the_new_par_and_pay_the_company() -> None:
    g = operated_position()
    gn = g.state.corporations["GN"]
    for cert in gn.certificates[5:]:
        cert.owner = "Bob"
    gn.certificates[8].owner = TREASURY  # redeemed earlier
    g.state.market.place("GN", (0, 10))  # $160
    while now(g) != "Cy":
        g.apply(now(g), Pass())
    play(g, ("Cy", ReissueShares(company="GN")))
    assert gn.par_price == 120 and gn.certificates_of(IPO)
    before = gn.cash
    while now(g) != "Bob":
        g.apply(now(g), Pass())
    play(g, ("Bob", BuyShares("GN")))
    assert gn.cash == before + 120


def test_5_1_1_brown_area_shares_may_be_bought_several_at_once_from_the_open_market() -> None:
    g = new_game()
    to_second_stock_round(g)
    gn = g.state.corporations["GN"]
    for cert in gn.certificates[6:9]:
        cert.owner = POOL
    while now(g) != "Bob":
        g.apply(now(g), Pass())
    with pytest.raises(GameError, match="one certificate"):
        g.apply("Bob", BuyShares("GN", 2, "pool"))
    g.state.market.place("GN", (7, 2))  # $30, brown
    g.state.players["Bob"].cash += 1000
    play(g, ("Bob", BuyShares("GN", 3, "pool")))
    assert g.state.corporations["GN"].percent_held_by("Bob") == 30


def test_5_1_1_brown_area_shares_may_be_bought_one_by_one_in_the_same_turn() -> None:
    """5.1.1: "in a single stock turn ... any or all available shares of one company
    ... from the Open Market": the turn stays open after one, for more of that company
    from the Open Market only; a sale after them (5.3.4) ends the purchases."""
    g = new_game()
    to_second_stock_round(g)
    gn = g.state.corporations["GN"]
    for cert in gn.certificates[6:9]:
        cert.owner = POOL
    g.state.market.place("GN", (7, 2))  # $30, brown
    while now(g) != "Bob":
        g.apply(now(g), Pass())
    g.state.players["Bob"].cash += 1000
    play(g, ("Bob", BuyShares("GN", 1, "pool")))
    assert now(g) == "Bob" and "buy GN from pool" in g.legal()
    with pytest.raises(GameError, match="Open Market"):
        g.apply("Bob", BuyShares("GN", 1, "ipo"))
    with pytest.raises(GameError, match="already bought"):
        g.apply("Bob", BuyShares("CBQ"))
    play(g, ("Bob", BuyShares("GN")))  # from the Open Market, where the turn's buys are
    gn = g.state.corporations["GN"]  # (each move works on a copy of the position)
    assert gn.percent_held_by("Bob") == 20 and gn.pool_percent == 10
    play(g, ("Bob", SellShares("GN", 1)))
    assert not any(x.startswith("buy") for x in g.legal())
    play(g, ("Bob", Pass()))
    assert now(g) != "Bob"


def test_defaults_a_late_president_lets_the_sale_stand_and_a_late_holder_keeps_his_share() -> None:
    """engine/defaults.py: the conservative default buys nothing and sells nothing."""
    from engine.defaults import conservative_action

    g = new_game()
    to_second_stock_round(g)
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    play(g, ("Ann", SellShares("CBQ", 1)), ("Ann", Pass()))
    assert now(g) == "Bob"
    default = conservative_action(g)
    assert isinstance(default, Pass | DeclineProtection)
    g.apply("Bob", default)
    assert g.state.corporations["CBQ"].pool_percent == 10  # not protected

    h = operated_position()
    cbq = h.state.corporations["CBQ"]
    for cert in cbq.certificates[6:8]:
        cert.owner = "Cy"
    while now(h) != "Bob":
        h.apply(now(h), Pass())
    play(h, ("Bob", RedeemShares(company="CBQ", holder="Cy")))
    assert isinstance(conservative_action(h), Decline)


def test_5_1_1_a_company_entering_the_black_area_closes_and_limits_fall() -> None:
    g = new_game()
    to_second_stock_round(g)
    state = g.state
    cbq = state.corporations["CBQ"]
    assert g.rules.certificate_limit(state) == 17  # 3 players, 9 companies (21)
    assert any("CBQ" in h for c in state.board.tokens.values() for h in c.values())
    bob_before = g.rules.scores(state)["Bob"]
    held = cbq.percent_held_by("Bob")
    bank = state.bank_cash
    worth = held // 10 * price(g, "CBQ")
    state.board.markers["A10"] = ["GN", "CBQ"]  # CBQ's Mesabi token beside another's
    state.market.place("CBQ", (8, 1))  # $10, brown; left of it the black $0
    g.rules.move_price(state, cbq, "left")
    assert cbq.closed and "CBQ" not in state.market.positions
    assert cbq.percent_held_by("Bob") == 0 and cbq.cash == 0
    assert state.bank_cash == bank + 680
    assert not any("CBQ" in h for c in state.board.tokens.values() for h in c.values())
    assert state.board.markers["A10"] == ["GN"]  # "All tokens ... are removed from the map"
    assert g.rules.certificate_limit(state) == 15  # 8 companies left (21)
    assert g.rules.scores(state)["Bob"] == bob_before - worth
    assert not any("CBQ" in a for a in g.legal())


def test_5_9_8_above_60_percent_by_protection_a_later_sale_goes_down_to_60() -> None:
    g = new_game()
    to_second_stock_round(g)
    cbq = g.state.corporations["CBQ"]
    for cert in cbq.certificates_of(IPO):
        cert.owner = "Bob"  # Bob 80%, as protection may leave him (5.9.8)
    assert cbq.percent_held_by("Bob") == 80
    while now(g) != "Bob":
        g.apply(now(g), Pass())
    with pytest.raises(GameError, match="20% at least"):
        g.apply("Bob", SellShares("CBQ", 1))
    play(g, ("Bob", SellShares("CBQ", 2)))
    assert g.state.corporations["CBQ"].percent_held_by("Bob") == 60


def test_5_3_3_a_share_of_a_company_not_yet_started_cannot_be_sold() -> None:
    """P7's share of the CRI&P has no market price until the CRI&P is started."""
    g = new_game()
    privates_sold(g)
    companies_started(g)
    pass_round(g)
    finish_operating_round(g)
    assert g.state.corporations["RI"].percent_held_by("Ann") == 10
    assert not any(a.startswith("sell RI") for a in g.legal())
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    with pytest.raises(GameError, match="no share price yet"):
        g.apply("Ann", SellShares("RI", 1))


def test_16_4_historical_order_start_companies_start_in_their_order() -> None:
    g = new_game(options=frozenset({"historical_order"}))
    privates_sold(g)
    assert [a for a in g.legal() if a.startswith("par")] == \
        ["par CBQ at 68, 72, 76, 82, 90, 100"]
    with pytest.raises(GameError, match="starts after CBQ"):
        g.apply("Bob", Par("GN", 76))
    play(g, ("Bob", Par("CBQ", 68)), ("Cy", BuyShares("CBQ")), ("Ann", BuyShares("CBQ")),
         ("Bob", BuyShares("CBQ")), ("Cy", BuyShares("CBQ")))
    assert g.state.corporations["CBQ"].floated
    assert any(a.startswith("par MILW") for a in g.legal())
    assert not any(a.startswith("par RI") for a in g.legal())


def test_5_3_5_a_seller_counts_his_certificates_as_if_the_president_let_the_price_fall(
        ) -> None:
    """5.3.5: "If a player sells a share or shares and the price moves into the yellow,
    green, brown, or black areas, for certificate limit purposes the player must assume
    that the president will not intervene to protect the share price."

    The drop waits for the president's answer after the seller's turn (5.9.2), yet the
    seller's remaining shares already count as in the yellow area (5.4.1): they leave
    room for a purchase; after the protection the price, and the count, are back."""
    g = new_game(("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"))
    privates_sold(g)
    play(g, ("Bob", Par("CBQ", 68)), ("Cy", Par("GN", 76)))
    state = g.state
    for sym, seat, shares in (("CBQ", "Bob", 2), ("CBQ", "Ann", 4),
                              ("GN", "Cy", 2), ("GN", "Ann", 3)):
        corp = state.corporations[sym]
        for cert in [c for c in corp.certificates_of(IPO) if not c.president][:shares]:
            cert.owner = seat  # Ann: 40% of CB&Q beside Bob's 40%, 30% of GN
    pass_round(g)
    finish_operating_round(g)
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    limit = g.rules.certificate_limit(state)
    assert limit == 9  # 6 players, 9 companies (21)
    # One over the limit (as a closure's lower limit may leave her, 5.1.1): two privates
    # and P7's Rock Island share besides 4 certificates of CB&Q and 3 of GN.
    assert certificate_count(g.rules, state, "Ann") == limit + 1
    placed(g, "CBQ", (6, 5))  # $60, white; one space down is $55, yellow
    play(g, ("Ann", SellShares("CBQ", 1)))
    assert price(g, "CBQ") == 60  # 5.9.2: the drop waits for Bob
    # Her 3 CB&Q shares are assumed in the yellow area: 9 - 3 = 6 count.
    assert certificate_count(g.rules, state, "Ann") == limit - 3
    play(g, ("Ann", BuyShares("GN")))  # 7 of 9; counting CB&Q it would be 10
    assert state.corporations["GN"].percent_held_by("Ann") == 40
    play(g, ("Bob", Protect("CBQ")))
    assert price(g, "CBQ") == 60 and state.market.cell("CBQ").zone != "yellow"
    assert certificate_count(g.rules, state, "Ann") == limit + 1


def test_12_2_the_bank_broken_in_a_stock_round_leaves_the_whole_next_set() -> None:
    """12.2: "If the bank runs out of money during a stock round, you must still finish
    the following set of operating rounds" (differential seed 3501 game 65: ours played
    one operating round of three, the site the set)."""
    g = new_game()
    to_second_stock_round(g)
    # Phase 3 has two operating rounds a set; a bank with nothing left breaks at the
    # first sale it must pay for.
    g.state.phase_index = g.state.title.phase_index("3")
    g.state.bank_cash = 0
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    play(g, ("Ann", SellShares("CBQ", 1)), ("Ann", Pass()), ("Bob", DeclineProtection()))
    assert g.state.end_triggered == "bank"
    pass_round(g)
    assert g.round_name == "Operating Round 2.1"
    while g.round_name == "Operating Round 2.1":  # each company ends its turn at once
        g.apply(now(g), Done())
    assert g.round_name == "Operating Round 2.2"
    while not g.state.game_over:
        g.apply(now(g), Done())
    assert g.round_name == "Operating Round 2.2"
    assert g.state.log[-1] == "The game ends (bank)"
