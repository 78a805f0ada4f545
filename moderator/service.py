"""The moderator service: a daemon that reads orders from IMAP and answers by SMTP.

Its parts run side by side on one asyncio loop:

* the inbox loop (`moderator.mail.inbox`): IMAP IDLE on the configured folder (a poll
  where the server has no IDLE); on every wake-up it fetches every unprocessed mail,
  oldest first, records each in the database (`Processor.receive`: its bytes, its
  author and when it was written), and once a batch's records are on the disk flags
  the batch processed on the server: the database has the mail from then on. Now and
  then it expunges processed mail past ``processed_retention_days`` and looks at the
  mailbox's quota (`Housekeeping`). A lost connection is reopened with a doubling
  wait (``reconnect_min`` .. ``reconnect_max``).
* the order loop: processes the recorded mail as it becomes ready -- ``order_window``
  seconds after it was first seen, each author's mails in the order he wrote them
  (`moderator.desk.ordering`) -- each in ONE transaction with every mail it causes
  (`Processor.process`, in a worker thread so that IMAP and SMTP stay responsive);
  then it queues the reports the batch's moves owe the members who did not send them:
  one each, covering the batch (`moderator.desk.batching`).
* the outbox sender (`moderator.mail.outbox`): delivers queued mail with retries.
* the retry loop: a mail whose processing failed is flagged on the server all the
  same (the database has it) and tried again from the database after a doubling
  wait, while the mail behind it goes on; after ``max_attempts`` tries it is
  quarantined (`moderator quarantine`), and a released one is tried within seconds.
* at start-up, mail recorded but not processed before a crash is tried first, each
  once: a mail that fails waits for the retry loop, and start-up goes on.

A database that cannot be opened or written stops the start with one sentence
saying so (`open_store`), not a traceback.

`run` is what ``moderator serve`` calls: with ``--config FILE`` it serves the
configured servers (`moderator.config`); without, it starts the embedded local mail
system (`moderator.mail.local.LocalMail`) under the work folder, serves
``moderator@localhost`` on loopback, and prints how to mail it. Tests drive
`serve_forever` directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import importlib
import logging
import os
import secrets
import shlex
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TextIO

import aioimaplib
import click

from moderator.config import (
    Config,
    ConfigError,
    ImapConfig,
    ModeratorConfig,
    SmtpConfig,
    load_config,
)
from moderator.crash import crash_point
from moderator.desk import bounces
from moderator.desk.processor import Processor, ProcessorSettings, RetryPolicy
from moderator.desk.settings import dkim_signer
from moderator.mail.bounce import BounceReport
from moderator.mail.dkim import DkimError
from moderator.mail.endpoints import (
    ENDPOINTS_FILE,
    LOCAL_HOST,
    LOCAL_SMTP_PATIENCE,
    EmbeddedEndpoints,
    MailEndpoints,
    port_is_free,
    read_endpoints,
)
from moderator.mail.inbox import FetchedMail, ImapError, ImapPermanentError, ImapSession
from moderator.mail.outbox import Outbox, Refusal
from moderator.mail.parse import automatic_reason
from moderator.mail.webhook import WebhookPolicy, WebhookSender
from moderator.store import Quota, Store

__all__ = [
    "DATABASE_FILE",
    "DEFAULT_IMAP_PORT",
    "DEFAULT_SMTP_PORT",
    "DEFAULT_WORKDIR",
    "ENDPOINTS_FILE",
    "IMAP_PORT_ENV",
    "MODERATOR_ADDRESS",
    "SMTP_PORT_ENV",
    "EmbeddedEndpoints",
    "embedded_config",
    "open_store",
    "read_endpoints",
    "run",
    "serve_embedded",
    "serve_forever",
    "skip_reason",
]

log = logging.getLogger(__name__)

#: How long the processing thread may keep Python's interpreter lock while the event
#: loop waits for it (`sys.setswitchinterval`; Python's default is 5 ms). Processing is
#: CPU-bound, and every step of the IMAP and SMTP conversations (a reply sent is four)
#: waited up to the whole interval: under a burst the outbox took 40-60 ms a mail
#: instead of 8, 20-30 ms at 0.5 ms (issue 14, measured with a busy thread beside it).
SWITCH_INTERVAL = 0.0005

MODERATOR_ADDRESS = "moderator@localhost"
DEFAULT_IMAP_PORT = 1143
DEFAULT_SMTP_PORT = 1025
#: Environment variables overriding the embedded ports (0 means any free port).
IMAP_PORT_ENV = "MODERATOR_IMAP_PORT"
SMTP_PORT_ENV = "MODERATOR_SMTP_PORT"

MAIL_DIR = "mail"
PASSWORD_FILE = "mail-password"
SECRET_FILE = "secret"
LOCK_FILE = "service.lock"
#: The embedded service's database; also the default `--db` of the local CLI commands.
DATABASE_FILE = "moderator.sqlite"
DEFAULT_WORKDIR = Path("moderator-data")

_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: Kept for callers of the skeleton: why a mail must not be answered.
skip_reason = automatic_reason


# -- start-up ------------------------------------------------------------------------------


def run(
    config_path: Path | None,
    workdir: Path,
    *,
    imap_port: int | None = None,
    smtp_port: int | None = None,
    directors: tuple[str, ...] = (),
) -> None:
    """``moderator serve``: run until SIGINT or SIGTERM.

    With CONFIG_PATH, serve the servers it names. Without, the embedded local mail
    servers run under WORKDIR on 127.0.0.1, IMAP port 1143 and SMTP port 1025 unless
    IMAP_PORT / SMTP_PORT (or the environment variables MODERATOR_IMAP_PORT /
    MODERATOR_SMTP_PORT) say otherwise; 0 means any free port, and a taken port falls
    back to a free one. DIRECTORS: who may create tournaments on the embedded servers
    (a rehearsal on one machine).
    """
    logging.basicConfig(level=logging.INFO, format=_LOG_FORMAT)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's per-connection chatter
    logging.getLogger("aioimaplib").setLevel(logging.WARNING)
    if config_path is not None:
        try:
            config = load_config(config_path)
        except ConfigError as exc:
            raise click.UsageError(f"the configuration is not usable.\n{exc}") from None
        try:
            dkim_signer(config.moderator)  # a key that cannot sign stops the start
        except DkimError as exc:
            raise click.UsageError(f"the configuration is not usable.\n{exc}") from None
        for warning in config.warnings():
            log.warning("%s", warning)
        open_store(config.moderator.database).close()
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_configured(config))
        return
    imap = imap_port if imap_port is not None else _port_from_env(IMAP_PORT_ENV, DEFAULT_IMAP_PORT)
    smtp = smtp_port if smtp_port is not None else _port_from_env(SMTP_PORT_ENV, DEFAULT_SMTP_PORT)
    local = local_mail_module()
    workdir.mkdir(parents=True, exist_ok=True)
    open_store(workdir / DATABASE_FILE).close()
    try:
        asyncio.run(serve_embedded(workdir, imap_port=imap, smtp_port=smtp,
                                   directors=tuple(d.lower() for d in directors)))
    except KeyboardInterrupt:  # a Ctrl-C before the signal handlers were in place
        pass
    except local.LocalMailError as exc:
        raise click.ClickException(f"the local mail servers did not start: {exc}") from exc


def open_store(path: Path) -> Store:
    """The store at PATH for the daemon; a database that cannot be opened, written or
    read stops the start with one sentence (click prints it) instead of a traceback."""
    try:
        return Store(path, check_same_thread=False)
    except (sqlite3.Error, OSError) as exc:
        raise click.ClickException(database_problem(path, exc)) from None


def database_problem(path: Path, exc: BaseException) -> str:
    """What is wrong with the database PATH, in one sentence for the operator."""
    text = str(exc)
    if "readonly" in text or "read-only" in text or isinstance(exc, PermissionError):
        why = ("it is read-only for this user: the service must be able to write the "
               "file and its folder (SQLite keeps -wal and -shm files beside it)")
    elif "unable to open" in text or isinstance(exc, OSError):
        why = ("it cannot be opened or created: check that its folder exists and that "
               "this user may write there")
    elif "not a database" in text or "malformed" in text:
        why = "the file is not an intact SQLite database (restore it from a backup)"
    elif "locked" in text or "busy" in text:
        why = "another program holds it locked"
    else:
        why = "SQLite refused it"
    return f"the database {path} cannot be used: {why} ({text})."


#: What to install when the embedded servers are missing (a production install that
#: serves a real mailbox does not carry an IMAP server).
LOCAL_EXTRA_HINT = (
    "the embedded local mail servers are not installed. `moderator serve` without "
    "--config runs a local IMAP and SMTP server, which needs the optional part "
    "`local`: pip install 'pbem-18xx-moderator[local]' (or run `./dev serve` in the "
    "source tree, which installs it). To serve a real mailbox instead, pass "
    "--config FILE (see deploy/moderator.example.toml).")


def local_mail_module() -> ModuleType:
    """`moderator.mail.local`, or a clear error saying what to install."""
    try:
        return importlib.import_module("moderator.mail.local")
    except ImportError as exc:
        missing = exc.name or "a module"
        raise click.ClickException(f"{LOCAL_EXTRA_HINT} (missing: {missing})") from None


async def serve_configured(config: Config, out: TextIO | None = None) -> None:
    """Serve the configured servers until SIGINT or SIGTERM."""
    stop = _stop_on_signals()
    click.echo(f"PBEM moderator serving {config.moderator.address}: IMAP "
               f"{config.imap.host}:{config.imap.port} ({config.imap.tls}), SMTP "
               f"{config.smtp.host}:{config.smtp.port} ({config.smtp.tls}), database "
               f"{config.moderator.database}. Stop with SIGTERM or Ctrl-C.", file=out)
    await serve_forever(config, stop)
    click.echo("Moderator stopped.", file=out)


def _port_from_env(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) > 65535:
        raise click.UsageError(f"{name}={value!r} is not a port number (0 means any free port)")
    return int(value)


def embedded_config(endpoints: MailEndpoints, workdir: Path,
                    address: str = MODERATOR_ADDRESS,
                    directors: tuple[str, ...] = ()) -> Config:
    """The configuration of the embedded service: local servers, WORKDIR's database;
    DIRECTORS may create tournaments."""
    user, password = endpoints.credentials(address)
    return Config(
        # Polling a loopback server is cheap, and answers sooner than pymap's IDLE,
        # which looks for new mail in its maildir only once a second.
        imap=ImapConfig(host=endpoints.host, port=endpoints.imap_port, tls="none", user=user,
                        password=password, reconnect_min=0.5, reconnect_max=5.0,
                        idle=False, poll_interval=0.25),
        # The local server answers DATA once it has delivered (LOCAL_SMTP_PATIENCE).
        smtp=SmtpConfig(host=endpoints.host, port=endpoints.smtp_port, tls="none",
                        timeout=LOCAL_SMTP_PATIENCE, retry_min=1.0, retry_max=30.0),
        # The embedded server files each mail as it takes it: a player's mails arrive
        # in the order sent, and nothing need wait for the order of writing.
        moderator=ModeratorConfig(address=address, secret=_local_secret(workdir),
                                  database=workdir / DATABASE_FILE,
                                  tournament_directors=directors, order_window=0.0),
    )


async def serve_embedded(
    workdir: Path,
    *,
    imap_port: int = DEFAULT_IMAP_PORT,
    smtp_port: int = DEFAULT_SMTP_PORT,
    stop_event: asyncio.Event | None = None,
    out: TextIO | None = None,
    directors: tuple[str, ...] = (),
) -> None:
    """Run LocalMail under WORKDIR and the daemon on it until stopped (DIRECTORS may
    create tournaments).

    Stops on SIGINT/SIGTERM, or when STOP_EVENT is set if one is given.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    stop = stop_event if stop_event is not None else _stop_on_signals()
    local = local_mail_module()
    with _exclusive(workdir):
        mail = local.LocalMail(
            workdir / MAIL_DIR,
            imap_port=_choose_port(imap_port, "IMAP"),
            smtp_port=_choose_port(smtp_port, "SMTP"),
            password=_local_password(workdir),
        )
        async with mail:
            await mail.ensure_mailbox(MODERATOR_ADDRESS)
            endpoints = EmbeddedEndpoints(mail.endpoints, MODERATOR_ADDRESS, os.getpid())
            with _endpoints_written(workdir, endpoints):
                click.echo(banner(endpoints, workdir, directors), file=out)
                await serve_forever(embedded_config(mail.endpoints, workdir,
                                                    directors=directors), stop)
    click.echo("Moderator stopped.", file=out)


