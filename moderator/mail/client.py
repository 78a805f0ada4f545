"""``moderator mail``: play by mail on one machine, through the embedded service.

It reads the endpoints the running service wrote to WORKDIR/endpoints.json, and acts
as the player's mail program would:

* it looks in the player's local mailbox for the moderator's latest mail (of the game
  ``--game`` if given) and *replies* to it -- to its Reply-To, which carries the
  player's password for that game -- so the orders are accepted;
* with ``--new``, or when the player has no mail from the moderator yet, it writes a
  new mail to the moderator (for `create game`, `help`);
* it then waits for the moderator's answer and prints it.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any

import aioimaplib
import aiosmtplib
import click

from moderator.mail.endpoints import (
    ENDPOINTS_FILE,
    LOCAL_SMTP_PATIENCE,
    EmbeddedEndpoints,
    read_endpoints,
)

__all__ = ["build_mail", "send_lines"]

_TIMEOUT = 30.0
# The sequence number of a FETCH answer; a player's local mailbox is never expunged, so
# it names a mail as well as its UID (which pymap may send after the message).
_SEQ_RE = re.compile(rb"^(\d+) FETCH")


@dataclass(frozen=True, slots=True)
class _Received:
    uid: int
    message: EmailMessage


class _OutputClosed(Exception):
    """Printing failed: the pipe the output went to was closed by its reader."""


def send_lines(workdir: Path, sender: str, subject: str, lines: list[str], *,
               new: bool = False, game: str | None = None, wait: float = _TIMEOUT,
               echo: Callable[[str], Any] = click.echo) -> None:
    """Mail LINES, one order per line, from SENDER to the service running on WORKDIR,
    as a reply to the moderator's latest mail unless NEW; print the answer."""
    address = parseaddr(sender)[1]
    if "@" not in address:
        raise click.BadParameter(f"{sender!r} is not a mail address", param_hint="--as")
    endpoints = _endpoints(workdir)

    def shown(text: str) -> None:
        try:
            echo(text)
        except BrokenPipeError:
            raise _OutputClosed from None

    try:
        asyncio.run(_exchange(endpoints, sender, subject, lines, new=new, game=game,
                              wait=wait, echo=shown))
    except _OutputClosed:
        # The reader of the output went away (`moderator mail ... | head -3`): not a
        # failed send (issue 31). Nothing more can be printed; the rest goes nowhere,
        # so that Python's own flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise click.ClickException(
            f"could not mail {endpoints.moderator} through "
            f"{endpoints.mail.host}:{endpoints.mail.smtp_port}: {exc}. "
            f"Is `moderator serve --workdir {workdir}` still running?"
        ) from exc


async def _exchange(endpoints: EmbeddedEndpoints, sender: str, subject: str,
                    lines: list[str], *, new: bool, game: str | None, wait: float,
                    echo: Callable[[str], Any]) -> None:
    address = parseaddr(sender)[1]
    previous = None if new else await _latest_from(endpoints, address,
                                                   endpoints.moderator, game)
    if previous is not None:
        message = build_reply(sender, previous, lines)
    else:
        message = build_mail(sender, endpoints.moderator, subject, lines)
    known = {m.uid for m in await _inbox(endpoints, address)}
    await aiosmtplib.send(message, hostname=endpoints.mail.host,
                          port=endpoints.mail.smtp_port, local_hostname="localhost",
                          timeout=LOCAL_SMTP_PATIENCE)
    count = f"{len(lines)} line{'s' if len(lines) != 1 else ''}"
    how = f"in reply to \"{previous['Subject']}\"" if previous is not None else "as a new mail"
    echo(f"Mailed {count} from {sender} to {message['To']} {how}.")
    if wait <= 0:
        return
    answer = await _wait_for_answer(endpoints, address, str(message["Message-ID"]), known,
                                    wait)
    if answer is None:
        echo(f"No answer within {wait:.0f}s; it will be in {address}'s mailbox.")
        return
    echo(f"\nSubject: {answer['Subject']}\n")
    part = answer.get_body(preferencelist=("plain",))
    if isinstance(part, EmailMessage):
        echo(str(part.get_content()).replace("\r\n", "\n").rstrip("\n"))


