"""1825 Unit 1 games played out with random legal moves (the invariants of
tests/engine/test_random_games.py: no fault, money and company credit conserved, the
legal list and `apply` agree, a replay rebuilds the position)."""

from __future__ import annotations

import pytest
from test_random_games import play_random


@pytest.mark.parametrize(("seed", "players", "moves"), [(1, 4, 300), (2, 2, 300)])
def test_1825_random_game_keeps_every_invariant(seed: int, players: int, moves: int) -> None:
    play_random("1825", seed, moves, players)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players"), [(3, 3), (4, 5)])
def test_1825_random_game_to_its_end(seed: int, players: int) -> None:
    """Whole games: phases, bankrupt companies, the bank breaking."""
    play_random("1825", seed, 4000, players)
