"""18TN stock round rules (sections 2, 3.1-3.6), each played out on a real game."""

from __future__ import annotations

import pytest

from engine.actions import (
    Accept,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    Done,
    Par,
    Pass,
    SellPrivate,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game, Setup
from engine.state import IPO, POOL

SEATS = ("Ann", "Bob", "Cy", "Di")


def new_game(seats: tuple[str, ...] = SEATS, priority: str = "Ann", **kw: object) -> Game:
    return Game(Setup("18TN", seats, seed=7, priority=priority, **kw))  # type: ignore[arg-type]


def sell_out_privates(g: Game) -> None:
    """Ann TCC, Bob ETWCR, Cy MCR, Di OWR, Ann LNR (pars L&N at 90): all sold in turn."""
    g.apply("Ann", BuyPrivate("TCC"))
    g.apply("Bob", BuyPrivate("ETWCR"))
    g.apply("Cy", BuyPrivate("MCR"))
    g.apply("Di", BuyPrivate("OWR"))
    g.apply("Ann", BuyPrivate("LNR"))
    g.apply("Ann", Par("L&N", 90))


def test_2_setup_cash_and_seeded_priority() -> None:
    g = Game(Setup("18TN", SEATS, seed=3))
    assert all(p.cash == 450 for p in g.state.players.values())
    assert g.state.bank_cash == 8000 - 4 * 450
    again = Game(Setup("18TN", SEATS, seed=3))
    assert again.state.priority == g.state.priority  # the seed decides, replay agrees
    three = Game(Setup("18TN", SEATS[:3], seed=1))
    assert three.state.players["Ann"].cash == 600


def test_3_1_buy_the_cheapest_private_or_bid_on_another() -> None:
    g = new_game()
    with pytest.raises(GameError, match="only the cheapest unsold private, TCC"):
        g.apply("Ann", BuyPrivate("MCR"))
    g.apply("Ann", BuyPrivate("TCC"))
    assert g.state.privates["TCC"].owner == "Ann"
    assert g.state.players["Ann"].cash == 430
    assert g.turn().seat == "Bob"  # type: ignore[union-attr]


def test_3_1_b_bids_rise_by_5_and_set_money_aside() -> None:
    g = new_game()
    with pytest.raises(GameError, match=r"at least \$75"):
        g.apply("Ann", Bid(72, "MCR"))
    g.apply("Ann", Bid(75, "MCR"))
    g.apply("Bob", Bid(80, "MCR"))
    # Ann has 450, with 75 set aside: a bid of 380 on another private is too much.
    g.apply("Cy", Pass())
    g.apply("Di", Pass())
    with pytest.raises(GameError, match=r"\$375 not set aside"):
        g.apply("Ann", Bid(380, "OWR"))


def test_3_1_1_auction_among_bidders_after_purchase() -> None:
    g = new_game()
    g.apply("Ann", Bid(45, "ETWCR"))
    g.apply("Bob", Bid(50, "ETWCR"))
    g.apply("Cy", BuyPrivate("TCC"))  # ETWCR is next and has bids: auction
    turn = g.turn()
    assert turn is not None and turn.step == "auction of ETWCR"
    assert turn.seat == "Ann"  # the player after the high bidder (Bob) among bidders
    g.apply("Ann", Bid(55))
    g.apply("Bob", Pass())
    assert g.state.privates["ETWCR"].owner == "Ann"
    assert g.state.players["Ann"].cash == 450 - 55
    assert g.turn().seat == "Di"  # type: ignore[union-attr]  # after the purchaser, Cy


def test_3_1_1_single_bidder_takes_it_at_the_bid() -> None:
    g = new_game()
    g.apply("Ann", Bid(80, "MCR"))
    g.apply("Bob", BuyPrivate("TCC"))
    g.apply("Cy", BuyPrivate("ETWCR"))  # MCR comes up: Ann alone bid
    assert g.state.privates["MCR"].owner == "Ann"
    assert g.state.players["Ann"].cash == 370


def test_3_1_2_first_private_discount_and_forced_acceptance() -> None:
    g = new_game()
    for _ in range(4):  # everyone passes: SR 1 ends without a sale
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    # No corporation floated: the operating round is empty; stock round 2 follows.
    assert g.round_name == "Stock Round 2"
    assert "buy TCC (for $15)" in g.legal()
    for number, price in ((2, 15), (3, 10), (4, 5)):
        assert g.round_name == f"Stock Round {number}"
        assert f"buy TCC (for ${price})" in g.legal()
        for _ in range(4):
            g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    assert g.round_name == "Stock Round 5"
    seat = g.turn().seat  # type: ignore[union-attr]
    with pytest.raises(GameError, match="must accept TCC"):
        g.apply(seat, Pass())
    g.apply(seat, BuyPrivate("TCC"))
    assert g.state.privates["TCC"].owner == seat
    assert g.state.players[seat].cash == 450


def test_lnr_private_grants_the_ln_presidency_and_floats_it() -> None:
    g = new_game()
    sell_out_privates(g)
    ln = g.state.corporations["L&N"]
    assert ln.president == "Ann" and ln.certificates[0].owner == "Ann"
    assert ln.floated and ln.cash == 900
    assert g.state.privates["LNR"].closed
    with pytest.raises(GameError, match="already has a par value"):
        g.apply("Bob", Par("L&N", 70))


def test_3_2_no_sales_in_the_first_stock_round() -> None:
    g = new_game()
    sell_out_privates(g)
    g.apply("Bob", Par("SR", 65))
    g.apply("Cy", Pass())
    g.apply("Di", Pass())
    with pytest.raises(GameError, match="first stock round"):
        g.apply("Ann", SellShares("L&N", 1))


def _to_second_stock_round() -> Game:
    g = new_game()
    sell_out_privates(g)
    g.apply("Bob", Par("SR", 80))
    g.apply("Cy", BuyShares("SR"))
    g.apply("Di", BuyShares("SR"))
    g.apply("Ann", BuyShares("SR"))
    g.apply("Bob", BuyShares("SR"))  # Bob 30%, Cy 10, Di 10, Ann 10: 60% sold, SR floats
    assert g.state.corporations["SR"].floated
    while g.round_name.startswith("Stock Round 1"):
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    # Operating round 1: each company buys a 2-train (a route obliges it, 4.2.5.2).
    while g.round_name.startswith("Operating"):
        turn = g.turn()
        assert turn is not None
        g.apply(turn.seat, BuyTrain("2"))
        after = g.turn()
        if after is not None and after.entity == turn.entity:
            g.apply(turn.seat, Done())
    assert g.round_name == "Stock Round 2"
    return g


def test_3_2_a_sale_drops_price_one_row_per_share_and_fills_pool() -> None:
    g = _to_second_stock_round()
    seat = g.turn().seat  # type: ignore[union-attr]
    sr = g.state.corporations["SR"]
    before = g.state.market.positions["SR"]
    price = g.state.market.price("SR")
    held = sr.percent_held_by(seat)
    if held == 0 or sr.president == seat:
        g.apply(seat, Pass())
        seat = g.turn().seat  # type: ignore[union-attr]
    cash = g.state.players[seat].cash
    g.apply(seat, SellShares("SR", 1))
    assert g.state.players[seat].cash == cash + g_price(price)
    assert sr.pool_percent == 10
    assert g.state.market.positions["SR"] == (before[0] + 1, before[1])
    with pytest.raises(GameError, match="may not buy it back"):
        g.apply(seat, BuyShares("SR", source="pool"))


def g_price(price: int) -> int:
    return price


def test_3_2_one_purchase_before_or_after_all_sales() -> None:
    g = _to_second_stock_round()
    while g.turn().seat != "Cy":  # type: ignore[union-attr]
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    g.apply("Cy", SellShares("SR", 1))
    g.apply("Cy", BuyShares("L&N"))
    # Selling after a sale-then-buy is over: the turn has passed on.
    assert g.turn().seat == "Di"  # type: ignore[union-attr]


def test_3_2_a_3_president_certificate_sells_only_with_a_successor() -> None:
    g = _to_second_stock_round()
    while g.turn().seat != "Bob":  # type: ignore[union-attr]
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    sr = g.state.corporations["SR"]
    assert sr.percent_held_by("Bob") == 30
    # Nobody else holds 20%: Bob may sell 10% (keeping 20%) but not 20%.
    with pytest.raises(GameError, match="another player holds at least 20%"):
        g.apply("Bob", SellShares("SR", 2))
    g.apply("Bob", SellShares("SR", 1))
    sr = g.state.corporations["SR"]  # a refused action rebuilds the state: look again
    assert sr.percent_held_by("Bob") == 20 and sr.president == "Bob"


def test_3_2_b_private_sale_between_players_needs_acceptance() -> None:
    g = _to_second_stock_round()
    seat = g.turn().seat  # type: ignore[union-attr]
    owned = next(p.sym for p in g.state.privates.values() if p.owner == seat and not p.closed)
    other = g.state.next_seat(seat)
    g.apply(seat, SellPrivate(owned, other, 30))
    assert g.turn().seat == other  # type: ignore[union-attr]
    g.apply(other, Decline())
    assert g.state.privates[owned].owner == seat
    g.apply(seat, SellPrivate(owned, other, 30))
    cash = g.state.players[other].cash
    g.apply(other, Accept())
    assert g.state.privates[owned].owner == other
    assert g.state.players[other].cash == cash - 30


def test_3_3_a_sixty_percent_limit() -> None:
    g = new_game(seats=SEATS[:3])
    g.apply("Ann", BuyPrivate("TCC"))
    g.apply("Bob", BuyPrivate("ETWCR"))
    g.apply("Cy", BuyPrivate("MCR"))
    g.apply("Ann", BuyPrivate("OWR"))
    g.apply("Bob", BuyPrivate("LNR"))
    g.apply("Bob", Par("L&N", 65))
    g.apply("Cy", Par("SR", 65))
    for _ in range(4):
        g.apply("Ann", Pass())
        g.apply("Bob", Pass())
        g.apply("Cy", BuyShares("SR"))
        if g.state.corporations["SR"].percent_held_by("Cy") == 60:
            break
    assert g.state.corporations["SR"].percent_held_by("Cy") == 60
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    with pytest.raises(GameError, match="at most 60%"):
        g.apply("Cy", BuyShares("SR"))


def test_3_4_float_at_sixty_percent_with_ten_times_par() -> None:
    g = new_game()
    sell_out_privates(g)
    g.apply("Bob", Par("GMO", 70))
    for seat in ("Cy", "Di", "Ann"):
        g.apply(seat, BuyShares("GMO"))
    gmo = g.state.corporations["GMO"]
    assert gmo.ipo_percent == 50 and not gmo.floated
    g.apply("Bob", BuyShares("GMO"))
    assert gmo.ipo_percent == 40 and gmo.floated and gmo.cash == 700


def test_3_5_presidency_changes_on_purchase_and_certificates_swap() -> None:
    g = new_game()
    sell_out_privates(g)
    g.apply("Bob", Par("GMO", 65))  # Bob 20%
    g.apply("Cy", BuyShares("GMO"))
    g.apply("Di", Pass())
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    g.apply("Cy", BuyShares("GMO"))
    g.apply("Di", Pass())
    g.apply("Ann", Pass())
    g.apply("Bob", Pass())
    assert g.state.corporations["GMO"].president == "Bob"  # 20 v 20: no change
    g.apply("Cy", BuyShares("GMO"))
    gmo = g.state.corporations["GMO"]
    assert gmo.president == "Cy"
    assert gmo.certificates[0].owner == "Cy"
    assert gmo.percent_held_by("Cy") == 30 and gmo.percent_held_by("Bob") == 20


def test_3_6_priority_to_the_player_after_the_last_actor() -> None:
    g = new_game()
    sell_out_privates(g)  # Ann acted last (par of L&N)
    g.apply("Bob", BuyShares("L&N"))
    for seat in ("Cy", "Di", "Ann", "Bob"):
        g.apply(seat, Pass())
    assert g.state.priority == "Cy"


def test_3_6_sold_out_corporation_moves_up() -> None:
    g = new_game(seats=SEATS[:3])
    g.apply("Ann", BuyPrivate("TCC"))
    g.apply("Bob", BuyPrivate("ETWCR"))
    g.apply("Cy", BuyPrivate("MCR"))
    g.apply("Ann", BuyPrivate("OWR"))
    g.apply("Bob", BuyPrivate("LNR"))
    g.apply("Bob", Par("L&N", 65))
    ln = g.state.corporations["L&N"]
    while ln.ipo_percent:
        turn = g.turn()
        assert turn is not None
        try:
            g.apply(turn.seat, BuyShares("L&N"))
        except GameError:
            g.apply(turn.seat, Pass())
    row, col = g.state.market.positions["L&N"]
    while g.round_name.startswith("Stock"):
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]
    assert g.state.market.positions["L&N"] == (row - 1, col)
    assert ln.certificates_of(IPO) == [] and ln.certificates_of(POOL) == []


