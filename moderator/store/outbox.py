"""The mail sent (`outbox_queue`, `outbox_raw`): queued in the transaction that causes
it, drained by the sender; and what became of it (`bounces`, `undeliverable`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from moderator.store.base import StoreBase
from moderator.store.members import Member

#: `outbox_queue.next_attempt` of a mail queued by a transaction that is not yet on the
#: disk (`Store.lazily`): due never, until `Store.release_held` makes it due at once.
OUTBOX_HELD = 1e18


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    message_id: str
    kind: str
    recipient: str
    sender: str
    raw: bytes
    attempts: int


@dataclass(frozen=True, slots=True)
class Bounce:
    """A delivery-status report (or a refusal at sending) for one of our mails."""

    received: float
    recipient: str
    game_id: str | None
    status: str | None
    permanent: bool
    diagnostic: str | None


@dataclass(frozen=True, slots=True)
class Undeliverable:
    """An address whose mail bounced for good, and why."""

    address: str
    since: float
    status: str | None
    diagnostic: str | None


class OutboxStore(StoreBase):
    """The outbox, and the bounces of what it sent."""

    def queue_mail(self, *, message_id: str, kind: str, game_id: str | None,
                   recipient: str, sender: str, raw: bytes, cause: str | None,
                   now: float) -> bool:
        """Queue one outgoing mail; False if a mail with MESSAGE_ID is queued already.

        A new mail is due at once (next_attempt 0): NOW is the game clock, which need
        not be the outbox's (tests run games on a clock of their own)."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO outbox_queue (message_id, kind, game_id, recipient, "
                "sender, cause, created, next_attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [message_id, kind, game_id, recipient, sender, cause, now,
                 OUTBOX_HELD if self._hold_outbox else 0])
            if not cursor.rowcount:
                return False
            self.db.execute("INSERT INTO outbox_raw (id, raw) VALUES (?, ?)",
                            [cursor.lastrowid, raw])
        return True

    def release_held(self) -> int:
        """Make the held mails due at once (in the caller's transaction, one that waits
        for the disk: it makes the commits that queued them durable); how many."""
        return int(self.db.execute(
            "UPDATE outbox_queue SET next_attempt = 0 WHERE sent IS NULL AND failed IS NULL "
            "AND next_attempt >= ?", [OUTBOX_HELD]).rowcount)

    def due_mail(self, now: float, limit: int = 50) -> list[OutboxRow]:
        rows = self.db.execute(
            "SELECT q.id, q.message_id, q.kind, q.recipient, q.sender, r.raw, q.attempts "
            "FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id "
            "WHERE q.sent IS NULL AND q.failed IS NULL AND q.next_attempt <= ? "
            "ORDER BY q.next_attempt, q.id LIMIT ?", [now, limit]).fetchall()
        return [OutboxRow(r[0], r[1], r[2], r[3], r[4], bytes(r[5]), r[6]) for r in rows]

    def next_mail_due(self) -> float | None:
        """When the earliest unsent mail is due (None: nothing waits; a held mail waits
        for its release, which wakes the sender)."""
        row = self.db.execute("SELECT MIN(next_attempt) FROM outbox_queue WHERE sent IS NULL "
                              "AND failed IS NULL AND next_attempt < ?",
                              [OUTBOX_HELD]).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def mark_sent(self, mail_id: int, now: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET sent = ?, attempts = attempts + 1, "
                            "last_error = NULL WHERE id = ?", [now, mail_id])

    def mark_retry(self, mail_id: int, error: str, next_attempt: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET attempts = attempts + 1, last_error = ?, "
                            "next_attempt = ? WHERE id = ?", [error, next_attempt, mail_id])

    def mark_failed(self, mail_id: int, error: str, now: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET attempts = attempts + 1, last_error = ?, "
                            "failed = ? WHERE id = ?", [error, now, mail_id])

    def sent_since(self, recipient: str, kinds: Sequence[str], since: float) -> int:
        """How many mails of KINDS were queued for RECIPIENT since SINCE."""
        marks = ", ".join("?" for _ in kinds)
        row = self.db.execute(
            f"SELECT COUNT(*) FROM outbox_queue WHERE recipient = ? COLLATE NOCASE AND kind IN "
            f"({marks}) AND created >= ?", [recipient, *kinds, since]).fetchone()
        return int(row[0])

    def outbox_counts(self) -> dict[str, int]:
        """Queued, sent and failed mail: for the operator's log."""
        row = self.db.execute(
            "SELECT SUM(sent IS NULL AND failed IS NULL), SUM(sent IS NOT NULL), "
            "SUM(failed IS NOT NULL) FROM outbox_queue").fetchone()
        return {"queued": row[0] or 0, "sent": row[1] or 0, "failed": row[2] or 0}

    def outbox_mail(self, mail_id: int) -> tuple[str, str | None, str] | None:
        """The recipient, game and kind of outbox mail MAIL_ID."""
        row = self.db.execute("SELECT recipient, game_id, kind FROM outbox_queue WHERE id = ?",
                              [mail_id]).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def outbox_backlog(self, now: float) -> tuple[int, float | None]:
        """How many mails wait to be sent, and since when the oldest waits."""
        row = self.db.execute("SELECT COUNT(*), MIN(created) FROM outbox_queue WHERE "
                              "sent IS NULL AND failed IS NULL").fetchone()
        return int(row[0]), (None if row[1] is None else float(row[1]))

    def last_report_move(self, recipient: str, game_id: str, before_id: int) -> int | None:
        """The move shown by the last mail of GAME_ID sent to RECIPIENT before outbox
        mail BEFORE_ID (its X-Moderator-Move header), None if there is none."""
        rows = self.db.execute(
            "SELECT r.raw FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id WHERE "
            "q.recipient = ? COLLATE NOCASE AND q.game_id = ? AND q.id < ? AND q.sent IS "
            "NOT NULL ORDER BY q.id DESC LIMIT 1", [recipient, game_id, before_id]).fetchall()
        for (raw,) in rows:
            head = bytes(raw).split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
            for line in head.splitlines():
                if line.lower().startswith(b"x-moderator-move:"):
                    value = line.split(b":", 1)[1].strip()
                    if value.isdigit():
                        return int(value)
        return None

    def sent_raw(self, message_id: str) -> bytes | None:
        """The mail the moderator queued with MESSAGE_ID (None: not one of its own)."""
        found = self.db.execute(
            "SELECT r.raw FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id "
            "WHERE q.message_id = ?", [message_id]).fetchone()
        return None if found is None else bytes(found[0])

    # --- bounces (schema 7) -----------------------------------------------------------
    def record_bounce(self, bounce: Bounce, *, cause: str | None, outbox_id: int | None
                      ) -> None:
        self.db.execute(
            "INSERT INTO bounces (received, cause, outbox_id, recipient, game_id, status, "
            "permanent, diagnostic) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [bounce.received, cause, outbox_id, bounce.recipient.lower(), bounce.game_id,
             bounce.status, int(bounce.permanent), bounce.diagnostic])

    def bounces_since(self, since: float) -> tuple[int, int]:
        """Permanent and temporary bounces received since SINCE."""
        row = self.db.execute("SELECT SUM(permanent), SUM(1 - permanent) FROM bounces "
                              "WHERE received >= ?", [since]).fetchone()
        return int(row[0] or 0), int(row[1] or 0)

    def mark_undeliverable(self, address: str, since: float, status: str | None,
                           diagnostic: str | None) -> bool:
        """ADDRESS receives no mail; False if it was marked so already."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO undeliverable (address, since, status, diagnostic) "
            "VALUES (?, ?, ?, ?)", [address.lower(), since, status, diagnostic])
        return bool(cursor.rowcount)

    def undeliverable(self, address: str | None = None) -> list[Undeliverable]:
        """Every address marked (or ADDRESS's mark, if it has one)."""
        where, params = ("WHERE address = ?", [address.lower()]) if address else ("", [])
        rows = self.db.execute(f"SELECT address, since, status, diagnostic FROM "
                               f"undeliverable {where} ORDER BY since", params).fetchall()
        return [Undeliverable(*r) for r in rows]

    def undeliverable_members(self, game_id: str) -> list[tuple[Member, Undeliverable]]:
        """GAME_ID's members whose address receives no mail (one query: every report
        asks)."""
        rows = self.db.execute(
            "SELECT m.game_id, m.address, m.role, m.seat, m.key, m.status, m.reported_move, "
            "u.since, u.status, u.diagnostic FROM members m JOIN undeliverable u ON "
            "u.address = m.address WHERE m.game_id = ? ORDER BY m.created, m.rowid",
            [game_id]).fetchall()
        return [(Member(*r[:7]), Undeliverable(r[1], r[7], r[8], r[9])) for r in rows]

    def clear_undeliverable(self, address: str) -> bool:
        """ADDRESS mailed us: it may receive again. False if it was not marked."""
        cursor = self.db.execute("DELETE FROM undeliverable WHERE address = ?",
                                 [address.lower()])
        return bool(cursor.rowcount)
