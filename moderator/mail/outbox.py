"""The outbox sender: drains the `outbox` table through SMTP (aiosmtplib).

Mail is queued in the same transaction as the change that causes it, so it exists
before anything is sent; this task only delivers it. A mail the server does not
accept now (connection refused, timeout, a 4xx answer) is tried again later, the wait
doubling from ``retry_min`` up to ``retry_max``; a dead SMTP server delays mail and
never loses it. A permanent refusal (5xx) marks the mail failed, logged for the
operator, and it is not tried again.

A crash after the server accepted a mail but before it is marked sent makes that one
mail go out again after the restart -- with the same Message-ID, so mail programs
show it once. SMTP cannot do better: there is no way to ask the server whether it has
the mail already.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable

import aiosmtplib

from moderator.config import SmtpConfig
from moderator.crash import crash_point
from moderator.mail.inbox import tls_context
from moderator.store import OutboxRow, Store

__all__ = ["Outbox"]

log = logging.getLogger(__name__)


class Outbox:
    """Sends what the store's outbox holds, until stopped."""

    def __init__(self, store: Store, config: SmtpConfig,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.clock = clock

    def delay(self, attempts: int) -> float:
        """How long to wait before try number ATTEMPTS + 1 (with jitter, so that many
        queued mails do not all hit a recovering server at once)."""
        base = min(self.config.retry_max, self.config.retry_min * 2.0 ** min(attempts, 30))
        return float(base * random.uniform(0.8, 1.0))

    async def run(self, stop: asyncio.Event, wake: asyncio.Event) -> None:
        """Send due mail whenever WAKE is set or the next retry is due; end on STOP."""
        while not stop.is_set():
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
            for row in rows:
                await self._retry(row, f"cannot connect: {exc}")
            log.warning("SMTP %s:%s unreachable (%s); %d mail%s wait", self.config.host,
                        self.config.port, exc, len(rows), "" if len(rows) == 1 else "s")
            return 0
        sent = 0
        try:
            for index, row in enumerate(rows):
                # An internationalised address needs SMTPUTF8 (RFC 6531), which
                # aiosmtplib's sendmail asks for only when told.
                utf8 = not (row.sender + row.recipient).isascii()
                try:
                    await client.sendmail(row.sender, [row.recipient], row.raw,
                                          mail_options=["SMTPUTF8"] if utf8 else None)
                except aiosmtplib.SMTPRecipientsRefused as exc:
                    if any(500 <= r.code < 600 for r in exc.recipients):
                        await self._refused(row, exc)
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
                await asyncio.to_thread(self.store.mark_sent, row.id, self.clock())
                sent += 1
                log.info("sent %s (%s) to %s", row.message_id, row.kind, row.recipient)
        finally:
            with contextlib.suppress(aiosmtplib.SMTPException, OSError, TimeoutError):
                await client.quit()
            client.close()
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

    async def _retry(self, row: OutboxRow, error: str) -> None:
        wait = self.delay(row.attempts)
        await asyncio.to_thread(self.store.mark_retry, row.id, error, self.clock() + wait)
        log.info("mail %s to %s not sent (%s); next try in %.1fs", row.message_id,
                 row.recipient, error, wait)

    async def _refused(self, row: OutboxRow, exc: Exception) -> None:
        await asyncio.to_thread(self.store.mark_failed, row.id, str(exc), self.clock())
        log.error("mail %s to %s refused for good: %s", row.message_id, row.recipient, exc)


async def _wait_any(stop: asyncio.Event, wake: asyncio.Event, timeout: float | None) -> None:
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
