"""``moderator mail``: mail order lines to the embedded service, as a player would.

It reads the endpoints the running service wrote to WORKDIR/endpoints.json and
sends one mail through the service's local SMTP server.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path

import aiosmtplib
import click

from moderator.service import ENDPOINTS_FILE, EmbeddedEndpoints, read_endpoints

__all__ = ["build_mail", "send_lines"]

_TIMEOUT = 30.0


def send_lines(workdir: Path, sender: str, subject: str, lines: list[str]) -> None:
    """Mail LINES, one order per line, from SENDER to the service running on WORKDIR."""
    if "@" not in parseaddr(sender)[1]:
        raise click.BadParameter(f"{sender!r} is not a mail address", param_hint="--as")
    endpoints = _endpoints(workdir)
    message = build_mail(sender, endpoints.moderator, subject, lines)
    try:
        asyncio.run(_send(message, endpoints))
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise click.ClickException(
            f"could not mail {endpoints.moderator} through "
            f"{endpoints.mail.host}:{endpoints.mail.smtp_port}: {exc}. "
            f"Is `moderator serve --workdir {workdir}` still running?"
        ) from exc
    count = f"{len(lines)} line{'s' if len(lines) != 1 else ''}"
    click.echo(f"Mailed {count} from {sender} to {endpoints.moderator} "
               f"(SMTP {endpoints.mail.host}:{endpoints.mail.smtp_port}).")


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


async def _send(message: EmailMessage, endpoints: EmbeddedEndpoints) -> None:
    await aiosmtplib.send(
        message,
        hostname=endpoints.mail.host,
        port=endpoints.mail.smtp_port,
        local_hostname="localhost",  # the default asks DNS for the FQDN
        timeout=_TIMEOUT,
    )
