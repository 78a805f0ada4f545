"""18TN end of the game and the rounds of play (sections 6, 6.1, 7 and Appendix 1),
each played out on a real game: the recorded game 7818 or a fresh opening."""

from __future__ import annotations

import pytest
from tn_scenarios import (
    OR_8_1_SR,
    OR_8_2_BANK_BREAKS,
    P1,
    P2,
    P3,
    P4,
    RECORD_END,
    SR_8_START,
    bankruptcy_position,
    bankruptcy_with_a_saleable_share,
    pass_stock_round,
    play_operating_round,
    record_game,
    replay_moves,
)

from engine.actions import Done, Pass, SellShares
from engine.errors import GameError
from engine.game import Game


def expected_scores(g: Game) -> dict[str, int]:
    """6.1 worked out by hand: cash (none for a bankrupt player), each share at its
    market value, each private the player owns at its par value."""
    s = g.state
    out = {}
    for seat, player in s.players.items():
        total = 0 if player.bankrupt else player.cash
        for corp in s.corporations.values():
            if corp.sym in s.market.positions:
                total += s.market.price(corp.sym) * corp.percent_held_by(seat) // 10
        total += sum(p.spec.value for p in s.privates.values()
                     if p.owner == seat and not p.closed)
        out[seat] = total
    return out


def round_names(g: Game, start: int, stop: int) -> list[str]:
    """The rounds the game passes through while the record's moves start..stop-1 are
    played, each named once."""
    names = [g.round_name]
    for n in range(start, stop):
        replay_moves(g, n, n + 1)
        if not g.state.game_over and g.round_name != names[-1]:
            names.append(g.round_name)
    return names


# --- 6(a): the bank breaks --------------------------------------------------------------


def test_6_a_the_bank_breaks_and_the_game_ends_after_that_operating_round() -> None:
    g = record_game(OR_8_2_BANK_BREAKS)  # OR 8.2 of a set of three
    assert g.state.operating_rounds_in_set == 3
    replay_moves(g, OR_8_2_BANK_BREAKS, OR_8_2_BANK_BREAKS + 1)  # L&N pays out
    assert g.state.bank_cash < 0
    assert g.state.end_triggered == "bank" and not g.state.game_over
    # The round goes on: TC, IC and GMO still operate and are paid.
    cash = g.state.players[P1].cash
    assert round_names(g, OR_8_2_BANK_BREAKS + 1, RECORD_END) == ["Operating Round 8.2"]
    assert g.state.players[P1].cash > cash
    assert g.state.game_over and g.state.end_reason == "bank"
    assert g.turn() is None  # no Operating Round 8.3
    with pytest.raises(GameError, match="the game is over"):
        g.apply(P1, Pass())


def test_6_a_7_the_bank_breaks_in_a_stock_round_one_more_operating_round() -> None:
    g = record_game(SR_8_START)  # phase 8: three operating rounds would follow
    sales = [(P2, "NC&StL", 4), (P2, "SR", 2), (P3, "L&N", 4), (P4, "TC", 1), (P1, "TC", 3)]
    for seat, corp, count in sales:
        if g.turn().seat != seat:  # type: ignore[union-attr]
            g.apply(g.turn().seat, Done())  # type: ignore[union-attr]
        g.apply(seat, SellShares(corp, count))
    assert g.state.bank_cash < 0 and g.state.end_triggered == "bank"
    # Appendix 1: the game never ends in a stock round; it is completed.
    assert g.round_name == "Stock Round 8" and not g.state.game_over
    g.apply(P1, Done())
    pass_stock_round(g)
    assert g.round_name == "Operating Round 8.1"
    assert g.state.operating_rounds_in_set == 1  # 7: the yellow box once the end is near
    assert play_operating_round(g) == ["SR", "NC&StL", "L&N", "TC", "IC", "GMO"]
    assert g.state.game_over and g.state.end_reason == "bank"
    assert g.scores() == expected_scores(g)


# --- 6(b): a share value of $300 ---------------------------------------------------------