def _local_secret(workdir: Path) -> str:
    """The token secret of the embedded service, made once per work folder."""
    path = workdir / SECRET_FILE
    if path.exists() and (secret := path.read_text().strip()):
        return secret
    workdir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secret + "\n")
    return secret


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


def banner(endpoints: EmbeddedEndpoints, workdir: Path,
           directors: tuple[str, ...] = ()) -> str:
    """What `moderator serve` prints: where to mail it and how to try it."""
    mail = endpoints.mail
    workdir_option = "" if workdir == DEFAULT_WORKDIR else f" --workdir {shlex.quote(str(workdir))}"
    try_it = f"  moderator mail{workdir_option} --as"
    return "\n".join([
        "PBEM moderator running on its embedded local mail servers.",
        f"  Mail orders to:  {endpoints.moderator}",
        f"  SMTP (send):     {mail.host}:{mail.smtp_port}  (no login needed)",
        f"  IMAP (read):     {mail.host}:{mail.imap_port}  login: your address, "
        f"password: {mail.password}",
        f"  Mail folder:     {workdir / MAIL_DIR}",
        f"  Database:        {workdir / DATABASE_FILE}",
        "Try it: each command mails the moderator (replying to its latest mail to that",
        "address, which carries the player's password) and prints the answer. Any",
        "address works: all mail stays on this machine.",
        f'{try_it} gm@example.org --new "create game 18TN"',
        f'{try_it} gm@example.org "invite ann@example.org as Ann" '
        '"invite bob@example.org as Bob" "invite cy@example.org as Cy"',
        f'{try_it} ann@example.org "join"      (and the same for bob and cy)',
        f'{try_it} gm@example.org "start"',
        f'{try_it} ann@example.org "status"',
        *([f"Tournament directors: {', '.join(directors)} (README.md, \"Tournaments\", "
           "walks through one)."] if directors else []),
        "Stop with Ctrl-C.",
    ])


