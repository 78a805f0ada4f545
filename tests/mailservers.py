"""Fixtures and helpers for tests against the real local mail servers.

Registered from conftest.py (``pytest_plugins``). Everything talks to real
servers on 127.0.0.1: pymap (IMAP, a subprocess) and aiosmtpd (SMTP, on the
test's event loop), both from `moderator.mail.local.LocalMail`, with the maildir
under the test's tmp_path. Starting them takes about 0.3 s, so the fixture is
per test and every test gets empty mailboxes.

Fixtures:
    mail_servers      a running LocalMail
    moderator         the daemon (service.serve_forever) as an asyncio task on
                      mail_servers; yields its Config

Helpers (async):
    send_mail(servers, sender, to, subject, body, headers=...) -> Message-ID
    reply_to(servers, sender, message, body) -> Message-ID   (a mail program's reply)
    wait_for_mail(servers, address, timeout=..., predicate=...) -> EmailMessage
    assert_no_mail(servers, address, within=..., predicate=...)
    mailbox(servers, address) -> list[StoredMail]     (uid, flags, message)
    running_daemon(config)                            async context manager
    serve_subprocess(workdir)                         `moderator serve` as a real process
    run_cli(*args)                                    the real `moderator` console script
    opening_orders(game)                              a scripted 18TN opening, mail by mail
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
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any, Protocol

import aioimaplib
import aiosmtplib
import pytest
import pytest_asyncio

from engine.game import Game
from moderator import service
from moderator.config import Config
from moderator.mail.endpoints import LOCAL_SMTP_PATIENCE
from moderator.mail.local import LocalMail
from moderator.service import EmbeddedEndpoints, embedded_config, replace_config


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
async def moderator(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers)
    async with running_daemon(config):
        yield config


#: Seconds the daemon and a test's clients wait for one answer of an SMTP server: the
#: local one answers DATA once it has delivered, some 46 s at worst when a loaded
#: machine keeps pymap busy (as CI's two cores do while the long games run beside); a
#: client that gave up sooner would send the mail again (a duplicate) or fail the test.
SMTP_PATIENCE = LOCAL_SMTP_PATIENCE
#: ... and for one IMAP command (the daemon's own default is 30 s).
IMAP_PATIENCE = 30.0
#: Seconds a test waits for the mail (or other outcome) the daemon is to produce: a
#: poll, which ends as soon as it comes, so only a failing test waits this long. It
#: covers a delivery of the test's mail, the daemon's work and a delivery of its answer
#: on a loaded machine.
MAIL_PATIENCE = 60.0
#: Seconds a stopping daemon is given: it finishes the mail it is processing and the
#: sending under way (each answer waited for up to SMTP_PATIENCE) before it ends.
STOP_PATIENCE = 2 * SMTP_PATIENCE

#: Timeouts and back-off for tests: outages heal in a second (the waits between tries
#: are short), while one answer of a busy server is waited for as a mail program would.
QUICK = {
    "imap": {"timeout": IMAP_PATIENCE, "reconnect_min": 0.1, "reconnect_max": 0.5,
             "idle": True, "idle_timeout": 30.0},
    "smtp": {"timeout": SMTP_PATIENCE, "retry_min": 0.1, "retry_max": 0.5},
}


async def daemon_settings(servers: LocalMail, **sections: dict[str, Any]) -> Config:
    """The daemon's configuration on SERVERS (database and secret beside the maildir),
    with test-friendly timeouts; SECTIONS replace fields (`moderator={...}`)."""
    await servers.ensure_mailbox(service.MODERATOR_ADDRESS)
    config = embedded_config(servers.endpoints, servers.directory.parent / "moderator")
    merged = {name: {**QUICK.get(name, {}), **sections.get(name, {})}
              for name in ("imap", "smtp", "moderator")}
    return replace_config(config, **merged)


class FakeClock:
    """The time the daemon's deadlines are measured by, advanced by the test."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, *, days: float = 0, hours: float = 0, minutes: float = 0) -> None:
        self.now += days * 86400 + hours * 3600 + minutes * 60


@contextlib.asynccontextmanager
async def running_daemon(config: Config, clock: Callable[[], float] | None = None
                         ) -> AsyncIterator[asyncio.Task[None]]:
    """Run service.serve_forever in a task; stop it (and re-raise its errors) on exit."""
    stop = asyncio.Event()
    task = asyncio.create_task(service.serve_forever(config, stop, clock or time.time))
    try:
        yield task
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, STOP_PATIENCE)
        except BaseException:
            task.cancel()
            raise


