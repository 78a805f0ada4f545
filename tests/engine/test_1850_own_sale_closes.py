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

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from test_1850_sections import before

from engine.actions import Pass, SellShares
from engine.game import Game
from engine.state import POOL


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


def _site_1850() -> ModuleType:
    """tools/oracle/site_1850.py, the differential's 1850 module (not a package)."""
    folder = str(Path(__file__).resolve().parents[2] / "tools" / "oracle")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("site_1850")


PLAYERS = [{"id": i, "name": f"Player {i}"} for i in range(1, 6)]


def site_state(g: Game, acting: list[str], cash: dict[str, int] | None = None,
               prices: dict[str, int | None] | None = None) -> dict[str, Any]:
    """The driver's summary of a site position equal to ours but for CASH (by seat) and
    PRICES."""
    state = g.state
    return {
        "acting": acting,
        "players": [{"id": int(seat.split()[1]),
                     "cash": (cash or {}).get(seat, state.player(seat).cash)}
                    for seat in state.seats],
        "corporations": [{"id": sym, "price": (prices or {}).get(
            sym, state.market.price(sym) if sym in state.market.positions else None)}
            for sym in state.corporations],
    }


def test_10_7_2_the_sites_queue_of_the_presidents_other_sales_is_named_at_the_answer(
        ) -> None:
    """Seed 3701 game 72: the president's sales for the train, another company's first,
    then his own that closes the company; ours asks the other company's president
    about protection (5.9: "also in effect during forced sales"), the site has gone on
    with the sale queued and the seller's money left to him. Named only where the
    positions differ so."""
    site_1850 = _site_1850()
    g = katy_at((6, 0))
    # Player 3, NP's president, with room to protect under the certificate limit that
    # falls with KATY's closing (15): three of his shares in the Open Market.
    state = g.state
    for cert in [*state.corporations["UP"].certificates_of("Player 3"),
                 *state.corporations["CBQ"].certificates_of("Player 3"),
                 state.corporations["MILW"].certificates_of("Player 3")[-1]]:
        cert.owner = POOL
    np_price = g.state.market.price("NP")
    g.apply("Player 1", SellShares("NP", 1))
    g.apply("Player 1", SellShares("KATY", 2))
    assert g.state.corporations["KATY"].closed
    turn = g.turn()
    assert turn is not None and turn.seat == "Player 3" and turn.step.startswith("protect")
    lost = 434 + 140 + 20  # his cash, the NP sale and the KATY sale (10.7.2)
    answer = {"type": "pass", "entity": 3, "entity_type": "player"}
    kept = {"Player 1": g.state.player("Player 1").cash + lost}
    assert site_1850.closure_sales_unsettled(
        g, answer, [site_state(g, ["GN"], kept)], PLAYERS)
    # The site waiting for him is another refusal.
    assert not site_1850.closure_sales_unsettled(
        g, answer, [site_state(g, ["3"], kept)], PLAYERS)
    # The seller's cash apart by another sum, or a price apart he did not sell.
    assert not site_1850.closure_sales_unsettled(
        g, answer, [site_state(g, ["GN"], {"Player 1": 10})], PLAYERS)
    assert not site_1850.closure_sales_unsettled(
        g, answer, [site_state(g, ["GN"], kept, {"CBQ": 1})], PLAYERS)
    # After his answer ours asks nothing more.
    g.apply("Player 3", Pass())
    assert g.state.market.price("NP") != np_price
    assert not site_1850.closure_sales_unsettled(
        g, answer, [site_state(g, ["GN"], kept)], PLAYERS)