def test_6_b_a_share_value_of_300_ends_the_game_after_the_current_operating_round() -> None:
    g = record_game(OR_8_1_SR)  # OR 8.1, the first of three; SR operates first
    assert g.state.operating_rounds_in_set == 3
    # Reach the position quickly: SR's token one space short of $300.
    g.state.market.place("SR", (0, 14))
    assert g.state.market.price("SR") == 275
    replay_moves(g, OR_8_1_SR, OR_8_1_SR + 3)  # SR lays a tile, runs and pays out
    assert g.state.market.price("SR") == 300
    assert g.state.end_triggered == "market" and not g.state.game_over
    assert round_names(g, OR_8_1_SR + 3, 554) == ["Operating Round 8.1"]
    assert g.state.game_over and g.state.end_reason == "market"
    assert g.turn() is None
    assert g.scores() == expected_scores(g)


# --- 6(c): bankruptcy --------------------------------------------------------------------


def test_6_c_bankruptcy_ends_the_game_at_once() -> None:
    g = bankruptcy_position()  # OR 2.1: TC must buy; GMO has not operated yet
    gmo = g.state.market.positions["GMO"]
    with pytest.raises(GameError, match="its president changes"):
        g.apply("Bob", SellShares("TC", 1))  # Bob's only stock: Ann would take TC
    g.apply("Bob", Done())
    assert g.state.players["Bob"].bankrupt
    assert g.state.game_over and g.state.end_reason == "bankruptcy"
    assert g.turn() is None
    assert g.state.market.positions["GMO"] == gmo  # GMO never got its turn
    with pytest.raises(GameError, match="the game is over"):
        g.apply("Cy", Done())


def test_6_1_a_bankrupt_player_forfeits_his_cash() -> None:
    g = bankruptcy_position()
    bob = g.state.players["Bob"].cash
    assert bob > 0
    g.apply("Bob", Done())
    scores = g.scores()
    tc = g.state.market.price("TC")
    assert scores["Bob"] == 3 * tc + 100  # his 30% of TC and OWR at par, no cash
    assert scores == expected_scores(g)
    assert scores["Ann"] == g.state.players["Ann"].cash + 3 * tc + 2 * g.state.market.price(
        "L&N") + 20  # her cash, 30% TC, 20% L&N, TCC


def test_6_1_a_bankrupt_player_counts_only_the_stock_he_could_not_sell() -> None:
    g = bankruptcy_with_a_saleable_share()  # Bob: $10, 30% TC, one GMO share, TCC
    assert g.state.corporations["GMO"].percent_held_by("Bob") == 10
    try:
        g.apply("Bob", Done())
    except GameError:  # an engine may first make him sell all he is allowed to sell
        g.apply("Bob", SellShares("GMO", 1))
        g.apply("Bob", Done())
    assert g.state.game_over and g.state.players["Bob"].bankrupt
    # The GMO share was his to sell (4.2.5.2(d)); its price, like his cash, is lost.
    tc = g.state.market.price("TC")
    assert g.scores()["Bob"] == 3 * tc + 20  # 30% of TC he could not sell, TCC at par


# --- 6.1: the winner ------------------------------------------------------------------


def test_6_1_scores_are_cash_shares_at_market_and_privates_at_par() -> None:
    g = record_game(RECORD_END)
    assert g.state.game_over
    assert g.scores() == expected_scores(g)
    assert g.scores() == {P2: 5615, P1: 5368, P4: 4355, P3: 4354}
    # Mid-game, privates owned by players count at their par values.
    g = record_game(44)  # Stock Round 2
    owned = {p.owner for p in g.state.privates.values() if not p.closed}
    assert owned & set(g.state.seats)
    assert g.scores() == expected_scores(g)


# --- 7: how many operating rounds ---------------------------------------------------------


def test_7_the_phase_at_the_end_of_a_stock_round_sets_the_operating_rounds() -> None:
    g = record_game(0)
    names = round_names(g, 0, RECORD_END)
    assert names == [
        "Stock Round 1", "Operating Round 1.1",
        "Stock Round 2", "Operating Round 2.1",
        "Stock Round 3", "Operating Round 3.1",  # phase 3 begins in this round
        "Stock Round 4", "Operating Round 4.1", "Operating Round 4.2",
        "Stock Round 5", "Operating Round 5.1",  # phase 5 begins in this round
        "Operating Round 5.2",
        "Stock Round 6", "Operating Round 6.1", "Operating Round 6.2", "Operating Round 6.3",
        "Stock Round 7", "Operating Round 7.1", "Operating Round 7.2", "Operating Round 7.3",
        "Stock Round 8", "Operating Round 8.1", "Operating Round 8.2",  # the bank broke
    ]
