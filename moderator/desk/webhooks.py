"""A game's webhook: where each report's summary is posted for groups that live in chat.

The game master sets it by mail (`webhook URL [discord|slack|json]`, `webhook off`). It
is kept in the store's `meta` table under ``webhook:GAME`` (no schema change), with the
move the last post went up to, so each post tells what happened since the one before.

This module decides what is posted and checks the address; it does no network I/O.
The posts are handed over only after the mail's transaction commits
(`Answers.committed`), to the service's sender (`moderator.mail.webhook`), which posts
them from a task of its own: a webhook that is down or slow never delays mail.

Only http and https URLs are taken. The service is public, so an address on this
machine or a private network is refused (SSRF) unless the operator allows it
(``[moderator] webhook_allow_private``); the sender checks again, on every post, each
address the name resolves to.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from moderator.store import Store

__all__ = ["KINDS", "Hook", "Post", "WebhookRefused", "address_problem", "configure",
           "guess_kind", "hook", "payload", "set_hook", "summary_lines", "url_problem"]

Kind = Literal["discord", "slack", "json"]
KINDS: tuple[Kind, ...] = ("discord", "slack", "json")
#: A post names at most this many moves (a long timeout run is summarised).
MAX_LINES = 15
#: Discord refuses a message over 2000 characters; Slack truncates long ones.
MAX_TEXT = 1900


@dataclass(frozen=True, slots=True)
class Hook:
    """A game's webhook: where, in which form, and the move the last post went up to."""

    url: str
    kind: Kind
    posted: int = 0


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


def _key(game_id: str) -> str:
    return f"webhook:{game_id.casefold()}"


def hook(store: Store, game_id: str) -> Hook | None:
    """GAME_ID's webhook, if its game master set one."""
    raw = store.meta(_key(game_id))
    if not raw:
        return None
    data = json.loads(raw)
    return Hook(str(data["url"]), data["kind"], int(data.get("posted", 0)))


def set_hook(store: Store, game_id: str, value: Hook | None) -> None:
    """Set (or with None, remove) GAME_ID's webhook."""
    if value is None:
        store.execute("DELETE FROM meta WHERE key = ?", [_key(game_id)])
        return
    store.set_meta(_key(game_id), json.dumps(
        {"url": value.url, "kind": value.kind, "posted": value.posted}))


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


def summary_lines(entries: Sequence[str]) -> tuple[str, ...]:
    """At most MAX_LINES moves: the last ones, with how many came before them."""
    if len(entries) <= MAX_LINES:
        return tuple(entries)
    skipped = len(entries) - MAX_LINES + 1
    return (f"({skipped} earlier moves)", *entries[-(MAX_LINES - 1):])


class WebhookRefused(Exception):
    """A `webhook` order that cannot be done; the message says why."""


def configure(store: Store, game_id: str, next_move: int, url: str | None,
              form: str | None, allow_private: bool) -> tuple[str, str, Callable[[], None]]:
    """The game master's `webhook URL [FORM]` or `webhook off`: the answer, the line for
    everyone's report (players know where their game is posted; the URL itself, which
    holds the chat's key, is not repeated), and the change to make if the mail is
    accepted. Raises WebhookRefused."""
    if url is None:
        if hook(store, game_id) is None:
            raise WebhookRefused("the game has no webhook")
        return ("webhook off: reports are no longer posted",
                "The game master turned the webhook off: reports are no longer posted.",
                lambda: set_hook(store, game_id, None))
    problem = url_problem(url, allow_private)
    if problem is not None:
        raise WebhookRefused(problem)
    kind = next((k for k in KINDS if k == form), None) or guess_kind(url)
    host = urlsplit(url).hostname
    return (f"webhook set: each report's summary is posted to {host} ({kind})",
            f"The game master set a webhook: each report's summary is posted to {host}.",
            lambda: set_hook(store, game_id, Hook(url, kind, next_move)))
