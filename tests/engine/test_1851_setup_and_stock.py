"""1851 set-up, stock rounds and floating (SETTING UP, STOCK ROUNDS, SELLING STOCK,
BUYING STOCK, ENDING THE STOCK ROUND), each rule played out on a real game.

See scenarios_1851 for the deals the seeds give.
"""

from __future__ import annotations

import pytest
from scenarios_1851 import (
    SEATS,
    SEATS3,
    SEATS5,
    SQ_70_PAR,
    SQ_90_PAR,
    SQ_100_PAR,
    cash,
    certificates,
    finish_turn,
    limit_position,
    ln_priced,
    ln_shareholders_opening,
    new_game,
    now,
    pass_stock_round,
    pct,
    play,
    price,
    square,
    two_company_opening,
)

from engine.actions import (
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Done,
    Par,
    Pass,
    SellPrivate,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game, Setup
from engine.state import IPO, TREASURY

PRIVATE_VALUES = {"L&O": 200, "M&C": 50, "ET&WNC": 80, "O&W": 210, "CNO&TP": 240}


# --- SETTING UP ---------------------------------------------------------------------------


def test_three_to_five_players_only() -> None:
    for seats in (("Ann", "Bob"), (*SEATS5, "Fay")):
        with pytest.raises(GameError, match=r"3|5|players"):
            Game(Setup("1851", seats, seed=0))
    for seats in (SEATS3, SEATS, SEATS5):
        assert len(Game(Setup("1851", seats, seed=0)).state.players) == len(seats)


@pytest.mark.parametrize(("seats", "privates"), [
    (SEATS3, {"L&O", "M&C", "ET&WNC"}),
    (SEATS, {"L&O", "M&C", "ET&WNC", "O&W"}),
    (SEATS5, {"L&O", "M&C", "ET&WNC", "O&W", "CNO&TP"}),
])
def test_privates_in_play_equal_the_number_of_players(seats: tuple[str, ...],
                                                      privates: set[str]) -> None:
    g = new_game(seats)
    assert set(g.state.privates) == privates
    owners = sorted(p.owner or "" for p in g.state.privates.values())
    assert owners == sorted(seats)  # one each, dealt to every player


@pytest.mark.parametrize(("seats", "start"), [(SEATS3, 500), (SEATS, 430), (SEATS5, 400)])
def test_starting_capital_and_each_dealt_private_paid_for(seats: tuple[str, ...],
                                                         start: int) -> None:
    g = new_game(seats, seed=3)
    for private in g.state.privates.values():
        assert private.owner is not None
        assert cash(g, private.owner) == start - PRIVATE_VALUES[private.sym]
    paid = sum(PRIVATE_VALUES[p] for p in g.state.privates)
    assert g.state.bank_cash == 8040 - start * len(seats) + paid
    assert g.state.total_cash() == 8040


def test_privates_are_dealt_at_random_by_the_seed() -> None:
    deals = set()
    for seed in range(12):
        g = new_game(SEATS, seed)
        deal = tuple(g.state.privates[p].owner for p in ("L&O", "M&C", "ET&WNC", "O&W"))
        again = new_game(SEATS, seed)
        assert deal == tuple(again.state.privates[p].owner
                             for p in ("L&O", "M&C", "ET&WNC", "O&W"))
        deals.add(deal)
    assert len(deals) > 3  # the seed decides, and different seeds deal differently


def test_ow_and_cnotp_holders_get_a_10_percent_ln_share_and_lo_holder_the_presidency() -> None:
    g = new_game(SEATS5, seed=0)
    owners = {sym: p.owner for sym, p in g.state.privates.items()}
    ln = g.state.corporations["L&N"]
    lo, ow, cn = owners["L&O"], owners["O&W"], owners["CNO&TP"]
    assert ln.president == lo
    assert ln.certificates[0].owner == lo and ln.certificates[0].percent == 20
    assert [c.percent for c in ln.certificates_of(ow)] == [10]
    assert [c.percent for c in ln.certificates_of(cn)] == [10]
    assert ln.percent_held_by(IPO) == 60
    assert not ln.floated and ln.cash == 0
    for seat in SEATS5:  # the shares are free
        private = next(p for p in g.state.privates.values() if p.owner == seat)
        assert cash(g, seat) == 400 - PRIVATE_VALUES[private.sym]
    three = new_game(SEATS3, seed=0)  # without O&W and CNO&TP only the president holds L&N
    ln3 = three.state.corporations["L&N"]
    assert ln3.percent_held_by(IPO) == 80


def test_lo_holder_first_sets_the_ln_price_on_a_yellow_square() -> None:
    g = new_game()
    turn = g.turn()
    assert turn is not None and turn.seat == "Bob"  # Bob holds the L&O
    with pytest.raises(GameError):
        g.apply("Cy", BuyShares("GM&O"))  # nothing happens before the L&N's price is set
    for refused in (65, 110, 80, 60):
        with pytest.raises(GameError, match="par values"):
            g.apply("Bob", Par("L&N", refused))
    with pytest.raises(GameError):
        g.apply("Bob", Par("IC", 90))
    with pytest.raises(GameError):
        g.apply("Bob", Pass())  # the price must be set
    g.apply("Bob", Par("L&N", 90))
    assert square(g, "L&N") == SQ_90_PAR and price(g, "L&N") == 90
    assert cash(g, "Bob") == 230  # the president's certificate cost nothing


@pytest.mark.parametrize("value", [70, 75, 82, 90, 100])
def test_every_yellow_square_may_be_the_ln_price(value: int) -> None:
    g = ln_priced(value)
    assert price(g, "L&N") == value
    cell = g.state.market.cell("L&N")
    assert cell.zone == "yellow" and cell.can_par


@pytest.mark.parametrize(("seats", "seed"), [(SEATS3, 0), (SEATS, 0), (SEATS, 2), (SEATS5, 0)])
def test_priority_deal_goes_to_the_player_left_of_the_ln_president(seats: tuple[str, ...],
                                                                  seed: int) -> None:
    g = new_game(seats, seed)
    lo = g.state.privates["L&O"].owner
    assert lo is not None
    left = seats[(seats.index(lo) + 1) % len(seats)]
    assert g.state.priority == left
    g.apply(lo, Par("L&N", 82))
    turn = g.turn()
    assert turn is not None and turn.seat == left


# --- STOCK ROUNDS: the shape of a turn --------------------------------------------------


def test_a_turn_is_sales_then_one_purchase() -> None:
    g = ln_shareholders_opening()
    # Bob sells two L&N shares and then buys one certificate: all in one turn.
    g.apply("Bob", SellShares("L&N", 1))
    g.apply("Bob", SellShares("L&N", 1))
    assert now(g) == "Bob"
    g.apply("Bob", Par("GM&O", 70))
    turn = g.turn()
    assert turn is not None and turn.seat == "Cy"  # one purchase ends the turn
    with pytest.raises(GameError):
        g.apply("Cy", BuyShares("GM&O", 2))  # only one certificate per turn


def test_selling_after_buying_is_refused() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", Pass())
    g.apply("Cy", Pass())
    g.apply("Di", BuyShares("L&N", source="treasury"))
    before = (pct(g, "L&N", "Di"), cash(g, "Di"), price(g, "L&N"))
    with pytest.raises(GameError):
        g.apply("Di", SellShares("L&N", 1))
    assert (pct(g, "L&N", "Di"), cash(g, "Di"), price(g, "L&N")) == before
    assert g.state.corporations["L&N"].pool_percent == 0
    assert now(g) == "Ann"  # nothing may follow the purchase: the turn is over


def test_stock_round_ends_when_all_pass_and_priority_goes_left_of_the_last_actor() -> None:
    g = ln_priced(90)
    play(g, ("Cy", Pass()), ("Di", BuyShares("L&N")), ("Ann", Pass()), ("Bob", Pass()),
         ("Cy", Pass()))
    assert g.round_name == "Stock Round 1"  # Di has not passed since buying
    g.apply("Di", Pass())
    assert g.round_name != "Stock Round 1"
    assert g.state.priority == "Ann"  # left of Di, the last to buy


def test_without_transactions_the_priority_deal_does_not_move() -> None:
    g = ln_priced(90)  # setting the L&N's price is part of the set-up, not a purchase
    for seat in ("Cy", "Di", "Ann", "Bob"):
        g.apply(seat, Pass())
    assert g.round_name == "Stock Round 2"
    assert g.state.priority == "Cy"
    assert now(g) == "Cy"


def test_no_ipo_share_before_the_presidents_certificate() -> None:
    g = ln_priced(90)
    with pytest.raises(GameError):
        g.apply("Cy", BuyShares("GM&O"))  # the top of the pile is the president's
    assert g.state.corporations["GM&O"].ipo_percent == 100


# --- SELLING STOCK ------------------------------------------------------------------------


def test_selling_stock_not_before_the_corporation_has_operated() -> None:
    g = ln_priced(90)
    g.apply("Cy", Pass())
    with pytest.raises(GameError, match="operat"):
        g.apply("Di", SellShares("L&N", 1))  # the O&W's free share, L&N not floated
    play(g, ("Di", BuyShares("L&N")), ("Ann", BuyShares("L&N")))
    assert g.state.corporations["L&N"].floated
    g.apply("Bob", Pass())
    g.apply("Cy", Pass())
    with pytest.raises(GameError, match="operat"):
        g.apply("Di", SellShares("L&N", 1))  # floated, but it has not operated yet
    assert pct(g, "L&N", "Di") == 20
    pass_stock_round(g)
    g.apply("Bob", BuyTrain("2"))
    if now(g) == "L&N":
        g.apply("Bob", Done())
    assert g.round_name == "Stock Round 2"
    # Bob has priority (left of Ann, the last buyer); then Cy; Di may now sell.
    play(g, ("Bob", Pass()), ("Cy", Pass()))
    g.apply("Di", SellShares("L&N", 1))
    assert pct(g, "L&N", "Di") == 10 and g.state.corporations["L&N"].pool_percent == 10


def test_selling_a_corporation_floated_later_waits_for_its_own_first_turn() -> None:
    g = ln_shareholders_opening()
    # Stock Round 2: Cy starts the GM&O and Ann's purchase floats it; L&N has operated.
    play(g, ("Bob", Pass()), ("Cy", Par("GM&O", 70)), ("Di", Pass()),
         ("Ann", BuyShares("GM&O")), ("Bob", Pass()), ("Cy", BuyShares("GM&O")),
         ("Di", Pass()), ("Ann", Pass()), ("Bob", Pass()), ("Cy", BuyShares("GM&O")))
    assert g.state.corporations["GM&O"].floated
    g.apply("Di", Pass())
    with pytest.raises(GameError, match="operat"):
        g.apply("Ann", SellShares("GM&O", 1))
    g.apply("Ann", SellShares("L&N", 1))  # the L&N has operated: its shares may go
    assert g.state.corporations["L&N"].pool_percent == 10


def test_private_companies_may_never_be_sold() -> None:
    g = ln_priced(90)
    with pytest.raises(GameError, match="never be sold"):
        g.apply("Cy", SellPrivate("M&C", "Ann", 50))
    assert g.state.privates["M&C"].owner == "Cy"
    g = two_company_opening()
    # Nor to a corporation, in an operating round.
    with pytest.raises(GameError):
        g.apply("Cy", BuyPrivate("M&C", "Cy", 50))
    with pytest.raises(GameError):
        g.apply("Cy", BuyPrivate("ET&WNC", "Ann", 80))
    assert g.state.privates["M&C"].owner == "Cy"
    assert g.state.privates["ET&WNC"].owner == "Ann"
    assert g.state.corporations["IC"].cash == 400


def test_price_drops_one_row_per_share_and_the_seller_gets_the_pre_sale_price() -> None:
    g = ln_shareholders_opening()
    assert price(g, "L&N") == 90 and square(g, "L&N") == (2, 3)
    bank = g.state.bank_cash
    g.apply("Bob", SellShares("L&N", 2))
    assert square(g, "L&N") == (4, 3) and price(g, "L&N") == 75  # two rows down
    assert cash(g, "Bob") == 135 + 2 * 90  # both shares at the price before the sale
    assert g.state.bank_cash == bank - 180


def test_the_ledge_a_price_at_the_bottom_of_its_column_drops_no_further() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", SellShares("L&N", 2))  # 90 -> 75 on (4,3); Di becomes president
    play(g, ("Bob", Done()), ("Cy", Pass()), ("Di", Pass()))
    # Ann sells both her shares: 75 (4,3) -> 70 (5,3) -> 65 (6,3), the bottom of the column.
    g.apply("Ann", SellShares("L&N", 2))
    assert square(g, "L&N") == (6, 3) and price(g, "L&N") == 65
    assert cash(g, "Ann") == 175 + 2 * 75
    g.apply("Ann", Done())
    # Bob sells his last share on the ledge: the token does not move.
    g.apply("Bob", SellShares("L&N", 1))
    assert square(g, "L&N") == (6, 3) and price(g, "L&N") == 65
    assert cash(g, "Bob") == 135 + 180 + 65


def test_a_sale_that_would_drop_past_the_bottom_stops_on_the_ledge() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", SellShares("L&N", 1))  # 90 (2,3) -> 82 (3,3)
    play(g, ("Bob", Done()), ("Cy", Pass()), ("Di", Pass()))
    g.apply("Ann", SellShares("L&N", 2))  # 82 (3,3) -> 70 (5,3)
    assert square(g, "L&N") == (5, 3)
    play(g, ("Ann", Done()), ("Bob", Pass()), ("Cy", Pass()))
    # Di sells two from (5,3): there is room for one row only; both are paid 70.
    g.apply("Di", SellShares("L&N", 2))
    assert square(g, "L&N") == (6, 3) and price(g, "L&N") == 65
    assert cash(g, "Di") == 150 + 2 * 70


def test_pool_may_never_hold_more_than_half_of_a_corporation() -> None:
    g = ln_shareholders_opening()
    play(g, ("Bob", SellShares("L&N", 1)), ("Bob", Done()),
         ("Cy", BuyShares("L&N", source="treasury")),
         ("Di", SellShares("L&N", 2)), ("Di", Done()),
         ("Ann", SellShares("L&N", 2)), ("Ann", Done()), ("Bob", Pass()))
    assert g.state.corporations["L&N"].pool_percent == 50
    with pytest.raises(GameError, match="50%"):
        g.apply("Cy", SellShares("L&N", 1))
    assert g.state.corporations["L&N"].pool_percent == 50
    assert pct(g, "L&N", "Cy") == 10


def test_the_presidents_certificate_never_goes_to_the_pool() -> None:
    g = ln_priced(90)
    play(g, ("Cy", Pass()), ("Di", BuyShares("L&N")), ("Ann", BuyShares("L&N")))
    pass_stock_round(g)
    finish_turn(g, "L&N")
    assert g.round_name == "Stock Round 2"  # Bob has priority (left of Ann)
    # Di drops to 10%: nobody but Bob (the president's 20% certificate) holds 20%.
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Di", SellShares("L&N", 1)), ("Di", Done()),
         ("Ann", Pass()))
    with pytest.raises(GameError, match="president"):
        g.apply("Bob", SellShares("L&N", 2))
    with pytest.raises(GameError):
        g.apply("Bob", SellShares("L&N", 1))
    ln = g.state.corporations["L&N"]
    assert ln.certificates[0].owner == "Bob" and ln.president == "Bob"
    assert ln.pool_percent == 10





