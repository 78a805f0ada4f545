"""Issue 31 (hostile mail, round three), by mail against the real servers (pymap IMAP,
aiosmtpd SMTP, the daemon in-process), one section per numbered case. Every test
ends with an ordinary `help` that must still be answered within the usual wait.

The helpers are those of `test_mail_hostile` (the corpus's own test); the cases that
join the corpus itself are in `hostile_corpus` (families `costly_headers`, ...).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiosmtplib
import pytest
import pytest_asyncio
from hostile_corpus import MODERATOR, corpus, folded, issue_31_costly_mails
from mailservers import daemon_settings, run_cli, running_daemon
from test_mail_hostile import (
    QUICK_RETRY,
    help_is_answered,
    message_rows,
    send_raw,
    sent,
)

from moderator.config import Config
from moderator.mail import limits
from moderator.mail.local import LocalMail
from moderator.mail.parse import read_key
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(180)]


@pytest_asyncio.fixture
async def daemon(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers, moderator=QUICK_RETRY)
    Store(config.moderator.database).close()
    async with running_daemon(config):
        yield config


async def quarantined_with(config: Config, key: str, timeout: float = 30.0) -> str:
    """The reason KEY was quarantined with, once it is (fails after TIMEOUT)."""
    deadline = time.monotonic() + timeout
    while True:
        for row_key, _, outcome, when in message_rows(config):
            if row_key == key and when is not None:
                return outcome or ""
        assert time.monotonic() < deadline, f"{key} was not quarantined"
        await asyncio.sleep(0.05)


# -- case 1: bounded cost per mail -----------------------------------------------------------


@pytest.mark.slow
async def test_the_issues_costly_headers_are_refused_at_the_door_and_help_goes_on(
        mail_servers: LocalMail, daemon: Config) -> None:
    # Before the limits these four cost the moderator over a minute of CPU (31 s, 20 s,
    # ...) and pymap, the embedded IMAP server, 20-45 s at every FETCH: the embedded
    # SMTP server refuses them now, as a mail server's header limit does.
    for index, item in enumerate(issue_31_costly_mails()):
        with pytest.raises(aiosmtplib.SMTPDataError) as refused:
            await send_raw(mail_servers, item.raw, "attacker@evil.test")
        assert refused.value.code == 552 and item.quarantined in refused.value.message
        await help_is_answered(mail_servers, f"after{index}@example.org")
    assert {rcpt for rcpt, _ in sent(mail_servers)} == {
        f"after{i}@example.org" for i in range(4)}


async def test_costly_headers_stored_anyway_are_quarantined_unread(
        mail_servers: LocalMail, daemon: Config) -> None:
    # A mail server without such limits stores them: the moderator never parses them.
    costly = [i for i in corpus() if i.quarantined]
    assert len(costly) >= 5
    for index, item in enumerate(costly):
        await mail_servers.deliver("attacker@evil.test", MODERATOR, item.raw)
        await help_is_answered(mail_servers, f"after{index}@example.org")
        reason = await quarantined_with(daemon, read_key(item.raw)[0])
        assert "over the mail limits" in reason and item.quarantined in reason, reason
    # Nothing went to the (forged) senders.
    assert {rcpt for rcpt, _ in sent(mail_servers)} == {
        f"after{i}@example.org" for i in range(len(costly))}
    # The operator sees why.
    listed = await run_cli("quarantine", "list", "--db", str(daemon.moderator.database))
    assert "over the mail limits: a Content-Type header has 101 parameters" in listed.stdout


async def test_a_mail_over_its_cpu_budget_is_quarantined_and_the_inbox_goes_on(
        mail_servers: LocalMail, monkeypatch: pytest.MonkeyPatch) -> None:
    # With the raw-byte limits lifted, only the budget is left to stop a Content-Type
    # of 20,000 parameters (about 2 CPU seconds in `email`'s parser).
    monkeypatch.setattr(limits, "LIMITS", limits.Limits(
        header_section_bytes=10**9, header_bytes=10**9, parameters=10**9))
    config = await daemon_settings(mail_servers, moderator={**QUICK_RETRY,
                                                            "mail_budget": 0.5})
    costly = (b"From: slow@evil.test\r\nTo: moderator@localhost\r\nSubject: help\r\n"
              b"Message-ID: <budget-1@evil.test>\r\nMIME-Version: 1.0\r\nContent-Type: "
              + ("text/plain; " + folded([f"p{i}=v" for i in range(20_000)], "; ")).encode()
              + b"\r\n\r\nhelp\r\n")
    async with running_daemon(config):
        await mail_servers.deliver("slow@evil.test", MODERATOR, costly)
        await help_is_answered(mail_servers)
        reason = await quarantined_with(config, "<budget-1@evil.test>")
        assert "went over the budget of 0.5 CPU seconds" in reason, reason
        await help_is_answered(mail_servers, "later@example.org")
    assert "slow@evil.test" not in {rcpt for rcpt, _ in sent(mail_servers)}
