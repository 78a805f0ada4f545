"""1861 set-up (3) and stock rounds (9): the opening auctions of the privates (9.4), the
minor company auction (9.2), selling (9.1) and the end of the round (9.5).

Expected figures are the rulebook's arithmetic on the positions built by
`scenarios_1861` (4 players: R315 each, 3)."""

from __future__ import annotations

import pytest
from scenarios_1861 import (
    first_operating_round,
    new_game,
    now,
    pass_round,
    privates_at_minimum,
    record_game,
    sell_minor,
    win_lot,
)

from engine.actions import Bid, BuyShares, Par, Pass, SellShares, StartAuction
from engine.errors import GameError
from engine.game import Game
from engine.rounds.auction_stock import AuctionStockRound


def test_3_starting_capital_by_players() -> None:
    for seats, cash in ((("A", "B", "C"), 420), (("A", "B", "C", "D"), 315),
                        (("A", "B", "C", "D", "E"), 252),
                        (("A", "B", "C", "D", "E", "F"), 210)):
        g = new_game(seats)
        assert {p.cash for p in g.state.players.values()} == {cash}
        assert g.state.total_cash() == 15000  # the bank of R15,000 (1)


def test_9_4_privates_are_auctioned_first_in_the_order_of_table_1() -> None:
    g = new_game()
    assert g.turn() is not None and g.turn().step == "auction of TSR"  # type: ignore[union-attr]
    with pytest.raises(GameError, match="TSR is up for auction"):
        g.apply("Ann", Bid(45, "BSS"))
    with pytest.raises(GameError, match="at least R20"):
        g.apply("Ann", Bid(15, "TSR"))
    with pytest.raises(GameError, match="multiples of R5"):
        g.apply("Ann", Bid(22, "TSR"))
    g.apply("Ann", Bid(20, "TSR"))
    g.apply("Bob", Bid(25))  # a raise of R5
    g.apply("Cy", Pass())
    g.apply("Dee", Pass())
    g.apply("Ann", Pass())  # only Bob is left: he wins
    assert g.state.privates["TSR"].owner == "Bob"
    assert g.state.players["Bob"].cash == 315 - 25
    assert g.state.bank_cash == 15000 - 4 * 315 + 25  # the price goes to the bank
    # 9.2: the next turn is the player after the winner; BSS is up now.
    assert now(g) == "Cy" and g.turn().step == "auction of BSS"  # type: ignore[union-attr]


def test_9_2_a_player_who_passed_may_not_rejoin_the_bidding() -> None:
    g = new_game()
    g.apply("Ann", Bid(20, "TSR"))
    g.apply("Bob", Pass())
    g.apply("Cy", Bid(25))
    g.apply("Dee", Pass())
    g.apply("Ann", Bid(30))
    assert now(g) == "Cy"  # Bob and Dee are out
    g.apply("Cy", Pass())
    assert g.state.privates["TSR"].owner == "Ann"


def test_9_4_a_full_round_of_passes_lowers_the_minimum_then_gives_it_away() -> None:
    g = new_game()
    for _ in range(4):  # TSR: R20 -> R15 -> R10 -> R5 -> R0
        for _seat in range(4):
            g.apply(now(g), Pass())
    # The player who began the last full round of passes (Ann) receives it free.
    assert g.state.privates["TSR"].owner == "Ann"
    assert g.state.players["Ann"].cash == 315
    assert now(g) == "Bob"


def test_9_4_after_a_round_of_passes_play_resumes_with_the_first_passer() -> None:
    g = new_game()
    for seat in ("Ann", "Bob", "Cy", "Dee"):
        g.apply(seat, Pass())
    assert g.state.privates["TSR"].price == 15
    assert now(g) == "Ann"
    g.apply("Ann", Bid(15, "TSR"))
    win_lot(g)
    assert g.state.privates["TSR"].owner == "Ann"