def test_presidency_passes_on_a_sale_ties_going_to_the_outgoing_presidents_left() -> None:
    g = ln_shareholders_opening()
    # Bob 30% (president), Ann 20%, Di 20%. Bob sells 20%: Ann and Di tie; clockwise
    # from Bob the order is Cy, Di, Ann: Di becomes president.
    g.apply("Bob", SellShares("L&N", 2))
    ln = g.state.corporations["L&N"]
    assert ln.president == "Di"
    assert ln.certificates[0].owner == "Di"
    # The exchange comes first: Bob takes two of Di's 10% shares, then sells two shares.
    assert [c.percent for c in ln.certificates_of("Di")] == [20]
    assert [c.percent for c in ln.certificates_of("Bob")] == [10]
    assert ln.pool_percent == 20 and pct(g, "L&N", "Ann") == 20


def test_a_sale_down_to_a_tie_keeps_the_presidency() -> None:
    g = ln_shareholders_opening()  # Bob 30% (president), Ann 20%, Di 20%
    g.apply("Bob", SellShares("L&N", 1))
    ln = g.state.corporations["L&N"]
    assert ln.president == "Bob" and ln.certificates[0].owner == "Bob"
    assert pct(g, "L&N", "Bob") == 20


def test_presidency_passes_on_a_purchase_that_exceeds_the_presidents_holding() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", SellShares("L&N", 2))  # Di president (20%), Bob 10%, Ann 20%
    play(g, ("Bob", Done()), ("Cy", Pass()), ("Di", Pass()))
    g.apply("Ann", BuyShares("L&N", source="treasury"))
    ln = g.state.corporations["L&N"]
    assert ln.president == "Ann"
    assert ln.certificates[0].owner == "Ann"
    assert sorted(c.percent for c in ln.certificates_of("Ann")) == [10, 20]
    assert sorted(c.percent for c in ln.certificates_of("Di")) == [10, 10]


