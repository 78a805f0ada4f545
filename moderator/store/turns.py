"""A running mail game's turns (schema 3 and 4): its clock (`clocks`), absences
(`away`), each seat's standing (`seats`: resigned, `auto pass`), orders held for a
turn (`held_orders`), the replies already applied or held (`replies_seen`) and the
deadline events sent to calendars (`calendars`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from moderator.store.base import StoreBase


@dataclass(frozen=True, slots=True)
class Clock:
    """A started mail game's time rules and its running turn (`clocks`)."""

    game_id: str
    allowed: float  # seconds per turn
    timeout: Literal["wait", "pass"]
    paused: float | None
    ended: float | None
    seat: str | None  # who owes the running turn (None: nobody, e.g. game over)
    entity: str | None
    move: int | None
    started: float | None
    deadline: float | None
    reminders: int
    late_notice: float | None
    sequence: int


#: The columns of `clocks` in the order of `Clock`'s fields.
_CLOCK_COLUMNS = ", ".join(f.name for f in dataclasses.fields(Clock))


@dataclass(frozen=True, slots=True)
class AwayRow:
    seat: str
    start: float
    end: float


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: str
    resigned: float | None = None
    auto_pass_round: str | None = None
    auto_pass_move: int | None = None


@dataclass(frozen=True, slots=True)
class HeldOrders:
    """Orders a player sent before their turn, applied when it comes."""

    seat: str
    text: str
    address: str
    cause: str
    round: str
    move: int


class TurnsStore(StoreBase):
    """Clocks, absences, seats and what waits for a turn."""

    def clock(self, game_id: str) -> Clock | None:
        row = self.db.execute(f"SELECT {_CLOCK_COLUMNS} FROM clocks WHERE game_id = ?",
                              [game_id]).fetchone()
        return None if row is None else Clock(*row)

    def clocks(self) -> list[Clock]:
        """The clocks of every game still running (not ended)."""
        return [Clock(*r) for r in self.db.execute(
            f"SELECT {_CLOCK_COLUMNS} FROM clocks WHERE ended IS NULL ORDER BY game_id")]

    def create_clock(self, game_id: str, allowed: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO clocks (game_id, allowed) VALUES (?, ?)",
                        [game_id, allowed])

    def update_clock(self, game_id: str, **fields: Any) -> None:
        """Set FIELDS (columns of `clocks`) of GAME_ID's clock."""
        names = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE clocks SET {names} WHERE game_id = ?",
                        [*fields.values(), game_id])

    def away_windows(self, game_id: str, seat: str | None = None) -> list[AwayRow]:
        sql = "SELECT seat, start, end FROM away WHERE game_id = ?"
        params: list[Any] = [game_id]
        if seat is not None:
            sql += " AND seat = ?"
            params.append(seat)
        return [AwayRow(r[0], r[1], r[2]) for r in
                self.db.execute(sql + " ORDER BY start", params).fetchall()]

    def add_away(self, game_id: str, seat: str, start: float, end: float, now: float
                 ) -> None:
        self.db.execute("INSERT INTO away (game_id, seat, start, end, created) "
                        "VALUES (?, ?, ?, ?, ?)", [game_id, seat, start, end, now])

    def seat_row(self, game_id: str, seat: str) -> SeatRow:
        row = self.db.execute("SELECT resigned, auto_pass_round, auto_pass_move FROM seats "
                              "WHERE game_id = ? AND seat = ?", [game_id, seat]).fetchone()
        return SeatRow(seat) if row is None else SeatRow(seat, row[0], row[1], row[2])

    def update_seat(self, game_id: str, seat: str, **fields: Any) -> None:
        self.db.execute("INSERT OR IGNORE INTO seats (game_id, seat) VALUES (?, ?)",
                        [game_id, seat])
        names = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE seats SET {names} WHERE game_id = ? AND seat = ?",
                        [*fields.values(), game_id, seat])

    def held(self, game_id: str, seat: str) -> HeldOrders | None:
        row = self.db.execute("SELECT seat, text, address, cause, round, move FROM "
                              "held_orders WHERE game_id = ? AND seat = ?",
                              [game_id, seat]).fetchone()
        return None if row is None else HeldOrders(*row)

    def hold(self, game_id: str, held: HeldOrders, now: float) -> None:
        """Keep HELD for its seat (replacing what that seat held before)."""
        self.db.execute("INSERT OR REPLACE INTO held_orders (game_id, seat, text, address, "
                        "cause, round, move, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [game_id, held.seat, held.text, held.address, held.cause,
                         held.round, held.move, now])

    def drop_held(self, game_id: str, seat: str) -> None:
        self.db.execute("DELETE FROM held_orders WHERE game_id = ? AND seat = ?",
                        [game_id, seat])

    # --- replies applied or held (schema 4) ------------------------------------------
    def reply_seen(self, game_id: str, fingerprint: str) -> tuple[str, int] | None:
        """(cause, move) of the earlier mail with FINGERPRINT in GAME_ID, if any."""
        row = self.db.execute("SELECT cause, move FROM replies_seen WHERE game_id = ? AND "
                              "fingerprint = ?", [game_id, fingerprint]).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def see_reply(self, game_id: str, fingerprint: str, cause: str, move: int) -> None:
        self.db.execute("INSERT OR IGNORE INTO replies_seen (game_id, fingerprint, cause, "
                        "move) VALUES (?, ?, ?, ?)", [game_id, fingerprint, cause, move])

    # --- calendar events (schema 4) -------------------------------------------------
    def calendar_event(self, game_id: str, seat: str) -> tuple[int, float | None] | None:
        """(sequence, deadline) of the last deadline event sent to SEAT (deadline None:
        it was cancelled), or None if none was."""
        row = self.db.execute("SELECT sequence, deadline FROM calendars WHERE game_id = ? "
                              "AND seat = ?", [game_id, seat]).fetchone()
        return None if row is None else (int(row[0]), row[1])

    def set_calendar_event(self, game_id: str, seat: str, sequence: int,
                           deadline: float | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO calendars (game_id, seat, sequence, "
                        "deadline) VALUES (?, ?, ?, ?)", [game_id, seat, sequence, deadline])