# -- the daemon ------------------------------------------------------------------------------


async def serve_forever(config: Config, stop_event: asyncio.Event,
                        clock: Callable[[], float] = time.time,
                        started: Callable[[Processor], None] | None = None) -> None:
    """Process the moderator's mail and send its answers until STOP_EVENT is set.

    CLOCK is the time deadlines are measured by (tests pass one they advance); STARTED
    is shown the processor (`moderator bench mail` reads the CPU it spent)."""
    log.info("serving %s from imap://%s:%s/%s", config.moderator.address, config.imap.host,
             config.imap.port, config.imap.folder)
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(switch_interval, SWITCH_INTERVAL))
    try:
        await _serve(config, stop_event, clock, started)
    finally:
        sys.setswitchinterval(switch_interval)


async def _serve(config: Config, stop_event: asyncio.Event, clock: Callable[[], float],
                 started: Callable[[Processor], None] | None) -> None:
    database = config.moderator.database
    # Two connections, each used from worker threads one call at a time: the
    # processor's and the outbox's. SQLite (WAL) keeps them consistent.
    worker_store = open_store(database)
    outbox_store = open_store(database)
    # What the outbox writes (a mail sent, its next try) needs no disk flush of its own
    # (synchronous=NORMAL under WAL: a crash of the daemon loses none of it): a power
    # cut may lose the last marks, and those mails go again, as a crash between SMTP's
    # answer and the mark makes them go now. A flush per mail sent held the database's
    # write lock ~7 ms a mail under a burst, which the processing waited for.
    outbox_store.execute("PRAGMA synchronous=NORMAL")
    mod = config.moderator
    # The games' webhooks: posted from a task of their own, never in the mail's way.
    webhooks = WebhookSender(WebhookPolicy(mod.webhook_timeout, mod.webhook_attempts,
                                           mod.webhook_retry_min, mod.webhook_allow_private))
    webhook_task = asyncio.create_task(webhooks.run(stop_event))
    settings = dataclasses.replace(ProcessorSettings.from_config(mod), notify=webhooks.submit)
    processor = Processor(worker_store, settings, clock=clock,
                          retry=RetryPolicy(mod.max_attempts, mod.retry_min, mod.retry_max))
    if started is not None:
        started(processor)
    # The parser and the templates built before the first mail, not in its time (a
    # failure here only leaves that to the first mail).
    try:
        await asyncio.to_thread(processor.warm_up)
    except Exception:
        log.exception("warming up failed; the first mail builds what it needs")
    wake_outbox = asyncio.Event()

    def refused(refusal: Refusal) -> None:
        """A recipient refused for good at sending: a bounce (in the outbox's thread)."""
        found = outbox_store.outbox_mail(refusal.row.id)
        with outbox_store.transaction():
            posts = bounces.record(
                outbox_store, refusal.row.recipient, found[1] if found else None,
                BounceReport(True, _status_of(refusal.message), refusal.row.recipient,
                             f"{refusal.code} {refusal.message}"),
                now=time.time(), cause=None, outbox_id=refusal.row.id, moderator=mod.name)
        for post in posts:
            webhooks.submit(post)  # safe from any thread

    # VERP: each mail's own envelope sender names it in its bounce (plus-addressing).
    outbox = Outbox(outbox_store, config.smtp,
                    bounce_secret=mod.secret if mod.plus_addressing else None,
                    refused=refused)
    outbox_task = asyncio.create_task(outbox.run(stop_event, wake_outbox))
    clock_task: asyncio.Task[None] | None = None
    retry_task: asyncio.Task[None] | None = None
    order_task: asyncio.Task[None] | None = None
    try:
        await asyncio.to_thread(processor.recover_downtime)
        clock_task = asyncio.create_task(_clock_loop(
            processor, wake_outbox, stop_event, config.moderator.tick_interval))
        # Mail recorded but not processed when the daemon last died comes first.
        await _process_left_over(processor, wake_outbox)
        # Reports a batch owed when the daemon last died (`moderator.desk.batching`).
        if await asyncio.to_thread(processor.flush_reports):
            wake_outbox.set()
        await _better_runs(processor)
        retry_task = asyncio.create_task(_retry_loop(
            processor, wake_outbox, stop_event, min(5.0, config.moderator.retry_min)))
        # The inbox records mail; the order loop processes it in the order written.
        arrived = asyncio.Event()
        order_task = asyncio.create_task(_order_loop(
            processor, wake_outbox, arrived, stop_event, config.moderator.order_window))
        await _inbox_loop(config, processor, arrived, stop_event)
    finally:
        stop_event.set()
        for task in (clock_task, retry_task, order_task):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait_for(task, 30)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(outbox_task, config.smtp.timeout + 5)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(webhook_task, 5)
        worker_store.close()
        outbox_store.close()


