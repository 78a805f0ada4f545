"""Mail as it really arrives: no text part, HTML only, 8-bit and odd charsets, a 5 MB
body, attachments, a reply quoting the whole previous report, a mail delivered twice,
a forged From, a stale `move N`, bounces. Real servers, the real daemon."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from email.message import EmailMessage

import aiosmtplib
import pytest
import pytest_asyncio
from mailservers import (
    MAIL_PATIENCE,
    SMTP_PATIENCE,
    assert_no_mail,
    daemon_settings,
    mailbox,
    opening_orders,
    running_daemon,
    seat_address,
    seat_game,
    text_of,
    wait_for_mail,
    wait_until_seen,
)

from engine.game import Game
from moderator import service
from moderator.config import Config
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(60)]

MODERATOR = service.MODERATOR_ADDRESS
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


@dataclass
class Table:
    """A game under way, its daemon, and how to write to it as its players."""

    servers: LocalMail
    config: Config
    game_id: str
    store: Store
    count: int = 0

    def game(self) -> Game:
        return self.store.load(self.game_id)

    def mover(self) -> tuple[str, str]:
        turn = self.game().turn()
        assert turn is not None
        return turn.seat, PLAYERS[turn.seat]

    def to(self, seat: str) -> str:
        return seat_address(self.config, self.game_id, seat)

    def next_id(self) -> str:
        self.count += 1
        return f"<input-{self.count}-{time.monotonic_ns()}@example.org>"

    async def send(self, sender: str, to: str, raw: bytes) -> None:
        await aiosmtplib.send(raw, sender=sender,
                              recipients=[to], hostname=self.servers.host,
                              port=self.servers.smtp_port, local_hostname="localhost",
                              timeout=SMTP_PATIENCE)

    async def answer(self, address: str, message_id: str, timeout: float = MAIL_PATIENCE
                     ) -> EmailMessage:
        return await wait_for_mail(self.servers, address, timeout=timeout,
                                   predicate=lambda m: m["In-Reply-To"] == message_id)


@pytest_asyncio.fixture
async def table(mail_servers: LocalMail) -> AsyncIterator[Table]:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    game_id = seat_game(config, PLAYERS)
    async with running_daemon(config):
        yield Table(mail_servers, config, game_id, Store(config.moderator.database))


def head(sender: str, to: str, message_id: str, subject: str = "orders",
         extra: str = "") -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\n"
            f"Message-ID: {message_id}\r\nMIME-Version: 1.0\r\n{extra}").encode()


async def test_no_text_part_gets_a_polite_answer(table: Table) -> None:
    seat, sender = table.mover()
    mid = table.next_id()
    png = base64.encodebytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 200).decode()
    raw = head(sender, table.to(seat), mid, extra=(
        'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
        'Content-Disposition: attachment; filename="board.png"\r\n\r\n'
        f"{png}\r\n--b--\r\n"))
    await table.send(sender, table.to(seat), raw)
    answer = await table.answer(sender, mid)
    text = text_of(answer)
    assert "could not read any orders" in text and "image/png" in text
    assert table.game().next_move == 0


async def test_html_only_8bit_odd_charsets_and_attachments_are_read(table: Table) -> None:
    # HTML only, with the quoted previous mail in a blockquote (as Gmail writes it).
    seat, sender = table.mover()
    mid = table.next_id()
    html = ("<div dir=\"ltr\">move 0<br>buy TCC</div><br><div class=\"gmail_quote\">"
            "<div>On Sun, 22 Nov 2026 at 10:00, moderator wrote:</div><blockquote>"
            "<p>To move: Ann</p><p>buy ETWCR</p></blockquote></div>")
    await table.send(sender, table.to(seat), head(sender, table.to(seat), mid, extra=(
        "Content-Type: text/html; charset=utf-8\r\n\r\n" + html + "\r\n")))
    assert "Applied. The next move is 1." in text_of(await table.answer(sender, mid))

    # 8-bit Latin-1 body, an RFC 2047 (KOI8-R) subject and a UTF-8 encoded name.
    seat, sender = table.mover()
    mid = table.next_id()
    raw = (f"From: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <{sender}>\r\n"
           f"To: {table.to(seat)}\r\nSubject: =?koi8-r?b?8NLJ18XU?=\r\n"
           f"Message-ID: {mid}\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=iso-8859-1\r\n"
           "Content-Transfer-Encoding: 8bit\r\n\r\n").encode()
    raw += "pass\r\n-- \r\nJürgen aus Köln\r\n".encode("latin-1")
    await table.send(sender, table.to(seat), raw)
    answer = await table.answer(sender, mid)
    assert "Applied. The next move is 2." in text_of(answer)
    assert "Jürgen Müller" in str(answer["To"])

    # A charset nobody knows, 8-bit UTF-8 inside, plus a PDF attachment.
    seat, sender = table.mover()
    mid = table.next_id()
    pdf = base64.encodebytes(b"%PDF-1.4\n" + b"x" * 100_000).decode()
    order = opening_orders(table.game())[0]
    raw = head(sender, table.to(seat), mid, extra=(
        'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n"
        "Content-Transfer-Encoding: 8bit\r\n\r\n")) + (
        f"{order}\r\n-- \r\nÉtienne ☃\r\n").encode() + (
        "--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
        'Content-Disposition: attachment; filename="plan.pdf"\r\n\r\n'
        f"{pdf}\r\n--b--\r\n").encode()
    await table.send(sender, table.to(seat), raw)
    assert "Applied. The next move is 3." in text_of(await table.answer(sender, mid))


async def test_a_5_mb_mail_and_a_reply_quoting_the_whole_report(table: Table) -> None:
    seat, sender = table.mover()
    mid = table.next_id()
    junk = ("All work and no play makes Jack a dull boy. " * 2 + "\r\n") * 60_000
    raw = head(sender, table.to(seat), mid, extra="Content-Type: text/plain\r\n\r\n")
    raw += ("buy TCC\r\n-- \r\n" + junk).encode()
    assert len(raw) > 5 * 1024 * 1024
    # The CPU of this process (the SMTP server, the daemon, the test's clients), which a
    # loaded machine does not stretch as it does the wall clock (pymap's is its own).
    started = time.process_time()
    await table.send(sender, table.to(seat), raw)
    assert "Applied. The next move is 1." in text_of(await table.answer(sender, mid))
    assert time.process_time() - started < 15

    # A reply on top of the whole previous report, quoted with "> ".
    report = await wait_for_mail(table.servers, sender,
                                 predicate=lambda m: m["X-Moderator-Move"] == "1")
    seat, sender = table.mover()
    mid = table.next_id()
    quoted = "\r\n".join("> " + line for line in text_of(report).splitlines())
    body = f"pass\r\n\r\nOn Sun, 22 Nov 2026 at 10:00, moderator wrote:\r\n{quoted}\r\n"
    await table.send(sender, table.to(seat), head(
        sender, table.to(seat), mid, extra="Content-Type: text/plain\r\n\r\n") + body.encode())
    answer = text_of(await table.answer(sender, mid))
    assert "Applied. The next move is 2." in answer
    assert answer.count("> ") == 1  # only the one order line is repeated


async def test_duplicates_forgeries_stale_orders_and_bounces(table: Table) -> None:
    servers = table.servers
    seat, sender = table.mover()
    # The same mail delivered twice (a mailing loop, a retrying relay): applied once.
    mid = table.next_id()
    raw = head(sender, table.to(seat), mid, extra="Content-Type: text/plain\r\n\r\n"
               ) + b"buy TCC\r\n"
    await servers.deliver(sender, table.to(seat), raw)
    await servers.deliver(sender, table.to(seat), raw)
    await table.answer(sender, mid)
    await wait_until_seen(servers, MODERATOR, mid)
    await assert_no_mail(servers, sender, within=0.5,
                         predicate=lambda m: m["In-Reply-To"] == mid and m["X-Moderator-Move"]
                         != "1")
    assert table.game().next_move == 1
    answers = [m for m in await _all(servers, sender) if m["In-Reply-To"] == mid]
    assert len(answers) == 1

    # A forged From without the token: nothing changes, the real player is told.
    seat, victim = table.mover()
    mid = table.next_id()
    await table.send("mallory@evil.example", MODERATOR, head(
        victim, MODERATOR, mid, subject=f"[{table.game_id}] orders",
        extra="Content-Type: text/plain\r\n\r\n") + b"pass\r\n")
    told = await wait_for_mail(servers, victim,
                               predicate=lambda m: "refused" in str(m["Subject"]))
    assert "did not carry your game password" in text_of(told)
    await wait_until_seen(servers, MODERATOR, mid)
    assert table.game().next_move == 1
    assert await _all(servers, "mallory@evil.example") == []

    # A stale `move N`: refused with the current number.
    mid = table.next_id()
    await table.send(victim, table.to(seat), head(
        victim, table.to(seat), mid, extra="Content-Type: text/plain\r\n\r\n")
        + b"move 0\r\npass\r\n")
    stale = text_of(await table.answer(victim, mid))
    assert "written for move 0; the game is at move 1 now" in stale
    assert table.game().next_move == 1

    # A bounce (empty envelope sender, a delivery report) and an auto-reply: no answer.
    bounce = table.next_id()
    # (delivered as the mail system delivers a bounce: MAIL FROM:<>, Return-Path: <>)
    await servers.deliver("<>", MODERATOR, head(
        "Mail Delivery System <MAILER-DAEMON@example.org>", MODERATOR, bounce,
        subject="Undelivered Mail Returned to Sender", extra=(
            'Content-Type: multipart/report; report-type=delivery-status; boundary="r"'
            "\r\n\r\n--r\r\nContent-Type: text/plain\r\n\r\nbuy TCC\r\n--r--\r\n")))
    auto = table.next_id()
    await table.send(victim, table.to(seat), head(
        victim, table.to(seat), auto, subject="Out of office",
        extra="Auto-Submitted: auto-replied\r\nContent-Type: text/plain\r\n\r\n")
        + b"pass\r\nI am away until Monday.\r\n")
    await wait_until_seen(servers, MODERATOR, bounce)
    await wait_until_seen(servers, MODERATOR, auto)
    await assert_no_mail(servers, victim, within=0.5,
                         predicate=lambda m: m["In-Reply-To"] in (bounce, auto))
    assert await _all(servers, "mailer-daemon@example.org") == []
    assert table.game().next_move == 1


async def _all(servers: LocalMail, address: str) -> list[EmailMessage]:
    return [m.message for m in await mailbox(servers, address)]
