"""Games played out with random legal moves: the engine never faults, money is
conserved after every move, what `Game.legal()` lists and what `apply` accepts agree
after every move (tests/engine/legal_check.py), and replaying the log rebuilds the
same position."""

from __future__ import annotations

import json
import random

import pytest
from legal_check import disagreements, edges_crossed_twice
from random_play import choose

from engine.actions import RunRoutes, from_json, to_json
from engine.game import Game, Move, Setup
from engine.legal import legal_actions
from engine.rounds.operating import OperatingRound


@pytest.mark.parametrize(("title", "seed", "moves"),
                         [("18TN", 1, 220), ("18TN", 2, 220), ("1851", 1, 300), ("1851", 2, 220),
                          ("1850", 1, 200), ("1850", 4, 200)])
def test_random_game_keeps_every_invariant(title: str, seed: int, moves: int) -> None:
    play_random(title, seed, moves)


@pytest.mark.slow
@pytest.mark.parametrize(("title", "seed", "players", "moves"),
                         [("18TN", 3, 4, 800), ("1851", 31, 3, 600), ("1851", 5, 5, 1500),
                          ("1850", 7, 4, 1500), ("1850", 10, 3, 1500)])
def test_random_long_game_keeps_every_invariant(title: str, seed: int, players: int,
                                                moves: int) -> None:
    """Long games (1851 seed 5 to its end): auctions, forced purchases, sales over
    the certificate limit, bankruptcies, late phases."""
    play_random(title, seed, moves, players)


def play_random(title: str, seed: int, moves: int, players: int | None = None) -> None:
    rng = random.Random(seed)
    seats = ("Ann", "Bob", "Cy", "Di", "Ed")[: players or 3 + seed % 2]
    game = Game(Setup(title, seats, seed=seed))
    total = game.state.total_cash()
    for _ in range(moves):
        turn = game.turn()
        if turn is None:
            break
        options = legal_actions(game)
        assert options, f"no legal action for {turn} in {game.round_name}: {game.legal()}"
        assert not disagreements(game, options), (len(game.log), game.round_name,
                                                  disagreements(game, options))
        action = choose(rng, options)
        assert from_json(json.loads(json.dumps(to_json(action)))) == action
        game.apply(turn.seat, action)
        assert game.state.total_cash() == total
        rnd = game.round
        if isinstance(action, RunRoutes) and isinstance(rnd, OperatingRound) and \
                rnd.current is not None and rnd.current.run is not None:
            hexes = [r.walk.hexes for r in rnd.current.run.runs]
            assert not edges_crossed_twice(hexes), hexes
    replayed = Game(game.setup, [Move.from_json(m.to_json()) for m in game.log])
    assert replayed.scores() == game.scores()
    assert replayed.round_name == game.round_name
    assert replayed.state.board.tiles == game.state.board.tiles
    assert {c.sym: c.cash for c in replayed.state.corporations.values()} == {
        c.sym: c.cash for c in game.state.corporations.values()}
