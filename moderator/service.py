"""The moderator service: a daemon that reads orders from IMAP and answers by SMTP.

This is the skeleton. It watches the moderator's INBOX (IMAP IDLE, with a poll
fallback), fetches every unseen mail, and answers each through SMTP with a reply
that quotes the order lines and says the rules engine is not connected yet. It
never answers automatic mail (auto-replies, lists, bounces). A mail is flagged
``\\Seen`` once it has been answered or deliberately skipped; a mail whose reply
could not be sent stays unseen and is retried on the next pass.

The pipeline is split into small steps -- `fetch_unseen_uids` / `fetch_message`
(fetch), `skip_reason` / `parse_orders` (parse), `build_reply` / `send_reply`
(reply), `mark_seen` -- so the rules engine can be slotted in between.

`run` is what ``moderator serve`` calls. Without a configuration file it starts
the embedded local mail system (`moderator.localmail.LocalMail`) under the work
folder and serves ``moderator@localhost``. Tests drive `serve_forever` directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import fcntl
import json
import logging
import os
import secrets
import shlex
import signal
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, replace
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any, TextIO

import aioimaplib
import aiosmtplib
import click

from moderator.localmail import (
    LOCAL_HOST,
    LocalMail,
    LocalMailError,
    MailEndpoints,
    mailbox_address,
    port_is_free,
)

__all__ = [
    "DEFAULT_IMAP_PORT",
    "DEFAULT_SMTP_PORT",
    "ENDPOINTS_FILE",
    "IMAP_PORT_ENV",
    "MODERATOR_ADDRESS",
    "SMTP_PORT_ENV",
    "EmbeddedEndpoints",
    "ImapError",
    "ImapSession",
    "ServiceSettings",
    "build_reply",
    "fetch_message",
    "fetch_unseen_uids",
    "mark_seen",
    "parse_orders",
    "read_endpoints",
    "run",
    "send_reply",
    "serve_embedded",
    "serve_forever",
    "skip_reason",
]

log = logging.getLogger(__name__)

MODERATOR_ADDRESS = "moderator@localhost"
DEFAULT_IMAP_PORT = 1143
DEFAULT_SMTP_PORT = 1025
#: Environment variables overriding the embedded ports (0 means any free port).
IMAP_PORT_ENV = "MODERATOR_IMAP_PORT"
SMTP_PORT_ENV = "MODERATOR_SMTP_PORT"

ENDPOINTS_FILE = "endpoints.json"
MAIL_DIR = "mail"
PASSWORD_FILE = "mail-password"
LOCK_FILE = "service.lock"
DEFAULT_WORKDIR = Path("moderator-data")

_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_SKIPPED_PRECEDENCE = frozenset({"bulk", "junk", "list"})


class ImapError(RuntimeError):
    """The IMAP server answered a command with NO or BAD, or the link broke."""


@dataclass(frozen=True)
class ServiceSettings:
    """Where the daemon reads and sends mail, and how patiently."""

    address: str  # the moderator's address: replies come from it
    imap_host: str
    imap_port: int
    imap_user: str
    imap_password: str
    smtp_host: str
    smtp_port: int
    smtp_user: str | None = None
    smtp_password: str | None = None
    helo_name: str = "localhost"
    mailbox: str = "INBOX"
    idle_timeout: float = 300.0  # re-issue IDLE this often (servers drop it at 30 min)
    poll_interval: float = 60.0  # when the server has no IDLE
    command_timeout: float = 30.0  # every IMAP and SMTP exchange
    reconnect_delay: float = 5.0

    @classmethod
    def for_local_mail(
        cls, endpoints: MailEndpoints, address: str = MODERATOR_ADDRESS, **overrides: Any
    ) -> ServiceSettings:
        """Settings for serving ADDRESS on the embedded local mail servers."""
        user, password = endpoints.credentials(address)
        settings = cls(
            address=address,
            imap_host=endpoints.host,
            imap_port=endpoints.imap_port,
            imap_user=user,
            imap_password=password,
            smtp_host=endpoints.host,
            smtp_port=endpoints.smtp_port,
        )
        return replace(settings, **overrides)


# -- the embedded service ----------------------------------------------------------------


def run(
    config_path: Path | None,
    workdir: Path,
    *,
    imap_port: int | None = None,
    smtp_port: int | None = None,
) -> None:
    """``moderator serve``: run until SIGINT or SIGTERM.

    Without CONFIG_PATH the embedded local mail servers run under WORKDIR on
    127.0.0.1, IMAP port 1143 and SMTP port 1025 unless IMAP_PORT / SMTP_PORT
    (or the environment variables MODERATOR_IMAP_PORT / MODERATOR_SMTP_PORT)
    say otherwise; 0 means any free port, and a taken port falls back to a free one.
    """
    if config_path is not None:
        raise click.UsageError(
            f"--config {config_path}: configuration files are not supported yet; they "
            "arrive with the mail-service issue. Run `moderator serve` without --config "
            "to use the embedded local mail servers."
        )
    imap = imap_port if imap_port is not None else _port_from_env(IMAP_PORT_ENV, DEFAULT_IMAP_PORT)
    smtp = smtp_port if smtp_port is not None else _port_from_env(SMTP_PORT_ENV, DEFAULT_SMTP_PORT)
    logging.basicConfig(level=logging.INFO, format=_LOG_FORMAT)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's per-connection chatter
    try:
        asyncio.run(serve_embedded(workdir, imap_port=imap, smtp_port=smtp))
    except KeyboardInterrupt:  # a Ctrl-C before the signal handlers were in place
        pass
    except LocalMailError as exc:
        raise click.ClickException(f"the local mail servers did not start: {exc}") from exc


def _port_from_env(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) > 65535:
        raise click.UsageError(f"{name}={value!r} is not a port number (0 means any free port)")
    return int(value)


async def serve_embedded(
    workdir: Path,
    *,
    imap_port: int = DEFAULT_IMAP_PORT,
    smtp_port: int = DEFAULT_SMTP_PORT,
    stop_event: asyncio.Event | None = None,
    out: TextIO | None = None,
) -> None:
    """Run LocalMail under WORKDIR and the daemon on it until stopped.

    Stops on SIGINT/SIGTERM, or when STOP_EVENT is set if one is given.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    stop = stop_event if stop_event is not None else _stop_on_signals()
    with _exclusive(workdir):
        mail = LocalMail(
            workdir / MAIL_DIR,
            imap_port=_choose_port(imap_port, "IMAP"),
            smtp_port=_choose_port(smtp_port, "SMTP"),
            password=_local_password(workdir),
        )
        async with mail:
            await mail.ensure_mailbox(MODERATOR_ADDRESS)
            endpoints = EmbeddedEndpoints(mail.endpoints, MODERATOR_ADDRESS, os.getpid())
            with _endpoints_written(workdir, endpoints):
                click.echo(banner(endpoints, workdir), file=out)
                await serve_forever(ServiceSettings.for_local_mail(mail.endpoints), stop)
    click.echo("Moderator stopped.", file=out)


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    return stop


