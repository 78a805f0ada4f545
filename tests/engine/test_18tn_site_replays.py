"""Random 18TN games of our engine, exported as 18xx.games records and replayed by the
18xx.games engine with the same final scores (tools/oracle/differential.py). The site's
scores are kept in tests/fixtures/18TN/site_results.json as facts from an independent
engine; here each record is imported and must end on those scores. The records are the
shortest of the 57 agreeing games of 215 (seed 1), and the 5 shortest of the 80 of 80
agreeing games of seed 3501 (random players avoiding the listed differences, 28 November
2026); all 25 replay in a few seconds."""

from __future__ import annotations

import pytest
from site_results import replayed, site_results

TITLE = "18TN"
RESULTS = site_results(TITLE)


def test_twenty_games_are_kept() -> None:
    assert len(RESULTS) >= 20


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    replay, scores = replayed(TITLE, name)
    assert replay.game.state.game_over
    assert scores == RESULTS[name]