# -- mail helpers ---------------------------------------------------------------------------

#: What one look into a mailbox may meet on a loaded machine or while a server restarts:
#: a slow login or command, a dropped connection. The caller looks again; its deadline,
#: not one connection, decides when the mail has failed to come.
LOOK_AGAIN = (TimeoutError, OSError, aioimaplib.AioImapException)


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
        recipients=[parseaddr(to)[1]],
        hostname=servers.host,
        port=servers.smtp_port,
        local_hostname="localhost",
        timeout=SMTP_PATIENCE,
    )
    return str(message["Message-ID"])


async def reply_to(servers: Servers, sender: str, message: EmailMessage, body: str,
                   headers: Mapping[str, str] | None = None) -> str:
    """Answer MESSAGE as a mail program does: to its Reply-To, `Re:` subject, threaded."""
    subject = str(message["Subject"])
    references = f"{message.get('References', '')} {message['Message-ID']}".strip()
    return await send_mail(
        servers, sender, str(message.get("Reply-To") or message["From"]),
        subject if subject.lower().startswith("re:") else f"Re: {subject}", body,
        {"In-Reply-To": str(message["Message-ID"]), "References": references,
         **(headers or {})})


def text_of(message: EmailMessage) -> str:
    """The text/plain part of MESSAGE, with \n line ends."""
    part = message.get_body(preferencelist=("plain",))
    assert isinstance(part, EmailMessage), message
    return str(part.get_content()).replace("\r\n", "\n")


async def mailbox(servers: Servers, address: str, folder: str = "INBOX") -> list[StoredMail]:
    """Every mail in ADDRESS's FOLDER, without changing any flag ([] if no such user yet)."""
    client = aioimaplib.IMAP4(host=servers.host, port=servers.imap_port,
                              timeout=IMAP_PATIENCE)
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
    timeout: float = MAIL_PATIENCE,
    predicate: Callable[[EmailMessage], bool] | None = None,
) -> EmailMessage:
    """The first mail in ADDRESS's INBOX that matches PREDICATE, polling until TIMEOUT."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            stored_mails = await mailbox(servers, address)
        except LOOK_AGAIN:
            stored_mails = []
        for stored in stored_mails:
            if predicate is None or predicate(stored.message):
                return stored.message
        if time.monotonic() > deadline:
            raise TimeoutError(f"no matching mail for {address} within {timeout}s")
        await asyncio.sleep(0.05)


class Inboxes:
    """The mail of several addresses, fetched incrementally (only new UIDs) over one
    logged-in connection per address, so that a test can wait for many mails without
    fetching them again or loading the server with logins."""

    def __init__(self, servers: Servers) -> None:
        self.servers = servers
        self.mails: dict[str, list[StoredMail]] = {}
        self.clients: dict[str, aioimaplib.IMAP4] = {}
        self.duplicates: list[StoredMail] = []

    async def _client(self, address: str) -> aioimaplib.IMAP4 | None:
        client = self.clients.get(address)
        if client is not None and client.get_state() == "SELECTED":
            return client
        client = aioimaplib.IMAP4(host=self.servers.host, port=self.servers.imap_port,
                                  timeout=IMAP_PATIENCE)
        try:
            await client.wait_hello_from_server()
            if (await client.login(*self.servers.credentials(address))).result != "OK":
                await _close(client)
                return None  # no mailbox before its first mail
            assert (await client.select("INBOX")).result == "OK"
        except BaseException:
            await _close(client)
            raise
        self.clients[address] = client
        return client

    async def refresh(self, address: str) -> list[StoredMail]:
        """ADDRESS's mail, with what came since the last look (as before, should this
        look meet a slow or lost connection: the next one starts afresh)."""
        known = self.mails.setdefault(address, [])
        try:
            return await self._fetch_new(address, known)
        except LOOK_AGAIN:
            if (client := self.clients.pop(address, None)) is not None:
                await _close(client)
            return known

    async def _fetch_new(self, address: str, known: list[StoredMail]) -> list[StoredMail]:
        last = known[-1].uid if known else 0
        client = await self._client(address)
        if client is None:
            return known
        await client.noop()  # let the server tell the selected mailbox about new mail
        response = await client.uid("fetch", f"{last + 1}:*", "(UID FLAGS BODY.PEEK[])")
        if response.result == "OK":
            ids = {m.message["Message-ID"] for m in known}
            for stored in _parse_fetch(response.lines):
                if stored.uid <= last:
                    continue  # "N:*" names the last mail even when it is older than N
                if stored.message["Message-ID"] in ids:
                    # pymap's maildir can give one appended mail two UIDs when another
                    # session reads the folder during the APPEND; the moderator's own
                    # duplicates are caught by the outbox checks, not here.
                    self.duplicates.append(stored)
                    continue
                ids.add(stored.message["Message-ID"])
                known.append(stored)
        return known

    async def close(self) -> None:
        for client in self.clients.values():
            await _close(client)
        self.clients.clear()

    async def wait(self, address: str, predicate: Callable[[EmailMessage], bool],
                   timeout: float = MAIL_PATIENCE) -> EmailMessage:
        """The first mail of ADDRESS that matches PREDICATE, polling until TIMEOUT."""
        deadline = time.monotonic() + timeout
        while True:
            for stored in await self.refresh(address):
                if predicate(stored.message):
                    return stored.message
            if time.monotonic() > deadline:
                subjects = [str(m.message["Subject"]) for m in self.mails[address]]
                raise TimeoutError(f"no matching mail for {address} within {timeout}s; "
                                   f"it has {subjects}")
            await asyncio.sleep(0.05)

    def latest(self, address: str) -> EmailMessage:
        return self.mails[address][-1].message

    def messages(self, address: str) -> list[EmailMessage]:
        return [m.message for m in self.mails.get(address, [])]


async def _close(client: aioimaplib.IMAP4) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.logout(), 2)
    if client.protocol.transport is not None:
        client.protocol.transport.close()


def at_move(move: int) -> Callable[[EmailMessage], bool]:
    """A predicate: a game mail that shows the position before move MOVE."""
    return lambda message: message.get("X-Moderator-Move") == str(move)


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
    servers: Servers, address: str, message_id: str, timeout: float = MAIL_PATIENCE
) -> StoredMail:
    """The mail with MESSAGE_ID in ADDRESS's INBOX, once it is flagged \\Seen."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            stored_mails = await mailbox(servers, address)
        except LOOK_AGAIN:
            stored_mails = []
        for stored in stored_mails:
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