def test_9_4_the_nikolaev_is_the_first_minor_auctioned() -> None:
    g = new_game()
    privates_at_minimum(g)
    with pytest.raises(GameError, match="Nikolaev"):
        g.apply("Bob", StartAuction("K-B", 100))
    with pytest.raises(GameError, match="available from phase 3"):
        g.apply("Bob", StartAuction("M-B", 100))
    sell_minor(g, "N", 100)
    sell_minor(g, "K-B", 100)  # now any starting minor may follow
    assert g.state.corporations["K-B"].president == "Cy"


@pytest.mark.parametrize(("price", "marker"), [(100, 50), (110, 55), (130, 65),
                                                (140, 70), (150, 70), (200, 100),
                                                (270, 135), (300, 135)])
def test_9_2_the_minor_price_is_half_the_bid_rounded_down_to_a_space(
        price: int, marker: int) -> None:
    g = new_game()
    for p in g.state.players.values():
        p.cash = 400  # enough for any bid here (the state is this test's own)
    privates_at_minimum(g)
    seat = sell_minor(g, "N", price)
    n = g.state.corporations["N"]
    assert g.state.market.price("N") == marker
    assert n.cash == price  # 9.2: the amount paid goes into the minor's treasury
    assert n.president == seat and n.percent_held_by(seat) == 100
    assert "N" in g.state.board.tokens["H8"][1]  # its home station, Moscow's space
    # 9.2: the next turn is the player after the winner.
    assert now(g) == g.state.next_seat(seat)


def test_9_2_the_minimum_bid_is_r100_and_a_bid_at_most_the_cash() -> None:
    g = new_game()
    privates_at_minimum(g)
    with pytest.raises(GameError, match="at least R100"):
        g.apply("Bob", StartAuction("N", 95))
    with pytest.raises(GameError, match="Bob has R285"):
        g.apply("Bob", StartAuction("N", 290))
    g.apply("Bob", StartAuction("N", 100))
    assert g.legal() == ["bid 105 (or more, up to R275)", "pass"]  # Cy: 315 - 40


def test_9_2_a_player_who_cannot_raise_may_only_pass() -> None:
    g = new_game()
    privates_at_minimum(g)
    g.apply("Bob", StartAuction("N", 280))
    assert now(g) == "Cy" and g.legal() == ["pass"]  # Cy has R275


def test_9_1_minors_are_never_sold_and_publics_are_not_started_before_phase_4() -> None:
    g = new_game()
    privates_at_minimum(g)
    sell_minor(g, "N", 100)
    for seat in ("Cy", "Dee", "Ann"):
        g.apply(seat, Pass())
    assert now(g) == "Bob"
    with pytest.raises(GameError, match="minors may never be sold"):
        g.apply("Bob", SellShares("N", 1))
    with pytest.raises(GameError, match="from phase 4"):
        g.apply("Bob", Par("NW", 100))
    with pytest.raises(GameError):
        g.apply("Bob", BuyShares("N"))


def test_9_5_the_round_ends_after_all_pass_and_priority_goes_left_of_the_last_buyer() -> None:
    g = first_operating_round()
    # Ann won the last auction (SP-W): Bob, on her left, holds the Priority Deal.
    assert g.state.priority == "Bob"
    assert not isinstance(g.round, AuctionStockRound)
    # 9.5: minors do not rise at the end of the round as sold-out publics do.
    assert g.state.market.price("N") == 70


def test_9_2_minors_may_not_be_auctioned_from_phase_5() -> None:
    g = new_game()
    privates_at_minimum(g)
    g.state.phase_index = g.rules.title.phase_index("5")  # this test's own state
    with pytest.raises(GameError, match="phase 5"):
        g.apply("Bob", StartAuction("N", 100))
    pass_round(g)


