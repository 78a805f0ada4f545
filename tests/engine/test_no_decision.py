"""The steps nobody decides (engine.defaults.no_decision, issue 30): passed by the
moderator only where the rules leave nothing but `pass`/`done`, never taking a choice
away."""

from __future__ import annotations

import json

from scenarios_1850 import RECORD as RECORD_1850
from scenarios_1861 import first_operating_round
from tn_scenarios import _record

from engine.actions import BuyPrivate, Pass
from engine.defaults import no_decision
from engine.game import Game
from engine.records import import_record


def test_1861_a_minor_without_lay_marker_train_or_income_is_taken_to_its_train_step() -> None:
    g = first_operating_round()  # N: no legal lay, its one station placed, no train
    texts = []
    while (skip := no_decision(g)) is not None:
        texts.append(skip.text)
        assert skip.action == Pass()  # one step at a time: `done` would skip the train
        g.apply(skip.seat, skip.action)
    assert texts == ["N has no tile to lay: track step skipped",
                     "N has no station marker to place: token step skipped",
                     "N has no train to run: route step skipped",
                     "N earned nothing to pay out: dividend step skipped"]
    turn = g.turn()
    assert turn is not None and (turn.entity, turn.step) == ("N", "train")
    assert g.legal() == ["buy train 2 (R100)"]  # the one decision: the train it must buy


def test_1850_a_track_step_a_private_could_open_is_not_skipped() -> None:
    """Record 115810, move 29: NP has laid its tile; buying MRC from its president
    (which the record does next) opens a further lay, so the step is the player's."""
    replay = import_record(json.loads(RECORD_1850.read_text()))
    g = Game(replay.game.setup, replay.game.log[:29])
    turn = g.turn()
    assert turn is not None and (turn.entity, turn.step) == ("NP", "track")
    assert isinstance(replay.game.log[29].action, BuyPrivate)
    assert no_decision(g) is None


def test_18tn_a_player_who_may_offer_his_private_is_not_passed() -> None:
    """A stock turn listing only `pass`, but the player holds a private he may offer to
    another (18TN 3.2(b)): a choice all the same."""
    setup, moves = _record()
    g = Game(setup)
    found = 0
    for move in moves:
        if g.legal() == ["pass"] and any(p.owner == g.turn().seat  # type: ignore[union-attr]
                                         for p in g.state.privates.values()):
            assert no_decision(g) is None
            found += 1
        g.apply(move.seat, move.action)
    assert found


def test_a_player_with_nothing_to_buy_sell_or_bid_passes() -> None:
    """1861 record 167259: in the merger round a player without a minor to merge or
    convert can only pass; he is passed, saying so."""
    from scenarios_1861 import RECORD as RECORD_1861

    replay = import_record(json.loads(RECORD_1861.read_text()))
    g = Game(replay.game.setup)
    for move in replay.game.log:
        if g.round_name.startswith("Merger") and g.legal() == ["pass"]:
            skip = no_decision(g)
            assert skip is not None and skip.action == Pass()
            assert skip.text.endswith("has no company to convert or merge: passes")
            return
        g.apply(move.seat, move.action)
    raise AssertionError("no merger-round pass in the record")
