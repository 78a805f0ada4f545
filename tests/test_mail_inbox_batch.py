"""A burst of mail is fetched and flagged in batches (issue 14, speed under a burst),
against the real local IMAP server: in order, a mail over the size limit alone and as
its header, nothing lost between searches, every mail answered once."""

from __future__ import annotations

import asyncio

import pytest
from mailservers import daemon_settings, mailbox, running_daemon, send_mail

from moderator import service
from moderator.mail.inbox import ImapSession
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

MODERATOR = service.MODERATOR_ADDRESS


async def test_a_burst_is_fetched_in_order_with_a_large_mail_alone(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers)
    sent = []
    for index in range(9):
        body = ("x" * 3000 if index == 4 else "help") + "\n"
        sent.append(await send_mail(mail_servers, f"p{index}@example.org", MODERATOR,
                                    f"mail {index}", body))
    session = ImapSession(config.imap)
    await session.open()
    try:
        uids = await session.unprocessed()
        assert len(uids) == 9
        first = await session.fetch_many(uids, max_bytes=2000)
        # Up to the large mail, in order, whole.
        assert [m.uid for m in first] == uids[:4]
        assert [sent[i].encode() in m.raw for i, m in enumerate(first)] == [True] * 4
        assert all(m.size == len(m.raw) for m in first)
        large = await session.fetch_many(uids[4:], max_bytes=2000)
        assert [m.uid for m in large] == [uids[4]]
        assert large[0].size > 3000 > len(large[0].raw)  # its header only
        assert sent[4].encode() in large[0].raw
        rest = await session.fetch_many(uids[5:], max_bytes=2000)
        assert [m.uid for m in rest] == uids[5:]
        await session.mark_many(uids[:7])
        session.processed_through(uids[6])
        assert await session.unprocessed() == uids[7:]
        await session.mark_many(uids[7:])
        session.processed_through(uids[-1])
        assert await session.unprocessed() == []
        # Mail that comes after is found above what was flagged.
        late = await send_mail(mail_servers, "late@example.org", MODERATOR, "late", "help")
        found = []
        for _ in range(100):
            found = await session.unprocessed()
            if found:
                break
            await asyncio.sleep(0.05)
        fetched = await session.fetch_many(found, max_bytes=2000)
        assert [late.encode() in m.raw for m in fetched] == [True]
        await session.logout()
    finally:
        session.close()


async def test_every_mail_of_a_burst_is_answered(mail_servers: LocalMail) -> None:
    """More mail than one batch, sent at once: none is lost between the batches and
    the searches (each answer names the mail it answers)."""
    count = service.FETCH_BATCH + 7
    config = await daemon_settings(mail_servers)
    async with running_daemon(config):
        sent = set(await asyncio.gather(*(
            send_mail(mail_servers, f"p{index}@example.org", MODERATOR, "hi", "help")
            for index in range(count))))
        answered: set[str] = set()
        for _ in range(600):
            answered = set()
            for index in range(count):
                answered |= {str(m.message["In-Reply-To"])
                             for m in await mailbox(mail_servers, f"p{index}@example.org")}
            if answered >= sent:
                break
            await asyncio.sleep(0.2)
    assert answered == sent


async def test_a_whole_search_now_and_then_finds_mail_below_the_floor(
        mail_servers: LocalMail) -> None:
    """Should a server show a mail late under a lower UID than one already flagged, the
    periodic whole search still finds it."""
    config = await daemon_settings(mail_servers)
    first = await send_mail(mail_servers, "a@example.org", MODERATOR, "one", "help")
    second = await send_mail(mail_servers, "b@example.org", MODERATOR, "two", "help")
    session = ImapSession(config.imap)
    await session.open()
    try:
        uids = await session.unprocessed()
        assert len(uids) == 2
        await session.mark_many(uids[1:])
        session.processed_through(uids[1])  # as if the first had not been shown
        assert await session.unprocessed() == []  # a search from the floor
        session.searched_all = 0.0  # FULL_SEARCH_EVERY has passed
        found = await session.unprocessed()
        assert found == uids[:1]
        [mail] = await session.fetch_many(found, max_bytes=100_000)
        assert first.encode() in mail.raw and second.encode() not in mail.raw
        await session.logout()
    finally:
        session.close()