def test_9_1_a_director_sale_drops_the_price_one_row_whatever_the_number_sold() -> None:
    from scenarios_1861 import record_game

    g = record_game(621)  # Stock Round 6: Player 1 directs MK (40%), which has operated
    state = g.state
    assert now(g) == "Player 1" and state.corporations["MK"].percent_held_by("Player 1") == 40
    (row, col), price = state.market.positions["MK"], state.market.price("MK")
    cash = state.players["Player 1"].cash
    g.apply("Player 1", SellShares("MK", 2))
    assert state.players["Player 1"].cash == cash + 2 * price  # the price before the drop
    assert state.market.positions["MK"] == (row + 1, col)  # one row down, not two


def test_7_1_companies_buy_privates_from_phase_3_to_5_for_r1_to_face_value() -> None:
    from scenarios_1861 import record_game

    from engine.actions import BuyPrivate

    g = record_game(131)  # OR 2.2, phase 3: K-R (Player 1) operates; Player 1 owns TSR
    state = g.state
    turn = g.turn()
    assert turn is not None and turn.entity == "K-R"
    assert state.privates["TSR"].owner == "Player 1"
    with pytest.raises(GameError, match="face value"):
        g.apply("Player 1", BuyPrivate("TSR", "Player 1", 31))
    state = g.state  # a refusal puts back a copy of the state
    cash = state.corporations["K-R"].cash
    g.apply("Player 1", BuyPrivate("TSR", "Player 1", 30))
    assert state.privates["TSR"].owner == "K-R"
    assert state.corporations["K-R"].cash == cash - 30


def _sell_out(g: Game, sym: str) -> None:
    """Every certificate of `sym` left in its treasury or the pool goes to its
    Director (a position the record never reaches: nothing sold out in 167259)."""
    corp = g.state.corporations[sym]
    for cert in corp.certificates:
        if cert.owner not in g.state.seats:
            cert.owner = corp.president


def test_9_5_a_sold_out_public_rises_one_row() -> None:
    g = record_game(485)  # Stock Round 5 begins; NW stands at R110 (row 3)
    state = g.state
    _sell_out(g, "NW")
    row, col = state.market.positions["NW"]
    pass_round(g)
    assert state.market.positions["NW"] == (row - 1, col)
    assert state.market.price("NW") == 120  # the chart: R110 -> R120 above it


def test_9_5_a_sold_out_public_on_the_top_row_moves_diagonally_to_the_same_price() -> None:
    """9.5: on the top row it moves right and down one space, to the same price, at
    the bottom of the stack there (so behind MKN in operating order)."""
    g = record_game(485)
    state = g.state
    state.market.place("MK", (0, 7))  # as if MK had risen to the top row's R180
    assert state.market.price("MK") == 180 and state.market.positions["MKN"] == (1, 8)
    _sell_out(g, "MK")
    pass_round(g)
    assert state.market.positions["MK"] == (1, 8) and state.market.price("MK") == 180
    assert state.market.stacks[(1, 8)] == ["MKN", "MK"]


def test_9_3_a_public_starts_on_a_red_or_purple_space_r70_to_r200() -> None:
    g = record_game(601)  # Stock Round 6 (phase 4): Player 2 may start a public
    with pytest.raises(GameError):
        g.apply("Player 2", Par("NW", 60))  # a minor's brown space
    assert "par NW at 70, 80, 90, 100, 110, 120, 135, 150, 165, 180, 200" in g.legal()
    g.apply("Player 2", Par("NW", 70))
    assert g.state.market.price("NW") == 70


def test_9_3_no_public_is_started_without_an_unconnected_city_for_its_home() -> None:
    # The cities the site lists for a public's home (its home_token_locations) in
    # record 167259: five before GRR starts; none in the last operating rounds, where
    # track reaches every free city.
    g = record_game(601)
    assert g.rules.home_choices(g.state, "NW") == ["F18", "L12", "M19", "P2", "P8"]
    g = record_game(715)
    nw = g.state.corporations["NW"]
    assert g.rules.home_choices(g.state, "NW") == []
    assert "home station" in (g.rules.why_not_par(g.state, nw) or "")
