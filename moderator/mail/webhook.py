"""Posting the games' report summaries to their webhooks, beside the mail, never in its way.

`WebhookSender.run` is a task of the daemon's loop. The processor's thread hands each
post over with `submit` (thread-safe) after its mail's transaction commits; the posts
wait in a bounded queue (when it is full the oldest is dropped, and the log says so),
and a few workers post them: each try with a timeout, a failed one (no answer, a slow
one, 5xx, 429, an answer that is not HTTP) tried again after a doubling wait, up to
``attempts`` tries; a refusal (another 4xx) is not tried again. Nothing here touches
the store or the outbox, so a webhook that is down, slow or answers garbage cannot
delay or lose a mail.

Each try resolves the host and refuses it if any of its addresses is on this machine or
a private network (unless ``allow_private``), then connects to the address it checked,
so a name cannot be pointed at the LAN between the check and the connection. Redirects
are not followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import ssl
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit

from moderator.desk.webhooks import Post, address_problem, payload, url_problem

__all__ = ["WebhookError", "WebhookSender", "post_once"]

log = logging.getLogger(__name__)

#: Posts waiting at most; beyond it the oldest is dropped (a chat is a courtesy).
QUEUE_SIZE = 200
#: Posts made at once (one slow webhook leaves the others going).
WORKERS = 2
#: The most of an answer read: its status line and headers.
MAX_ANSWER = 16_384


class WebhookError(Exception):
    """A try failed; `retry` says whether another try may succeed."""

    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


@dataclass(frozen=True, slots=True)
class WebhookPolicy:
    """How posts are made: the timeout of a try, the tries, the first wait between."""

    timeout: float = 10.0
    attempts: int = 4
    retry_min: float = 5.0
    allow_private: bool = False


class WebhookSender:
    """The daemon's poster of webhook summaries (see the module's description)."""

    def __init__(self, policy: WebhookPolicy) -> None:
        self.policy = policy
        self._queue: deque[Post] = deque()
        self._ready = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.posted = 0  # posts delivered
        self.given_up = 0  # posts that failed every try, were refused, or were dropped

    def submit(self, post: Post) -> None:
        """Hand POST over (from any thread); it is posted from the sender's own task."""
        loop = self._loop
        if loop is None or loop.is_closed():
            log.warning("webhook of %s: no sender running; the post is dropped", post.game_id)
            return
        loop.call_soon_threadsafe(self._put, post)

    def _put(self, post: Post) -> None:
        if len(self._queue) >= QUEUE_SIZE:
            dropped = self._queue.popleft()
            self.given_up += 1
            log.warning("webhook queue full (%d): the oldest post (%s, move %d) is dropped",
                        QUEUE_SIZE, dropped.game_id, dropped.move)
        self._queue.append(post)
        self._ready.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Post until STOP is set (what is still queued then is dropped, logged)."""
        self._loop = asyncio.get_running_loop()
        workers = [asyncio.create_task(self._worker(stop)) for _ in range(WORKERS)]
        try:
            await stop.wait()
        finally:
            for worker in workers:
                worker.cancel()
            for worker in workers:
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
            if self._queue:
                log.warning("stopping with %d webhook posts not made", len(self._queue))
            self._loop = None

    async def _worker(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if not self._queue:
                self._ready.clear()
                await self._ready.wait()
                continue
            await self._deliver(self._queue.popleft())

    async def _deliver(self, post: Post) -> None:
        """POST with its tries; logged, never raised."""
        policy = self.policy
        wait = policy.retry_min
        host = urlsplit(post.url).hostname
        for attempt in range(1, policy.attempts + 1):
            try:
                status = await post_once(post, policy)
            except WebhookError as exc:
                last = attempt == policy.attempts or not exc.retry
                log.warning("webhook of %s at %s: try %d of %d failed: %s%s", post.game_id,
                            host, attempt, policy.attempts, exc,
                            "; given up" if last else f"; again in {wait:.0f}s")
                if last:
                    self.given_up += 1
                    return
                await asyncio.sleep(wait)
                wait *= 2
                continue
            self.posted += 1
            log.info("webhook of %s at %s: move %d posted (%d)", post.game_id, host,
                     post.move, status)
            return


async def post_once(post: Post, policy: WebhookPolicy) -> int:
    """One try of POST within the policy's timeout: the HTTP status of a 2xx answer;
    WebhookError otherwise."""
    try:
        return await asyncio.wait_for(_post(post, policy), policy.timeout)
    except TimeoutError:
        raise WebhookError(f"no answer within {policy.timeout:g}s", retry=True) from None
    except (OSError, ssl.SSLError) as exc:
        raise WebhookError(f"{type(exc).__name__}: {exc}", retry=True) from None


async def _post(post: Post, policy: WebhookPolicy) -> int:
    problem = url_problem(post.url, policy.allow_private)
    if problem is not None:
        raise WebhookError(problem, retry=False)
    parts = urlsplit(post.url)
    host = parts.hostname
    assert host is not None
    secure = parts.scheme.casefold() == "https"
    port = parts.port or (443 if secure else 80)
    address = await _checked_address(host, port, policy.allow_private)
    context = ssl.create_default_context() if secure else None
    reader, writer = await asyncio.open_connection(
        address, port, ssl=context, server_hostname=host if secure else None,
        limit=MAX_ANSWER)
    try:
        body = payload(post)
        target = parts.path or "/"
        if parts.query:
            target += f"?{parts.query}"
        netloc = host if ":" not in host else f"[{host}]"
        if parts.port:
            netloc += f":{parts.port}"
        head = (f"POST {target} HTTP/1.1\r\nHost: {netloc}\r\n"
                "User-Agent: pbem-18xx-moderator\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        writer.write(head.encode("ascii", "replace") + body)
        await writer.drain()
        status_line = await reader.readline()
        return _status(status_line)
    finally:
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()


def _status(line: bytes) -> int:
    """The status of an HTTP answer's first line; a 2xx passes, anything else raises."""
    words = line.decode("latin-1").split()
    if len(words) < 2 or not words[0].startswith("HTTP/") or not words[1].isdigit():
        raise WebhookError(f"the answer is not HTTP: {line[:60]!r}", retry=True)
    status = int(words[1])
    if 200 <= status < 300:
        return status
    # Rate limits and server trouble pass; any other refusal will not change by itself.
    retry = status == 429 or status >= 500
    raise WebhookError(f"HTTP {status}", retry=retry)


async def _checked_address(host: str, port: int, allow_private: bool) -> str:
    """An address of HOST to connect to, after checking every address it has."""
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(host, port, type=1)  # SOCK_STREAM
    except OSError as exc:
        raise WebhookError(f"{host} does not resolve ({exc})", retry=True) from None
    addresses = [str(info[4][0]) for info in found]
    if not addresses:
        raise WebhookError(f"{host} has no address", retry=True)
    if not allow_private:
        for text in addresses:
            problem = address_problem(ipaddress.ip_address(text.split("%")[0]))
            if problem is not None:
                raise WebhookError(f"{host}: {problem}", retry=False)
    return addresses[0]
