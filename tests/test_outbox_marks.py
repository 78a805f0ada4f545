"""The outbox sends on while the processor holds the database's write lock (issue 14,
speed under a burst): the `sent` marks are written behind the sending, and all of
them before the outbox looks for due mail again. Against the real local SMTP server."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest
from mailservers import daemon_settings

from moderator.mail.local import LocalMail
from moderator.mail.outbox import Outbox
from moderator.store import Store

pytestmark = pytest.mark.asyncio

MAILS = 5


def _queue(store: Store, count: int) -> None:
    with store.transaction():
        for n in range(count):
            store.queue_mail(message_id=f"<m{n}@moderator.test>", kind="report",
                             game_id=None, recipient=f"p{n}@example.org",
                             sender="moderator@example.org",
                             raw=f"Subject: {n}\r\n\r\nmail {n}\r\n".encode(),
                             cause=None, now=time.time())


async def _accepted(servers: LocalMail, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(servers.accepted) < count:
        assert time.monotonic() < deadline, (
            f"{len(servers.accepted)} of {count} mails accepted while the lock is held")
        await asyncio.sleep(0.05)


async def test_the_outbox_sends_on_while_the_write_lock_is_held(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers)
    store = Store(config.moderator.database)
    _queue(store, MAILS)
    outbox = Outbox(Store(config.moderator.database, check_same_thread=False), config.smtp)
    # Another connection (the processor's) in a write transaction.
    holder = sqlite3.connect(str(config.moderator.database), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        drain = asyncio.ensure_future(outbox.drain())
        # Every mail reaches SMTP though no mark can be written yet (generous: this
        # is no speed claim, a mark waiting for the lock would wait 30 s).
        await _accepted(mail_servers, MAILS, timeout=20)
        assert not drain.done()  # it waits for its marks before it ends
        assert store.due_mail(time.time()) and len(store.due_mail(time.time())) == MAILS
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert await asyncio.wait_for(drain, 30) == MAILS
    assert store.due_mail(time.time()) == []
    assert store.outbox_counts()["sent"] == MAILS
    # Drained again: nothing goes twice.
    assert await asyncio.wait_for(outbox.drain(), 30) == 0
    assert len(mail_servers.accepted) == MAILS
