"""Random 1861 games of our engine, exported as 18xx.games records and replayed by the
18xx.games engine (tools/oracle/differential.py --title 1861), position by position,
to the same scores. The site's scores are kept in tests/fixtures/1861/site_results.json
as facts from an independent engine; here each record is imported and must end on them.
Kept: game 0 of seed 1 (three players, 2138 record actions: minors' auctions, loans,
conversions, mergers, nationalisations, the RSR), the first to agree to its end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.records import import_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "1861"
FACTS = json.loads((FIXTURES / "site_results.json").read_text())
RESULTS: dict[str, dict[str, int]] = FACTS["results"]


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    record = json.loads((FIXTURES / name).read_text())
    replay = import_record(record)
    assert replay.game.state.game_over
    ids = {seat: pid for pid, seat in replay.names.items()}
    scores = {ids[seat]: value for seat, value in replay.game.scores().items()}
    assert scores == {pid: int(v) for pid, v in RESULTS[name].items()}
    said = " ".join(replay.game.state.log)
    for rule in ("merge into", "converts into", "is nationalised", "takes a loan"):
        assert rule in said, rule  # the game reaches 12.3, 12.2, 11 and 10.2
