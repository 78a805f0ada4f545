"""The limits a public address needs (schema 4): who said `stop` (`opt_outs`), the
invitations sent (`invitations`), the games created, the answer budget of mail that
proved no seat and what it held back (`answered`, `withheld`), and requests to observe
(`observe_requests`)."""

from __future__ import annotations

from typing import Any

from moderator.store.base import StoreBase, mailbox_of


class LimitsStore(StoreBase):
    """What the limits on a public address count."""

    def opted_out(self, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM opt_outs WHERE address = ?",
                              [address.lower()]).fetchone()
        return row is not None

    def opt_out(self, address: str, cause: str, now: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO opt_outs (address, since, cause) "
                        "VALUES (?, ?, ?)", [address.lower(), now, cause])

    def record_invitation(self, game_id: str, address: str, seat: str, master: str,
                          now: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO invitations (game_id, address, seat, master, "
                        "mailbox, created) VALUES (?, ?, ?, ?, ?, ?)",
                        [game_id, address.lower(), seat, master.lower(), mailbox_of(address),
                         now])

    def invited_before(self, game_id: str, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM invitations WHERE game_id = ? AND address = ?",
                              [game_id, address.lower()]).fetchone()
        return row is not None

    def invitations_count(self, *, game_id: str | None = None, master: str | None = None,
                          to: str | None = None, since: float = 0.0) -> int:
        """Invitations sent for GAME_ID, or by MASTER, or to TO's mailbox, since SINCE."""
        sql = "SELECT COUNT(*) FROM invitations WHERE created >= ?"
        args: list[Any] = [since]
        if to is not None:
            sql += " AND mailbox = ?"
            args.append(mailbox_of(to))
        if game_id is not None:
            sql += " AND game_id = ? COLLATE NOCASE"
            args.append(game_id)
        if master is not None:
            sql += " AND master = ?"
            args.append(master.lower())
        return int(self.db.execute(sql, args).fetchone()[0])

    def has_joined_a_game(self, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM members WHERE address = ? AND status = 'active' "
                              "LIMIT 1", [address.lower()]).fetchone()
        return row is not None

    def games_created_since(self, master: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM mail_games WHERE master = ? AND "
                              "created >= ?", [master.lower(), since]).fetchone()
        return int(row[0])

    def count_answer(self, address: str, now: float) -> None:
        """One more answer to a mail that proved no seat (the budget of ADDRESS)."""
        self.db.execute("INSERT INTO answered (address, created) VALUES (?, ?)",
                        [mailbox_of(address), now])
        # Keep the table small: nothing older than a day is ever counted.
        self.db.execute("DELETE FROM answered WHERE created < ?", [now - 86400])

    def answers_since(self, address: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM answered WHERE address = ? AND "
                              "created >= ?", [mailbox_of(address), since]).fetchone()
        return int(row[0])

    def withhold(self, address: str, now: float) -> None:
        """An answer to ADDRESS held back by its budget: counted for a later summary."""
        self.db.execute("INSERT INTO withheld (address, count, first, last) "
                        "VALUES (?, 1, ?, ?) ON CONFLICT (address) DO UPDATE SET "
                        "count = count + 1, last = excluded.last",
                        [mailbox_of(address), now, now])

    def take_withheld(self, address: str) -> tuple[int, float, float] | None:
        """What was held back from ADDRESS (count, first, last), now told: forgotten."""
        row = self.db.execute("SELECT count, first, last FROM withheld WHERE address = ?",
                              [mailbox_of(address)]).fetchone()
        if row is None:
            return None
        self.db.execute("DELETE FROM withheld WHERE address = ?", [mailbox_of(address)])
        return int(row[0]), float(row[1]), float(row[2])

    # --- requests to observe (schema 4) ----------------------------------------------
    def observe_requested(self, game_id: str, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM observe_requests WHERE game_id = ? AND "
                              "address = ?", [game_id, address.lower()]).fetchone()
        return row is not None

    def observe_requests_since(self, game_id: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM observe_requests WHERE game_id = ? AND "
                              "created >= ?", [game_id, since]).fetchone()
        return int(row[0])

    def request_observe(self, game_id: str, address: str, now: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO observe_requests (game_id, address, created) "
                        "VALUES (?, ?, ?)", [game_id, address.lower(), now])
