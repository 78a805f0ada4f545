"""1850 10.7.2: the president's sales for a forced train "may not cause a change in
ownership of the company buying the train. They may cause closure of the company that
needs the train. ... If stock sales close the company requiring the train, all money
including that for all share sales and the president's personal funds are lost";
5.1.1: "Any money in that company (as well as the president's personal money if the
closure happens during emergency fund raising for the company closed) is returned to
the bank." Nobody may protect the president's sale of his own company (5.9: the
president buys the shares from the seller), so its price falls at the sale.

The position: the recorded game 115810 before action 436, KATY (Player 1 president with
60%) trainless at its token step, $104 in its treasury, about to raise the first
8-train ($800) by Player 1's sales (seed 3601 game 16 of the differential found ours
buying the train first and closing the company after it, its 10-train then starting
phase 10 from the Open Market).
"""

from __future__ import annotations

from test_1850_sections import before

from engine.actions import SellShares
from engine.game import Game


def katy_at(position: tuple[int, int] | None = None) -> Game:
    g = before(436)
    if position is not None:
        g.state.market.place("KATY", position)
    turn = g.turn()
    assert turn is not None and turn.entity == "KATY"
    return g


def test_10_7_2_a_sale_that_closes_the_company_ends_the_purchase_and_the_money_is_lost(
        ) -> None:
    g = katy_at((6, 0))  # brown $20: two shares sold fall into the black area
    state = g.state
    katy, bank_before = state.corporations["KATY"], state.bank_cash
    cash, treasury = state.player("Player 1").cash, katy.cash
    phase = state.phase_index
    g.apply("Player 1", SellShares("KATY", 2))
    assert katy.closed and "KATY" not in state.market.positions
    assert state.player("Player 1").cash == 0
    # the sale's $40, his own cash and the treasury all end in the bank
    assert state.bank_cash == bank_before + cash + treasury
    assert not katy.trains and state.phase_index == phase  # no 8-train was bought
    turn = g.turn()
    assert turn is not None and turn.entity != "KATY"
    assert not state.pending_sales


def test_10_7_2_the_presidents_sale_of_his_own_company_moves_its_price_at_once() -> None:
    g = katy_at()
    state = g.state
    before_sale = state.market.positions["KATY"]
    g.apply("Player 1", SellShares("KATY", 1))
    assert state.market.positions["KATY"] != before_sale  # 5.8: down, before the train
    assert not any(s.corporation == "KATY" for s in state.pending_sales)
    turn = g.turn()
    assert turn is not None and turn.entity == "KATY"  # still raising the 8-train
    assert state.player("Player 1").cash > 0
