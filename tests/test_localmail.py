"""The embedded local mail system: real pymap (IMAP) and aiosmtpd (SMTP) on loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosmtplib
import pytest
from mailservers import SMTP_PATIENCE, mailbox, send_mail, wait_for_mail

from moderator.mail.local import LocalMail, MailEndpoints, mailbox_address, port_is_free

pytestmark = [pytest.mark.mail, pytest.mark.timeout(60)]


async def test_mail_reaches_the_recipients_inbox(mail_servers: LocalMail) -> None:
    message_id = await send_mail(mail_servers, "ann@localhost", "bob@localhost", "Hello",
                                 "buy 1 B&O\n")

    got = await wait_for_mail(mail_servers, "bob@localhost")

    assert got["Message-ID"] == message_id
    assert got["Subject"] == "Hello"
    assert got["Delivered-To"] == "bob@localhost"
    assert got["Return-Path"] == "<ann@localhost>"
    assert got.get_content() == "buy 1 B&O\n"


async def test_plus_address_lands_in_the_base_mailbox_and_keeps_its_tag(
    mail_servers: LocalMail,
) -> None:
    await send_mail(mail_servers, "ann@localhost", "Moderator+18TN-1@localhost", "[18TN-1]",
                    "pass\n")

    got = await wait_for_mail(mail_servers, "moderator@localhost")

    assert got["Delivered-To"] == "Moderator+18TN-1@localhost"
    assert got["To"] == "Moderator+18TN-1@localhost"
    assert mail_servers.credentials("moderator+other@LOCALHOST")[0] == "moderator@localhost"


async def test_one_transaction_reaches_every_recipient(mail_servers: LocalMail) -> None:
    message = b"From: ann@localhost\r\nSubject: to all\r\n\r\nhi\r\n"
    await aiosmtplib.send(message, sender="ann@localhost",
                          recipients=["bob@localhost", "cy@localhost"],
                          hostname=mail_servers.host, port=mail_servers.smtp_port,
                          local_hostname="localhost")

    for rcpt in ("bob@localhost", "cy@localhost"):
        got = await wait_for_mail(mail_servers, rcpt)
        assert got["Delivered-To"] == rcpt


async def test_a_bounce_has_an_empty_return_path(mail_servers: LocalMail) -> None:
    await send_mail(mail_servers, "MAILER-DAEMON@localhost", "ann@localhost", "Undelivered",
                    "oops\n", envelope_from="")

    got = await wait_for_mail(mail_servers, "ann@localhost")

    assert got["Return-Path"] == "<>"


async def test_mail_and_users_survive_a_restart_with_a_new_password(tmp_path: Path) -> None:
    async with LocalMail(tmp_path / "mail") as first:
        await send_mail(first, "ann@localhost", "bob@localhost", "kept", "still here\n")
        await wait_for_mail(first, "bob@localhost")
        first_ports = (first.imap_port, first.smtp_port)

    assert all(port_is_free(first.host, port) for port in first_ports)  # all stopped

    async with LocalMail(tmp_path / "mail", password="another") as second:
        got = await wait_for_mail(second, "bob@localhost")
        assert got["Subject"] == "kept"
        old = MailEndpoints(second.host, second.imap_port, second.smtp_port, "local-mail")
        assert await mailbox(old, "bob@localhost") == []  # the old password no longer works


async def test_fixed_ports_are_used(tmp_path: Path) -> None:
    from moderator.mail.local import free_port

    imap, smtp = free_port(), free_port()
    async with LocalMail(tmp_path / "mail", imap_port=imap, smtp_port=smtp) as servers:
        assert (servers.imap_port, servers.smtp_port) == (imap, smtp)
        assert not port_is_free(servers.host, imap)
        assert not port_is_free(servers.host, smtp)


async def test_smtp_auth_when_required(tmp_path: Path) -> None:
    async with LocalMail(tmp_path / "mail", require_auth=True) as servers:
        smtp = {"hostname": servers.host, "port": servers.smtp_port,
                "local_hostname": "localhost", "timeout": SMTP_PATIENCE}
        message = b"From: ann@localhost\r\nSubject: s\r\n\r\nhi\r\n"
        send = aiosmtplib.send

        with pytest.raises(aiosmtplib.SMTPResponseException) as refused:
            await send(message, sender="ann@localhost", recipients=["bob@localhost"], **smtp)
        assert refused.value.code == 530

        # A wrong password must be refused, not hang the client (a hang would wait
        # forever; a loaded machine takes seconds).
        with pytest.raises(aiosmtplib.SMTPAuthenticationError):
            await asyncio.wait_for(
                send(message, sender="ann@localhost", recipients=["bob@localhost"],
                     username="ann@localhost", password="wrong", **smtp),
                30,
            )

        await send(message, sender="ann@localhost", recipients=["bob@localhost"],
                   username="ann@localhost", password=servers.password, **smtp)
        assert (await wait_for_mail(servers, "bob@localhost"))["Subject"] == "s"


@pytest.mark.parametrize(
    ("address", "mailbox_name"),
    [
        ("ann@localhost", "ann@localhost"),
        ("<Ann@LocalHost>", "ann@localhost"),
        ("moderator+18TN-1@localhost", "moderator@localhost"),
        ("postmaster", "postmaster"),
    ],
)
def test_mailbox_address(address: str, mailbox_name: str) -> None:
    assert mailbox_address(address) == mailbox_name


@pytest.mark.parametrize("address", ["", "+tag@localhost", "a b@localhost", "a:b@x"])
def test_undeliverable_addresses(address: str) -> None:
    with pytest.raises(ValueError):
        mailbox_address(address)


async def test_mail_for_recipients_it_does_not_keep_is_accepted_and_only_counted(
        tmp_path: Path) -> None:
    """`keeps`: the bench's players' mail is accepted as if it left for other servers,
    and never put into a mailbox; the kept recipient's mail is delivered as usual."""
    async with LocalMail(tmp_path / "mail",
                         keeps=lambda rcpt: mailbox_address(rcpt) == "bob@localhost") as servers:
        message = b"From: ann@localhost\r\nSubject: to both\r\n\r\nhi\r\n"
        errors, _ = await aiosmtplib.send(
            message, sender="ann@localhost", recipients=["bob+t@localhost", "cy@localhost"],
            hostname=servers.host, port=servers.smtp_port, local_hostname="localhost")
        assert errors == {}
        got = await wait_for_mail(servers, "bob@localhost")
        assert got["Delivered-To"] == "bob+t@localhost"
        assert [rcpt for _, rcpt, _ in servers.accepted] == ["bob+t@localhost", "cy@localhost"]
        assert await mailbox(servers, "cy@localhost") == []