# --- 1.3-1.5, 3.2(a)(4), 3.3, 3.5(a): positions reached partly by hand ------------------


def _regular_round() -> Game:
    """Stock round 2 of a four-player game (SR floated, L&N floated, IC unstarted)."""
    return _to_second_stock_round()


def _give(g: Game, sym: str, seat: str, count: int) -> None:
    """Hand a player plain certificates from the IPO (only to reach a position)."""
    corp = g.state.corporations[sym]
    for cert in [c for c in corp.certificates if c.owner == IPO and not c.president][:count]:
        cert.owner = seat


def _turn_of(g: Game, seat: str) -> None:
    while g.turn().seat != seat:  # type: ignore[union-attr]
        g.apply(g.turn().seat, Pass())  # type: ignore[union-attr]


def test_1_3_2_illinois_central_has_a_30_percent_president_certificate() -> None:
    g = new_game()
    sell_out_privates(g)
    cash = g.state.players["Bob"].cash
    g.apply("Bob", Par("IC", 65))
    ic = g.state.corporations["IC"]
    assert ic.percent_held_by("Bob") == 30 and ic.president == "Bob"
    assert g.state.players["Bob"].cash == cash - 195
    assert len(ic.certificates) == 8


def test_1_4_initial_offering_at_par_open_market_at_market_value() -> None:
    g = _regular_round()
    sr = g.state.corporations["SR"]
    assert sr.par_price == 80 and g.state.market.price("SR") != 80
    _turn_of(g, "Cy")
    g.apply("Cy", SellShares("SR", 1))
    g.apply("Cy", Pass())
    seat = g.turn().seat  # type: ignore[union-attr]
    cash = g.state.players[seat].cash
    g.apply(seat, BuyShares("SR", source="ipo"))
    assert g.state.players[seat].cash == cash - 80  # par
    g.apply(seat, Pass())
    seat = g.turn().seat  # type: ignore[union-attr]
    market = g.state.market.price("SR")
    cash = g.state.players[seat].cash
    g.apply(seat, BuyShares("SR", source="pool"))
    assert g.state.players[seat].cash == cash - market


