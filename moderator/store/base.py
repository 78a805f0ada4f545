"""What every part of the store stands on: the connection to the SQLite file and its
transactions.

`StoreBase` opens the file (WAL; a commit waits for the disk), brings its schema up to
date (`schema.migrate`) and runs transactions: nested ones are savepoints, and those
inside `lazily` commit without waiting for the disk (group commit). Each part of the
store (`games`, `messages`, `outbox`...) is a mixin over it; `moderator.store.Store`
composes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils

from moderator.store.schema import migrate


def mailbox_of(address: str) -> str:
    """ADDRESS as the mailbox it reaches: lower case, without a +tag (ann+1@x and
    ann+2@x are one person's, and limits count them together)."""
    local, at, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}{at}{domain}" if at else address.strip().lower()


class StoreError(Exception):
    """A store operation that cannot be done: unknown game, a conflicting append."""


class StoreBase:
    """One SQLite file: its connection, transactions and `meta` values."""

    def __init__(self, path: Path | str, *, check_same_thread: bool = True) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30,
                               check_same_thread=check_same_thread)
        conn.execute("PRAGMA journal_mode=WAL")  # readers never block the daemon
        # FULL: a committed transaction survives a power cut too, not only a crash of
        # the process; the daemon commits a few times per mail, so the cost is small.
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        self.db = sqlite_utils.Database(conn)
        self._depth = 0
        self._lazy = False  # inside `lazily`: commits do not wait for the disk
        # Commits that waited for the disk (synchronous=FULL), counted for the bench
        # (a statement trace would cost more than the statements: SQLite writes each
        # bound mail out in hex for it).
        self.durable_commits = 0
        # Inside `lazily(hold=True)`: the mails queued wait for `release_held`.
        self._hold_outbox = False
        with self.transaction():
            migrate(self.db)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One SQLite transaction: everything inside commits together or not at all.

        Nested calls use a savepoint, so a method with its own transaction (say
        `create_game`) can run inside the service's transaction for one message and
        still commits only with it."""
        conn = self.db.conn
        if self._depth:
            name = f"sp{self._depth}"
            conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
                raise
            finally:
                self._depth -= 1
            conn.execute(f"RELEASE {name}")
            return
        conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0
        conn.execute("COMMIT")
        self.durable_commits += not self._lazy

    @contextmanager
    def lazily(self, hold: bool = False) -> Iterator[None]:
        """The transactions inside commit without waiting for the disk (SQLite's
        synchronous=NORMAL under WAL): a crash of the process loses none of them, a power
        cut may lose the last ones -- until the next commit that waits (FULL, the
        default), which makes the log's earlier commits durable with it. HOLD: the mails
        queued inside are held until `release_held` (nothing leaves the machine that a
        power cut could take back). Called outside any transaction."""
        self.db.conn.execute("PRAGMA synchronous=NORMAL")
        held, self._hold_outbox = self._hold_outbox, self._hold_outbox or hold
        self._lazy = True
        try:
            yield
        finally:
            self._hold_outbox = held
            self._lazy = False
            self.db.conn.execute("PRAGMA synchronous=FULL")

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        [key, value])

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A raw query, for tests and the operator."""
        return [tuple(r) for r in self.db.execute(sql, list(params)).fetchall()]

    def close(self) -> None:
        self.db.conn.close()
