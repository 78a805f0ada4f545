"""While a log is read, `Game.turn` and `Game.legal` keep their answers for the position
they were given at (the importer asks them several times a position). Kept answers must
never go stale: at every position of recorded games, what the game answers is what its
round answers afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scenarios_1825 import R1_RECORD

from engine.game import Game
from engine.records import (
    RecordMapper,
    Replay,
    expanded,
    folded_actions,
    replay_action,
    setup_of,
)

KEPT = Path(__file__).resolve().parents[1] / "fixtures"
RECORDS = [R1_RECORD, KEPT / "1850/random-2-4.json", KEPT / "1861/random-8-6.json"]


def _fresh(game: Game) -> tuple[object, list[str]]:
    if game.state.game_over:
        return None, []
    return game.round.turn(), game.round.legal()


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kept_answers_are_the_fresh_ones_at_every_position(path: Path) -> None:
    record = json.loads(path.read_text())
    setup, names = setup_of(record)
    replay = Replay(Game(setup), names, {})
    game = replay.game
    mapper = RecordMapper(game, names)
    mapper.ahead = list(expanded(folded_actions(record["actions"])))
    asked = 0
    with game.reading_log():
        for index, raw in enumerate(mapper.ahead):
            # The importer has asked at this position already (its bridging): what
            # it was told, and what it is told again, are the round's fresh answers.
            replay_action(game, mapper, index, raw)
            kept = game._asked
            asked += kept is not None and kept[2] == len(game.log) and bool(kept[3])
            turn, legal = _fresh(game)
            assert game.turn() == turn, (index, raw)
            assert game.legal() == legal, (index, raw)
            assert game.turn() == turn and game.legal() == legal
    assert game.state.game_over or len(game.log) > 100
    assert asked > 0  # answers were kept (else this test compares nothing kept)
