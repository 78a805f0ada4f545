"""Games and their move logs (`games`, `moves`: the log is the only truth, loading a
game replays its moves), and each game's kept position (`snapshots`, a cache)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sqlite_utils

from engine.game import Game, Move, Setup
from moderator.store.base import StoreBase, StoreError


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    title: str
    setup: Setup
    created: float


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """A move of the log with what the engine said when it was applied (None when the
    move came in another way, e.g. an import, and nobody recorded it)."""

    number: int
    move: Move
    said: tuple[str, ...] | None
    created: float


@dataclass(frozen=True, slots=True)
class Submitted:
    """Moves FIRST..STOP-1 made by one mail (CAUSE) sent by ACTOR (an address, or
    `timer` for what the clock did)."""

    first: int
    stop: int
    cause: str | None
    actor: str | None
    seats: tuple[str, ...]


def game_id_taken(db: sqlite_utils.Database, game_id: str, *, mail_game_too: bool = True
                  ) -> bool:
    """Whether a game (MAIL_GAME_TOO: or a mail game) holds GAME_ID."""
    if db.execute("SELECT 1 FROM games WHERE id = ? COLLATE NOCASE", [game_id]).fetchone():
        return True
    return mail_game_too and db.execute(
        "SELECT 1 FROM mail_games WHERE game_id = ?", [game_id]).fetchone() is not None


def free_game_id(db: sqlite_utils.Database, title: str) -> str:
    """TITLE-N with the lowest N above every game of TITLE, mail games included
    (a mail game holds its id before it starts)."""
    count = db.execute("SELECT COUNT(*) FROM games WHERE title = ?", [title]).fetchone()[0]
    count += db.execute("SELECT COUNT(*) FROM mail_games WHERE title = ? "
                        "AND started IS NULL", [title]).fetchone()[0]
    game_id = f"{title}-{count + 1}"
    while game_id_taken(db, game_id):
        count += 1
        game_id = f"{title}-{count + 1}"
    return game_id


class GamesStore(StoreBase):
    """Games, their move logs and kept positions."""

    def create_game(self, setup: Setup, game_id: str | None = None) -> str:
        """Store a new game; its id is TITLE-N unless given."""
        Game(setup)  # refuse a set-up the engine refuses, before anything is written
        with self.transaction():
            if game_id is None:
                game_id = free_game_id(self.db, setup.title)
            elif game_id_taken(self.db, game_id, mail_game_too=False):
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

    def has_game(self, game_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ? COLLATE NOCASE",
                               [game_id]).fetchone() is not None

    def games(self) -> list[GameRow]:
        rows = self.db.table("games").rows_where(order_by="created")
        return [GameRow(r["id"], r["title"], Setup.from_json(json.loads(r["setup"])),
                        r["created"]) for r in rows]

    def moves(self, game_id: str) -> list[Move]:
        rows = self.db.table("moves").rows_where("game_id = ?", [game_id], order_by="number")
        return [Move.from_json({"seat": r["seat"], **json.loads(r["action"])}) for r in rows]

    def logged_moves(self, game_id: str, start: int = 0) -> list[LoggedMove]:
        """The moves from number START on, with what the engine said about each."""
        rows = self.db.execute(
            "SELECT number, seat, action, said, created FROM moves WHERE game_id = ? "
            "AND number >= ? ORDER BY number", [game_id, start]).fetchall()
        return [LoggedMove(number, Move.from_json({"seat": seat, **json.loads(action)}),
                           None if said is None else tuple(json.loads(said)), created)
                for number, seat, action, said, created in rows]

    def load(self, game_id: str) -> Game:
        """The game as its moves build it."""
        row = self.game_row(game_id)
        return Game(row.setup, self.moves(row.id))

    def move_count(self, game_id: str) -> int:
        """How many moves GAME_ID's log holds. Numbered from 0 without a gap (`append`
        refuses any other, nothing deletes one): the highest number tells, found in
        the primary key's index where a count walks every move (issue 33)."""
        return int(self.db.execute("SELECT COALESCE(MAX(number) + 1, 0) FROM moves "
                                   "WHERE game_id = ?", [game_id]).fetchone()[0])

    def append(self, game_id: str, first_number: int, moves: Sequence[Move],
               said: Sequence[Sequence[str]] | None = None, *, cause: str | None = None,
               actor: str | None = None, now: float | None = None) -> None:
        """Append moves numbered from `first_number`; refuses if the log moved on.

        SAID, when given, holds what the engine said for each move (for reports).
        Call inside `transaction()` to commit with other writes (the mail service
        records the message and its outgoing mail in the same transaction). CAUSE is
        the mail (or `timer`) that made the moves, ACTOR who sent them."""
        have = self.move_count(game_id)
        if have != first_number:
            raise StoreError(f"game {game_id} is at move {have}, not {first_number}")
        if said is not None and len(said) != len(moves):
            raise StoreError(f"{len(said)} records of what was said for {len(moves)} moves")
        now = time.time() if now is None else now
        self.db.table("moves").insert_all(
            {"game_id": game_id, "number": first_number + i, "seat": m.seat,
             "action": json.dumps({k: v for k, v in m.to_json().items() if k != "seat"}),
             "said": None if said is None else json.dumps(list(said[i])),
             "created": now, "cause": cause, "actor": actor}
            for i, m in enumerate(moves))

    def add_said(self, game_id: str, number: int, line: str) -> bool:
        """Add LINE to what move NUMBER of GAME_ID said (a note found after the move was
        answered: a better run, `moderator.desk.later`); False when the move or what it
        said is not stored."""
        row = self.db.execute("SELECT said FROM moves WHERE game_id = ? AND number = ?",
                              [game_id, number]).fetchone()
        if row is None or row[0] is None:
            return False
        self.db.execute("UPDATE moves SET said = ? WHERE game_id = ? AND number = ?",
                        [json.dumps([*json.loads(row[0]), line]), game_id, number])
        return True

    def submissions(self, game_id: str, start: int = 0) -> list[Submitted]:
        """The log from move START on as runs of moves made by one cause (mail)."""
        rows = self.db.execute(
            "SELECT number, seat, cause, actor FROM moves WHERE game_id = ? AND number >= ? "
            "ORDER BY number", [game_id, start]).fetchall()
        runs: list[Submitted] = []
        for number, seat, cause, actor in rows:
            last = runs[-1] if runs else None
            if last is not None and cause is not None and last.cause == cause \
                    and last.actor == actor:
                runs[-1] = Submitted(last.first, number + 1, cause, actor, last.seats)
            else:
                runs.append(Submitted(number, number + 1, cause, actor, (seat,)))
        return runs

    # --- kept positions (issue 33) ----------------------------------------------------
    def snapshot(self, game_id: str, engine: str) -> tuple[int, bytes] | None:
        """GAME_ID's kept position (its move and bytes) if ENGINE made it."""
        row = self.db.execute("SELECT move, state FROM snapshots WHERE game_id = ? AND "
                              "engine = ?", [game_id, engine]).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def save_snapshot(self, game_id: str, move: int, engine: str, state: bytes) -> None:
        """Keep GAME_ID's position at MOVE (replacing the one kept before)."""
        self.db.execute("INSERT OR REPLACE INTO snapshots (game_id, move, engine, state) "
                        "VALUES (?, ?, ?, ?)", [game_id, move, engine, state])

    def last_move_at(self, game_id: str) -> float | None:
        """When GAME_ID's last move was stored (None: no move yet)."""
        row = self.db.execute("SELECT MAX(created) FROM moves WHERE game_id = ?",
                              [game_id]).fetchone()
        return None if row is None or row[0] is None else float(row[0])