async def run_cli(*args: str, timeout: float = 2 * MAIL_PATIENCE) -> CliResult:
    """Run `moderator ARGS...` to completion (a start alone, imports and all, takes
    seconds on a loaded machine; `mail --wait N` needs N more)."""
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
    workdir: Path, *extra: str, startup_timeout: float = MAIL_PATIENCE
) -> AsyncIterator[ServeProcess]:
    """Start `moderator serve --workdir WORKDIR EXTRA...` on free ports; SIGTERM it on
    exit."""
    process = await asyncio.create_subprocess_exec(
        moderator_script(), "serve", "--workdir", str(workdir), *extra,
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


async def _stop(process: asyncio.subprocess.Process, timeout: float = STOP_PATIENCE
                ) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            process.kill()
            await process.wait()


# -- a scripted 18TN opening: the stock round and the first operating round -----------------

#: Yellow lays that are legal in 18TN's first operating round, per company.
OPENING_LAYS = {
    "SR": ("lay 57 at F17 rot 0", "lay 7 at E18 rot 0"),
    "TC": ("lay 57 at F11 rot 0", "lay 7 at E12 rot 0"),
    "L&N": ("lay 7 at B15 rot 0", "lay 7 at C14 rot 3"),
}
_STOCK_ORDERS = ("par L&N at 65", "par SR at 65", "par TC at 65", "buy SR", "buy TC",
                 "buy L&N", "pass")


def opening_orders(game: Game) -> list[str]:
    """The order lines the acting player mails next in a scripted 18TN opening.

    Stock round: buy the cheapest private while one is for sale, then par SR and TC at
    65 and buy their shares. Operating round: the company's whole turn in one mail --
    two yellow tiles, a 2-train, `done` -- keeping only the orders that apply (tried
    on a copy of GAME, which is left unchanged)."""
    from moderator.desk.orders import run_submission

    turn = game.turn()
    assert turn is not None
    if game.round_name.startswith("Stock"):
        candidates = [o.split(" (")[0] for o in game.legal()
                      if o.startswith("buy ") and "(for $" in o][:1]
        candidates += _STOCK_ORDERS
        for order in candidates:
            if run_submission(game.clone(), turn.seat, order).ok:
                return [order]
        raise AssertionError(f"no scripted order applies: {game.legal()}")
    trial = game.clone()
    kept: list[str] = []
    for order in (*OPENING_LAYS.get(turn.entity, ()), "buy train 2", "done"):
        now = trial.turn()
        if now is None or now.entity != turn.entity:
            break
        attempt = trial.clone()
        if run_submission(attempt, turn.seat, order).ok:
            run_submission(trial, turn.seat, order)
            kept.append(order)
    assert kept, f"no scripted order applies for {turn.entity}: {game.legal()}"
    return kept


# -- a game already under way, for the tests that are not about setting one up -----------


def seat_game(config: Config, players: Mapping[str, str], *, master: str = "gm@example.org",
              seed: int = 5) -> str:
    """A started 18TN game in the daemon's store whose seats (in PLAYERS' order) are
    held by the given addresses: what `create game` ... `start` by mail leaves."""
    from engine.game import Setup
    from moderator.desk.auth import MASTER_KEY
    from moderator.store import Store

    store = Store(config.moderator.database)
    try:
        with store.transaction():
            game_id = store.create_mail_game("18TN", master, [], seed, time.time())
            store.add_member(game_id, master, "master", MASTER_KEY, status="active",
                             now=time.time())
            for seat, address in players.items():
                store.add_member(game_id, address, "player", seat, seat=seat,
                                 status="active", now=time.time())
            store.create_game(Setup("18TN", tuple(players), seed), game_id)
            store.mark_started(game_id, time.time())
    finally:
        store.close()
    return game_id


def seat_address(config: Config, game_id: str, seat: str) -> str:
    """The address a reply from SEAT goes to: the moderator's, tagged with its token."""
    from moderator.desk.auth import make_token, tag_address

    address = config.moderator.address
    return tag_address(address, game_id, seat, make_token(config.moderator.secret, game_id,
                                                          seat))


# -- the daemon as a real process on a configuration file ------------------------------------


def write_config(path: Path, servers: LocalMail, workdir: Path, *,
                 imap: Mapping[str, object] | None = None,
                 smtp: Mapping[str, object] | None = None,
                 moderator: Mapping[str, object] | None = None) -> Path:
    """A TOML configuration for `moderator serve --config` on SERVERS (test timeouts)."""
    user, password = servers.credentials(service.MODERATOR_ADDRESS)
    sections: dict[str, dict[str, object]] = {
        "imap": {"host": servers.host, "port": servers.imap_port, "tls": "none",
                 "user": user, "password": password, "timeout": IMAP_PATIENCE,
                 "reconnect_min": 0.1,
                 "reconnect_max": 0.5, "idle": False, "poll_interval": 0.05,
                 **(imap or {})},
        "smtp": {"host": servers.host, "port": servers.smtp_port, "tls": "none",
                 "timeout": SMTP_PATIENCE, "retry_min": 0.1, "retry_max": 0.5,
                 **(smtp or {})},
        "moderator": {"address": service.MODERATOR_ADDRESS,
                      "secret": "a test secret, long enough",
                      "database": str(workdir / "moderator.sqlite"), **(moderator or {})},
    }
    lines = []
    for name, values in sections.items():
        lines.append(f"[{name}]")
        for key, value in values.items():
            lines.append(f"{key} = {_toml(value)}")
        lines.append("")
    path.write_text("\n".join(lines))
    return path


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


@contextlib.asynccontextmanager
async def daemon_process(config_path: Path, **env: str
                         ) -> AsyncIterator[asyncio.subprocess.Process]:
    """`moderator serve --config CONFIG_PATH` as a real process; SIGTERM it on exit."""
    process = await asyncio.create_subprocess_exec(
        moderator_script(), "serve", "--config", str(config_path), env=_cli_env(**env),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    lines: list[str] = []
    collector = asyncio.create_task(_collect(process.stderr, lines))
    try:
        yield process
    except BaseException:
        print("moderator serve stderr:\n" + "".join(lines), file=sys.stderr)
        raise
    finally:
        await _stop(process)
        await asyncio.wait_for(collector, 5)