async def _clock_loop(processor: Processor, wake_outbox: asyncio.Event, stop: asyncio.Event,
                      interval: float) -> None:
    """Every INTERVAL seconds: reminders, deadlines, late players (`timekeeper`)."""
    while not stop.is_set():
        try:
            if await asyncio.to_thread(processor.tick):
                wake_outbox.set()
        except Exception:
            # A bug or a database problem: the mail keeps flowing; the next tick tries
            # again (and the log says what broke).
            log.exception("looking at the clocks failed")
        await _wait_event(stop, interval)


async def _process_left_over(processor: Processor, wake_outbox: asyncio.Event) -> None:
    """At start-up: try each mail left unfinished once. A mail never stops the start
    (one that fails waits for the retry loop); a database fault is logged, and the
    retry loop and the inbox go on."""
    try:
        pending = await asyncio.to_thread(processor.process_pending)
    except Exception:
        log.exception("trying the mail left over from the last run failed")
        return
    if pending:
        log.info("tried %d mail%s left over from the last run: %s", len(pending),
                 "" if len(pending) == 1 else "s",
                 ", ".join(f"{o.key} {o.status}" for o in pending))
        wake_outbox.set()


async def _retry_loop(processor: Processor, wake_outbox: asyncio.Event, stop: asyncio.Event,
                      interval: float) -> None:
    """Every INTERVAL seconds: try the failed (and released) mails whose time has come,
    and send the reports a batch cut short left owed."""
    while not stop.is_set():
        try:
            if await asyncio.to_thread(processor.retry_due):
                wake_outbox.set()
            # Not while a batch is under way: its reports wait for its end.
            if not processor.batch_open and await asyncio.to_thread(
                    processor.flush_reports) > 0:
                wake_outbox.set()
            if not processor.batch_open:
                await _better_runs(processor)
        except Exception:
            log.exception("retrying failed mail failed; trying again in %.1fs", interval)
        await _wait_event(stop, interval)


