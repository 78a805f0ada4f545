"""Moderated tournaments (schema 6, `moderator.desk.tournament`): the director's terms
(`tournaments`), the entrants, the confirmations asked of them, each heat's tables and
their games, who held a table's seat and the seats' values when a table ended."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from moderator.store.base import StoreBase
from moderator.store.schema import TOURNAMENT_ADDED


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's terms and how far it has got (`tournaments`)."""

    name: str
    director: str
    titles: tuple[str, ...]
    sizes: tuple[int, ...]
    heats: int
    advance: int  # players in the final; 0: none
    scoring: Literal["margin", "placement", "winner", "share"]
    deadline: float
    timeout: Literal["wait", "pass"]
    seed: int
    minimum: int | None
    stage: Literal["entry", "closed", "heats", "final", "over"]
    heat: int
    # Added columns (`schema.migrate`): a heat's length (`heat deadline 14d`; None: no
    # limit), when the running heat began and when its tables are ended, and when its
    # players were told.
    heat_limit: float | None = None
    heat_started: float | None = None
    heat_ends: float | None = None
    heat_warned: float | None = None


_TOURNAMENT_COLUMNS = ("name, director, titles, sizes, heats, advance, scoring, deadline, "
                       "timeout, seed, minimum, stage, heat")


@dataclass(frozen=True, slots=True)
class Entrant:
    address: str
    role: Literal["player", "reserve"]
    status: Literal["entered", "withdrawn", "refused", "dropped"]


@dataclass(frozen=True, slots=True)
class TournamentTable:
    game_id: str
    tournament: str
    heat: int
    number: int
    title: str
    ended: float | None


@dataclass(frozen=True, slots=True)
class Holder:
    seat: str
    address: str
    since: int
    until: int | None


