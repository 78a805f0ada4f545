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
import json
import logging
import socket
import ssl
from collections import deque
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["KINDS", "MAX_TEXT", "Post", "WebhookError", "WebhookPolicy", "WebhookSender",
           "address_problem", "guess_kind", "payload", "post_once", "url_problem"]

log = logging.getLogger(__name__)

Kind = Literal["discord", "slack", "json"]
KINDS: tuple[Kind, ...] = ("discord", "slack", "json")
#: Discord refuses a message over 2000 characters; Slack truncates long ones.
MAX_TEXT = 1900


@dataclass(frozen=True, slots=True)
class Post:
    """One summary to post: for game GAME_ID, to URL in KIND's form."""

    game_id: str
    url: str
    kind: Kind
    headline: str  # "OR 3.1: TC to move"
    lines: tuple[str, ...]  # what happened since the last post, one move a line
    move: int  # the game's next move
    to_move: str | None  # the seat to move (None at the end)
    game_over: bool
    moderator: str  # the service's name, for the chat's sender

    @property
    def text(self) -> str:
        """The summary as one chat message."""
        head = f"[{self.game_id}] {self.headline}"
        body = "\n".join(self.lines)
        text = f"{head}\n{body}" if body else head
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "\u2026"


def guess_kind(url: str) -> Kind:
    """The form a URL expects when the game master does not say: Discord's and Slack's
    own webhook addresses are known; anything else gets the plain JSON."""
    parts = urlsplit(url)
    host = (parts.hostname or "").casefold()
    if host.endswith(("discord.com", "discordapp.com")) and "/api/webhooks/" in parts.path:
        return "discord"
    if host == "hooks.slack.com":
        return "slack"
    return "json"


def url_problem(url: str, allow_private: bool) -> str | None:
    """Why URL cannot be a webhook, or None. Names are checked again when posting,
    against every address they resolve to (`address_problem`)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"{url} is not a URL ({exc})"
    if parts.scheme.casefold() not in ("http", "https"):
        return "a webhook must be an http or https URL"
    host = parts.hostname
    if not host:
        return f"{url} names no host"
    if port == 0:
        return f"{url} names port 0"
    if allow_private:
        return None
    if host.casefold() == "localhost" or host.casefold().endswith((".localhost", ".local",
                                                                   ".internal")):
        return f"{host} is this machine or a private network: the moderator posts " \
            "only to public addresses"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: its addresses are checked when posting
    return address_problem(address)


def address_problem(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why the moderator does not post to ADDRESS (loopback, private, link-local ...)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback or address.is_private or address.is_link_local or \
            address.is_multicast or address.is_reserved or address.is_unspecified or \
            not address.is_global:
        return f"{address} is this machine or a private network: the moderator posts " \
            "only to public addresses"
    return None


def payload(post: Post) -> bytes:
    """The body posted: Discord's and Slack's message forms, or the plain JSON."""
    body: dict[str, object]
    if post.kind == "discord":
        # No @everyone or role pings from text the players wrote.
        body = {"content": post.text, "username": post.moderator[:80],
                "allowed_mentions": {"parse": []}}
    elif post.kind == "slack":
        escaped = post.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        body = {"text": escaped}
    else:
        body = {"game": post.game_id, "headline": post.headline, "move": post.move,
                "to_move": post.to_move, "game_over": post.game_over,
                "moves": list(post.lines), "text": post.text}
    return json.dumps(body).encode()



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
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug must not stop the posts after this one
                if not isinstance(exc, WebhookError):
                    log.exception("webhook of %s at %s: the post failed", post.game_id, host)
                    exc = WebhookError(f"{type(exc).__name__}: {exc}", retry=False)
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
    except (OSError, ssl.SSLError, ValueError) as exc:  # ValueError: an endless line
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
        found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
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
