"""A game ended on a game master's or director's word (`end game`, `end table`) keeps
the log it had while running; read again from the store (a restart, or the cache
forgot it), it is still over (issue 32: its reports must not say "SR 1: Ivy to move")."""

from __future__ import annotations

from pathlib import Path

from engine.game import Setup
from moderator.desk.games import GameCache
from moderator.store import Store


def test_a_game_whose_clock_ended_is_over_when_read_again(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.sqlite")
    with store.transaction():
        game_id = store.create_game(Setup("18TN", ("Ann", "Bob", "Cy"), seed=3))
        store.create_clock(game_id, 3600.0)
    running = GameCache(store).game(game_id)
    assert not running.state.game_over and running.turn() is not None
    with store.transaction():
        store.update_clock(game_id, ended=1000.0, seat=None, deadline=None)
    ended = GameCache(store).game(game_id)  # a fresh cache: read from the store
    assert ended.state.game_over
    assert "game master or director" in (ended.state.end_reason or "")
    assert ended.next_move == running.next_move  # the same log
