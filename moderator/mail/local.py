"""The embedded local mail system: a real IMAP and SMTP server on loopback.

`LocalMail` runs two servers so the moderator can be played on one machine and
tested end to end without mocks:

* IMAP: `pymap` with its maildir backend, started as a subprocess on a free (or
  given) port. All mail lives on disk under one folder, so it survives restarts.
* SMTP: an `aiosmtpd` server on the running asyncio loop. It accepts mail for
  any address and delivers each accepted mail into the IMAP INBOX of every
  recipient, by IMAP APPEND logged in as that recipient.

Users. Every address gets a mailbox on demand, the first time mail is delivered
to it or `LocalMail.ensure_mailbox` is called. The IMAP login name is the
*mailbox address*: the address lower-cased with any `+tag` removed, so
`Moderator+18TN-1@localhost` lands in the mailbox `moderator@localhost`. The
delivered copy starts with `Delivered-To: <the address as given>` and
`Return-Path: <envelope sender>` (``<>`` for bounces), so the reader still sees
the tag. All local users share one password, `LocalMail.password`
(`LOCAL_PASSWORD` unless another is given). The maildir backend keeps its users
in ``pymap-etc-passwd`` and ``pymap-etc-shadow`` in the mail folder; this module
writes them (the password hashes are rewritten at every start, so changing the
password is just starting with another one).

SMTP AUTH is optional (`require_auth`): any mailbox address with the shared
password may authenticate; AUTH is offered without TLS because everything stays
on loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import importlib.util
import logging
import os
import re
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aioimaplib
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from pysasl.hashing import BuiltinHash

from moderator.mail.endpoints import (
    LOCAL_HOST,
    MailEndpoints,
    free_port,
    mailbox_address,
    port_is_free,
)
from moderator.mail.limits import over_limits

__all__ = [
    "LOCAL_HOST",
    "LOCAL_PASSWORD",
    "LocalMail",
    "LocalMailError",
    "MailEndpoints",
    "free_port",
    "mailbox_address",
    "port_is_free",
]

log = logging.getLogger(__name__)

#: The password of every local user unless `LocalMail` is given another one.
LOCAL_PASSWORD = "local-mail"

USERS_FILE = "pymap-etc-passwd"
PASSWORDS_FILE = "pymap-etc-shadow"
PYMAP_LOG = "pymap.log"

# pymap reads the PBKDF2 rounds from the stored hash, so a loopback-only password
# can be cheap to check (pymap's default, 500000 rounds, costs ~0.3 s per login).
_HASH_ROUNDS = 1000
# A small mail's delivery at worst, every attempt timed out (3 x 15 s and the waits of
# 0.5 and 1 s between), stays within LOCAL_SMTP_PATIENCE, what the server's clients
# wait for the answer to DATA. An attempt is patient: one that gives up while pymap
# still stores the mail makes the next attempt store it a second time.
_IMAP_TIMEOUT = 15.0
_DELIVERY_ATTEMPTS = 3
_SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9._@-]*")

# pymap runs as `python -c _PYMAP_MAIN <our pid> <pymap arguments>`. On Linux it asks
# the kernel for SIGTERM when we die, so a killed moderator leaves no IMAP server behind.
_PYMAP_MAIN = """
import os, signal, sys
parent = int(sys.argv.pop(1))
if sys.platform == "linux":
    import ctypes
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        sys.exit("pymap: the moderator that started it is gone")
from pymap.main import main
sys.argv[0] = "pymap"
main()
"""


class LocalMailError(RuntimeError):
    """The local mail system could not start or deliver."""


def _listening_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(100)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def _home_dir(login: str) -> str:
    """A maildir folder name for LOGIN that is safe on any file system."""
    if _SAFE_NAME.fullmatch(login) and len(login) <= 100:
        return login
    digest = hashlib.sha256(login.encode()).hexdigest()[:12]
    safe = re.sub(r"[^a-z0-9._@-]", "_", login)[:80].lstrip(".")
    return f"{safe}-{digest}"


def _hash_password(password: str) -> str:
    """A PBKDF2-SHA256 hash that pymap verifies: with passlib's CryptContext when
    passlib is installed, else with pysasl's BuiltinHash (pymap's own choice)."""
    if importlib.util.find_spec("passlib") is not None:
        passlib_hash: Any = importlib.import_module("passlib.hash")
        return str(passlib_hash.pbkdf2_sha256.using(rounds=_HASH_ROUNDS).hash(password))
    return BuiltinHash(rounds=_HASH_ROUNDS).hash(password)


def _escape(field: str) -> str:
    return field.replace(":", "\\:")


def _read_users(base_dir: Path) -> dict[str, str]:
    """Login -> home folder, from pymap's users file."""
    users: dict[str, str] = {}
    path = base_dir / USERS_FILE
    if not path.exists():
        return users
    for line in path.read_text().splitlines():
        fields = re.split(r"(?<!\\):", line)
        if len(fields) == 7:
            name, home = (f.replace("\\:", ":") for f in (fields[0], fields[5]))
            users[name] = home
    return users


