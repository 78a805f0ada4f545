"""The optimizer on 1851: in a whole driven game, at every run it finds exactly the best
run the exhaustive search finds, with 1851's hooks (the two-off-board bonus, Birmingham
closed to routes before phase 4) applied."""

from __future__ import annotations

from test_1851_games import bank_game

from engine.actions import RunRoutes
from engine.game import Game
from engine.optimizer import optimize
from engine.rounds.operating import OperatingRound
from engine.routes import best_run, route_track


def test_every_run_of_an_1851_game_equals_the_exhaustive_optimum() -> None:
    played, _ = bank_game()
    game = Game(played.setup)
    checked = closed = bonus = 0
    for move in played.log:
        rnd = game.round
        if isinstance(move.action, RunRoutes) and isinstance(rnd, OperatingRound) \
                and rnd.current is not None:
            corp = rnd.company()
            found = optimize(game.rules, game.state, corp)
            oracle = best_run(game.rules, game.state, corp)
            assert found.proven and found.total == oracle.revenue, (game.round_name, corp.sym)
            graph = route_track(game.rules, game.state)
            closed += any(s.hex == "J12" for s in graph.segments) is False
            bonus += any(sum(1 for n in r.walk.stops if n.kind == "o") >= 2
                         for r in found.run.runs)
            checked += 1
        game.apply(move.seat, move.action)
    assert checked >= 20
    assert closed > 0  # runs before phase 4 were searched without Birmingham's track
    assert bonus > 0  # and later ones earned the two-off-board bonus