def test_equal_holding_does_not_take_the_presidency() -> None:
    g = ln_shareholders_opening()
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Di", BuyShares("L&N", source="treasury")))
    ln = g.state.corporations["L&N"]
    assert pct(g, "L&N", "Di") == 30 and ln.president == "Bob"


def test_no_buying_a_corporation_sold_earlier_in_the_same_stock_round() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", SellShares("L&N", 1))
    with pytest.raises(GameError, match="sold"):
        g.apply("Bob", BuyShares("L&N", source="pool"))
    with pytest.raises(GameError, match="sold"):
        g.apply("Bob", BuyShares("L&N", source="treasury"))
    play(g, ("Bob", Done()), ("Cy", Pass()), ("Di", Pass()), ("Ann", Pass()))
    with pytest.raises(GameError, match="sold"):
        g.apply("Bob", BuyShares("L&N", source="pool"))  # still the same stock round
    assert pct(g, "L&N", "Bob") == 20


def test_buying_from_the_ipo_pool_and_treasury_and_who_is_paid() -> None:
    g = ln_shareholders_opening()
    g.apply("Bob", SellShares("L&N", 1))  # the pool now holds 10%; price 82
    g.apply("Bob", Done())
    ln = g.state.corporations["L&N"]
    corp_cash, bank = ln.cash, g.state.bank_cash
    # From the treasury: the current price, paid to the corporation.
    g.apply("Cy", BuyShares("L&N", source="treasury"))
    assert cash(g, "Cy") == 390 - 82
    assert g.state.corporations["L&N"].cash == corp_cash + 82
    assert g.state.bank_cash == bank
    assert price(g, "L&N") == 82  # buying never moves the price
    # From the pool: the current price, paid to the bank.
    g.apply("Di", BuyShares("L&N", source="pool"))
    assert cash(g, "Di") == 150 - 82
    assert g.state.bank_cash == bank + 82
    assert g.state.corporations["L&N"].cash == corp_cash + 82
    assert g.state.corporations["L&N"].pool_percent == 0
    # From the IPO: a new president's certificate costs twice the chosen price.
    bank = g.state.bank_cash
    g.apply("Ann", Par("SR", 75))
    assert cash(g, "Ann") == 175 - 150 and g.state.bank_cash == bank + 150
    assert g.state.corporations["SR"].certificates[0].owner == "Ann"