#: Seconds between records of a good IMAP session in the store (`moderator health`).
HEALTH_EVERY = 60.0


def _health(processor: Processor, name: str, error: str | None = None) -> None:
    """Record a good session of NAME, or its permanent ERROR (in a worker thread)."""
    with processor.lock:
        if error is None:
            processor.store.health_ok(name, time.time())
        else:
            processor.store.health_error(name, error, time.time())


async def _inbox_loop(config: Config, processor: Processor, arrived: asyncio.Event,
                      stop: asyncio.Event) -> None:
    """IMAP sessions one after another; after a failure wait, doubling, and reconnect.
    A refused login or an unverified certificate is logged once at ERROR, recorded for
    `moderator health`, and tried again only after ``error_retry``."""
    delay = config.imap.reconnect_min
    error: str | None = None  # the permanent error being waited out
    keeper = Housekeeping(config.imap, processor)
    while not stop.is_set():
        session = ImapSession(config.imap)
        opened = False
        try:
            await session.open()
            opened = True
            delay = config.imap.reconnect_min
            if error is not None:
                log.info("IMAP %s:%s takes the moderator's login again", config.imap.host,
                         config.imap.port)
                error = None
            recorded = -HEALTH_EVERY
            keeper.new_session()
            while not stop.is_set():
                await process_inbox(session, processor, arrived,
                                    config.moderator.max_message_bytes)
                if time.monotonic() - recorded >= HEALTH_EVERY:
                    recorded = time.monotonic()
                    await asyncio.to_thread(_health, processor, "imap")
                await keeper.run(session)
                await session.wait_for_news(stop)
            await session.logout()
        except ImapPermanentError as exc:
            wait = config.imap.error_retry
            problem = str(exc).rstrip(". ")
            if problem != error:
                log.error("IMAP: %s. To fix: %s. The next try is in %.0f s (error_retry)",
                          problem, exc.fix, wait)
            else:
                log.info("IMAP: still %s; next try in %.0f s", problem, wait)
            error = problem
            await asyncio.to_thread(_health, processor, "imap",
                                    f"{problem}. To fix: {exc.fix}")
            await _wait_event(stop, wait)
        except (OSError, TimeoutError, ImapError, aioimaplib.AioImapException) as exc:
            log.warning("IMAP session %s (%s: %s); reconnecting in %.1fs",
                        "ended" if opened else "failed", type(exc).__name__, exc, delay)
            await _wait_event(stop, delay)
            delay = min(config.imap.reconnect_max, delay * 2)
        except Exception:
            # A bug or a database problem: the mail stays unflagged and is tried again;
            # the daemon keeps serving the rest (and the log says what broke).
            log.exception("reading the inbox failed; trying again in %.1fs", delay)
            await _wait_event(stop, delay)
            delay = min(config.imap.reconnect_max, delay * 2)
        finally:
            session.close()


