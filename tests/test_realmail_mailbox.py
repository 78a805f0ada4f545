"""The moderator's own mailbox on Dovecot (issue 29, item 7): processed mail past its
retention is expunged in bounded batches, and a mailbox near its quota is a warning
in the log and a failing `moderator health`.

Dovecot's quota plugin is on in tests/realmail.py (a quota of its own per user: the
passwd-file's userdb_quota_rule); mail is put in place by IMAP APPEND with the
arrival date (INTERNALDATE) a test needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import aioimaplib
import pytest
from mailservers import MAIL_PATIENCE, run_cli, running_daemon
from realmail import RealMail, moderator_config, unique_address

pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.timeout(120)]

DAY = 86400.0
PROCESSED = "Processed"


def old_mail(subject: str, size: int = 0) -> bytes:
    message = EmailMessage()
    message["From"] = "ann@example.org"
    message["To"] = "moderator@example.org"
    message["Subject"] = subject
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="realmail.test")
    message.set_content("status\n" + "x" * size + "\n")
    return message.as_bytes()


@contextlib.asynccontextmanager
async def logged_in(servers: RealMail, address: str) -> AsyncIterator[aioimaplib.IMAP4]:
    client = aioimaplib.IMAP4(host=servers.host, port=servers.imap_port, timeout=10)
    await client.wait_hello_from_server()
    assert (await client.login(*servers.credentials(address))).result == "OK"
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await client.logout()


async def subjects(servers: RealMail, address: str, folder: str) -> list[str]:
    async with logged_in(servers, address) as client:
        assert (await client.select(folder)).result == "OK"
        response = await client.uid("fetch", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        found = []
        for line in response.lines:
            if isinstance(line, bytearray):
                found.append(bytes(line).decode().split(":", 1)[1].strip())
        return sorted(found)


async def wait_for(servers: RealMail, address: str, folder: str, wanted: list[str],
                   timeout: float = MAIL_PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while (now := await subjects(servers, address, folder)) != wanted:
        if time.monotonic() > deadline:
            raise AssertionError(f"{folder} has {now}, not {wanted}")
        await asyncio.sleep(0.2)


async def test_processed_mail_past_its_retention_is_expunged_in_batches(
        real_mail: RealMail, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    moderator = unique_address("moderator", "localhost")
    config = moderator_config(
        real_mail, tmp_path / "moderator", moderator,
        imap={"processed_folder": PROCESSED, "processed_retention_days": 30,
              "retention_batch": 3})
    now = time.time()
    async with logged_in(real_mail, moderator) as client:
        await client.create(PROCESSED)
        for index in range(5):  # processed 40 to 44 days ago
            assert (await client.append(old_mail(f"old {index}"), PROCESSED,
                                        date=now - (40 + index) * DAY)).result == "OK"
        for index in range(2):  # processed yesterday and 29 days ago: kept
            assert (await client.append(old_mail(f"recent {index}"), PROCESSED,
                                        date=now - (1 + 28 * index) * DAY)).result == "OK"
    caplog.set_level(logging.INFO, logger="moderator.service")
    async with running_daemon(config):
        # The first session takes a batch: the first three to come to the folder.
        await wait_for(real_mail, moderator, PROCESSED,
                       ["old 3", "old 4", "recent 0", "recent 1"])
    assert any("expunged 3 processed mails older than 30 days from Processed" in r.message
               for r in caplog.records), [r.message for r in caplog.records]
    async with running_daemon(config):
        # The next session (here: after a restart) the rest.
        await wait_for(real_mail, moderator, PROCESSED, ["recent 0", "recent 1"])
        # New mail is processed and moved there as ever, and kept.
        async with logged_in(real_mail, moderator) as client:
            assert (await client.append(old_mail("help"), "INBOX")).result == "OK"
        await wait_for(real_mail, moderator, PROCESSED, ["help", "recent 0", "recent 1"])


async def test_a_mailbox_near_its_quota_is_a_warning_and_fails_the_health_check(
        real_mail: RealMail, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    moderator = unique_address("moderator", "localhost")
    real_mail.add_user(moderator, quota="200K")
    config = moderator_config(real_mail, tmp_path / "moderator", moderator,
                              imap={"quota_warn_percent": 80.0})
    database = str(config.moderator.database)
    caplog.set_level(logging.INFO, logger="moderator.service")
    async with running_daemon(config):
        health = await _health_when(database, "quota: ok")
    assert health.returncode == 0, health.stdout
    assert "% of 0.2 MB used" in health.stdout
    assert not any("near its quota" in r.message for r in caplog.records)
    # 170 KB of the 200 kept in another folder (the moderator never reads it).
    async with logged_in(real_mail, moderator) as client:
        await client.create("Archive")
        assert (await client.append(old_mail("big", 170_000), "Archive")).result == "OK"
    async with running_daemon(config):
        health = await _health_when(database, "NEAR FULL")
    assert health.returncode == 1, health.stdout
    line = next(line for line in health.stdout.splitlines() if "quota" in line)
    assert line.startswith("FAIL quota: NEAR FULL, 8") and "warning above 80%" in line, line
    warnings = [r for r in caplog.records if "near its quota" in r.message]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert "used (1" in warnings[0].message and "of 200 KB" in warnings[0].message


async def _health_when(database: str, wanted: str, timeout: float = MAIL_PATIENCE) -> object:
    """`moderator health --db DATABASE`, once its quota line says WANTED."""
    deadline = time.monotonic() + timeout
    while True:
        result = await run_cli("health", "--db", database, "--max-age", "600")
        if wanted in result.stdout or time.monotonic() > deadline:
            return result
        await asyncio.sleep(0.3)