def test_president_of_the_corporation_cannot_block_a_treasury_purchase() -> None:
    g = ln_shareholders_opening()
    play(g, ("Bob", Pass()))
    g.apply("Cy", BuyShares("L&N", source="treasury"))
    assert pct(g, "L&N", "Cy") == 10
    assert g.state.corporations["L&N"].percent_held_by(TREASURY) == 20


def test_a_new_presidents_certificate_on_an_occupied_square_goes_under_the_pile() -> None:
    g = ln_priced(90)  # L&N on 90 (3,4)
    g.apply("Cy", Par("IC", 90))
    assert g.state.market.stacks[SQ_90_PAR] == ["L&N", "IC"]
    assert g.state.market.order_key("L&N") < g.state.market.order_key("IC")


def test_a_token_moving_onto_an_occupied_square_goes_under_the_pile() -> None:
    g = ln_priced(90)  # L&N on 90 (3,4)
    play(g, ("Cy", Par("IC", 90)), ("Di", BuyShares("IC")), ("Ann", BuyShares("IC")))
    assert g.state.market.stacks[SQ_90_PAR] == ["L&N", "IC"]
    g.apply("Bob", BuyShares("IC"))  # the IC floats first: 90 -> 100
    assert g.state.market.stacks[SQ_100_PAR] == ["IC"]
    play(g, ("Cy", BuyShares("L&N")), ("Di", BuyShares("L&N")))  # the L&N floats: under
    assert g.state.market.stacks[SQ_100_PAR] == ["IC", "L&N"]
    pass_stock_round(g)
    assert now(g) == "IC"  # same price, same square: the token on top operates first