#: Seconds between looks at the mailbox's quota, and between expunges of old
#: processed mail, within one IMAP session (each is also done when a session opens).
QUOTA_EVERY = 600.0
RETENTION_EVERY = 3600.0
#: Seconds between warnings while the mailbox stays above its quota's warning level.
QUOTA_WARN_EVERY = 3600.0


class Housekeeping:
    """What the inbox loop does for the mailbox now and then: expunge processed mail
    past ``processed_retention_days`` (a bounded batch each time), and look at the
    quota (IMAP QUOTA, where the server has it), warning above ``quota_warn_percent``:
    a full mailbox makes the server bounce the players' orders, and nobody else sees
    it coming."""

    def __init__(self, config: ImapConfig, processor: Processor) -> None:
        self.config = config
        self.processor = processor
        self.quota_at = -QUOTA_EVERY  # time.monotonic() of the last look
        self.retention_at = -RETENTION_EVERY
        self.warned_at: float | None = None  # the last warning, while above the level

    def new_session(self) -> None:
        self.quota_at = -QUOTA_EVERY
        self.retention_at = -RETENTION_EVERY

    async def run(self, session: ImapSession) -> None:
        config = self.config
        if config.processed_retention_days > 0 and \
                time.monotonic() - self.retention_at >= RETENTION_EVERY:
            self.retention_at = time.monotonic()
            gone = await session.expunge_processed(
                time.time() - config.processed_retention_days * 86400,
                config.retention_batch)
            if gone:
                log.info("expunged %d processed mail%s older than %g days from %s "
                         "(processed_retention_days; the database keeps them)", gone,
                         "" if gone == 1 else "s", config.processed_retention_days,
                         config.processed_folder or config.folder)
        if time.monotonic() - self.quota_at >= QUOTA_EVERY:
            self.quota_at = time.monotonic()
            found = await session.quota()
            if found is not None:
                await asyncio.to_thread(self._record, *found)

    def _record(self, used: int, limit: int) -> None:
        """Keep the quota for `moderator health` and warn above the level (in a
        worker thread)."""
        now = time.time()
        quota = Quota(used, limit, self.config.quota_warn_percent, now)
        with self.processor.lock:
            self.processor.store.set_quota(quota)
        if quota.percent < quota.warn_percent:
            if self.warned_at is not None:
                log.info("the moderator's mailbox uses %.0f%% of its quota again, below "
                         "%g%%", quota.percent, quota.warn_percent)
            self.warned_at = None
            return
        if self.warned_at is None or now - self.warned_at >= QUOTA_WARN_EVERY:
            self.warned_at = now
            log.warning("the moderator's mailbox is near its quota: %.0f%% used (%s of %s; "
                        "warning above %g%%). When it is full the server refuses the "
                        "players' orders. Make room (processed_retention_days, or delete "
                        "old mail) or raise the quota", quota.percent, _kilobytes(used),
                        _kilobytes(limit), quota.warn_percent)


