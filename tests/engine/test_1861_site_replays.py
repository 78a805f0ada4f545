"""Random 1861 games of our engine, exported as 18xx.games records and replayed by the
18xx.games engine (tools/oracle/differential.py --title 1861), position by position,
to the same scores. The site's scores are kept in tests/fixtures/1861/site_results.json
as facts from an independent engine; here each record is imported and must end on them.
Kept: games that agree to their end (the shortest kept: the suite's time): seed 2's
game 0, seed 6's game 1, seed 7's game 1, seed 8's games 5 and 6 and seed 9's games 3
and 10 end by the bank's breaking; seed 4's games 1, 3 and 4, seed 5's games 0, 2 and
3, seed 7's games 2, 3 and 5 and seed 8's games 0, 3, 4 and 7 (three to six players,
mergers, conversions, nationalisations, loans, interest a company cannot pay, the RSR)
by the first 8-train (13). (Seed 1's game 0 was dropped: it started a public below R70,
which 9.3 forbids; the site's engine does not check a par's price. Seed 6's game 0 and
seed 7's game 0 were dropped: a run in each took two separate cities of green Moscow,
which 10.1 forbids and the site accepts.)"""

from __future__ import annotations

import pytest
from site_results import replayed, site_results

TITLE = "1861"
RESULTS = site_results(TITLE)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    replay, scores = replayed(TITLE, name)
    assert replay.game.state.game_over
    assert scores == RESULTS[name]
    said = " ".join(replay.game.state.log)
    for rule in REACHED.get(name, ()):
        assert rule in said, rule


#: What a kept game is kept for (12.3, 12.2, 11, 10.2, ...): its log must tell of it.
REACHED: dict[str, tuple[str, ...]] = {
    "random-2-0.json": ("The bank has broken",),
    "random-6-1.json": ("is nationalised", "takes a loan", "The bank has broken"),
    **{name: ("merge into", "is nationalised", "takes a loan", "RSR operates",
              "the first 8-train: this is the last set")
       for name in ("random-4-1.json", "random-4-4.json", "random-5-0.json",
                    "random-5-2.json", "random-5-3.json")},
    "random-7-1.json": ("is nationalised", "interest and has only", "The bank has broken"),
    "random-7-2.json": ("merge into", "converts into", "is nationalised",
                        "interest and has only", "RSR operates",
                        "the first 8-train: this is the last set"),
    "random-7-3.json": ("merge into", "is nationalised", "interest and has only", "RSR operates",
                        "the first 8-train: this is the last set"),
    "random-7-5.json": ("converts into", "is nationalised", "interest and has only",
                        "RSR operates", "the first 8-train: this is the last set"),
    **{name: ("converts into", "is nationalised", "interest and has only", "RSR operates",
              "the first 8-train: this is the last set")
       for name in ("random-8-0.json", "random-8-3.json")},
    **{name: ("merge into", "converts into", "is nationalised", "interest and has only",
              "RSR operates", "the first 8-train: this is the last set")
       for name in ("random-8-4.json", "random-8-7.json")},
    "random-8-5.json": ("is nationalised", "takes a loan", "The bank has broken"),
    "random-8-6.json": ("is nationalised", "interest and has only", "The bank has broken"),
    **{name: ("is nationalised", "interest and has only", "The bank has broken")
       for name in ("random-9-3.json", "random-9-10.json")},
    "random-4-3.json": ("converts into", "is nationalised", "takes a loan", "RSR operates",
                        "the first 8-train: this is the last set"),
}