def _write_atomically(path: Path, lines: Iterable[str]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", newline="") as out:
        out.writelines(f"{line}\r\n" for line in lines)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _write_users(base_dir: Path, users: dict[str, str], password_hash: str) -> None:
    """Write pymap's shadow file, then its passwd file (a user exists once both do)."""
    _write_atomically(
        base_dir / PASSWORDS_FILE,
        (f"{_escape(name)}:{password_hash}:::::::" for name in users),
    )
    _write_atomically(
        base_dir / USERS_FILE,
        (f"{_escape(name)}:x::::{_escape(home)}:" for name, home in users.items()),
    )


def _with_delivery_headers(content: bytes, mail_from: str, rcpt: str) -> bytes:
    """The message as stored: Return-Path and Delivered-To prepended, CRLF lines."""
    sender = mail_from.strip()
    if sender.startswith("<") and sender.endswith(">"):  # aiosmtpd gives "<>" for bounces
        sender = sender[1:-1]
    head = f"Return-Path: <{sender}>\r\nDelivered-To: {rcpt}\r\n".encode()
    body = re.sub(rb"\r?\n", b"\r\n", content)
    return head + body


class _SmtpHandler:
    """aiosmtpd hooks: accept any well-formed recipient, deliver on DATA."""

    def __init__(self, mail: LocalMail) -> None:
        self._mail = mail

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str,
        rcpt_options: list[str],
    ) -> str:
        try:
            mailbox_address(address)
        except ValueError:
            return "553 5.1.3 Recipient address not deliverable here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(
        self, server: SMTP, session: Session, envelope: Envelope,
    ) -> str:
        content = envelope.original_content or b""
        # Refused at the door, as a mail server's header limit does: pymap parses a
        # stored mail's header at every FETCH, and takes 20-45 s on these (issue 31).
        if (over := over_limits(content)) is not None:
            return f"552 5.3.4 Message refused: {over}"
        keeps = self._mail.keeps
        try:
            for rcpt in envelope.rcpt_tos:
                if keeps is None or keeps(rcpt):
                    await self._mail.deliver(envelope.mail_from or "", rcpt, content)
                self._mail.accepted.append((envelope.mail_from or "", rcpt, content))
        except Exception:
            log.exception("local delivery failed")
            return "451 4.3.0 Local delivery failed, try again later"
        return "250 OK delivered"


