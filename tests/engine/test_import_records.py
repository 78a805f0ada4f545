"""Recorded 18xx.games games replayed through our engine reach the record's scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.records import folded_actions, import_record, walk_hexes

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


def load(name: str) -> dict:  # type: ignore[type-arg]
    path = FIXTURES / name
    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    data: dict = json.loads(path.read_text())  # type: ignore[type-arg]
    return data


def test_18tn_7818_replays_to_the_recorded_scores() -> None:
    record = load("18TN/7818.json")
    replay = import_record(record)
    game = replay.game
    assert game.state.game_over and game.state.end_reason == "bank"
    assert game.scores() == replay.result
    assert replay.result == {"Player 2": 5615, "Player 1": 5368, "Player 4": 4355,
                             "Player 3": 4354}


def test_18tn_7818_conserves_cash_after_every_move() -> None:
    from engine.game import Game

    record = load("18TN/7818.json")
    replay = import_record(record)
    game = Game(replay.game.setup)
    total = game.state.total_cash()
    for move in replay.game.log:
        game.apply(move.seat, move.action)
        assert game.state.total_cash() == total


def test_undo_and_redo_fold_away() -> None:
    actions = [{"type": "pass", "id": 1}, {"type": "bid", "id": 2},
               {"type": "undo", "id": 3}, {"type": "pass", "id": 4},
               {"type": "undo", "id": 5}, {"type": "redo", "id": 6},
               {"type": "undo", "id": 7, "action_id": 1}]
    assert [a["id"] for a in folded_actions(actions)] == [1]


def test_route_chains_join_into_one_walk() -> None:
    chains = [["F11", "G10", "G8", "H7"], ["G6", "H7"], ["G6", "F7", "E6", "D7"]]
    assert walk_hexes(chains) == ("F11", "G10", "G8", "H7", "G6", "F7", "E6", "D7")
    assert walk_hexes([["A16", "B17"], ["F11", "E12", "B17"]]) == ("A16", "B17", "E12", "F11")