def test_3_2_a_4_president_sells_10_of_his_only_20_percent() -> None:
    g = _regular_round()
    _turn_of(g, "Di")
    ln = g.state.corporations["L&N"]
    _give(g, "L&N", "Di", 2)  # Di holds 20% of the L&N; Ann holds the 20% certificate
    assert ln.percent_held_by("Ann") == 20
    _turn_of(g, "Ann")
    g.apply("Ann", SellShares("L&N", 1))
    ln = g.state.corporations["L&N"]
    assert ln.president == "Di" and ln.certificates[0].owner == "Di"
    assert ln.percent_held_by("Ann") == 10 and ln.pool_percent == 10


def test_3_5_a_a_tie_after_the_presidents_sale_goes_clockwise_from_him() -> None:
    g = _regular_round()
    _give(g, "L&N", "Bob", 2)
    _give(g, "L&N", "Di", 2)  # Bob and Di 20% each; Ann (president, 20%) sells 10%
    _turn_of(g, "Ann")
    g.apply("Ann", SellShares("L&N", 1))
    assert g.state.corporations["L&N"].president == "Bob"  # Bob sits left of Ann


def test_3_3_a_green_zone_shares_beyond_sixty_percent() -> None:
    g = _regular_round()
    _turn_of(g, "Bob")
    sr = g.state.corporations["SR"]
    _give(g, "SR", "Bob", 3)  # Bob: 30% + 30% = 60%
    assert sr.percent_held_by("Bob") == 60
    g.state.market.place("SR", (4, 0))  # $40, green zone
    g.apply("Bob", BuyShares("SR"))
    assert g.state.corporations["SR"].percent_held_by("Bob") == 70


