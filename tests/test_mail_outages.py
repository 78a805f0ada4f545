"""Mail servers that go away: the SMTP server down for a while, the IMAP server
restarted while the daemon waits in IDLE. Real servers, the real daemon."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from mailservers import (
    MAIL_PATIENCE,
    daemon_settings,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
    wait_for_mail,
    wait_until_seen,
)

from moderator import service
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(60)]

MODERATOR = service.MODERATOR_ADDRESS
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


async def until(check: Callable[[], bool], timeout: float = MAIL_PATIENCE) -> None:
    """Poll CHECK until it is true (the daemon runs on this loop: never block it)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{check} still false after {timeout}s")
        await asyncio.sleep(0.05)


async def test_mail_waits_while_smtp_is_down_and_goes_when_it_returns(
    mail_servers: LocalMail
) -> None:
    config = await daemon_settings(mail_servers)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    async with running_daemon(config):
        await mail_servers.stop_smtp()
        # The player's mail reaches the mailbox another way while SMTP is down.
        first = store.load(game_id).turn()
        assert first is not None
        mover = PLAYERS[first.seat]
        raw = (f"From: {mover}\r\nTo: {seat_address(config, game_id, first.seat)}\r\n"
               f"Subject: [{game_id}] orders\r\nMessage-ID: <smtp-down@example.org>\r\n\r\n"
               "buy TCC\r\n").encode()
        await mail_servers.deliver(mover, MODERATOR, raw)
        await wait_until_seen(mail_servers, MODERATOR, "<smtp-down@example.org>")
        # Flagged once recorded; applied, though nothing can be sent.
        await until(lambda: len(store.moves(game_id)) == 1)

        def retried() -> bool:
            rows = store.execute("SELECT MIN(attempts) FROM outbox WHERE sent IS NULL")
            return bool(rows[0][0] and rows[0][0] >= 2)

        await until(retried)  # tried, failed, tried again: queued, not lost
        assert store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL") == [(4,)]

        await mail_servers.start_smtp()
        reply = await wait_for_mail(mail_servers, mover,
                                    predicate=lambda m: m["X-Moderator-Move"] == "1")
        assert f"{first.seat} buys TCC" in text_of(reply)
        for address in ("gm@example.org", *PLAYERS.values()):
            await wait_for_mail(mail_servers, address,
                                predicate=lambda m: m["X-Moderator-Move"] == "1")
        await until(lambda: store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL")
               == [(0,)])
    assert store.execute("SELECT COUNT(*) FROM outbox WHERE failed IS NOT NULL") == [(0,)]


async def test_imap_restart_during_idle_is_survived(
    mail_servers: LocalMail, caplog: pytest.LogCaptureFixture
) -> None:
    # IDLE is renewed only after ten minutes: a reply within MAIL_PATIENCE shows that
    # the daemon noticed the lost connection itself, not at its IDLE's end.
    config = await daemon_settings(mail_servers, imap={"idle_timeout": 600.0})
    assert config.imap.idle
    async with running_daemon(config):
        await send_mail(mail_servers, "ann@example.org", MODERATOR, "one", "help\n")
        await wait_for_mail(mail_servers, "ann@example.org",
                            predicate=lambda m: m["Subject"] == "Re: one")
        await mail_servers.restart_imap()  # the daemon is in IDLE: its connection drops
        await send_mail(mail_servers, "ann@example.org", MODERATOR, "two", "help\n")
        await wait_for_mail(mail_servers, "ann@example.org",
                            predicate=lambda m: m["Subject"] == "Re: two")
    assert "IMAP session ended" in caplog.text  # it did lose the connection