class LocalMail:
    """Async context manager running pymap (IMAP) and aiosmtpd (SMTP) on loopback.

    Args:
        directory: pymap's maildir base folder (created if missing); mail and
            users stay here between runs. pymap's output goes to ``pymap.log`` in it.
        host: The interface both servers listen on.
        imap_port, smtp_port: Ports to listen on; None picks free ones.
        password: The password of every local user.
        require_auth: Whether SMTP clients must AUTH before sending.
        starttls: A server TLS context: SMTP then offers (and requires) STARTTLS.
        startup_timeout: Seconds to wait for pymap's IMAP greeting (a Python start:
            a second when all is well, many on a loaded machine).
        keeps: Which recipients' mail is put into their mailbox (None: everyone's);
            the rest is accepted and only counted in `accepted`, as mail leaving for
            other servers would be (`moderator bench mail` keeps only the moderator's).
    """

    def __init__(
        self,
        directory: Path,
        *,
        host: str = LOCAL_HOST,
        imap_port: int | None = None,
        smtp_port: int | None = None,
        password: str = LOCAL_PASSWORD,
        require_auth: bool = False,
        starttls: ssl.SSLContext | None = None,
        startup_timeout: float = 30.0,
        keeps: Callable[[str], bool] | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.keeps = keeps
        self.host = host
        self.password = password
        self.require_auth = require_auth
        self.starttls = starttls
        self._wanted_imap_port = imap_port
        self._wanted_smtp_port = smtp_port
        self._startup_timeout = startup_timeout
        self._imap_port: int | None = None
        self._smtp_port: int | None = None
        self._pymap: subprocess.Popen[bytes] | None = None
        self._smtp_server: asyncio.Server | None = None
        self._users: dict[str, str] = {}
        self._password_hash = ""
        self._users_lock = asyncio.Lock()
        self._delivery_clients: dict[str, aioimaplib.IMAP4] = {}
        self._delivery_locks: dict[str, asyncio.Lock] = {}
        #: Every (envelope sender, recipient, content) the SMTP server accepted and
        #: delivered, in order: what a sender really sent, for tests to count (a
        #: mailbox can show a mail twice: see `deliver`).
        self.accepted: list[tuple[str, str, bytes]] = []
        #: Mails put into a mailbox by IMAP APPEND (what delivery asks of pymap).
        self.appended = 0

    # -- public surface -------------------------------------------------------

    @property
    def imap_port(self) -> int:
        if self._imap_port is None:
            raise LocalMailError("LocalMail is not running")
        return self._imap_port

    @property
    def smtp_port(self) -> int:
        if self._smtp_port is None:
            raise LocalMailError("LocalMail is not running")
        return self._smtp_port

    @property
    def endpoints(self) -> MailEndpoints:
        return MailEndpoints(self.host, self.imap_port, self.smtp_port, self.password)

    def credentials(self, address: str) -> tuple[str, str]:
        """IMAP login and password for ADDRESS's mailbox (see `ensure_mailbox`)."""
        return mailbox_address(address), self.password

    async def ensure_mailbox(self, address: str) -> tuple[str, str]:
        """Create ADDRESS's mailbox user if needed; return its login and password."""
        login = mailbox_address(address)
        async with self._users_lock:
            if login not in self._users:
                self._users[login] = _home_dir(login)
                _write_users(self.directory, self._users, self._password_hash)
        return login, self.password

    async def deliver(self, mail_from: str, rcpt: str, content: bytes) -> None:
        """Store CONTENT in RCPT's INBOX, as the SMTP server does for each recipient.

        pymap's maildir can list one appended mail under two UIDs when another session
        reads the folder during the APPEND, so a reader may see a mail twice (with one
        Message-ID); `accepted` counts what was really sent."""
        login, password = await self.ensure_mailbox(rcpt)
        message = _with_delivery_headers(content, mail_from, rcpt)
        self.appended += 1
        lock = self._delivery_locks.setdefault(login, asyncio.Lock())
        async with lock:
            # A logged-in connection per user is kept for the next delivery: a game's
            # report goes to the same few players again and again.
            client = self._delivery_clients.pop(login, None)
            if client is not None:
                try:
                    await _expect_ok(client.append(message, mailbox="INBOX"),
                                     f"APPEND {login}")
                except Exception:  # a stale connection (pymap restarted): a fresh one
                    await _logout_quietly(client)
                else:
                    self._delivery_clients[login] = client
                    return
            # Like a real MTA, a delivery that times out is tried again on a fresh
            # connection: pymap is one process, and a loaded machine can keep it
            # busy with a megabyte APPEND longer than one attempt's patience.
            for attempt in range(_DELIVERY_ATTEMPTS):
                try:
                    self._delivery_clients[login] = await self._append_fresh(
                        login, password, message)
                    return
                except (TimeoutError, OSError):
                    if attempt + 1 == _DELIVERY_ATTEMPTS:
                        raise
                    await asyncio.sleep(0.5 * 2 ** attempt)

    async def _append_fresh(self, login: str, password: str,
                            message: bytes) -> aioimaplib.IMAP4:
        """Log in as LOGIN on a new connection and APPEND MESSAGE; return the client."""
        # A second of patience per 100 KB on top: the large items of the hostile corpus.
        client = aioimaplib.IMAP4(host=self.host, port=self.imap_port,
                                  timeout=_IMAP_TIMEOUT + len(message) / 100_000)
        try:
            await client.wait_hello_from_server()
            await _expect_ok(client.login(login, password), f"LOGIN {login}")
            await _expect_ok(client.append(message, mailbox="INBOX"), f"APPEND {login}")
        except BaseException:
            await _logout_quietly(client)
            raise
        return client

    async def _close_delivery_clients(self) -> None:
        clients, self._delivery_clients = self._delivery_clients, {}
        for client in clients.values():
            await _logout_quietly(client)

    # -- lifecycle ------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._users = _read_users(self.directory)
        self._password_hash = _hash_password(self.password)
        _write_users(self.directory, self._users, self._password_hash)
        try:
            await self._start_pymap()
            await self._start_smtp()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        await self._close_delivery_clients()
        if self._smtp_server is not None:
            self._smtp_server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._smtp_server.wait_closed(), 5)
            self._smtp_server = None
        if self._pymap is not None:
            await asyncio.to_thread(_terminate, self._pymap)
            self._pymap = None
        self._imap_port = self._smtp_port = None

    # -- outages (for tests: a mail server that is down for a while) -----------

    async def stop_smtp(self) -> None:
        """Stop accepting SMTP connections (`start_smtp` listens on the same port)."""
        if self._smtp_server is not None:
            self._smtp_server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._smtp_server.wait_closed(), 5)
            self._smtp_server = None

    async def start_smtp(self) -> None:
        """Accept SMTP connections again, on the same port."""
        if self._smtp_server is None:
            self._wanted_smtp_port = self.smtp_port
            await self._start_smtp()

    async def restart_imap(self) -> None:
        """Stop pymap and start it again on the same port: every IMAP client (one
        in IDLE too) loses its connection; the mail stays on disk."""
        port = self.imap_port
        await self._close_delivery_clients()
        if self._pymap is not None:
            await asyncio.to_thread(_terminate, self._pymap)
            self._pymap = None
        self._wanted_imap_port = port
        await self._start_pymap()

    # -- servers --------------------------------------------------------------

    async def _start_pymap(self) -> None:
        attempts = 1 if self._wanted_imap_port is not None else 3
        for attempt in range(attempts):
            port = self._wanted_imap_port or free_port(self.host)
            process = self._spawn_pymap(port)
            self._pymap = process
            try:
                await self._wait_for_greeting(process, port)
            except LocalMailError:
                await asyncio.to_thread(_terminate, process)
                self._pymap = None
                if attempt + 1 == attempts:
                    raise
                continue
            self._imap_port = port
            return

    def _spawn_pymap(self, port: int) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-c", _PYMAP_MAIN, str(os.getpid()),
            "--host", self.host, "--port", str(port), "--no-tls",
            "maildir", str(self.directory.resolve()),
        ]
        with open(self.directory / PYMAP_LOG, "ab") as log_file:
            return subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                start_new_session=True,  # a Ctrl-C in the terminal goes to us, not pymap
            )

    async def _wait_for_greeting(self, process: subprocess.Popen[bytes], port: int) -> None:
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LocalMailError(
                    f"pymap exited with status {process.returncode} before listening on "
                    f"{self.host}:{port}; see {self.directory / PYMAP_LOG}"
                )
            if await _imap_greets(self.host, port):
                return
            await asyncio.sleep(0.02)
        raise LocalMailError(
            f"pymap did not answer on {self.host}:{port} within {self._startup_timeout}s; "
            f"see {self.directory / PYMAP_LOG}"
        )

    async def _start_smtp(self) -> None:
        port = self._wanted_smtp_port or free_port(self.host)
        sock = _listening_socket(self.host, port)
        loop = asyncio.get_running_loop()
        self._smtp_server = await loop.create_server(self._smtp_protocol, sock=sock)
        self._smtp_port = port

    def _smtp_protocol(self) -> SMTP:
        with warnings.catch_warnings():
            # "Requiring AUTH while not requiring TLS": deliberate, loopback only.
            warnings.simplefilter("ignore", UserWarning)
            return SMTP(
                _SmtpHandler(self),
                hostname="localhost",  # the default asks DNS for the FQDN
                enable_SMTPUTF8=True,
                auth_required=self.require_auth,
                auth_require_tls=False,
                tls_context=self.starttls,  # offers STARTTLS when given
                require_starttls=self.starttls is not None,
                authenticator=self._authenticate,
                loop=asyncio.get_running_loop(),
            )

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str,
        auth_data: Any,
    ) -> AuthResult:
        # A failed AUTH must be handled=False, or aiosmtpd sends nothing and the
        # client hangs.
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        try:
            login = mailbox_address(auth_data.login.decode("utf-8"))
            password = auth_data.password.decode("utf-8")
        except (UnicodeDecodeError, ValueError):
            return AuthResult(success=False, handled=False)
        if not secrets.compare_digest(password.encode(), self.password.encode()):
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=login)


async def _imap_greets(host: str, port: int) -> bool:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 1.0)
    except (OSError, TimeoutError):
        return False
    try:
        line = await asyncio.wait_for(reader.readline(), 2.0)
    except (OSError, TimeoutError):
        return False
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return line.startswith(b"* OK")


async def _expect_ok(command: Any, what: str) -> None:
    response = await command
    if response.result != "OK":
        raise LocalMailError(f"IMAP {what} failed: {response.result} {response.lines!r}")


async def _logout_quietly(client: aioimaplib.IMAP4) -> None:
    with contextlib.suppress(Exception):
        if client.get_state() in ("AUTH", "SELECTED", "NONAUTH"):
            await asyncio.wait_for(client.logout(), 2)  # a dead link must not stall us
    transport = client.protocol.transport
    if transport is not None:
        transport.close()


def _terminate(process: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Stop pymap with SIGTERM; kill it if it does not exit in time."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
