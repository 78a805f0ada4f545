"""Replay every game of a moderator's store with this engine, before an upgrade goes live.

    python tools/replay_store.py /backup/before-upgrade.sqlite

A rule fixed in the engine can refuse a move an older engine accepted and logged: the
1861 fix of 10.1 (a red off-board area of several hexes reached once) refuses a run
from Poland to Poland that `run auto` chose before. A stored game whose log holds such
a move no longer loads, and every mail to it fails. This replays each game's log as
the service loads it and names the first move refused, so the operator finds such a
game before the players do (deploy/OPERATIONS.md, upgrades). Run it on the backup copy
the upgrade takes: opening a store upgrades its schema in place.

Prints a line a game; exits 1 when any game's log no longer replays.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from engine.errors import GameError
from engine.game import Game
from moderator.store import Store


@dataclass(frozen=True, slots=True)
class Replayed:
    """One stored game replayed: its moves, and the first one refused (with why)."""

    game_id: str
    title: str
    moves: int
    refused_at: int | None = None
    why: str = ""


def replay_games(store: Store) -> list[Replayed]:
    """Every game of STORE replayed from its log, in the order created."""
    out: list[Replayed] = []
    for row in store.games():
        moves = store.moves(row.id)
        game = Game(row.setup)
        refused_at, why = None, ""
        # Move by move as `Game(setup, moves)` replays them when the service loads the
        # game (`GameCache`), so that the move refused can be named.
        for number, move in enumerate(moves):
            try:
                game.append_move(move)
            except GameError as exc:
                refused_at, why = number, str(exc)
                break
        out.append(Replayed(row.id, row.title, len(moves), refused_at, why))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database", type=Path, help="the store (a backup copy of it)")
    args = parser.parse_args(argv)
    if not args.database.exists():
        parser.error(f"{args.database}: no such file")
    store = Store(args.database)
    try:
        results = replay_games(store)
    finally:
        store.close()
    for r in results:
        if r.refused_at is None:
            print(f"{r.game_id} ({r.title}): {r.moves} moves replay")
        else:
            print(f"{r.game_id} ({r.title}): move {r.refused_at} of {r.moves} refused: {r.why}")
    return 1 if any(r.refused_at is not None for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
