"""The outbox sender: drains the `outbox` table through SMTP (aiosmtplib).

Mail is queued in the same transaction as the change that causes it, so it exists
before anything is sent; this task only delivers it. A mail the server does not
accept now (connection refused, timeout, a 4xx answer) is tried again later, the wait
doubling from ``retry_min`` up to ``retry_max``; a dead SMTP server delays mail and
never loses it. A permanent refusal (5xx) marks the mail failed, logged for the
operator, and it is not tried again.

A crash after the server accepted a mail but before it is marked sent makes that
mail go out again after the restart -- with the same Message-ID, so mail programs
show it once. SMTP cannot do better: there is no way to ask the server whether it has
the mail already. The marks are written behind the sending (`_SentMarks`), several in
one transaction: the processor holds the database's write lock while it processes a
mail, and a burst's sending waited for it once per mail (issue 14: seconds of a
200-mail burst). So a crash may send again the few mails whose marks were still
waiting for the lock; never a mail twice in one run, as each drain writes its marks
before it looks for due mail again.

Each mail's envelope sender is a bounce address of its own (VERP,
`moderator.mail.bounce`) when the service gives the secret for it: a bounce names the
mail it is for. A permanent refusal of a recipient at sending is handed to
``refused`` (the service records it as a bounce).

A refused login (535) and a certificate that does not verify are permanent errors:
logged once at ERROR with what to fix, recorded for ``moderator health``, and the
server is tried again only after ``error_retry`` seconds (no mail is lost: it waits).
Outages keep the short, doubling wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiosmtplib

from moderator.config import SmtpConfig
from moderator.crash import crash_point
from moderator.mail.bounce import bounce_address
from moderator.mail.inbox import certificate_problem, tls_context
from moderator.store import OutboxRow, Store

__all__ = ["HEALTH_EVERY", "Outbox", "Refusal", "permanent_problem"]

#: Seconds between records of a good send in the store's health table.
HEALTH_EVERY = 30.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """A recipient refused for good at sending: the mail, the code, the server's words."""

    row: OutboxRow
    code: int
    message: str


def permanent_problem(exc: BaseException, config: SmtpConfig) -> tuple[str, str] | None:
    """What is wrong and what to fix, when EXC is an error only the operator can fix."""
    if (problem := certificate_problem(exc)) is not None:
        return (f"the certificate of {config.host}:{config.port} does not verify: "
                f"{problem.verify_message}",
                "check [smtp] host (the name the certificate is for), or give the "
                "server's CA as [smtp] ca_file")
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError) or (
            isinstance(exc, aiosmtplib.SMTPResponseException) and exc.code in (534, 535)):
        return (f"{config.host}:{config.port} refused the login of {config.user}: "
                f"{exc.code} {exc.message.rstrip('. ')}",
                "check [smtp] user and password (password_file, $MODERATOR_SMTP_PASSWORD)")
    return None

log = logging.getLogger(__name__)


