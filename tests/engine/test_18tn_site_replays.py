"""Random 18TN games of our engine, exported as 18xx.games records and replayed by the
18xx.games engine with the same final scores (tools/oracle/differential.py). The site's
scores are kept in tests/fixtures/18TN/site_results.json as facts from an independent
engine; here each record is imported and must end on those scores. The records are the
shortest of the 57 agreeing games of 215 (seed 1); all 20 replay in a few seconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.records import import_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "18TN"
FACTS = json.loads((FIXTURES / "site_results.json").read_text())
RESULTS: dict[str, dict[str, int]] = FACTS["results"]


def test_twenty_games_are_kept() -> None:
    assert len(RESULTS) >= 20


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    record = json.loads((FIXTURES / name).read_text())
    replay = import_record(record)
    game = replay.game
    assert game.state.game_over
    ids = {name: pid for pid, name in replay.names.items()}
    scores = {ids[seat]: value for seat, value in game.scores().items()}
    assert scores == {pid: int(v) for pid, v in RESULTS[name].items()}
