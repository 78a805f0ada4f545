"""1861 10.3: a public company redeems shares from the Bank Pool at the start of its
operating turn, played at record 167259's OR 6.1 (MK operates, R848 in its treasury,
its price R150). Nothing was ever sold to the pool in that game, so the tests first
put MK's treasury shares there, as if players had sold them."""

from __future__ import annotations

import functools

import pytest
from scenarios_1861 import record_game

from engine.actions import LayTile, RedeemShares
from engine.errors import GameError
from engine.game import Game
from engine.state import BANK, POOL, TREASURY
from grammar import names_for_title
from grammar.parser import parse_line


@functools.cache
def _or_6_1_mk() -> Game:
    return record_game(675)  # OR 6.1: MK begins its turn


def _mk_with_pool_shares(count: int) -> Game:
    g = _or_6_1_mk().clone()
    turn = g.turn()
    assert turn is not None and turn.entity == "MK" and turn.step == "track"
    mk = g.state.corporations["MK"]
    for cert in [c for c in mk.certificates_of(TREASURY) if not c.president][:count]:
        cert.owner = POOL
    return g


def test_10_3_a_public_redeems_pool_shares_at_the_current_price() -> None:
    g = _mk_with_pool_shares(3)
    state = g.state
    mk = state.corporations["MK"]
    cash, bank, price = mk.cash, state.bank_cash, state.market.price("MK")
    treasury = mk.percent_held_by(TREASURY)
    assert price == 150 and cash == 848
    assert any(o.startswith("redeem N (1 to 3") for o in g.round.legal())
    (order,) = parse_line("redeem 2", names_for_title(state.title, state.seats))
    assert order == RedeemShares(2)
    g.apply("Player 1", order)  # type: ignore[arg-type]
    assert mk.cash == 848 - 2 * 150 and state.bank_cash == bank + 300
    assert mk.percent_held_by(POOL) == 10 and mk.percent_held_by(TREASURY) == treasury + 20
    assert state.market.price("MK") == price  # 10.3 moves no price


def test_10_3_no_more_than_the_pool_holds_nor_with_a_loan() -> None:
    g = _mk_with_pool_shares(2)
    with pytest.raises(GameError, match="Bank Pool holds 2"):
        g.apply("Player 1", RedeemShares(3))
    mk = g.state.corporations["MK"]
    g.state.transfer_cash("MK", BANK, mk.cash - 149)  # R149: less than one share
    with pytest.raises(GameError, match="no loan pays"):
        g.apply("Player 1", RedeemShares(1))
    assert mk.loans == 0


def test_10_3_redeeming_comes_before_laying_track() -> None:
    g = _mk_with_pool_shares(1)
    g.apply("Player 1", LayTile("8", "L20", 5))  # the record's own lay
    with pytest.raises(GameError, match="before it lays track"):
        g.apply("Player 1", RedeemShares(1))