def test_a_player_may_not_own_more_than_60_percent() -> None:
    g = new_game(SEATS3, seed=0)  # Ann L&O ($300), the L&N's president; Bob has priority
    g.apply("Ann", Par("L&N", 70))
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("L&N")), ("Bob", Pass()),
         ("Cy", Pass()), ("Ann", BuyShares("L&N")), ("Bob", Pass()), ("Cy", Pass()),
         ("Ann", BuyShares("L&N")))
    assert g.state.corporations["L&N"].floated and pct(g, "L&N", "Ann") == 50
    pass_stock_round(g)
    finish_turn(g, "L&N")  # no train: withholds, 75 -> 70; it buys a 2-train
    # Stock Round 2 (Bob has priority): Ann buys her sixth share at 70.
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("L&N", source="treasury")))
    assert pct(g, "L&N", "Ann") == 60
    # The L&N withholds every turn until its price is down to 40 (bottom left): Ann
    # then has the cash for another share, but 70% is over the limit.
    while price(g, "L&N") > 40:
        pass_stock_round(g)
        finish_turn(g, "L&N", dividend="withhold")
    assert g.round_name.startswith("Stock Round")
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    assert cash(g, "Ann") >= 40
    with pytest.raises(GameError, match="60%"):
        g.apply("Ann", BuyShares("L&N", source="treasury"))
    assert pct(g, "L&N", "Ann") == 60


