"""Errors only the operator can fix (issue 29, item 4), against Dovecot and Postfix:
a wrong password (IMAP NO [AUTHENTICATIONFAILED], SMTP 535) and a certificate that
does not verify are logged once at ERROR with what to fix, tried again only after
``error_retry``, and shown by `moderator health` (exit status 1) until they are over.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from mailservers import run_cli, running_daemon
from realmail import RealMail, moderator_config, unique_address

from moderator.config import Config
from moderator.store import Store

# Two daemon runs and two CLI starts: 37 s on a loaded machine, so 180.
pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.timeout(180)]

#: Seconds the daemon runs on after logging the error: the short reconnect wait (0.1 s,
#: doubling to 0.5 s) would have tried some ten times by then.
RUN = 4.0
#: Seconds to wait for the daemon's first tries (a start and a TLS handshake each, slow on
#: a loaded machine).
FIRST_TRIES = 60.0


async def logged(caplog: pytest.LogCaptureFixture, *names: str) -> None:
    """Once each logger of NAMES has logged an error (polled: the daemon runs here)."""
    deadline = time.monotonic() + FIRST_TRIES
    while not all(errors(caplog, name) for name in names):
        assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
        await asyncio.sleep(0.05)


def queue_one(config: Config) -> None:
    """A mail waiting in the outbox, so that the daemon logs in to SMTP at once."""
    store = Store(config.moderator.database)
    try:
        store.queue_mail(message_id="<waiting@realmail.test>", kind="notice", game_id=None,
                         recipient="someone@example.org", sender=config.moderator.address,
                         raw=b"Subject: waiting\r\n\r\nwaiting\r\n", cause=None,
                         now=time.time())
    finally:
        store.close()


def errors(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.ERROR and r.name == name]


def failed_logins(servers: RealMail, user: str) -> int:
    """IMAP logins Dovecot refused for USER (its log)."""
    log = (servers.directory / "dovecot.log").read_text()
    return sum(1 for line in log.splitlines()
               if "imap-login" in line and "auth failed" in line and f"user=<{user}>" in line)


@pytest.mark.slow
async def test_a_wrong_password_is_an_error_logged_once_and_tried_rarely(
        real_mail: RealMail, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    address = unique_address("moderator", "localhost")
    wrong = {"password": "not the password", "error_retry": 3600.0}
    config = moderator_config(real_mail, tmp_path / "moderator", address, imap=wrong,
                              smtp=wrong)
    queue_one(config)
    async with running_daemon(config):
        await logged(caplog, "moderator.service", "moderator.mail.outbox")
        await asyncio.sleep(RUN)
    health = await run_cli("health", "--db", str(config.moderator.database))
    print(health.stdout)
    [imap] = errors(caplog, "moderator.service")
    [smtp] = errors(caplog, "moderator.mail.outbox")
    assert "AUTHENTICATIONFAILED" in imap and "check [imap] user and password" in imap
    assert "535" in smtp and "check [smtp] user and password" in smtp
    assert "next try is in 3600 s" in imap and "next try is in 3600 s" in smtp
    assert failed_logins(real_mail, address) == 1
    assert not [r for r in caplog.records if "reconnecting" in r.getMessage()]
    assert health.returncode == 1
    assert "FAIL imap: FAILING, a permanent error" in health.stdout
    assert "FAIL smtp: FAILING, a permanent error" in health.stdout
    assert "check [imap] user and password" in health.stdout
    # The password corrected: the next start logs in, sends the mail that waited,
    # and the health is good again.
    right = moderator_config(real_mail, tmp_path / "moderator", address)
    async with running_daemon(right):
        store = Store(right.moderator.database)
        try:
            deadline = time.monotonic() + FIRST_TRIES
            while store.outbox_counts()["sent"] < 1 or "imap" not in {
                    n for n, row in store.health().items() if row.ok and not row.error}:
                assert time.monotonic() < deadline, store.health()
                await asyncio.sleep(0.1)
        finally:
            store.close()
    health = await run_cli("health", "--db", str(right.moderator.database))
    assert health.returncode == 0, health.stdout
    assert "errors: none" in health.stdout


async def test_a_certificate_that_does_not_verify_is_an_error(
        real_mail: RealMail, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Without the suite's CA (ca_file) neither server's certificate verifies: over
    implicit TLS (IMAP) as over STARTTLS (SMTP)."""
    address = unique_address("moderator", "localhost")
    config = moderator_config(
        real_mail, tmp_path / "moderator", address,
        imap={"tls": "implicit", "port": real_mail.ports.imaps, "ca_file": None},
        smtp={"ca_file": None})
    queue_one(config)
    async with running_daemon(config):
        await logged(caplog, "moderator.service", "moderator.mail.outbox")
        await asyncio.sleep(2.0)  # time for a second try: there is none (error_retry)
    [imap] = errors(caplog, "moderator.service")
    [smtp] = errors(caplog, "moderator.mail.outbox")
    for message in (imap, smtp):
        assert "does not verify" in message and "ca_file" in message, message
    health = await run_cli("health", "--db", str(config.moderator.database))
    assert health.returncode == 1 and "does not verify" in health.stdout