def test_3_3_b_at_the_certificate_limit_only_yellow_or_green_zone_buys() -> None:
    g = _regular_round()
    _turn_of(g, "Cy")
    _give(g, "L&N", "Cy", 7)
    _give(g, "SR", "Cy", 3)  # with MCR and the SR share bought: 12 certificates
    from engine.shares import certificate_count

    rules = g.rules
    have = certificate_count(rules, g.state, "Cy")
    assert have == rules.certificate_limit(g.state) == 12
    with pytest.raises(GameError, match="holds 12 certificates; the limit is 12"):
        g.apply("Cy", Par("GMO", 65))
    g.state.market.place("SR", (3, 0))  # $45, yellow zone: SR no longer counts
    assert certificate_count(rules, g.state, "Cy") == have - 4
    g.apply("Cy", Par("GMO", 65))


def test_3_3_b_over_the_limit_the_player_must_sell_before_anything_else() -> None:
    g = _regular_round()
    _turn_of(g, "Cy")
    _give(g, "L&N", "Cy", 8)
    _give(g, "SR", "Cy", 3)  # 13: one over the limit of 12 (a presidency swap can do this)
    with pytest.raises(GameError, match="over the limit of 12: sell first"):
        g.apply("Cy", Pass())
    with pytest.raises(GameError, match="over the certificate limit and must sell first"):
        g.apply("Cy", Par("GMO", 65))
    g.apply("Cy", SellShares("L&N", 1))
    g.apply("Cy", Pass())
    assert g.turn().seat == "Di"  # type: ignore[union-attr]


def test_3_1_b_raising_ones_own_bid_is_listed_when_only_that_bid_ties_the_money() -> None:
    """The money a bid sets aside is free for raising that same bid: a player whose
    cash is all but tied up in his bid on a private may still raise it, and `legal`
    lists the raise (found by the 1850 differential check: the list said only `pass`)."""
    g = new_game()
    g.apply("Ann", Bid(420, "MCR"))  # 30 of her 450 left untied
    g.apply("Bob", Bid(425, "MCR"))
    g.apply("Cy", Pass())
    g.apply("Di", Pass())
    assert "bid 430 on MCR" in g.legal()
    assert not any(option.endswith("on OWR") for option in g.legal())  # 30 is too little
    g.apply("Ann", Bid(430, "MCR"))
    assert g.round.s.bids["MCR"]["Ann"] == 430  # type: ignore[attr-defined]