def _choose_port(preferred: int, what: str) -> int | None:
    """PREFERRED if it is free; None (LocalMail picks a free port) if it is 0 or taken."""
    if not preferred:
        return None
    if port_is_free(LOCAL_HOST, preferred):
        return preferred
    log.warning("%s port %s is taken; using a free port instead", what, preferred)
    return None


def _local_password(workdir: Path) -> str:
    """The local users' password, made once per work folder and kept in it."""
    path = workdir / PASSWORD_FILE
    if path.exists() and (password := path.read_text().strip()):
        return password
    password = secrets.token_urlsafe(12)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(password + "\n")
    return password


@contextlib.contextmanager
def _exclusive(workdir: Path) -> Iterator[None]:
    """Refuse to run two services on one work folder (they would share a maildir)."""
    with open(workdir / LOCK_FILE, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise click.ClickException(
                f"another `moderator serve` is already running on {workdir}"
            ) from None
        yield


@dataclass(frozen=True)
class EmbeddedEndpoints:
    """What a running embedded service writes to WORKDIR/endpoints.json."""

    mail: MailEndpoints
    moderator: str
    pid: int

    def to_json(self) -> str:
        data = {
            "host": self.mail.host,
            "imap_port": self.mail.imap_port,
            "smtp_port": self.mail.smtp_port,
            "password": self.mail.password,
            "moderator": self.moderator,
            "pid": self.pid,
        }
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> EmbeddedEndpoints:
        data = json.loads(text)
        mail = MailEndpoints(
            str(data["host"]), int(data["imap_port"]), int(data["smtp_port"]),
            str(data["password"]),
        )
        return cls(mail, str(data["moderator"]), int(data["pid"]))


def read_endpoints(workdir: Path) -> EmbeddedEndpoints:
    """The endpoints of the service running on WORKDIR (FileNotFoundError if none)."""
    return EmbeddedEndpoints.from_json((workdir / ENDPOINTS_FILE).read_text())


@contextlib.contextmanager
def _endpoints_written(workdir: Path, endpoints: EmbeddedEndpoints) -> Iterator[None]:
    path = workdir / ENDPOINTS_FILE
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(endpoints.to_json())
    os.replace(tmp, path)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def banner(endpoints: EmbeddedEndpoints, workdir: Path) -> str:
    """What `moderator serve` prints: where to mail it and how to try it."""
    mail = endpoints.mail
    workdir_option = "" if workdir == DEFAULT_WORKDIR else f" --workdir {shlex.quote(str(workdir))}"
    return "\n".join([
        "PBEM moderator running (skeleton: it acknowledges orders; the rules engine "
        "is not connected yet).",
        f"  Mail orders to:  {endpoints.moderator}",
        f"  SMTP (send):     {mail.host}:{mail.smtp_port}  (no login needed)",
        f"  IMAP (read):     {mail.host}:{mail.imap_port}  login: your address, "
        f"password: {mail.password}",
        f"  Mail folder:     {workdir / MAIL_DIR}",
        "Try it:",
        f'  moderator mail{workdir_option} --as ann@localhost "status"',
        "Stop with Ctrl-C.",
    ])


# -- the daemon loop ---------------------------------------------------------------------


async def serve_forever(settings: ServiceSettings, stop_event: asyncio.Event) -> None:
    """Answer the moderator's mail until STOP_EVENT is set, reconnecting as needed."""
    log.info("serving %s from imap://%s:%s", settings.address, settings.imap_host,
             settings.imap_port)
    while not stop_event.is_set():
        try:
            await run_session(settings, stop_event)
        except (OSError, TimeoutError, ImapError, aioimaplib.AioImapException) as exc:
            log.warning("IMAP session ended (%s: %s); reconnecting in %ss",
                        type(exc).__name__, exc, settings.reconnect_delay)
            await _wait_event(stop_event, settings.reconnect_delay)


async def run_session(settings: ServiceSettings, stop_event: asyncio.Event) -> None:
    """One IMAP connection: answer what is unseen, then wait for news, repeat."""
    session = ImapSession(settings)
    try:
        await session.open()
        while not stop_event.is_set():
            await process_unseen(session)
            await wait_for_news(session, stop_event)
        await session.logout()
    finally:
        session.close()


async def process_unseen(session: ImapSession) -> int:
    """Answer every unseen mail, oldest first; return how many were flagged seen."""
    handled = 0
    for uid in await fetch_unseen_uids(session):
        message = await fetch_message(session, uid)
        if await handle_message(message, session.settings):
            await mark_seen(session, uid)
            handled += 1
    return handled


async def handle_message(message: EmailMessage, settings: ServiceSettings) -> bool:
    """Answer MESSAGE unless it must not be; False if it should be tried again later."""
    what = f"mail {message.get('Message-ID', '(no Message-ID)')} from {message.get('From')}"
    reason = skip_reason(message, settings.address)
    if reason is not None:
        log.info("not answering %s: %s", what, reason)
        return True
    try:
        reply = build_reply(message, parse_orders(message), settings.address)
    except Exception:
        log.exception("cannot build a reply to %s; leaving it unanswered", what)
        return True
    try:
        await send_reply(reply, settings)
    except (aiosmtplib.SMTPRecipientsRefused, aiosmtplib.SMTPSenderRefused) as exc:
        log.error("reply to %s refused for good: %s", what, exc)
        return True
    except (aiosmtplib.SMTPException, OSError) as exc:
        log.warning("reply to %s not sent, will retry: %s", what, exc)
        return False
    log.info("answered %s", what)
    return True


# -- fetch ------------------------------------------------------------------------------


async def fetch_unseen_uids(session: ImapSession) -> list[str]:
    """UIDs of the unseen mail in the selected mailbox, oldest first."""
    # Without a NOOP first, a server may answer from the state it had at SELECT.
    await session.command(session.client.noop(), "NOOP")
    response = await session.command(session.client.uid_search("UNSEEN", charset=None),
                                     "UID SEARCH")
    uids: list[str] = []
    for line in response.lines[:-1]:  # the last line is the completion text
        words = line.decode().split() if isinstance(line, bytes) else []
        if all(word.isdigit() for word in words):  # not e.g. "3 EXISTS"
            uids.extend(words)
    return sorted(set(uids), key=int)


async def fetch_message(session: ImapSession, uid: str) -> EmailMessage:
    """The mail with UID, parsed; fetched with BODY.PEEK so it stays unseen."""
    response = await session.command(session.client.uid("fetch", uid, "(BODY.PEEK[])"),
                                     f"UID FETCH {uid}")
    for line in response.lines:
        if isinstance(line, bytearray):
            return _parse_message(bytes(line))
    raise ImapError(f"UID FETCH {uid} returned no message: {response.lines!r}")


def _parse_message(raw: bytes) -> EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


async def mark_seen(session: ImapSession, uid: str) -> None:
    """Flag UID as answered or handled: ``\\Seen``."""
    await session.command(session.client.uid("store", uid, "+FLAGS.SILENT", r"(\Seen)"),
                          f"UID STORE {uid}")


# -- parse ------------------------------------------------------------------------------


def skip_reason(message: EmailMessage, moderator: str) -> str | None:
    """Why MESSAGE must not be answered (automatic mail, loops), or None to answer it."""
    auto = str(message.get("Auto-Submitted", "")).split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in _SKIPPED_PRECEDENCE:
        return f"Precedence: {precedence}"
    if message.get("List-Id") is not None:
        return "List-Id: mailing-list mail"
    return_path = message.get("Return-Path")
    if return_path is not None and str(return_path).strip() in ("", "<>"):
        return "empty Return-Path: a bounce"
    for header in ("Return-Path", "From"):
        local = parseaddr(str(message.get(header, "")))[1].partition("@")[0]
        if local.lower() == "mailer-daemon":
            return f"{header} is MAILER-DAEMON"
    if moderator.lower() in str(message.get("X-Loop", "")).lower():
        return "X-Loop: the moderator's own mail"
    sender = sender_address(message)
    if sender is None:
        return "no From address to answer"
    if _same_mailbox(sender, moderator):
        return "from the moderator itself"
    return None


def sender_address(message: EmailMessage) -> str | None:
    """The From address, or None when it is missing or unusable."""
    address = parseaddr(str(message.get("From", "")))[1]
    return address if "@" in address else None


def _same_mailbox(first: str, second: str) -> bool:
    try:
        return mailbox_address(first) == mailbox_address(second)
    except ValueError:
        return False


def parse_orders(message: EmailMessage) -> list[str]:
    """The order lines: the plain-text body without blank lines, quotes and signature."""
    orders: list[str] = []
    for raw in _plain_text(message).splitlines():
        if raw.rstrip() == "--":  # the signature delimiter "-- "
            break
        line = raw.strip()
        if line and not line.startswith(">"):
            orders.append(line)
    return orders


def _plain_text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    if part is None:
        return ""
    assert isinstance(part, EmailMessage)
    try:
        return str(part.get_content())
    except (LookupError, UnicodeError):  # unknown or lying charset
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


# -- reply ------------------------------------------------------------------------------


def build_reply(message: EmailMessage, orders: list[str], moderator: str) -> EmailMessage:
    """The moderator's answer to MESSAGE, threaded and marked as automatic."""
    name, address = parseaddr(str(message.get("From", "")))
    subject = str(message.get("Subject", "")).strip()
    reply = EmailMessage()
    reply["From"] = moderator
    reply["To"] = formataddr((name, address))
    reply["Subject"] = reply_subject(subject)
    reply["Date"] = formatdate(localtime=True)
    reply["Message-ID"] = make_msgid(domain=moderator.rpartition("@")[2] or "localhost")
    original_id = str(message.get("Message-ID", "")).strip()
    if original_id:
        references = str(message.get("References", "")).split()
        reply["In-Reply-To"] = original_id
        reply["References"] = " ".join([*references, original_id])
    reply["Auto-Submitted"] = "auto-replied"
    reply["X-Loop"] = moderator
    reply.set_content(reply_text(orders, subject))
    return reply


def reply_subject(subject: str) -> str:
    if subject.lower().startswith("re:"):
        return subject
    return f"Re: {subject or '(no subject)'}"


def reply_text(orders: list[str], subject: str) -> str:
    quoted = [f"> {line}" for line in orders] or ["> (no order lines found)"]
    return "\n".join([
        "Hello,",
        "",
        f"the moderator received your mail{f' {subject!r}' if subject else ''} "
        "with these order lines:",
        "",
        *quoted,
        "",
        "The rules engine is not connected yet, so no orders were checked or applied.",
        "",
        "-- ",
        "PBEM 18xx moderator (automatic reply)",
        "",
    ])


async def send_reply(reply: EmailMessage, settings: ServiceSettings) -> None:
    """Send REPLY through the SMTP server, from the moderator's address."""
    await aiosmtplib.send(
        reply,
        sender=settings.address,
        hostname=settings.smtp_host,
        port=settings.smtp_port,
        username=settings.smtp_user,
        password=settings.smtp_password,
        local_hostname=settings.helo_name,  # the default asks DNS for the FQDN
        timeout=settings.command_timeout,
    )


# -- IMAP plumbing -------------------------------------------------------------------------


class ImapSession:
    """One IMAP connection. Every command has a timeout and ends if the link drops:
    aioimaplib alone can wait forever on a dead connection."""

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self.lost = asyncio.Event()
        self.client = aioimaplib.IMAP4(
            host=settings.imap_host, port=settings.imap_port,
            timeout=settings.command_timeout, conn_lost_cb=self._connection_lost,
        )

    def _connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()

    async def open(self) -> None:
        """Wait for the greeting, log in, select the mailbox."""
        settings = self.settings
        await self.wait(self.client.wait_hello_from_server(), "greeting")
        await self.command(self.client.login(settings.imap_user, settings.imap_password),
                           f"LOGIN {settings.imap_user}")
        await self.command(self.client.select(settings.mailbox), f"SELECT {settings.mailbox}")

    async def wait(self, call: Awaitable[Any], what: str) -> Any:
        """CALL's result; ImapError if the link drops or it takes over command_timeout."""
        task = asyncio.ensure_future(call)
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, timeout=self.settings.command_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            task.cancel()
            lost.cancel()
        if task in done:
            return task.result()
        if lost in done:
            raise ImapError(f"{what}: connection lost")
        raise ImapError(f"{what}: no answer within {self.settings.command_timeout}s")

    async def command(self, call: Awaitable[Any], what: str) -> Any:
        """Like `wait`, and the response must be OK."""
        response = await self.wait(call, what)
        if response.result != "OK":
            raise ImapError(f"{what}: {response.result} {response.lines!r}")
        return response

    async def logout(self) -> None:
        with contextlib.suppress(ImapError):
            await self.wait(self.client.logout(), "LOGOUT")

    def close(self) -> None:
        transport = self.client.protocol.transport
        if transport is not None:
            transport.close()


async def wait_for_news(session: ImapSession, stop_event: asyncio.Event) -> None:
    """Return when the mailbox may have changed, the IDLE period ended, or we stop."""
    client, settings = session.client, session.settings
    if not client.has_capability("IDLE"):
        await _first_of(stop_event.wait(), session.lost.wait(), timeout=settings.poll_interval)
        return
    idle = await session.wait(client.idle_start(timeout=settings.idle_timeout), "IDLE")
    # idle_start makes wait_server_push return after idle_timeout; the margin only
    # matters on a silent dead link, where aioimaplib would otherwise wait forever.
    push = client.wait_server_push(timeout=settings.idle_timeout + settings.command_timeout)
    await _first_of(push, stop_event.wait(), session.lost.wait())
    if session.lost.is_set():
        raise ImapError("connection lost during IDLE")
    client.idle_done()
    await session.command(idle, "IDLE")


async def _first_of(*waits: Awaitable[Any], timeout: float | None = None) -> None:
    """Wait until the first of WAITS finishes (or TIMEOUT passes); cancel the rest."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        done, _ = await asyncio.wait(tasks, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # raise what it raised
    finally:
        for task in tasks:
            task.cancel()


async def _wait_event(event: asyncio.Event, timeout: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout)
