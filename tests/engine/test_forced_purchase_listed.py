"""Every forced purchase is listed (issue 30, item 4): a company that must buy a train
it cannot pay for from its treasury is shown the purchase, with what pays for it --
its loans (1861 10.2, 10.10) or its president's money (18TN 4.2.5.2(c)) -- in
`Game.legal()`, which the report and the `legal` command show."""

from __future__ import annotations

import json

from scenarios_1861 import RECORD as RECORD_1861
from scenarios_1861 import first_operating_round
from tn_scenarios import _record

from engine.actions import BuyTrain, Pass
from engine.game import Game
from engine.legal import legal_actions
from engine.records import import_record


def test_1861_a_trainless_minor_without_a_route_is_shown_the_train_its_loans_buy() -> None:
    """The issue's M-V: no route, no train anywhere to buy from another company, and
    less in its treasury than the 2-train costs; 10.10 makes it buy one with loans. The
    list was empty at the train step ("nothing"), though `buy train 2` was accepted."""
    g = first_operating_round()
    g.apply("Bob", BuyTrain("2", "bank"))  # N buys its train and its turn ends
    g.state.corporations["N"].trains.clear()  # no company has a train to sell
    mk = g.state.corporations["M-K"]
    turn = g.turn()
    assert turn is not None and turn.entity == "M-K"
    g.state.bank_cash += mk.cash - 55  # the treasury M-V had left in the issue
    mk.cash = 55
    while (turn := g.turn()) is not None and turn.step != "train":
        g.apply("Cy", Pass())
    listed = g.legal()
    assert listed == ["buy train 2 (R100: M-K's R55 and 1 loan of R50)"], listed
    assert BuyTrain("2", "bank") in legal_actions(g)
    g.apply("Cy", BuyTrain("2", "bank"))
    assert mk.loans == 1 and [t.name for t in mk.trains] == ["2"]


def test_1861_record_the_loans_a_forced_purchase_takes_are_named() -> None:
    replay = import_record(json.loads(RECORD_1861.read_text()))
    g = Game(replay.game.setup, replay.game.log[:130])  # OR 2.1: M-V, R135, no train
    turn = g.turn()
    assert turn is not None and turn.entity == "M-V"
    assert "buy train 3 (R225: M-V's R135 and 2 loans of R50)" in g.legal()


def test_18tn_the_presidents_contribution_to_a_forced_purchase_is_named() -> None:
    setup, moves = _record()
    g = Game(setup, moves[:454])  # OR 7.1: TC has $80 and must buy the $700 8-train
    turn = g.turn()
    assert turn is not None and turn.entity == "TC"
    assert "buy train 8 ($700: TC's $80 and $620 from its president Player 1)" in g.legal()


def test_a_train_from_another_company_reads_for_price_not_for_n() -> None:
    """1861 has a minor named N: "buy train 2 from N for N" read as two companies."""
    replay = import_record(json.loads(RECORD_1861.read_text()))
    g = Game(replay.game.setup, replay.game.log[:130])
    assert any(o.startswith("buy train 2 from N for PRICE (") for o in g.legal())
    assert not any(" for N (" in o for o in g.legal() if o.startswith("buy train"))