def _kilobytes(amount: int) -> str:
    return f"{amount / 1024:.1f} MB" if amount >= 1024 else f"{amount} KB"


#: Mails fetched in one round trip (`ImapSession.fetch_many`) under a burst.
FETCH_BATCH = 25


async def process_inbox(session: ImapSession, processor: Processor,
                        arrived: asyncio.Event, max_bytes: int) -> int:
    """Fetch and record every unprocessed mail, then flag it on the server; return how
    many. The processing is `_order_loop`'s, from the database, in the order written.

    Mail is fetched FETCH_BATCH at once, the next batch while this one is recorded,
    and flagged a batch at once, once its records are on the disk: from then on the
    database is the only place that has it (as for a mail waiting for a retry). A
    crash before the flag only makes the next fetch find mail it knows."""
    handled = 0
    uids = await session.unprocessed()
    batch = await session.fetch_many(uids[:FETCH_BATCH], max_bytes)
    while batch:
        uids = uids[uids.index(batch[-1].uid) + 1:]
        following = (asyncio.ensure_future(session.fetch_many(uids[:FETCH_BATCH], max_bytes))
                     if uids else None)
        try:
            for fetched in batch:
                await _record_fetched(processor, fetched)
                handled += 1
            await asyncio.to_thread(processor.synced)
        except BaseException:
            # What was recorded goes on to be processed: a fetch after the reconnect
            # finds it known (done, or recorded and waiting).
            arrived.set()
            if following is not None:
                following.cancel()
                with contextlib.suppress(BaseException):
                    await following
            raise
        arrived.set()
        next_batch = await following if following is not None else []
        await session.mark_many([fetched.uid for fetched in batch])
        crash_point("flagged")
        session.processed_through(batch[-1].uid)
        batch = next_batch
    return handled