# --- floating -----------------------------------------------------------------------------


def test_the_fourth_ipo_certificate_floats_the_corporation() -> None:
    g = ln_priced(90)
    play(g, ("Cy", Par("TC", 82)), ("Di", Pass()), ("Ann", BuyShares("TC")),
         ("Bob", Pass()), ("Cy", BuyShares("TC")))
    tc = g.state.corporations["TC"]
    assert not tc.floated and tc.cash == 0  # three certificates out: 40%
    assert "F12" not in g.state.board.tokens
    bank = g.state.bank_cash
    g.apply("Di", BuyShares("TC"))  # the fourth: 50% sold
    tc = g.state.corporations["TC"]
    assert tc.floated
    assert tc.cash == 5 * 82 - 100  # five times the price before it moves, less $100
    assert g.state.bank_cash == bank + 82 - (5 * 82 - 100)
    treasury = tc.certificates_of(TREASURY)
    assert len(treasury) == 5 and all(c.percent == 10 for c in treasury)
    assert tc.ipo_percent == 0
    assert g.state.board.tokens["F12"] == {0: ["TC"]}  # home station at once
    assert square(g, "TC") == (2, 3) and price(g, "TC") == 90  # one square up
    assert tc.president == "Cy"


def test_the_ln_floats_with_the_free_shares_counted() -> None:
    # Four players: president + O&W share + two purchases.
    g = ln_priced(100)
    play(g, ("Cy", BuyShares("L&N")))
    assert not g.state.corporations["L&N"].floated
    g.apply("Di", BuyShares("L&N"))
    ln = g.state.corporations["L&N"]
    assert ln.floated and ln.cash == 5 * 100 - 100
    assert square(g, "L&N") == (1, 4) and price(g, "L&N") == 110
    assert g.state.board.tokens["B16"] == {0: ["L&N"]}  # Louisville's north-east city
    # Five players: president + O&W + CNO&TP + one purchase.
    five = new_game(SEATS5, seed=0)  # Cy L&O, Di CNO&TP, Ed O&W; priority Di
    five.apply("Cy", Par("L&N", 70))
    five.apply("Di", BuyShares("L&N"))
    ln5 = five.state.corporations["L&N"]
    assert ln5.floated and ln5.cash == 5 * 70 - 100
    assert square(five, "L&N") == (3, 2) and price(five, "L&N") == 75