class TournamentStore(StoreBase):
    """Tournaments, their entrants, tables and results."""

    def create_tournament(self, t: Tournament, now: float) -> None:
        self.db.execute(
            f"INSERT INTO tournaments ({_TOURNAMENT_COLUMNS}, {TOURNAMENT_ADDED}, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [t.name, t.director.lower(), json.dumps(list(t.titles)), json.dumps(list(t.sizes)),
             t.heats, t.advance, t.scoring, t.deadline, t.timeout, t.seed, t.minimum,
             t.stage, t.heat, t.heat_limit, t.heat_started, t.heat_ends, t.heat_warned, now])

    def tournament(self, name: str) -> Tournament | None:
        row = self.db.execute(f"SELECT {_TOURNAMENT_COLUMNS}, {TOURNAMENT_ADDED} FROM "
                              "tournaments WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        return Tournament(row[0], row[1], tuple(json.loads(row[2])),
                          tuple(json.loads(row[3])), *row[4:])

    def update_tournament(self, name: str, **fields: Any) -> None:
        names = ", ".join(f"{column} = ?" for column in fields)
        self.db.execute(f"UPDATE tournaments SET {names} WHERE name = ?",
                        [*fields.values(), name])

    def add_entrant(self, tournament: str, address: str, role: str, now: float) -> None:
        """Enter ADDRESS (again, after a withdrawal: keeping the first entry's place)."""
        self.db.execute(
            "INSERT INTO tournament_entrants (tournament, address, role, created) VALUES "
            "(?, ?, ?, ?) ON CONFLICT (tournament, address) DO UPDATE SET "
            "role = excluded.role, status = 'entered'",
            [tournament, address.lower(), role, now])

    def entrants(self, tournament: str) -> list[Entrant]:
        """Everyone who entered TOURNAMENT, in entry order."""
        rows = self.db.execute("SELECT address, role, status FROM tournament_entrants WHERE "
                               "tournament = ? ORDER BY created, rowid", [tournament])
        return [Entrant(*r) for r in rows.fetchall()]

    def set_entrant(self, tournament: str, address: str, **fields: Any) -> None:
        names = ", ".join(f"{column} = ?" for column in fields)
        self.db.execute(f"UPDATE tournament_entrants SET {names} WHERE tournament = ? AND "
                        "address = ?", [*fields.values(), tournament, address.lower()])

    def add_confirmation(self, token: str, address: str, lines: list[str],
                         now: float) -> None:
        self.db.execute("INSERT INTO tournament_confirmations (token, address, lines, "
                        "created) VALUES (?, ?, ?, ?)",
                        [token, address.lower(), json.dumps(lines), now])

    def confirmation(self, token: str) -> tuple[str, list[str], float, float | None] | None:
        """(address, lines, created, confirmed) of the confirmation TOKEN."""
        row = self.db.execute("SELECT address, lines, created, confirmed FROM "
                              "tournament_confirmations WHERE token = ?", [token]).fetchone()
        return None if row is None else (row[0], json.loads(row[1]), row[2], row[3])

    def waiting_confirmation(self, address: str, lines: list[str], since: float
                             ) -> str | None:
        """The token of a confirmation of LINES for ADDRESS asked after SINCE and not
        yet given, if there is one."""
        row = self.db.execute("SELECT token FROM tournament_confirmations WHERE address = ? "
                              "AND lines = ? AND created > ? AND confirmed IS NULL",
                              [address.lower(), json.dumps(lines), since]).fetchone()
        return None if row is None else str(row[0])

    def confirm(self, token: str, now: float) -> None:
        self.db.execute("UPDATE tournament_confirmations SET confirmed = ? WHERE token = ?",
                        [now, token])

    def forget_confirmations(self, before: float) -> None:
        """Drop the confirmations asked before BEFORE (expired, or long done)."""
        self.db.execute("DELETE FROM tournament_confirmations WHERE created < ?", [before])

    def tournaments_created(self, director: str, since: float) -> int:
        """How many tournaments DIRECTOR created after SINCE."""
        return int(self.db.execute("SELECT COUNT(*) FROM tournaments WHERE director = ? AND "
                                   "created > ?", [director.lower(), since]).fetchone()[0])

    def add_tournament_table(self, table: TournamentTable) -> None:
        self.db.execute("INSERT INTO tournament_tables (game_id, tournament, heat, number, "
                        "title) VALUES (?, ?, ?, ?, ?)",
                        [table.game_id, table.tournament, table.heat, table.number,
                         table.title])

    _TABLE_COLUMNS = "game_id, tournament, heat, number, title, ended"

    def tournament_tables(self, tournament: str) -> list[TournamentTable]:
        rows = self.db.execute(f"SELECT {self._TABLE_COLUMNS} FROM tournament_tables WHERE "
                               "tournament = ? ORDER BY heat, number", [tournament])
        return [TournamentTable(*r) for r in rows.fetchall()]

    def tournament_table(self, game_id: str) -> TournamentTable | None:
        """The tournament table GAME_ID is, if it is one."""
        row = self.db.execute(f"SELECT {self._TABLE_COLUMNS} FROM tournament_tables WHERE "
                              "game_id = ?", [game_id]).fetchone()
        return None if row is None else TournamentTable(*row)

    def end_tournament_table(self, game_id: str, values: dict[str, int], now: float) -> None:
        """GAME_ID is scored on VALUES (each seat's value now)."""
        self.db.execute("UPDATE tournament_tables SET ended = ? WHERE game_id = ?",
                        [now, game_id])
        self.db.conn.executemany("INSERT OR REPLACE INTO tournament_results (game_id, seat, "
                            "value) VALUES (?, ?, ?)",
                            [(game_id, seat, value) for seat, value in values.items()])

    def timed_heats(self) -> list[str]:
        """The tournaments whose running heat has a deadline (issue 32)."""
        rows = self.db.execute("SELECT name FROM tournaments WHERE heat_ends IS NOT NULL "
                               "AND stage IN ('heats', 'final') ORDER BY name")
        return [str(r[0]) for r in rows]

    def reopen_tournament_table(self, game_id: str) -> None:
        """Take back a table's end (`undo end table`): unscored, playing again."""
        self.db.execute("UPDATE tournament_tables SET ended = NULL WHERE game_id = ?",
                        [game_id])
        self.db.execute("DELETE FROM tournament_results WHERE game_id = ?", [game_id])

    def tournament_results(self, game_id: str) -> dict[str, int]:
        return {str(seat): int(value) for seat, value in self.db.execute(
            "SELECT seat, value FROM tournament_results WHERE game_id = ? ORDER BY seat",
            [game_id]).fetchall()}

    def add_holder(self, game_id: str, seat: str, address: str, since: int) -> None:
        self.db.execute("INSERT OR REPLACE INTO tournament_holders (game_id, seat, address, "
                        "since) VALUES (?, ?, ?, ?)", [game_id, seat, address.lower(), since])

    def end_holder(self, game_id: str, seat: str, address: str, until: int) -> None:
        self.db.execute("UPDATE tournament_holders SET until = ? WHERE game_id = ? AND "
                        "seat = ? AND address = ?", [until, game_id, seat, address.lower()])

    def holders(self, game_id: str) -> list[Holder]:
        """Who held each seat of GAME_ID, in turn."""
        rows = self.db.execute("SELECT seat, address, since, until FROM tournament_holders "
                               "WHERE game_id = ? ORDER BY seat, since, rowid", [game_id])
        return [Holder(*r) for r in rows.fetchall()]
