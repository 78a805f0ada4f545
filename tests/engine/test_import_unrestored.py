"""`import_record` reads a record without keeping copies to restore the game from
(`Game.reading_log(restorable=False)`): at a refusal it drops the game, so it must
refuse exactly as a reading that keeps them does."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.game import Game
from engine.records import RecordError, import_record
from engine.records.mapper import RecordMapper
from engine.records.reading import Replay, expanded, folded_actions, replay_action, setup_of

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"


def read_restorably(record: dict[str, Any]) -> Replay:
    """`import_record` as it read before: copies kept to restore the game from."""
    setup, names = setup_of(record)
    replay = Replay(Game(setup), names, {})
    mapper = RecordMapper(replay.game, names)
    mapper.ahead = list(expanded(folded_actions(record["actions"])))
    with replay.game.reading_log():
        for index, raw in enumerate(mapper.ahead):
            replay.applied += replay_action(replay.game, mapper, index, raw)
    return replay


def test_a_refused_record_is_refused_alike() -> None:
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    record = json.loads(RECORD.read_text())
    whole = import_record(record)
    assert whole.game.log == read_restorably(record).game.log
    refused = copy.deepcopy(record)
    # A tile laid late in the game (past several copies a restorable reading takes),
    # turned so that it cannot be laid.
    lays = [a for a in refused["actions"] if a.get("type") == "lay_tile"]
    lay = lays[len(lays) * 3 // 4]
    lay["rotation"] = (int(lay["rotation"]) + 3) % 6
    with pytest.raises(RecordError) as ours:
        import_record(refused)
    with pytest.raises(RecordError) as restorable:
        read_restorably(refused)
    assert str(ours.value) == str(restorable.value)
    assert f"(id {lay['id']}, lay_tile)" in str(ours.value)
    assert "does not keep all existing track" in str(ours.value)
