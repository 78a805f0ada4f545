"""Random 1825 Unit 1 games of our engine, exported as 18xx.games records and replayed by
the 18xx.games engine (tools/oracle/differential.py --title 1825 --payout 1.0 --trades
0.05 --builder), position by position, to the same scores. The site's scores are kept
in tests/fixtures/1825/site_results.json as facts from an independent engine; here each
record is imported and must end on them.

The games end by the bank breaking (2) or, where every company has gone bankrupt (6.3),
at the site's end of a dead game at its 100th turn, where the records stop and the
scores are the players' net worth in both engines (docs/site-differences.md). Records
are kept few for the suite's time: 6 of the 10 agreeing games of seed 11's games 0-31
(tools/oracle/keep_fixtures.py, then the three that end with the bank broken and the
three shortest others) and the 9 of seed 17's games 0-28 that agree to an end (four
with the bank broken, five at the site's end of a dead game); and 5 of the 7 games of
seeds 19 and 21 (games 0-29 each) that end with the bank broken and agree to the final
scores: the two that reach phase 3 (5.7.3; seed 19 game 24, seed 21 game 24), both
three-player ones (seed 21 games 13 and 29) and seed 21 game 0, where the GWR survives.
And two games with the kit R1 (`--option r1`): seed 31 game 8 to the site's end of a
dead game, seed 32 game 10 (four players) to the other end of 2, a share price at the top of the
index, and its final scores: the minors' start, formation, own trains and home bases.
And seed 3601 game 20 (bank broken), whose LNWR promotion of T18 at record action 577
the site accepted and ours refuses: no route of LNWR reaches its new track (5.2.4.a),
and it raises no route (5.2.4.b); the importer replays it as the record has it
(`LayTile.as_recorded`, tests/engine/test_records_lay_as_recorded.py).
"""

from __future__ import annotations

import pytest
from site_results import replayed, site_results

pytestmark = pytest.mark.slow  # whole games of up to 3000 record actions

TITLE = "1825"
RESULTS = site_results(TITLE)
#: The games played to their end (the differential's "agree": the site finished them
#: too); the others stop at the site's end of a dead game.
BANK_BROKEN = frozenset({"random-11-0.json", "random-11-12.json", "random-11-28.json",
                         "random-17-4.json", "random-17-8.json", "random-17-24.json",
                         "random-17-28.json", "random-19-24.json", "random-21-0.json",
                         "random-21-13.json", "random-21-24.json", "random-21-29.json",
                         "random-3601-20.json"})
#: 2: a share price at the top of the index, after the operating round (the site ends
#: at once; here the last company of the round reached it, so the two ends meet).
MARKET_END = frozenset({"random-r1-32-10.json"})


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    replay, scores = replayed(TITLE, name)
    assert scores == RESULTS[name]
    if name in BANK_BROKEN:
        # 2: the bank broke and the game ended after the operating round.
        assert replay.game.state.end_reason == "bank" and replay.game.turn() is None
    if name in MARKET_END:
        assert replay.game.state.end_reason == "market" and replay.game.turn() is None
