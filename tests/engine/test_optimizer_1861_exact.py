"""1861's best run by the optimizer equals the exhaustive search (`routes.best_run`).

1861 skips towns when a train is full (10.6), so the optimizer bounds a partial route
by its cities and the best of its towns and further stops that fit the train's count,
and values each set of stops once (`Rules.route_revenue_by_stops`). Both must leave the
answer exact: at every recorded run of 18xx.games game 167259 whose trains reach at
most four stops (the exhaustive search is quick enough there), the optimizer proves
the same figure as trying every walk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import routes
from engine.actions import RunRoutes
from engine.game import Game
from engine.optimizer import optimize
from engine.records import import_record
from engine.rounds.operating import OperatingRound

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "1861" / "167259.json"


@pytest.mark.slow  # (about 12 s of CPU: the exhaustive search)
def test_10_6_the_best_run_equals_the_exhaustive_search_where_it_can_be_run() -> None:
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    replay = import_record(json.loads(RECORD.read_text()))
    game = Game(replay.game.setup)
    checked = with_towns = 0
    with game.reading_log():  # (no search for a better run at each run)
        for number, move in enumerate(replay.game.log):
            rnd = game.round
            if isinstance(move.action, RunRoutes) and isinstance(rnd, OperatingRound) \
                    and rnd.current is not None:
                rules, state = game.rules, game.state
                corp = rnd.company()
                if corp.trains and max(routes.train_distance(state, t)
                                       for t in corp.trains) <= 4:
                    exhaustive = routes.best_run(rules, state, corp)
                    found = optimize(rules, state, corp, budget=None)
                    assert found.proven, number
                    assert found.total == exhaustive.revenue, (number, corp.sym)
                    assert routes.check_run(rules, state, corp, found.action()).revenue \
                        == found.total, number
                    checked += 1
                    with_towns += any(n.kind == "t" for r in found.run.runs
                                      for n in r.walk.stops)
            game.apply(move.seat, move.action)
    assert checked >= 40
    assert with_towns > 0  # best runs through towns are among them