def build_mail(sender: str, to: str, subject: str, lines: list[str]) -> EmailMessage:
    """A plain-text mail whose body is LINES, one per line."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    if subject:
        message["Subject"] = subject
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain=parseaddr(sender)[1].rpartition("@")[2])
    message.set_content("\n".join(lines) + "\n")
    return message


def build_reply(sender: str, previous: EmailMessage, lines: list[str]) -> EmailMessage:
    """The reply a mail program writes to PREVIOUS: to its Reply-To, threaded."""
    subject = str(previous.get("Subject", ""))
    to = str(previous.get("Reply-To") or previous["From"])
    message = build_mail(sender, to, subject if subject.lower().startswith("re:")
                         else f"Re: {subject}", lines)
    previous_id = str(previous.get("Message-ID", "")).strip()
    if previous_id:
        message["In-Reply-To"] = previous_id
        message["References"] = f"{previous.get('References', '')} {previous_id}".strip()
    return message


def _endpoints(workdir: Path) -> EmbeddedEndpoints:
    try:
        return read_endpoints(workdir)
    except FileNotFoundError:
        raise click.ClickException(
            f"no running service found: {workdir / ENDPOINTS_FILE} does not exist. "
            f"Start one with `moderator serve --workdir {workdir}`."
        ) from None
    except (ValueError, KeyError) as exc:
        raise click.ClickException(
            f"{workdir / ENDPOINTS_FILE} is not readable: {exc}"
        ) from exc


async def _latest_from(endpoints: EmbeddedEndpoints, address: str, moderator: str,
                       game: str | None) -> EmailMessage | None:
    """The newest mail in ADDRESS's inbox from MODERATOR (about GAME, if given)."""
    for received in reversed(await _inbox(endpoints, address)):
        message = received.message
        sender = parseaddr(str(message.get("From", "")))[1].lower()
        if sender != moderator.lower():
            continue
        if game is None or str(message.get("X-Moderator-Game", "")).lower() == game.lower():
            return message
    return None


async def _wait_for_answer(endpoints: EmbeddedEndpoints, address: str, message_id: str,
                           known: set[int], wait: float) -> EmailMessage | None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            received_mails = await _inbox(endpoints, address)
        except (TimeoutError, OSError, aioimaplib.AioImapException):
            # One slow or dropped look (a busy pymap): the deadline decides, not it.
            received_mails = []
        for received in received_mails:
            if received.uid in known:
                continue
            if message_id in str(received.message.get("In-Reply-To", "")):
                return received.message
        await asyncio.sleep(0.2)
    return None


async def _inbox(endpoints: EmbeddedEndpoints, address: str) -> list[_Received]:
    """Every mail in ADDRESS's local INBOX, oldest first ([] before its first mail)."""
    mail = endpoints.mail
    client = aioimaplib.IMAP4(host=mail.host, port=mail.imap_port, timeout=_TIMEOUT)
    try:
        await client.wait_hello_from_server()
        login = await client.login(*mail.credentials(address))
        if login.result != "OK":
            return []  # the local mailbox is made with its first mail
        if (await client.select("INBOX")).result != "OK":
            return []
        response = await client.fetch("1:*", "(BODY.PEEK[])")
        if response.result != "OK":
            return []
        out: list[_Received] = []
        uid = 0
        for line in response.lines:
            if isinstance(line, bytes) and (m := _SEQ_RE.search(line)):
                uid = int(m.group(1))
            elif isinstance(line, bytearray):
                message = email.message_from_bytes(bytes(line), policy=email.policy.default)
                assert isinstance(message, EmailMessage)
                out.append(_Received(uid, message))
        return out
    finally:
        with contextlib.suppress(Exception):
            await client.logout()
        if client.protocol.transport is not None:
            client.protocol.transport.close()
