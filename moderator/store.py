"""The SQLite store: games and their move logs.

A game row holds its set-up; its moves are rows numbered from 0. The log is the only
truth: loading a game replays its moves. Appending checks that nobody appended in
between (the expected next number), inside one transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from engine.game import Game, Move, Setup

SCHEMA_VERSION = 1


class StoreError(Exception):
    """A store operation that cannot be done: unknown game, a conflicting append."""


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    title: str
    setup: Setup
    created: float


class Store:
    """Games in one SQLite file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")  # readers never block the daemon
        conn.execute("PRAGMA foreign_keys=ON")
        self.db = sqlite_utils.Database(conn)
        self._migrate()

    def _migrate(self) -> None:
        db = self.db
        if "games" not in db.table_names():
            db.table("games").create({"id": str, "title": str, "setup": str, "created": float},
                               pk="id")
        if "moves" not in db.table_names():
            db.table("moves").create(
                {"game_id": str, "number": int, "seat": str, "action": str, "created": float},
                pk=("game_id", "number"),
                foreign_keys=[("game_id", "games", "id")],
            )
        if "meta" not in db.table_names():
            db.table("meta").insert({"key": "schema_version", "value": str(SCHEMA_VERSION)},
                              pk="key")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One SQLite transaction: everything inside commits together or not at all."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # --- games -------------------------------------------------------------------------
    def create_game(self, setup: Setup, game_id: str | None = None) -> str:
        """Store a new game; its id is TITLE-N unless given."""
        Game(setup)  # refuse a set-up the engine refuses, before anything is written
        with self.transaction():
            if game_id is None:
                count = self.db.execute(
                    "SELECT COUNT(*) FROM games WHERE title = ?", [setup.title]).fetchone()[0]
                game_id = f"{setup.title}-{count + 1}"
                while self.db.table("games").count_where("id = ?", [game_id]):
                    count += 1
                    game_id = f"{setup.title}-{count + 1}"
            elif self.db.table("games").count_where("id = ?", [game_id]):
                raise StoreError(f"a game {game_id} exists already")
            self.db.table("games").insert({"id": game_id, "title": setup.title,
                                     "setup": json.dumps(setup.to_json()),
                                     "created": time.time()})
        return game_id

    def game_row(self, game_id: str) -> GameRow:
        rows = list(self.db.table("games").rows_where("id = ? COLLATE NOCASE", [game_id]))
        if not rows:
            known = ", ".join(r["id"] for r in self.db.table("games").rows) or "none"
            raise StoreError(f"there is no game {game_id} (games: {known})")
        row = rows[0]
        return GameRow(row["id"], row["title"], Setup.from_json(json.loads(row["setup"])),
                       row["created"])

    def games(self) -> list[GameRow]:
        rows = self.db.table("games").rows_where(order_by="created")
        return [GameRow(r["id"], r["title"], Setup.from_json(json.loads(r["setup"])),
                        r["created"]) for r in rows]

    def moves(self, game_id: str) -> list[Move]:
        rows = self.db.table("moves").rows_where("game_id = ?", [game_id], order_by="number")
        return [Move.from_json({"seat": r["seat"], **json.loads(r["action"])}) for r in rows]

    def load(self, game_id: str) -> Game:
        """The game as its moves build it."""
        row = self.game_row(game_id)
        return Game(row.setup, self.moves(row.id))

    def append(self, game_id: str, first_number: int, moves: list[Move]) -> None:
        """Append moves numbered from `first_number`; refuses if the log moved on.

        Call inside `transaction()` to commit with other writes (the mail service
        records the message and its outgoing mail in the same transaction)."""
        have = self.db.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?",
                               [game_id]).fetchone()[0]
        if have != first_number:
            raise StoreError(f"game {game_id} is at move {have}, not {first_number}")
        now = time.time()
        self.db.table("moves").insert_all(
            {"game_id": game_id, "number": first_number + i, "seat": m.seat,
             "action": json.dumps({k: v for k, v in m.to_json().items() if k != "seat"}),
             "created": now}
            for i, m in enumerate(moves))

    def close(self) -> None:
        self.db.conn.close()
