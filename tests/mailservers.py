"""Fixtures and helpers for tests against the real local mail servers.

Registered from conftest.py (``pytest_plugins``). Everything talks to real
servers on 127.0.0.1: pymap (IMAP, a subprocess) and aiosmtpd (SMTP, on the
test's event loop), both from `moderator.localmail.LocalMail`, with the maildir
under the test's tmp_path. Starting them takes about 0.3 s, so the fixture is
per test and every test gets empty mailboxes.

Fixtures:
    mail_servers      a running LocalMail
    moderator         the daemon (service.serve_forever) as an asyncio task on
                      mail_servers; yields its ServiceSettings

Helpers (async):
    send_mail(servers, sender, to, subject, body, headers=...) -> Message-ID
    wait_for_mail(servers, address, timeout=..., predicate=...) -> EmailMessage
    assert_no_mail(servers, address, within=..., predicate=...)
    mailbox(servers, address) -> list[StoredMail]     (uid, flags, message)
    running_daemon(settings)                          async context manager
    serve_subprocess(workdir)                         `moderator serve` as a real process
    run_cli(*args)                                    the real `moderator` console script
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any, Protocol

import aioimaplib
import aiosmtplib
import pytest
import pytest_asyncio

from moderator import service
from moderator.localmail import LocalMail
from moderator.service import EmbeddedEndpoints, ServiceSettings


class Servers(Protocol):
    """A LocalMail, or the MailEndpoints a `moderator serve` process wrote."""

    @property
    def host(self) -> str: ...
    @property
    def imap_port(self) -> int: ...
    @property
    def smtp_port(self) -> int: ...
    def credentials(self, address: str) -> tuple[str, str]: ...


@dataclass
class StoredMail:
    uid: int
    flags: set[str]
    message: EmailMessage

    @property
    def seen(self) -> bool:
        return "\\Seen" in self.flags


# -- fixtures -------------------------------------------------------------------------------


@pytest_asyncio.fixture
async def mail_servers(tmp_path: Path) -> AsyncIterator[LocalMail]:
    async with LocalMail(tmp_path / "mail") as servers:
        yield servers


@pytest_asyncio.fixture
async def moderator(mail_servers: LocalMail) -> AsyncIterator[ServiceSettings]:
    settings = await daemon_settings(mail_servers)
    async with running_daemon(settings):
        yield settings


async def daemon_settings(servers: LocalMail, **overrides: Any) -> ServiceSettings:
    """Settings for the daemon on SERVERS, with test-friendly timeouts."""
    await servers.ensure_mailbox(service.MODERATOR_ADDRESS)
    quick = {"command_timeout": 5.0, "reconnect_delay": 0.2, "idle_timeout": 30.0}
    return ServiceSettings.for_local_mail(servers.endpoints, **{**quick, **overrides})


@contextlib.asynccontextmanager
async def running_daemon(settings: ServiceSettings) -> AsyncIterator[asyncio.Task[None]]:
    """Run service.serve_forever in a task; stop it (and re-raise its errors) on exit."""
    stop = asyncio.Event()
    task = asyncio.create_task(service.serve_forever(settings, stop))
    try:
        yield task
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, 10)
        except BaseException:
            task.cancel()
            raise


# -- mail helpers ---------------------------------------------------------------------------


async def send_mail(
    servers: Servers,
    sender: str,
    to: str,
    subject: str,
    body: str,
    headers: Mapping[str, str] | None = None,
    *,
    envelope_from: str | None = None,
) -> str:
    """Send a plain-text mail through the SMTP server; return its Message-ID."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain="test.localhost")
    for name, value in (headers or {}).items():
        del message[name]
        message[name] = value
    message.set_content(body)
    await aiosmtplib.send(
        message,
        sender=sender if envelope_from is None else envelope_from,
        recipients=[to],
        hostname=servers.host,
        port=servers.smtp_port,
        local_hostname="localhost",
        timeout=10,
    )
    return str(message["Message-ID"])


async def mailbox(servers: Servers, address: str, folder: str = "INBOX") -> list[StoredMail]:
    """Every mail in ADDRESS's FOLDER, without changing any flag ([] if no such user yet)."""
    client = aioimaplib.IMAP4(host=servers.host, port=servers.imap_port, timeout=5)
    try:
        await client.wait_hello_from_server()
        login = await client.login(*servers.credentials(address))
        if login.result != "OK":
            return []  # the mailbox is made with its first mail
        select = await client.select(folder)
        assert select.result == "OK", select
        response = await client.uid("fetch", "1:*", "(UID FLAGS BODY.PEEK[])")
        assert response.result == "OK", response
        return _parse_fetch(response.lines)
    finally:
        with contextlib.suppress(Exception):
            await client.logout()
        if client.protocol.transport is not None:
            client.protocol.transport.close()


