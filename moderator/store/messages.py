"""The mail received (`messages`): every mail the inbox fetched, its tries, the order
its author wrote it in, and the quarantine of the mails given up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from moderator.store.base import StoreBase


@dataclass(frozen=True, slots=True)
class MessageRow:
    key: str
    message_id: str | None
    raw: bytes
    size: int
    received: float
    status: Literal["new", "done"]
    outcome: str | None
    attempts: int  # earlier tries that did not finish (the process died)


@dataclass(frozen=True, slots=True)
class MessageState:
    """A recorded mail's tries (schema 4): for retries, the quarantine and its command."""

    number: int  # the row number: a short name for the operator
    key: str
    sender: str | None
    received: float
    status: Literal["new", "done"]
    attempts: int
    failures: int  # tries that ended in an error
    last_error: str | None
    retry_at: float | None  # when the next try is due (wall-clock time)
    quarantined: float | None
    digest: str | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A recorded mail not yet processed, as the order of writing sees it."""

    key: str
    author: str | None  # the From address's mailbox (lower case, no +tag)
    written: float  # its Date header, within reason; else when it was first seen
    seen: float  # when the daemon first recorded it (real time)
    number: int  # its row number: the order it was recorded in


class MessagesStore(StoreBase):
    """The inbox's record."""

    def add_message(self, key: str, message_id: str | None, raw: bytes, size: int,
                    now: float, *, author: str | None = None, written: float | None = None,
                    seen: float | None = None) -> MessageRow:
        """Record a fetched mail unless its key is known; return the stored row (the
        earlier one for a duplicate). AUTHOR, WRITTEN and SEEN place it in the order
        of writing (kept from its first recording). Opens its own transaction when
        called alone."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO messages (key, message_id, raw, size, received, "
                "author, written, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [key, message_id, raw, size, now, author, written, seen])
            if not cursor.rowcount:
                # Known and not done: fetched again after a crash while processing it.
                # Counting these tries is what lets the processor give up on a mail
                # that kills it every time.
                self.db.execute("UPDATE messages SET attempts = attempts + 1 WHERE key = ? "
                                "AND status = 'new'", [key])
            row = self.message(key)
        assert row is not None
        return row

    def count_attempt(self, key: str) -> None:
        """One more try at processing KEY (for mail found unprocessed at start-up)."""
        with self.transaction():
            self.db.execute("UPDATE messages SET attempts = attempts + 1 WHERE key = ?", [key])

    def message(self, key: str) -> MessageRow | None:
        found = self.db.execute(
            "SELECT key, message_id, raw, size, received, status, outcome, attempts "
            "FROM messages WHERE key = ?", [key]).fetchone()
        if found is None:
            return None
        return MessageRow(found[0], found[1], bytes(found[2]), found[3], found[4], found[5],
                          found[6], found[7])

    def pending_messages(self) -> list[str]:
        """Keys of the recorded mails not yet processed, oldest first."""
        return [r[0] for r in self.db.execute(
            "SELECT key FROM messages WHERE status = 'new' ORDER BY received, rowid")]

    def waiting_messages(self, *, retries_too: bool = False) -> list[Waiting]:
        """The recorded mails not yet processed, in the order they were recorded: those
        waiting for their first try (RETRIES_TOO: and those waiting for a retry). A
        mail recorded before the columns existed counts as written when received."""
        rows = self.db.execute(
            "SELECT key, author, COALESCE(written, seen, received), COALESCE(seen, "
            "received), rowid FROM messages WHERE status = 'new' AND quarantined IS NULL "
            + ("" if retries_too else "AND retry_at IS NULL ") + "ORDER BY rowid").fetchall()
        return [Waiting(*row) for row in rows]

    def message_written(self, key: str) -> tuple[str | None, float | None]:
        """KEY's author and when it was written (None for mail recorded without)."""
        row = self.db.execute("SELECT author, written FROM messages WHERE key = ?",
                              [key]).fetchone()
        return (None, None) if row is None else (row[0], row[1])

    def applied_after(self, author: str, game_id: str, key: str, written: float
                      ) -> tuple[str, float, bytes] | None:
        """The first mail of AUTHOR to GAME_ID, other than KEY, processed already, that
        made moves, written after WRITTEN and seen by the daemon after WRITTEN too (a
        sender's two devices may disagree on the time: a mail written after the other
        arrived is never late); its key, when it was written, and its bytes."""
        row = self.db.execute(
            "SELECT m.key, m.written, m.raw FROM messages m WHERE m.author = ? AND "
            "m.game_id = ? AND m.key != ? AND m.status = 'done' AND m.written > ? AND "
            "m.seen > ? AND EXISTS (SELECT 1 FROM moves WHERE moves.game_id = m.game_id "
            "AND moves.cause = m.key) ORDER BY m.written LIMIT 1",
            [author, game_id, key, written, written]).fetchone()
        return None if row is None else (row[0], row[1], bytes(row[2]))

    def finish_message(self, key: str, outcome: str, *, game_id: str | None,
                       sender: str | None, now: float) -> None:
        self.db.execute(
            "UPDATE messages SET status = 'done', outcome = ?, game_id = ?, sender = ?, "
            "processed = ? WHERE key = ?", [outcome, game_id, sender, now, key])

    # --- failed tries and the quarantine (schema 4) --------------------------------------
    def message_digest(self, key: str) -> tuple[bool, str | None]:
        """Whether KEY is recorded, and the digest of what it says (None if unknown)."""
        row = self.db.execute("SELECT digest FROM messages WHERE key = ?", [key]).fetchone()
        return (False, None) if row is None else (True, row[0])

    def set_digest(self, key: str, digest: str) -> None:
        self.db.execute("UPDATE messages SET digest = COALESCE(digest, ?) WHERE key = ?",
                        [digest, key])

    _STATE_COLUMNS = ("rowid, key, sender, received, status, attempts, failures, "
                      "last_error, retry_at, quarantined, digest")

    def message_state(self, key: str) -> MessageState | None:
        row = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages WHERE key = ?",
                              [key]).fetchone()
        return None if row is None else MessageState(*row)

    def find_message(self, ref: str) -> list[MessageState]:
        """The mails REF names: a row number, a key, or the start of one."""
        ref = ref.strip()
        if ref.lstrip("#").isdigit():
            rows = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages "
                                   "WHERE rowid = ?", [int(ref.lstrip("#"))]).fetchall()
        else:
            rows = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages WHERE key = ?",
                                   [ref]).fetchall() or self.db.execute(
                f"SELECT {self._STATE_COLUMNS} FROM messages WHERE substr(key, 1, ?) = ? "
                "ORDER BY rowid LIMIT 20", [len(ref), ref]).fetchall()
        return [MessageState(*r) for r in rows]

    def troubled_messages(self) -> list[MessageState]:
        """The quarantined mails and those waiting to be tried again, oldest first."""
        rows = self.db.execute(
            f"SELECT {self._STATE_COLUMNS} FROM messages WHERE quarantined IS NOT NULL "
            "OR (status = 'new' AND failures > 0) ORDER BY received, rowid").fetchall()
        return [MessageState(*r) for r in rows]

    def record_failure(self, key: str, error: str, retry_at: float) -> None:
        """A try of KEY ended in ERROR; the next is due at RETRY_AT."""
        with self.transaction():
            self.db.execute("UPDATE messages SET failures = failures + 1, last_error = ?, "
                            "retry_at = ? WHERE key = ?", [error, retry_at, key])

    def quarantine(self, key: str, error: str, now: float) -> None:
        """Give KEY up: kept, with ERROR, until the operator releases it (the caller
        has marked it done, so a new fetch of it is recognised)."""
        self.db.execute("UPDATE messages SET quarantined = ?, last_error = ?, "
                        "retry_at = NULL WHERE key = ?", [now, error, key])

    def release(self, key: str, now: float) -> bool:
        """Let a quarantined KEY be tried again from the start (due at NOW)."""
        with self.transaction():
            cursor = self.db.execute(
                "UPDATE messages SET status = 'new', quarantined = NULL, attempts = 0, "
                "failures = 0, retry_at = ?, outcome = NULL, processed = NULL "
                "WHERE key = ? AND quarantined IS NOT NULL", [now, key])
        return bool(cursor.rowcount)

    def due_retries(self, now: float) -> list[str]:
        """Keys of the unfinished mails whose next try is due, the earliest first."""
        return [r[0] for r in self.db.execute(
            "SELECT key FROM messages WHERE status = 'new' AND retry_at IS NOT NULL "
            "AND retry_at <= ? ORDER BY retry_at, rowid", [now])]

    def quarantine_size(self) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM messages WHERE quarantined IS NOT NULL"
                              ).fetchone()
        return int(row[0])
