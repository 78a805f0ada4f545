"""Lay prices reckoned from the rules' prices (issue 30, item 5) are what the engine
charges: each legal lay tried on a copy of the game, in recorded 1861 and 18TN
positions where a company lays track (1861 with its extra lay's fee and loans)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.actions import LayTile
from engine.game import Game
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from moderator.reports.lays import LayCost, lay_costs, legal_lays

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def charged(game: Game, hex_id: str, tile: str, rotation: int) -> LayCost:
    """What laying TILE on HEX_ID costs, as the engine charges it on a copy."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp = rnd.company()
    turn = game.turn()
    assert turn is not None
    value, interest = game.rules.loan_terms(game.state)
    trial = game.clone()
    assert trial.attempt(turn.seat, LayTile(tile, hex_id, rotation))
    after = trial.state.corporation(corp.sym)
    loans = after.loans - corp.loans
    return LayCost(corp.cash + loans * (value - interest) - after.cash, loans, after.cash)


@pytest.mark.slow
@pytest.mark.parametrize("record", ["1861/167259.json", "18TN/7818.json"])
def test_reckoned_prices_are_what_the_engine_charges(record: str) -> None:
    full = import_record(json.loads((FIXTURES / record).read_text())).game
    game = Game(full.setup)
    checked = positions = 0
    priced = set()
    for number, move in enumerate(full.log):
        turn = game.turn()
        if turn is not None and turn.step == "track" and number % 7 == 0:
            lays = legal_lays(game)
            costs = lay_costs(game, lays)
            positions += 1
            for hex_id, tiles in lays.items():
                for tile, rotations in list(tiles.items())[:1]:
                    assert costs[(hex_id, tile)] == charged(game, hex_id, tile, rotations[0]), \
                        (number, hex_id, tile)
                    priced.add(costs[(hex_id, tile)].paid > 0)
                    checked += 1
        game.apply(move.seat, move.action)
    assert positions >= 10 and checked >= 100
    assert priced == {True, False}  # both free lays and paid ones were compared
