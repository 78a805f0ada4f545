"""18TN played from set-up to its game ends, with money conserved after every move:
the bank breaking (the recorded game 7818) and a bankruptcy (a scripted game)."""

from __future__ import annotations

from tn_scenarios import bankruptcy_with_a_saleable_share

from engine.actions import Done
from engine.game import Game


def replay_conserving(game: Game) -> Game:
    """Replay `game`'s moves from set-up, checking the money after every one."""
    fresh = Game(game.setup)
    total = fresh.state.total_cash()
    for move in game.log:
        fresh.apply(move.seat, move.action)
        assert fresh.state.total_cash() == total, move
    return fresh


def test_6_c_a_scripted_game_from_set_up_to_a_bankruptcy() -> None:
    scripted = bankruptcy_with_a_saleable_share()
    game = replay_conserving(scripted)
    total = game.state.total_cash()
    game.apply("Bob", Done())  # TC cannot buy its forced train: Bob is bankrupt
    assert game.state.game_over and game.state.end_reason == "bankruptcy"
    assert game.state.total_cash() == total
    assert game.turn() is None and game.legal() == []
