"""Posting the games' report summaries to their webhooks, beside the mail, never in its way.

`WebhookSender.run` is a task of the daemon's loop. The processor's thread hands each
post over with `submit` (thread-safe) after its mail's transaction commits; the posts
wait in a bounded queue (when it is full the oldest is dropped, and the log says so),
and a few workers post them: each try with a timeout, a failed one (no answer, a slow
one, 5xx, 429, an answer that is not HTTP) tried again after a doubling wait, up to
``attempts`` tries; a refusal (another 4xx) is not tried again. Nothing here touches
the store or the outbox, so a webhook that is down, slow or answers garbage cannot
delay or lose a mail.

The address is judged once, when the game master sets the webhook (`judge`: the URL's
rules, then every address the system's resolver gives for the name, each refused if it
is on this machine or a private network unless ``allow_private``); the hook keeps the
addresses it checked and every post connects to them, checked again but never looked up
again (issue 31): a name cannot be pointed at the LAN after the check, and a post costs
no DNS query. TLS still verifies the name. A hook kept before that has no addresses:
its post looks the name up once, with the same checks, and connects to what it checked.
Redirects are not followed.

Each game has a queue of its own and posts from a task of its own (issue 31): a game
whose hook hangs delays only its own posts. A post has a total budget (``total``)
across its tries, so a hung hook holds its game's queue for seconds, not minutes.
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
           "address_problem", "guess_kind", "judge", "numeric_address", "payload",
           "post_once", "resolve", "url_problem"]

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
    #: The addresses judged when the hook was set (connected to without a look-up).
    addresses: tuple[str, ...] = ()

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
    name = host.casefold().rstrip(".")  # `localhost.` is localhost
    if name == "localhost" or name.endswith((".localhost", ".local", ".internal")):
        return f"{host} is this machine or a private network: the moderator posts " \
            "only to public addresses"
    address = numeric_address(host)
    if address is None:
        return None  # a name: its addresses are checked by `judge`
    return address_problem(address)


def numeric_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """HOST as the address a resolver reads in it, in any form it takes: `127.1`,
    `0x7f000001`, `2130706433`, `0177.0.0.1` and `0` are all IPv4 addresses to
    inet_aton (and to getaddrinfo), though `ipaddress` refuses them."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not all(c in "0123456789abcdefxABCDEFX." for c in host) or \
            not host[0].isdigit():
        return None  # a name (a name's labels cannot all be numbers)
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def resolve(host: str, port: int, allow_private: bool) -> tuple[str, ...]:
    """Every address of HOST, each checked (`address_problem`): the system's resolver,
    the one a post would use. WebhookError when it has none or one is refused."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise WebhookError(f"{host} does not resolve ({exc})", retry=True) from None
    return _checked(host, [str(info[4][0]) for info in found], allow_private)


def _checked(host: str, addresses: list[str], allow_private: bool) -> tuple[str, ...]:
    if not addresses:
        raise WebhookError(f"{host} has no address", retry=True)
    if not allow_private:
        for text in addresses:
            problem = address_problem(ipaddress.ip_address(text.split("%")[0]))
            if problem is not None:
                raise WebhookError(f"{host}: {problem}", retry=False)
    return tuple(dict.fromkeys(addresses))


def judge(url: str, allow_private: bool) -> tuple[str | None, tuple[str, ...]]:
    """Why URL cannot be a webhook (None: it can), and the addresses its posts go to:
    the URL's rules (`url_problem`), then every address its host resolves to."""
    problem = url_problem(url, allow_private)
    if problem is not None:
        return problem, ()
    parts = urlsplit(url)
    assert parts.hostname is not None
    port = parts.port or (443 if parts.scheme.casefold() == "https" else 80)
    try:
        return None, resolve(parts.hostname, port, allow_private)
    except WebhookError as exc:
        return str(exc), ()


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



#: Posts waiting at most per game; beyond it the oldest is dropped (a chat is a courtesy).
QUEUE_SIZE = 200
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
    #: Seconds one post may take over all its tries and waits.
    total: float = 30.0


class WebhookSender:
    """The daemon's poster of webhook summaries (see the module's description)."""

    def __init__(self, policy: WebhookPolicy) -> None:
        self.policy = policy
        self._queues: dict[str, deque[Post]] = {}  # by game, in order
        self._tasks: dict[str, asyncio.Task[None]] = {}  # the game's poster, while busy
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
        queue = self._queues.setdefault(post.game_id, deque())
        if len(queue) >= QUEUE_SIZE:
            dropped = queue.popleft()
            self.given_up += 1
            log.warning("webhook queue of %s full (%d): the oldest post (move %d) is "
                        "dropped", post.game_id, QUEUE_SIZE, dropped.move)
        queue.append(post)
        if post.game_id not in self._tasks:
            self._tasks[post.game_id] = asyncio.create_task(self._game(post.game_id))

    async def run(self, stop: asyncio.Event) -> None:
        """Post until STOP is set (what is still queued then is dropped, logged)."""
        self._loop = asyncio.get_running_loop()
        try:
            await stop.wait()
        finally:
            tasks = list(self._tasks.values())
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            left = sum(len(q) for q in self._queues.values())
            if left:
                log.warning("stopping with %d webhook posts not made", left)
            self._loop = None

    async def _game(self, game_id: str) -> None:
        """Post GAME_ID's queue in order, then end (the next post starts another)."""
        queue = self._queues[game_id]
        try:
            while queue:
                await self._deliver(queue.popleft())
        finally:
            if not queue:
                self._queues.pop(game_id, None)
            self._tasks.pop(game_id, None)

    async def _deliver(self, post: Post) -> None:
        """POST with its tries, within the policy's total; logged, never raised."""
        policy = self.policy
        loop = asyncio.get_running_loop()
        ends = loop.time() + policy.total
        wait = policy.retry_min
        host = urlsplit(post.url).hostname
        for attempt in range(1, policy.attempts + 1):
            left = ends - loop.time()
            try:
                if left <= 0:
                    raise WebhookError(f"its {policy.total:g}s are spent", retry=False)
                status = await post_once(post, policy, min(policy.timeout, left))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug must not stop the posts after this one
                if not isinstance(exc, WebhookError):
                    log.exception("webhook of %s at %s: the post failed", post.game_id, host)
                    exc = WebhookError(f"{type(exc).__name__}: {exc}", retry=False)
                last = (attempt == policy.attempts or not exc.retry
                        or loop.time() + wait >= ends)
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


async def post_once(post: Post, policy: WebhookPolicy, timeout: float | None = None) -> int:
    """One try of POST within TIMEOUT (the policy's by default): the HTTP status of a
    2xx answer; WebhookError otherwise."""
    timeout = policy.timeout if timeout is None else timeout
    try:
        return await asyncio.wait_for(_post(post, policy), timeout)
    except TimeoutError:
        raise WebhookError(f"no answer within {timeout:g}s", retry=True) from None
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
    address = (_checked(host, list(post.addresses), policy.allow_private)[0]
               if post.addresses else await _checked_address(host, port,
                                                              policy.allow_private))
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
    return _checked(host, [str(info[4][0]) for info in found], allow_private)[0]
