"""1850: the games recorded on 18xx.games replay, every action accepted, to the
recorded final scores (the issue's first piece of evidence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from legal_check import disagreements

from engine.game import Game
from engine.legal import legal_actions
from engine.records import Replay, import_record

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "1850"
RECORDS = ("115810", "pres_proctect_moves_priority", "pres_transfer_price_drop")


def replay(name: str) -> Replay:
    return import_record(json.loads((FIXTURES / f"{name}.json").read_text()))


@pytest.mark.parametrize("name", RECORDS)
def test_recorded_1850_game_replays_to_the_recorded_scores(name: str) -> None:
    result = replay(name)
    assert result.game.rules.scores(result.game.state) == result.result
    assert not result.game.state.pending_sales


def test_115810_ends_by_the_broken_bank_after_the_set_of_operating_rounds() -> None:
    """12.2: the record ends on the bank; the engine ends it for the same reason."""
    state = replay("115810").game.state
    assert state.game_over and state.end_reason == "bank"


def test_115810_conserves_the_money_supply() -> None:
    """Bank, players and companies together always hold the $12,000 of 2.4."""
    result = replay("115810")
    assert result.game.state.total_cash() == 12_000


def test_115810_legal_and_apply_agree_at_every_eighth_position() -> None:
    """What `legal()` lists and what `apply` accepts are the same kinds of action at
    positions all through a real game (protection, redemption, Mesabi, edge tokens,
    private lays among them); the recorded action is among the candidates."""
    recorded = replay("115810").game
    game = Game(recorded.setup)
    for i, move in enumerate(recorded.log):
        if i % 8 == 0:
            accepted = legal_actions(game)
            assert disagreements(game, accepted) == [], (i, game.turn())
        game.apply(move.seat, move.action)
