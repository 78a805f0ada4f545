"""The store's move log: appended without a gap, its length read from the primary
key's index (`Store.move_count`, issue 33: the game cache asks it for every mail)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.actions import Pass
from engine.game import Move, Setup
from moderator.store import Store, StoreError


def test_the_move_count_is_the_logs_length_and_a_gap_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.sqlite")
    first = store.create_game(Setup("18TN", ("Ann", "Bob", "Cy")))
    other = store.create_game(Setup("18TN", ("Dee", "Eve", "Fay")))
    assert store.move_count(first) == 0
    store.append(first, 0, [Move("Ann", Pass()), Move("Bob", Pass())])
    store.append(other, 0, [Move("Dee", Pass())])
    store.append(first, 2, [Move("Cy", Pass())])
    assert store.move_count(first) == 3 == len(store.moves(first))
    assert store.move_count(other) == 1
    assert store.move_count("no-such-game") == 0
    with pytest.raises(StoreError, match="is at move 3, not 5"):
        store.append(first, 5, [Move("Ann", Pass())])
    with pytest.raises(StoreError, match="is at move 3, not 2"):
        store.append(first, 2, [Move("Ann", Pass())])
    assert store.move_count(first) == 3
    store.close()