def _parse_fetch(lines: list[Any]) -> list[StoredMail]:
    mails: list[StoredMail] = []
    header = b""
    for line in lines:
        if isinstance(line, bytearray):
            meta = header.decode(errors="replace")
            uid = re.search(r"UID (\d+)", meta)
            flags = re.search(r"FLAGS \(([^)]*)\)", meta)
            message = email.message_from_bytes(bytes(line), policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            mails.append(StoredMail(
                uid=int(uid.group(1)) if uid else 0,
                flags=set(flags.group(1).split()) if flags else set(),
                message=message,
            ))
        elif isinstance(line, bytes):
            header = line
            if mails and mails[-1].uid == 0:  # pymap may send UID after the literal
                uid = re.search(rb"UID (\d+)", line)
                if uid:
                    mails[-1].uid = int(uid.group(1))
    return mails


async def wait_for_mail(
    servers: Servers,
    address: str,
    timeout: float = 10.0,
    predicate: Callable[[EmailMessage], bool] | None = None,
) -> EmailMessage:
    """The first mail in ADDRESS's INBOX that matches PREDICATE, polling until TIMEOUT."""
    deadline = time.monotonic() + timeout
    while True:
        for stored in await mailbox(servers, address):
            if predicate is None or predicate(stored.message):
                return stored.message
        if time.monotonic() > deadline:
            raise TimeoutError(f"no matching mail for {address} within {timeout}s")
        await asyncio.sleep(0.05)


async def assert_no_mail(
    servers: Servers,
    address: str,
    within: float = 0.5,
    predicate: Callable[[EmailMessage], bool] | None = None,
) -> None:
    """Fail if a mail matching PREDICATE reaches ADDRESS within WITHIN seconds."""
    with contextlib.suppress(TimeoutError):
        found = await wait_for_mail(servers, address, timeout=within, predicate=predicate)
        pytest.fail(f"unexpected mail for {address}: {found['Subject']!r}")


async def wait_until_seen(
    servers: Servers, address: str, message_id: str, timeout: float = 10.0
) -> StoredMail:
    """The mail with MESSAGE_ID in ADDRESS's INBOX, once it is flagged \\Seen."""
    deadline = time.monotonic() + timeout
    while True:
        for stored in await mailbox(servers, address):
            if stored.message["Message-ID"] == message_id and stored.seen:
                return stored
        if time.monotonic() > deadline:
            raise TimeoutError(f"{message_id} not flagged \\Seen within {timeout}s")
        await asyncio.sleep(0.05)


# -- the real console script ----------------------------------------------------------------


def moderator_script() -> str:
    """The installed `moderator` console script, next to this Python."""
    script = Path(sys.executable).with_name("moderator")
    if script.exists():
        return str(script)
    found = shutil.which("moderator")
    if found is None:
        pytest.fail("the `moderator` console script is not installed (pip install -e .)")
    return found


def _cli_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", **extra}


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


async def run_cli(*args: str, timeout: float = 20.0) -> CliResult:
    """Run `moderator ARGS...` to completion."""
    process = await asyncio.create_subprocess_exec(
        moderator_script(), *args, env=_cli_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return CliResult(process.returncode, out.decode(), err.decode())


@dataclass
class ServeProcess:
    """A running `moderator serve` subprocess."""

    process: asyncio.subprocess.Process
    workdir: Path
    banner: str
    endpoints: EmbeddedEndpoints
    stderr_lines: list[str] = field(default_factory=list)

    @property
    def servers(self) -> Servers:
        return self.endpoints.mail

    async def stop(self) -> tuple[int, str]:
        """SIGTERM the service; return its exit status and what it printed after the banner."""
        await _stop(self.process)
        assert self.process.stdout is not None and self.process.returncode is not None
        rest = await asyncio.wait_for(self.process.stdout.read(), 5)
        return self.process.returncode, rest.decode()


@contextlib.asynccontextmanager
async def serve_subprocess(
    workdir: Path, *, startup_timeout: float = 20.0
) -> AsyncIterator[ServeProcess]:
    """Start `moderator serve --workdir WORKDIR` on free ports; SIGTERM it on exit."""
    process = await asyncio.create_subprocess_exec(
        moderator_script(), "serve", "--workdir", str(workdir),
        env=_cli_env(**{service.IMAP_PORT_ENV: "0", service.SMTP_PORT_ENV: "0"}),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    stderr_lines: list[str] = []
    stderr_task = asyncio.create_task(_collect(process.stderr, stderr_lines))
    try:
        banner = await asyncio.wait_for(_read_banner(process), startup_timeout)
        endpoints = service.read_endpoints(workdir)
        yield ServeProcess(process, workdir, banner, endpoints, stderr_lines)
    except BaseException:
        print("moderator serve stderr:\n" + "".join(stderr_lines), file=sys.stderr)
        raise
    finally:
        await _stop(process)
        await asyncio.wait_for(stderr_task, 5)


async def _read_banner(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or not lines[-1].startswith("Stop with Ctrl-C"):
        line = await process.stdout.readline()
        if not line:
            raise RuntimeError(f"moderator serve exited early: {''.join(lines)!r}")
        lines.append(line.decode())
    return "".join(lines)


async def _collect(stream: asyncio.StreamReader | None, into: list[str]) -> None:
    assert stream is not None
    while line := await stream.readline():
        into.append(line.decode(errors="replace"))


async def _stop(process: asyncio.subprocess.Process, timeout: float = 10.0) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            process.kill()
            await process.wait()