async def _record_fetched(processor: Processor, fetched: FetchedMail) -> None:
    crash_point("fetched")
    # Recorded without a flush of its own: the batch's `synced` flushes them all before
    # the server is told they are done.
    key, done = await asyncio.to_thread(processor.receive, fetched.raw, fetched.size, True)
    crash_point("stored")
    if done:
        log.info("%s was processed before; flagging it again", key)


async def _order_loop(processor: Processor, wake_outbox: asyncio.Event,
                      arrived: asyncio.Event, stop: asyncio.Event, window: float) -> None:
    """Process the recorded mail as it becomes ready: each WINDOW seconds after it was
    first seen, the mails ready together in the order their authors wrote them
    (`moderator.desk.ordering`); then the reports the batch's moves owe the members
    who did not send them, one each (`moderator.desk.batching`)."""
    while not stop.is_set():
        arrived.clear()
        due: float | None = None
        try:
            keys, due = await asyncio.to_thread(processor.ready, window)
            for key in keys:
                if stop.is_set():
                    break
                await _process_recorded(processor, wake_outbox, key)
            if keys:
                if await asyncio.to_thread(processor.flush_reports):
                    wake_outbox.set()
                await _better_runs(processor)  # the batch's answers are on their way
                continue
        except Exception:
            # A bug or a database problem: the mail stays recorded and unfinished;
            # the loop tries again (and the log says what broke).
            processor.batch_open = False  # what the batch owes, the retry loop sends
            log.exception("processing the recorded mail failed; trying again in 1 s")
            await _wait_event(stop, 1.0)
            continue
        wait = 60.0 if due is None else min(60.0, max(0.0, due - processor.wall()) + 0.01)
        await _first_event(stop, arrived, timeout=wait)


async def _better_runs(processor: Processor) -> None:
    """The searches for better runs than the declared ones of the mails committed,
    once the outbox has their answers (`Processor.better_runs`)."""
    if processor.declared:
        await asyncio.to_thread(processor.better_runs)


async def _process_recorded(processor: Processor, wake_outbox: asyncio.Event,
                            key: str) -> None:
    outcome = await asyncio.to_thread(processor.process, key, True)
    crash_point("committed")
    wake_outbox.set()
    if outcome.status == "deferred":
        # The retry loop tries it again while the mail behind it goes on.
        log.warning("%s: %s", key, outcome.summary)


async def _first_event(*events: asyncio.Event, timeout: float) -> None:
    """Return when one of EVENTS is set, or after TIMEOUT seconds."""
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def _wait_event(event: asyncio.Event, timeout: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout)


def _status_of(message: str) -> str | None:
    """The enhanced status code (5.1.1) an SMTP refusal's text begins with."""
    first = message.split(maxsplit=1)[0] if message.split() else ""
    parts = first.split(".")
    return first if len(parts) == 3 and all(p.isdigit() for p in parts) else None


def replace_config(config: Config, **sections: dict[str, object]) -> Config:
    """CONFIG with some fields of its sections replaced: `imap={"timeout": 5}`."""
    parts = {name: getattr(config, name) for name in ("imap", "smtp", "moderator")}
    for name, changes in sections.items():
        parts[name] = dataclasses.replace(parts[name], **changes)
    return Config(**parts)
