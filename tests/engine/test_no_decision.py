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


def test_1861_legal_lays_leave_out_a_second_tile_in_the_hex_laid_this_turn() -> None:
    """10.4: the second tile goes in a different hex. `engine.legal` judged a lay by its
    kind once per position and so offered a second yellow lay in the very hex of the
    first (found by a random game, seed 3: the old list offered one at move 905, and
    the first at an upgrade in D6 before)."""
    import random

    from random_play import choose

    from engine.actions import LayTile
    from engine.game import Setup
    from engine.legal import legal_actions

    rng = random.Random(3)
    g = Game(Setup("1861", ("Ann", "Bob", "Cy"), 3, frozenset(), priority="Ann"))
    second_lays = 0  # positions where a second tile was offered after a first
    while (turn := g.turn()) is not None and len(g.log) < 906:
        acts = legal_actions(g)
        rnd = g.round
        laid = getattr(getattr(rnd, "current", None), "lay_hexes", ())
        lays = [a for a in acts if isinstance(a, LayTile)]
        if laid and lays:
            second_lays += 1
            for lay in lays:
                assert lay.hex not in laid, lay  # 10.4
        g.apply(turn.seat, choose(rng, acts))
    assert len(g.log) == 906 and second_lays
