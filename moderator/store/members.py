"""Games run by mail (`mail_games`) and their people: who takes part (`members`), each
person's preferences, and their record across games (`lateness`, reliability)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from moderator.store.base import StoreBase, StoreError
from moderator.store.games import free_game_id

Role = Literal["master", "player", "observer"]
MemberStatus = Literal["invited", "active"]


@dataclass(frozen=True, slots=True)
class MailGame:
    game_id: str
    title: str
    master: str
    options: tuple[str, ...]
    seed: int
    started: bool


@dataclass(frozen=True, slots=True)
class Member:
    game_id: str
    address: str
    role: Role
    seat: str | None
    key: str
    status: MemberStatus
    reported_move: int


@dataclass(frozen=True, slots=True)
class Preferences:
    format: Literal["text", "html"] = "html"
    reports: Literal["all", "digest", "none"] = "all"
    timezone: str = "UTC"


class MembersStore(StoreBase):
    """Mail games, their members, and what is kept per person."""

    def create_mail_game(self, title: str, master: str, options: Sequence[str], seed: int,
                         now: float) -> str:
        """Reserve a game id for a game set up by mail (started later by `start`)."""
        with self.transaction():
            game_id = free_game_id(self.db, title)
            self.db.execute(
                "INSERT INTO mail_games (game_id, title, master, options, seed, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [game_id, title, master.lower(), json.dumps(list(options)), seed, now])
        return game_id

    def mail_game(self, game_id: str) -> MailGame | None:
        row = self.db.execute(
            "SELECT game_id, title, master, options, seed, started FROM mail_games "
            "WHERE game_id = ?", [game_id]).fetchone()
        if row is None:
            return None
        return MailGame(row[0], row[1], row[2], tuple(json.loads(row[3])), int(row[4]),
                        row[5] is not None)

    def mark_started(self, game_id: str, now: float) -> None:
        self.db.execute("UPDATE mail_games SET started = ? WHERE game_id = ?", [now, game_id])

    def canonical_game_id(self, game_id: str) -> str | None:
        """The id as stored (ids compare without case), of a game or a mail game."""
        for sql in ("SELECT id FROM games WHERE id = ? COLLATE NOCASE",
                    "SELECT game_id FROM mail_games WHERE game_id = ?"):
            row = self.db.execute(sql, [game_id]).fetchone()
            if row is not None:
                return str(row[0])
        return None

    def add_member(self, game_id: str, address: str, role: Role, key: str, *,
                   seat: str | None = None, status: MemberStatus = "invited",
                   reported_move: int = 0, now: float) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO members (game_id, address, role, seat, key, status, "
            "reported_move, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [game_id, address.lower(), role, seat, key, status, reported_move, now])

    def members(self, game_id: str) -> list[Member]:
        rows = self.db.execute(
            "SELECT game_id, address, role, seat, key, status, reported_move FROM members "
            "WHERE game_id = ? ORDER BY created, rowid", [game_id]).fetchall()
        return [Member(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]

    def activate_member(self, game_id: str, address: str, key: str, reported_move: int
                        ) -> None:
        self.db.execute(
            "UPDATE members SET status = 'active', reported_move = ? WHERE game_id = ? "
            "AND address = ? AND key = ?", [reported_move, game_id, address.lower(), key])

    def set_reported(self, game_id: str, address: str, move: int,
                     round_name: str | None = None) -> None:
        """ADDRESS's reports have got to MOVE (in ROUND_NAME: digest readers get one
        report per round)."""
        self.db.execute("UPDATE members SET reported_move = ?, reported_round = "
                        "COALESCE(?, reported_round) WHERE game_id = ? AND address = ?",
                        [move, round_name, game_id, address.lower()])

    def rename_seats(self, game_id: str, seats: dict[str, str]) -> None:
        """Seat names as the game stores them (the case the engine's set-up uses)."""
        for old, new in seats.items():
            self.db.execute("UPDATE members SET seat = ? WHERE game_id = ? AND seat = ?",
                            [new, game_id, old])

    def remove_member(self, game_id: str, address: str, key: str) -> None:
        self.db.execute("DELETE FROM members WHERE game_id = ? AND address = ? AND key = ?",
                        [game_id, address.lower(), key])

    def reported_round(self, game_id: str, address: str) -> str | None:
        row = self.db.execute("SELECT reported_round FROM members WHERE game_id = ? AND "
                              "address = ? AND reported_round IS NOT NULL",
                              [game_id, address.lower()]).fetchone()
        return None if row is None else str(row[0])

    # --- per person: preferences and the record (schema 3) ---------------------------
    def preferences(self, address: str) -> Preferences:
        row = self.db.execute("SELECT format, reports, timezone FROM preferences WHERE "
                              "address = ?", [address.lower()]).fetchone()
        return Preferences() if row is None else Preferences(row[0], row[1], row[2])

    def set_preference(self, address: str, name: str, value: str) -> None:
        if name not in ("format", "reports", "timezone"):
            raise StoreError(f"no preference {name}")
        self.db.execute("INSERT OR IGNORE INTO preferences (address) VALUES (?)",
                        [address.lower()])
        self.db.execute(f"UPDATE preferences SET {name} = ? WHERE address = ?",
                        [value, address.lower()])

    def record_late(self, address: str, game_id: str, seat: str, move: int,
                    deadline: float, policy: str, now: float) -> None:
        self.db.execute("INSERT INTO lateness (address, game_id, seat, move, deadline, "
                        "policy, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [address.lower(), game_id, seat, move, deadline, policy, now])

    def times_late(self, address: str) -> int:
        """How often ADDRESS missed a deadline, in every game (reliability)."""
        return int(self.db.execute("SELECT COUNT(*) FROM lateness WHERE address = ?",
                                   [address.lower()]).fetchone()[0])

    def reliability_counts(self, address: str) -> tuple[int, int, int, int, int]:
        """ADDRESS's record in every game: (mails that made moves, late ones among them,
        deadlines the clock passed, resignations, tournament seats taken from them)."""
        address = address.lower()
        one = self.db.execute
        answered = one("SELECT COUNT(DISTINCT cause) FROM moves WHERE actor = ? AND "
                       "cause IS NOT NULL", [address]).fetchone()[0]
        late = one("SELECT COUNT(*) FROM lateness WHERE address = ? AND policy = 'wait'",
                   [address]).fetchone()[0]
        missed = one("SELECT COUNT(*) FROM lateness WHERE address = ? AND policy != 'wait'",
                     [address]).fetchone()[0]
        resigned = one("SELECT COUNT(DISTINCT s.game_id || ' ' || s.seat) FROM seats s JOIN "
                       "members m ON m.game_id = s.game_id AND m.seat = s.seat WHERE "
                       "m.address = ? AND m.role = 'player' AND s.resigned IS NOT NULL",
                       [address]).fetchone()[0]
        replaced = one("SELECT COUNT(*) FROM tournament_holders WHERE address = ? AND "
                       "until IS NOT NULL", [address]).fetchone()[0]
        return int(answered), int(late), int(missed), int(resigned), int(replaced)
