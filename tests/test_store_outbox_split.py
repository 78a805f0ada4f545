"""Schema 5: the outbox's mails in a table of their own (issue 14, speed under a burst).

Marking a mail sent used to rewrite its whole row, a mail of 150 KB with its map; the
mails now sit in `outbox_raw`, written once, and the delivery state in `outbox_queue`.
A database made by the schema before (its `outbox` a table holding the mails) is
migrated when opened: every mail kept, byte for byte, with its state and id, and new
mails numbered after the old ones.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from moderator.store import SCHEMA_VERSION, Store

# The outbox of schema 4, as `moderator.store` created it before schema 5.
SCHEMA_4_OUTBOX = """
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    game_id TEXT,
    recipient TEXT NOT NULL,
    sender TEXT NOT NULL,
    raw BLOB NOT NULL,
    cause TEXT,
    created REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt REAL NOT NULL,
    sent REAL,
    failed REAL,
    last_error TEXT
);
CREATE INDEX outbox_due ON outbox (sent, failed, next_attempt);
CREATE INDEX outbox_recipient ON outbox (recipient, kind, created);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('schema_version', '4');
"""


def mail(n: int) -> bytes:
    return f"Message-ID: <{n}@m>\r\n\r\n".encode() + bytes(range(256)) * (n * 40)


def old_database(path: Path) -> None:
    """A schema-4 database: one mail sent, one given up, one waiting for a retry, one
    never tried; the highest id given out (5) belonged to a mail no longer there."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_4_OUTBOX)
    rows = [
        (1, "<r1@mod>", "reply", "18TN-1", "ann@x.org", mail(1), "<1@m>", 10.0, 1, 0.0, 11.0,
         None, None),
        (2, "<r2@mod>", "report", "18TN-1", "bob@x.org", mail(2), "<1@m>", 10.0, 5, 60.0,
         None, 70.0, "550 no such user"),
        (3, "<r3@mod>", "report", "18TN-1", "cy@x.org", mail(3), "<1@m>", 10.0, 2, 15.0,
         None, None, "421 try later"),
        (4, "<r4@mod>", "notice", None, "dee@x.org", mail(4), "<2@m>", 12.0, 0, 0.0,
         None, None, None),
        (5, "<r5@mod>", "notice", None, "eve@x.org", mail(5), "<3@m>", 13.0, 0, 0.0,
         None, None, None),
    ]
    conn.executemany(
        "INSERT INTO outbox (id, message_id, kind, game_id, recipient, sender, raw, cause, "
        "created, attempts, next_attempt, sent, failed, last_error) "
        "VALUES (?, ?, ?, ?, ?, 'moderator@x.org', ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("DELETE FROM outbox WHERE id = 5")
    conn.commit()
    conn.close()


def test_an_outbox_of_schema_4_is_migrated_with_every_mail_and_its_state(
        tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old_database(path)
    store = Store(path)
    assert store.execute("SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)]
    kinds = dict(store.execute("SELECT name, type FROM sqlite_master WHERE name LIKE "
                               "'outbox%' AND type IN ('table', 'view')"))
    assert kinds == {"outbox": "view", "outbox_queue": "table", "outbox_raw": "table"}
    # Every mail, byte for byte, with its state, under its id (through the view).
    rows = store.execute("SELECT id, recipient, raw, attempts, next_attempt, sent, failed, "
                         "last_error FROM outbox ORDER BY id")
    assert [(r[0], r[1], bytes(r[2]), r[3], r[4], r[5], r[6], r[7]) for r in rows] == [
        (1, "ann@x.org", mail(1), 1, 0.0, 11.0, None, None),
        (2, "bob@x.org", mail(2), 5, 60.0, None, 70.0, "550 no such user"),
        (3, "cy@x.org", mail(3), 2, 15.0, None, None, "421 try later"),
        (4, "dee@x.org", mail(4), 0, 0.0, None, None, None),
    ]
    # The sender's view of it: the unsent, not given up, due ones, in order.
    due = store.due_mail(now=20.0)
    assert [(m.id, m.recipient, m.raw, m.attempts) for m in due] == [
        (4, "dee@x.org", mail(4), 0), (3, "cy@x.org", mail(3), 2)]
    assert store.outbox_counts() == {"queued": 2, "sent": 1, "failed": 1}
    assert store.sent_since("BOB@x.org", ["report"], 0.0) == 1
    # A mail already queued under its Message-ID is not queued twice; a new one gets an
    # id above every id given out before, 5 included.
    with store.transaction():
        assert not store.queue_mail(message_id="<r4@mod>", kind="notice", game_id=None,
                                    recipient="dee@x.org", sender="moderator@x.org",
                                    raw=b"again", cause="<2@m>", now=30.0)
        assert store.queue_mail(message_id="<r6@mod>", kind="reply", game_id="18TN-1",
                                recipient="ann@x.org", sender="moderator@x.org",
                                raw=mail(6), cause="<4@m>", now=30.0)
    [(new_id, raw)] = store.execute("SELECT id, raw FROM outbox WHERE message_id = "
                                    "'<r6@mod>'")
    assert new_id > 5 and raw == mail(6)
    store.mark_sent(4, 31.0)
    store.mark_retry(3, "421 again", 90.0)
    store.mark_failed(new_id, "550 gone", 32.0)
    assert store.outbox_counts() == {"queued": 1, "sent": 2, "failed": 2}
    store.close()
    # Opened again, nothing is migrated twice and nothing is lost.
    again = Store(path)
    assert again.execute("SELECT COUNT(*) FROM outbox") == [(5,)]
    assert [m.id for m in again.due_mail(now=100.0)] == [3]
    again.close()


def test_marking_a_mail_sent_leaves_the_mail_itself_alone(tmp_path: Path) -> None:
    """The point of the split: the delivery state changes in `outbox_queue`; the row
    of `outbox_raw` holding the mail is the one written when it was queued (SQLite
    keeps a rewritten row under the same rowid, so the test looks at the pages the
    write touched: the database grows by no copy of the mail)."""
    store = Store(tmp_path / "new.sqlite")
    big = mail(30)  # about 300 KB
    with store.transaction():
        assert store.queue_mail(message_id="<big@mod>", kind="report", game_id="18TN-1",
                                recipient="ann@x.org", sender="moderator@x.org", raw=big,
                                cause="<1@m>", now=1.0)
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = tmp_path / "new.sqlite-wal"
    (mail_id,) = store.execute("SELECT id FROM outbox_queue")[0]
    store.mark_sent(mail_id, 2.0)
    # The write-ahead log holds the pages the mark changed: a few, not the mail's.
    assert wal.stat().st_size < len(big) / 10
    assert store.execute("SELECT raw, sent FROM outbox") == [(big, 2.0)]
    store.close()