class Outbox:
    """Sends what the store's outbox holds, until stopped."""

    def __init__(self, store: Store, config: SmtpConfig,
                 clock: Callable[[], float] = time.time, *, bounce_secret: str | None = None,
                 refused: Callable[[Refusal], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.bounce_secret = bounce_secret  # None: the plain sender (no plus-addressing)
        self.refused = refused  # called in a worker thread
        self._marks: _SentMarks | None = None  # the drain under way's
        self.blocked_until = 0.0  # a permanent error: no try before (time.monotonic)
        self.error: str | None = None  # ... and which (logged once)
        self._healthy_at = 0.0  # when a good send was last recorded (time.monotonic)

    def delay(self, attempts: int) -> float:
        """How long to wait before try number ATTEMPTS + 1 (with jitter, so that many
        queued mails do not all hit a recovering server at once)."""
        base = min(self.config.retry_max, self.config.retry_min * 2.0 ** min(attempts, 30))
        return float(base * random.uniform(0.8, 1.0))

    async def run(self, stop: asyncio.Event, wake: asyncio.Event) -> None:
        """Send due mail whenever WAKE is set or the next retry is due; end on STOP."""
        while not stop.is_set():
            wait = self.blocked_until - time.monotonic()
            if wait > 0:  # a permanent error: new mail waits too (only STOP ends this)
                await _wait_any(stop, asyncio.Event(), wait)
                continue
            wake.clear()
            try:
                await self.drain()
            except Exception:  # a bug must not stop the mail for good: log, go on
                log.exception("the outbox sender failed; trying again shortly")
                await _wait_any(stop, wake, self.config.retry_min)
                continue
            due = await asyncio.to_thread(self.store.next_mail_due)
            timeout = None if due is None else max(0.0, due - self.clock())
            await _wait_any(stop, wake, timeout)

    async def drain(self) -> int:
        """Send every mail that is due now over one connection; return how many went."""
        # The store is used from worker threads (one call at a time), so that waiting for
        # the processor's write lock never stalls the event loop (and the IMAP link).
        rows = await asyncio.to_thread(self.store.due_mail, self.clock())
        if not rows:
            return 0
        client = self._client()
        try:
            await client.connect()
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            client.close()
            if (problem := permanent_problem(exc, self.config)) is not None:
                await self._permanent(*problem, len(rows))
                return 0
            for row in rows:
                await self._retry(row, f"cannot connect: {exc}")
            log.warning("SMTP %s:%s unreachable (%s); %d mail%s wait", self.config.host,
                        self.config.port, exc, len(rows), "" if len(rows) == 1 else "s")
            return 0
        if self.error is not None:
            log.info("SMTP %s:%s takes the moderator's login again", self.config.host,
                     self.config.port)
            self.error = None
            self._healthy_at = 0.0
        sent = 0
        marks = self._marks = _SentMarks(self.store)
        try:
            for index, row in enumerate(rows):
                # An internationalised address needs SMTPUTF8 (RFC 6531), which
                # aiosmtplib's sendmail asks for only when told.
                utf8 = not (row.sender + row.recipient).isascii()
                sender = (bounce_address(row.sender, self.bounce_secret, row.id)
                          if self.bounce_secret else row.sender)
                try:
                    await client.sendmail(sender, [row.recipient], row.raw,
                                          mail_options=["SMTPUTF8"] if utf8 else None)
                except aiosmtplib.SMTPRecipientsRefused as exc:
                    if any(500 <= r.code < 600 for r in exc.recipients):
                        await self._refused(row, exc)
                        code = next(r.code for r in exc.recipients if 500 <= r.code < 600)
                        message = next(r.message for r in exc.recipients
                                       if 500 <= r.code < 600)
                        if self.refused is not None:
                            await asyncio.to_thread(self.refused,
                                                    Refusal(row, code, message))
                    else:  # 4xx: "try again later" (greylisting, a full mailbox)
                        await self._retry(row, str(exc))
                    continue
                except (aiosmtplib.SMTPNotSupported, ValueError) as exc:
                    # A non-ASCII address and a server without SMTPUTF8, or an address
                    # SMTP cannot carry: never sendable; the rest still go.
                    await self._refused(row, exc)
                    continue
                except aiosmtplib.SMTPResponseException as exc:
                    if 500 <= exc.code < 600:
                        await self._refused(row, exc)
                        continue
                    await self._retry(row, f"{exc.code} {exc.message}")
                    continue
                except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                    # The connection is gone: this mail and the rest wait for the next try.
                    for rest in rows[index:]:
                        await self._retry(rest, str(exc))
                    log.warning("SMTP connection lost while sending: %s", exc)
                    return sent
                crash_point("sent")
                marks.add(row.id, self.clock())  # written behind: the next mail goes now
                sent += 1
                log.info("sent %s (%s) to %s", row.message_id, row.kind, row.recipient)
        finally:
            with contextlib.suppress(aiosmtplib.SMTPException, OSError, TimeoutError):
                await client.quit()
            client.close()
            self._marks = None
            await marks.flush()  # before the next look for due mail
        if sent and time.monotonic() - self._healthy_at > HEALTH_EVERY:
            self._healthy_at = time.monotonic()
            await asyncio.to_thread(self.store.health_ok, "smtp", time.time())
        return sent

    def _client(self) -> aiosmtplib.SMTP:
        config = self.config
        context = None
        if config.tls != "none":
            context = tls_context(str(config.ca_file) if config.ca_file else None)
        return aiosmtplib.SMTP(
            hostname=config.host, port=config.port,
            username=config.user, password=config.password,
            use_tls=config.tls == "implicit",
            # "none" must not upgrade even when offered: aiosmtplib would by default.
            start_tls=config.tls == "starttls",
            tls_context=context,
            local_hostname=config.helo_name,
            timeout=config.timeout,
        )

    async def _permanent(self, problem: str, fix: str, waiting: int) -> None:
        """A refused login or an unverified certificate: log it once, record it, and
        wait error_retry before the next try."""
        wait = self.config.error_retry
        self.blocked_until = time.monotonic() + wait
        if problem != self.error:
            log.error("SMTP: %s. To fix: %s. %d mail%s wait; the next try is in %.0f s "
                      "(error_retry)", problem, fix, waiting, "" if waiting == 1 else "s",
                      wait)
        else:
            log.info("SMTP: still %s; next try in %.0f s", problem, wait)
        self.error = problem
        await asyncio.to_thread(self.store.health_error, "smtp", f"{problem}. To fix: {fix}",
                                time.time())

    async def _retry(self, row: OutboxRow, error: str) -> None:
        await self._settle()
        wait = self.delay(row.attempts)
        await asyncio.to_thread(self.store.mark_retry, row.id, error, self.clock() + wait)
        log.info("mail %s to %s not sent (%s); next try in %.1fs", row.message_id,
                 row.recipient, error, wait)

    async def _refused(self, row: OutboxRow, exc: Exception) -> None:
        await self._settle()
        await asyncio.to_thread(self.store.mark_failed, row.id, str(exc), self.clock())
        log.error("mail %s to %s refused for good: %s", row.message_id, row.recipient, exc)

    async def _settle(self) -> None:
        """The sent marks written first: the store's connection takes one call at once."""
        if self._marks is not None:
            await self._marks.flush()


class _SentMarks:
    """The `sent` marks of a drain, written by one task at a time in a worker thread,
    all that came meanwhile in one transaction, while the sending goes on."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: list[tuple[int, float]] = []
        self.task: asyncio.Task[None] | None = None

    def add(self, mail_id: int, when: float) -> None:
        self.pending.append((mail_id, when))
        if self.task is not None and self.task.done():
            self.task.result()  # a database fault stops the drain, as it did unhidden
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._write())

    async def _write(self) -> None:
        while self.pending:
            marks, self.pending = self.pending, []
            await asyncio.to_thread(_mark_sent, self.store, marks)

    async def flush(self) -> None:
        """Every mark written (or the fault that stopped them raised)."""
        if self.task is not None:
            await self.task
        if self.pending:  # a fault ended the task with marks still coming
            await self._write()


def _mark_sent(store: Store, marks: list[tuple[int, float]]) -> None:
    with store.transaction():
        for mail_id, when in marks:
            store.mark_sent(mail_id, when)


async def _wait_any(stop: asyncio.Event, wake: asyncio.Event, timeout: float | None) -> None:
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