def test_the_home_station_reserved_and_placed_when_floating() -> None:
    g = two_company_opening()
    assert g.state.board.tokens["A5"] == {0: ["IC"]}
    assert g.state.board.tokens["B16"] == {0: ["L&N"]}
    assert g.state.corporations["IC"].token_costs == [0, 0, 0]  # three stations left


# --- ENDING THE STOCK ROUND ---------------------------------------------------------------


def test_end_of_stock_round_a_corporation_wholly_owned_by_players_moves_up() -> None:
    g = new_game(SEATS3, seed=0)
    g.apply("Ann", Par("L&N", 70))
    play(g, ("Bob", Pass()), ("Cy", Par("GM&O", 70)), ("Ann", Pass()),
         ("Bob", BuyShares("GM&O")), ("Cy", BuyShares("GM&O")), ("Ann", Pass()),
         ("Bob", BuyShares("GM&O")))
    assert g.state.corporations["GM&O"].floated and square(g, "GM&O") == (3, 2)  # 75
    for seat in ("Cy", "Ann", "Bob", "Cy", "Ann"):
        g.apply(seat, BuyShares("GM&O", source="treasury"))
    gmo = g.state.corporations["GM&O"]
    assert sum(gmo.percent_held_by(s) for s in SEATS3) == 100
    assert square(g, "GM&O") == (3, 2)
    assert square(g, "L&N") == SQ_70_PAR
    pass_stock_round(g)
    assert square(g, "GM&O") == (2, 2) and price(g, "GM&O") == 82  # up one
    assert square(g, "L&N") == SQ_70_PAR  # IPO shares left: no move


def test_end_of_stock_round_no_move_with_shares_in_the_pool_or_treasury() -> None:
    g = ln_shareholders_opening()
    before = square(g, "L&N")
    pass_stock_round(g)
    assert square(g, "L&N") == before


def test_share_purchases_cost_the_current_price_not_the_starting_price() -> None:
    g = ln_shareholders_opening()  # started at 90, floated to 100, withheld to 90
    g.apply("Bob", SellShares("L&N", 1))  # 90 -> 82
    g.apply("Bob", Done())
    g.apply("Cy", BuyShares("L&N", source="treasury"))
    assert cash(g, "Cy") == 390 - 82


def test_bank_receives_for_ipo_purchases_before_floating() -> None:
    g = ln_priced(90)
    bank = g.state.bank_cash
    g.apply("Cy", BuyShares("L&N"))
    assert g.state.bank_cash == bank + 90
    assert g.state.corporations["L&N"].cash == 0


# --- the certificate limit ----------------------------------------------------------------


def test_a_presidency_swap_may_put_the_old_president_over_the_limit_and_he_must_sell() -> None:
    g, (buyer, old, sym, source) = limit_position("swap")
    limit = g.rules.certificate_limit(g.state)
    assert limit == 12  # four players
    assert certificates(g, old) == limit
    g.apply(buyer, BuyShares(sym, source=source))
    corp = g.state.corporations[sym]
    assert corp.president == buyer and corp.certificates[0].owner == buyer
    # The old president gave up one certificate (20%) for two 10% shares.
    assert certificates(g, old) == limit + 1
    while now(g) != old:
        g.apply(now(g), Pass())
    with pytest.raises(GameError, match="limit"):
        g.apply(old, Pass())  # he must sell first
    for other in g.state.corporations:
        with pytest.raises(GameError):
            g.apply(old, BuyShares(other, source="treasury"))
    sold = False
    for other in list(g.state.corporations):
        if pct(g, other, old):
            try:
                g.apply(old, SellShares(other, 1))
            except GameError:
                continue
            sold = True
            break
    assert sold
    assert certificates(g, old) == limit
    g.apply(old, Done())


def test_at_the_limit_no_purchase_even_one_that_would_swap_back_to_the_limit() -> None:
    g, (seat, president, sym, source) = limit_position("limit")
    assert certificates(g, seat) == g.rules.certificate_limit(g.state)
    before = (pct(g, sym, seat), cash(g, seat))
    with pytest.raises(GameError, match=r"limit|certificates"):
        g.apply(seat, BuyShares(sym, source=source))
    assert g.state.corporations[sym].president == president
    assert (pct(g, sym, seat), cash(g, seat)) == before
